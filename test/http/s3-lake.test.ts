/**
 * The service with `lake.root = s3://...`: items and lake zone data through the object-store
 * lake (S3ParquetLake on s3rver over loopback) answer exactly what the same lake on disk (the
 * DuckDB lake) answers, in every format, for filters of every kind; and the object store is
 * really what is read.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

const ITEMS = '/collections/demo-stations/items';
const ZONE_DATA = '/collections/demo-stations/dggs/IVEA7H/zones';

const q = (s: string) => encodeURIComponent(s);

/** Columns, their types, the rows and the `geo` metadata of a parquet body (base64), as DuckDB reads them. */
async function parquetContent(base64: string): Promise<unknown> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 's3-lake-page-')), 'page.parquet');
  writeFileSync(file, Buffer.from(base64, 'base64'));
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`SET TimeZone = 'UTC'`);
    const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    const geo = (await c.runAndReadAll(`SELECT decode(value) FROM parquet_kv_metadata('${file}') WHERE decode(key) = 'geo'`)).getRows();
    return { columns: r.columnNames().map((n, i) => `${n} ${r.columnType(i).toString()}`), rows: r.getRowsJson(), geo };
  } finally {
    c.closeSync();
  }
}

describe('an s3:// lake root serves items and lake zone data as the same lake on disk does', function () {
  this.timeout(120_000);
  let s3: LoopbackS3;
  let local: TestServer;
  let remote: TestServer;

  before(async () => {
    const root = mkdtempSync(path.join(tmpdir(), 's3-lake-http-'));
    await ensureDemoLake(root);
    s3 = await startLoopbackS3();
    await s3.upload(root, 'lakes/demo');
    local = await startTestServer({ lake: { root } });
    remote = await startTestServer({ lake: { root: `s3://${s3.bucket}/lakes/demo`, s3: { ...s3.options, listCacheSeconds: 60 } } });
  });
  after(async () => {
    await Promise.all([local?.close(), remote?.close()]);
    await s3?.close();
  });

  /** Status, type and body of both servers, links made base-independent. */
  async function both(p: string): Promise<[{ status: number; type: string | null; body: string }, { status: number; type: string | null; body: string }]> {
    const one = async (s: TestServer) => {
      const r = await s.get(p);
      const bytes = Buffer.from(await r.arrayBuffer());
      const type = r.headers.get('content-type');
      const body = /parquet/.test(type ?? '') ? bytes.toString('base64') : bytes.toString('utf8').replaceAll(s.base, 'BASE').replace(/"timeStamp":"[^"]*"/, '"timeStamp":"T"');
      return { status: r.status, type, body };
    };
    return [await one(local), await one(remote)];
  }

  const same = [
    `${ITEMS}?limit=10`,
    `${ITEMS}?f=json&limit=7&offset=37195`,
    `${ITEMS}?f=json&limit=3&offset=185998`,
    `${ITEMS}/123456?f=json`,
    `${ITEMS}?bbox=5,45,6,46&limit=20&offset=3`,
    `${ITEMS}?bbox=29,59,40,70&f=json&limit=50`,
    `${ITEMS}?datetime=2024-01-10T00:00:00Z/2024-01-12T00:00:00Z&limit=5&offset=100&f=json`,
    `${ITEMS}?datetime=2024-01-31T16:00:00Z&f=json&limit=3`,
    `${ITEMS}?filter=${q('humidity > 90')}&datetime=2024-01-10/2024-01-12&limit=3&offset=4&f=json`,
    `${ITEMS}/5?filter=${q('humidity > 90')}&datetime=2024-01-10/2024-01-12`,
    `${ITEMS}?filter-lang=cql2-json&filter=${q(JSON.stringify({ op: 'and', args: [{ op: '=', args: [{ property: 'station_id' }, 'ST0042'] }, { op: '<', args: [{ property: 'wind_speed' }, 100] }] }))}&limit=2&f=json`,
    `${ITEMS}?filter=${q('S_INTERSECTS(geometry, POLYGON((5 45, 7 45, 5 47, 5 45)))')}&limit=5&offset=10&f=json`,
    `${ITEMS}?filter=${q("name LIKE 'Oak%' AND temperature BETWEEN -2 AND 3.5 AND T_AFTER(datetime, TIMESTAMP('2024-01-20T00:00:00Z'))")}&limit=4&f=json`,
    `${ITEMS}?filter=${q("station_id IN ('ST0001', 'ST0002') OR wind_speed * 2 >= 27.5")}&limit=4&offset=2&f=json`,
    `${ITEMS}?filter=${q('datetime = DATE(\'2024-01-05\') AND NOT humidity < 50')}&limit=3&f=json`,
    `${ITEMS}?properties=station_id,temperature&limit=3&offset=99`,
    `${ITEMS}?f=geoparquet&limit=25&offset=100&properties=station_id,temperature`,
    `${ITEMS}?f=parquet&limit=4&offset=40000`,
    `${ITEMS}?filter=${q('nope = 1')}`,
    `${ITEMS}?filter=${q('S_CROSSES(geometry, 7)')}`,
    `${ITEMS}/999999`,
    '/collections/demo-stations/queryables',
    `${ZONE_DATA}/E4-120-A/data?zone-depth=2`,
    `${ZONE_DATA}/E4-120-A/data?zone-depth=1-3&datetime=2024-01-03T00:00:00Z/2024-01-09T00:00:00Z`,
    `${ZONE_DATA}/E4-120-A/data?zone-depth=2&filter=${q('humidity > 60')}&properties=temperature,wind_speed`,
    `${ZONE_DATA}/E4-120-A/data?zone-depth=2&f=geo%2Bjson`,
    `${ZONE_DATA}/D2-6-B/data?zone-depth=3&f=parquet`,
    `${ZONE_DATA}/E4-120-A`,
    `${ZONE_DATA}?zone-level=4&f=json`,
    `${ZONE_DATA}?zone-level=5&bbox=5,44,9,47&filter=${q('temperature < -1')}&f=json`,
  ];

  for (const p of same) {
    it(`answers alike: ${decodeURIComponent(p).slice(0, 140)}`, async () => {
      const [a, b] = await both(p);
      expect(a.status, a.body.slice(0, 400)).to.equal(/nope|S_CROSSES/.test(p) ? 400 : p.endsWith('/999999') ? 404 : 200);
      expect(b.status, b.body.slice(0, 400)).to.equal(a.status);
      expect(b.type).to.equal(a.type);
      if (/parquet/.test(a.type ?? '')) {
        expect(await parquetContent(b.body)).to.deep.equal(await parquetContent(a.body));
        return;
      }
      expect(b.body).to.equal(a.body);
    });
  }

  it('reads through the object store (the server sends bytes for a new page) and a refused filter is 400', async () => {
    const before = s3.bytesSent();
    const r = await remote.get(`${ITEMS}?f=json&limit=5&offset=150000`);
    expect(r.status).to.equal(200);
    expect(s3.bytesSent()).to.be.greaterThan(before);
    const bad = await remote.get(`${ITEMS}?filter=${q("temperature > 'warm'")}`);
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { hint: string }).hint).to.contain('cannot compare a number with a string');
  });
});
