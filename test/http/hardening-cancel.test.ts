/**
 * Lake work stops when its client leaves, and is bounded in time (a backtracking LIKE once ran 78 s
 * in DuckDB, on after its client had left). The service runs
 * as a child process over a lake of a million rows, with a filter that costs every row hundreds
 * of powers (seconds of DuckDB work, whatever LIKE costs). What the work does after the client
 * has gone is read from the child's CPU time (all its threads: DuckDB's, the binning workers',
 * the event loop's): a query still running keeps at least one core busy, a stopped one leaves
 * the process idle.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { send, type FuzzRequest, type SendResult } from '../../scripts/fuzz/http-client.js';
import { startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { slowFilterText, writeSlowLake } from '../contracts/lake-reader.contract.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';

/** limits.lakeQuerySeconds of the service under test: longer than the abandoned requests are watched. */
const BUDGET_SECONDS = 5;
/** CPU time the idle service may use in one second of wall time (timers, a garbage collection). */
const IDLE_CPU_MS = 100;
/**
 * CPU time a running slow request takes at least in its first 1.2 s: a sixth of a core, as the
 * machine may be busy with other work (a query left running goes on at that rate, above IDLE_CPU_MS).
 */
const BUSY_CPU_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BIG = { id: 'big', title: 'A million rows', extent: { spatial: { bbox: [[0, 45, 4, 49]] } }, backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } };
/**
 * The idle memory release's one last-resort collection (server.idleMemoryReleaseMiB) would come
 * a second after the work stops, inside the second the CPU is watched: off here.
 */
const NO_IDLE_RELEASE = { idleMemoryReleaseMiB: 0 };
const get = (path: string): FuzzRequest => ({ method: 'GET', path, headers: [] });
const slow = encodeURIComponent(slowFilterText());

/** CPU time (user + system, ms) of every thread of a process so far: fields 14 and 15 of /proc/<pid>/stat, in ticks of 10 ms. */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The child's CPU time over `ms` of wall time. */
async function cpuOf(srv: ServerProcess, ms: number): Promise<number> {
  const before = processCpuMs(srv.pid);
  await sleep(ms);
  return processCpuMs(srv.pid) - before;
}

/** Sends `n` requests, lets them run `runMs`, then gives up on them (the client closes its sockets); the child's CPU meanwhile. */
async function abandonAfter(srv: ServerProcess, path: string | FuzzRequest, n: number, runMs: number): Promise<{ busyCpuMs: number; results: Promise<SendResult[]> }> {
  const ctl = new AbortController();
  const request = typeof path === 'string' ? get(path) : path;
  const results = Promise.all(Array.from({ length: n }, () => send(new URL(srv.base), request, { timeoutMs: 60_000, signal: ctl.signal })));
  await sleep(300);
  const busyCpuMs = await cpuOf(srv, runMs - 300);
  ctl.abort();
  return { busyCpuMs, results };
}

describe('HTTP: lake work stops when its client leaves, and within limits.lakeQuerySeconds', function () {
  this.timeout(120_000);
  let srv: ServerProcess;
  let base: URL;
  let zone: string;

  before(async function () {
    this.timeout(120_000);
    const root = await writeSlowLake();
    srv = await startServerProcess({
      config: {
        server: NO_IDLE_RELEASE,
        lake: { root },
        limits: { lakeQuerySeconds: BUDGET_SECONDS },
        collections: [BIG],
      },
    });
    base = new URL(srv.base);
    const res = await fetch(`${srv.base}/dggs/IVEA7H/zones?zone-level=3&bbox=1.7,46.9,1.9,47.1`);
    zone = ((await res.json()) as { zones: string[] }).zones[0]!;
  });
  after(async () => {
    await srv?.stop();
  });

  // Row filters make the lake work slow: items, and zone data through the cross-collection body,
  // whose filter restricts the rows (a zone-data GET's filter tests each sub-zone's values instead).
  // A zone list's filter computes the zone data of the zones' ancestors: lake work too.
  const SLOW: [string, () => FuzzRequest][] = [
    ['items', () => get(`/collections/big/items?limit=1&filter=${slow}`)],
    ['zone data', () => ({ method: 'POST', path: `/dggs/IVEA7H/zones/${zone}/data`, headers: [['content-type', 'application/json']], body: Buffer.from(JSON.stringify({ collections: [{ id: 'big', fields: ['v'], filter: slowFilterText() }] })) })],
    ['a zone list filter', () => get(`/collections/big/dggs/IVEA7H/zones?zone-level=5&bbox=0,45,4,49&filter=${slow}`)],
  ];

  const cpuOver = (ms: number) => cpuOf(srv, ms);
  const abandon = (path: string | FuzzRequest, n: number, runMs: number) => abandonAfter(srv, path, n, runMs);

  for (const [what, path] of SLOW) {
    it(`${what}: the query stops within a second of the client leaving (the service falls back to idle)`, async () => {
      const { busyCpuMs, results } = await abandon(path(), 1, 1500);
      const gone = await results;
      expect(gone[0]!.error?.kind, `the slow request was still running when the client left: ${gone[0]!.response?.status}`).to.equal('client');
      expect(busyCpuMs, 'CPU ms the service used while the slow request ran (1.2 s): the query really works').to.be.above(BUSY_CPU_MS);
      await sleep(1000);
      const after = await cpuOver(1000);
      expect(after, 'CPU ms the service used in the second after the one after the client left').to.be.below(IDLE_CPU_MS);
    });
  }

  it('zone data and zone lists whose clients leave while rows are being binned: the service lives on and falls idle', async () => {
    const binning = [`/collections/big/dggs/IVEA7H/zones/${zone}/data?zone-depth=4`, '/collections/big/dggs/IVEA7H/zones?zone-level=7&bbox=0,45,4,49&filter=v%20%3E%3D%200'];
    for (const path of binning) {
      for (const leaveMs of [100, 250, 400, 550, 700]) {
        const ctl = new AbortController();
        const sent = Promise.all(Array.from({ length: 3 }, () => send(base, get(path), { timeoutMs: 60_000, signal: ctl.signal })));
        await sleep(leaveMs);
        ctl.abort();
        await sent;
      }
    }
    await sleep(1000);
    expect(srv.alive(), `the service died: ${srv.logTail().slice(-6).join('\n')}`).to.equal(true);
    expect(await cpuOver(1000), 'CPU ms of the service in the second after the one after the last client left').to.be.below(IDLE_CPU_MS);
    const done = await send(base, get(binning[0]!), { timeoutMs: 60_000 });
    expect(done.response?.status, done.error?.message).to.equal(200);
  });

  it('a plain items request is served at once while four abandoned slow requests were holding the lake', async () => {
    const { busyCpuMs, results } = await abandon(SLOW[0]![1](), 4, 1500);
    expect(busyCpuMs, 'CPU ms the service used while the slow requests ran (1.2 s)').to.be.above(BUSY_CPU_MS);
    const asked = performance.now();
    const plain = await send(base, get('/collections/big/items?limit=2'), { timeoutMs: 60_000 });
    const waited = performance.now() - asked;
    expect(plain.response?.status, plain.error?.message).to.equal(200);
    expect(JSON.parse(plain.response!.body.toString()).features.map((f: { properties: { v: number } }) => f.properties.v)).to.deep.equal([0, 1]);
    expect(waited, 'ms the plain request waited after the four clients left').to.be.below(1500);
    await results;
  });

  it(`lake work past limits.lakeQuerySeconds (${BUDGET_SECONDS} s here) stops and answers 503 with Retry-After, naming the key`, async () => {
    for (const [what, path] of SLOW.slice(0, 2)) {
      const r = await send(base, path(), { timeoutMs: 60_000 });
      const res = r.response;
      expect(res?.status, `${what}: ${r.error?.message ?? res?.body.toString().slice(0, 300)}`).to.equal(503);
      expect(apiErrorProblem(res!.status, String(res!.headers['content-type'] ?? ''), res!.body, res!.bodyBytes), 'ApiError body').to.equal(undefined);
      expect(Number(res!.headers['retry-after']), 'Retry-After').to.be.at.least(1);
      expect(JSON.parse(res!.body.toString()).hint).to.contain('limits.lakeQuerySeconds');
      expect(res!.ms, `${what}: answered once the budget passed`).to.be.below((BUDGET_SECONDS + 3) * 1000);
      await sleep(1000);
      expect(await cpuOver(1000), `${what}: CPU ms of the service in the second after the second after the 503`).to.be.below(IDLE_CPU_MS);
    }
  });
});

describe('HTTP: object-store lake work stops when its client leaves', function () {
  this.timeout(120_000);
  let s3: LoopbackS3;
  let srv: ServerProcess;

  before(async function () {
    this.timeout(120_000);
    s3 = await startLoopbackS3();
    await s3.upload(await writeSlowLake(), 'slow');
    srv = await startServerProcess({ config: { server: NO_IDLE_RELEASE, lake: { root: `s3://${s3.bucket}/slow`, s3: s3.options }, collections: [BIG] } });
  });
  after(async () => {
    await srv?.stop();
    await s3?.close();
  });

  it('items: the reads and the filter stop within a second of the client leaving (the service falls back to idle)', async () => {
    const { busyCpuMs, results } = await abandonAfter(srv, `/collections/big/items?limit=1&filter=${slow}`, 1, 1500);
    const gone = await results;
    expect(gone[0]!.error?.kind, `the slow request was still running when the client left: ${gone[0]!.response?.status}`).to.equal('client');
    expect(busyCpuMs, 'CPU ms the service used while the slow request ran (1.2 s)').to.be.above(BUSY_CPU_MS);
    await sleep(1000);
    expect(await cpuOf(srv, 1000), 'CPU ms the service used in the second after the one after the client left').to.be.below(IDLE_CPU_MS);
  });
});
