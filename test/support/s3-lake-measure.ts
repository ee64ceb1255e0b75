/**
 * Times items pages and lake zone data on the demo lake, local (DuckDB lake) against the same
 * lake on a loopback S3 server (object-store lake), in one run, requests interleaved.
 *
 * Run: sh scripts/node.sh --import tsx test/support/s3-lake-measure.ts [rounds]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './test-server.js';
import { startLoopbackS3 } from './s3-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

const rounds = Number(process.argv[2] ?? 15);
const REQUESTS: [string, string][] = [
  ['items page (limit 100, offset 50000)', '/collections/demo-stations/items?f=json&limit=100&offset=50000'],
  ['items page, bbox + datetime', '/collections/demo-stations/items?f=json&limit=100&bbox=5,45,10,48&datetime=2024-01-10T00:00:00Z/2024-01-20T00:00:00Z'],
  ['items page, CQL2 filter (count over all rows)', `/collections/demo-stations/items?f=json&limit=100&filter=${encodeURIComponent('humidity > 90 AND wind_speed < 5')}`],
  ['lake zone data E4-120-A depth 2', '/collections/demo-stations/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=2'],
  ['lake zone data D2-6-B depth 3', '/collections/demo-stations/dggs/IVEA7H/zones/D2-6-B/data?zone-depth=3'],
];

const root = mkdtempSync(path.join(tmpdir(), 's3-lake-measure-'));
await ensureDemoLake(root);
const s3 = await startLoopbackS3();
await s3.upload(root, 'demo');
const local = await startTestServer({ lake: { root } });
const remote = await startTestServer({ lake: { root: `s3://${s3.bucket}/demo`, s3: s3.options } });

async function time(s: TestServer, p: string): Promise<number> {
  const t = performance.now();
  const r = await s.get(p);
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
  return performance.now() - t;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`demo lake (186,000 rows, 5 files, zstd), ${rounds} rounds, median ms; S3 = s3rver on loopback`);
for (const [name, p] of REQUESTS) {
  await time(local, p);
  const before = s3.bytesSent();
  await time(remote, p); // warm: footers cached, listing reused
  const firstBytes = s3.bytesSent() - before;
  const a: number[] = [], b: number[] = [];
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    a.push(await time(local, p));
    const sent = s3.bytesSent();
    b.push(await time(remote, p));
    bytes += s3.bytesSent() - sent;
  }
  const [la, rb] = [median(a), median(b)];
  console.log(`${name.padEnd(48)} local ${la.toFixed(1).padStart(7)}  s3 ${rb.toFixed(1).padStart(7)}  ratio ${(rb / la).toFixed(2)}  s3 bytes/request ${(bytes / rounds / 1024).toFixed(0)} KiB (first ${(firstBytes / 1024).toFixed(0)} KiB)`);
}
await Promise.all([local.close(), remote.close()]);
await s3.close();
