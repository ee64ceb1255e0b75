import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

const LAKE = path.join(REPO_ROOT, 'data/demo/lake');
const ITEMS = '/collections/demo-stations/items';
const TOTAL = 186_000;

type Json = Record<string, any>;

function lakeDigest(): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p).update(readFileSync(p));
    }
  };
  walk(LAKE);
  return h.digest('hex');
}

async function duck<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`SET TimeZone = 'UTC'`);
    return (await c.runAndReadAll(sql)).getRowObjectsJson() as T[];
  } finally {
    c.closeSync();
  }
}

describe('items (parquet lake)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let digest: string;
  const get = async (p: string, headers: Record<string, string> = {}) => s.get(p, headers);
  const getJson = async (p: string): Promise<Json> => {
    const r = await get(p);
    const body = (await r.json()) as Json;
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  const status = async (p: string) => {
    const r = await get(p);
    return { status: r.status, body: (await r.json()) as Json };
  };

  before(async () => {
    await ensureDemoLake(LAKE);
    digest = lakeDigest();
    s = await startTestServer();
  });
  after(async () => {
    await s.close();
    expect(lakeDigest(), 'the lake files are untouched').to.equal(digest);
  });

  describe('formats', () => {
    it('answers a GeoJSON FeatureCollection by default, with next but no prev on the first page', async () => {
      const r = await get(ITEMS);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/geo\+json/);
      const b = (await r.json()) as Json;
      expect(b.type).to.equal('FeatureCollection');
      expect(b.numberMatched).to.equal(TOTAL);
      expect(b.numberReturned).to.equal(10);
      expect(b.features.map((f: Json) => f.id)).to.deep.equal([...Array(10).keys()]);
      const f = b.features[0];
      expect(f.geometry.type).to.equal('Point');
      expect(f.geometry.coordinates[0]).to.be.within(-10, 30);
      expect(f.geometry.coordinates[1]).to.be.within(35, 60);
      expect(f.properties).to.include.keys('station_id', 'name', 'temperature', 'humidity', 'wind_speed', 'datetime');
      expect(f.properties).to.not.have.keys('geometry');
      expect(f.properties).to.not.have.property('bbox');
      expect(f.properties.datetime).to.match(/^2024-01-\d\dT\d\d:00:00\.000Z$/);
      const rels = b.links.map((l: Json) => l.rel);
      expect(rels).to.include.members(['self', 'next', 'alternate', 'collection']);
      expect(rels).to.not.include('prev');
      expect(typeof b.timeStamp).to.equal('string');
    });

    it('answers raw rows with files, row counts, columns and a WKB hex preview for f=json', async () => {
      const b = await getJson(`${ITEMS}?f=json&limit=3&offset=2`);
      expect(b).to.include({ collection: 'demo-stations', source: 'demo-stations/data/**/*.parquet', numberMatched: TOTAL, numberReturned: 3, limit: 3, offset: 2 });
      expect(b.files).to.have.length(5);
      expect(b.files.reduce((n: number, f: Json) => n + f.rows, 0)).to.equal(TOTAL);
      expect(b.files[0].file).to.equal('demo-stations/data/week=01/observations.parquet');
      expect(b.columns).to.deep.equal(['station_id', 'name', 'temperature', 'humidity', 'wind_speed', 'datetime', 'geometry']);
      expect(b.items[0].geometry).to.match(/^0101000000[0-9a-f]{32}$/);
    });

    it('returns one item as Feature and as raw JSON, equal to the page entry at that offset', async () => {
      const page = await getJson(`${ITEMS}?offset=41995&limit=10`); // spans the first two files
      const f = await getJson(`${ITEMS}/41999`);
      expect(f.type).to.equal('Feature');
      expect(f.id).to.equal(41999);
      expect(f.properties).to.deep.equal(page.features[4].properties);
      expect(f.geometry).to.deep.equal(page.features[4].geometry);
      const raw = await getJson(`${ITEMS}/42000?f=json`);
      expect(raw).to.include({ collection: 'demo-stations', feature_id: 42000, numberMatched: TOTAL });
      expect(raw.item.station_id).to.equal(page.features[5].properties.station_id);
    });

    it('renders HTML tables for the page and the item', async () => {
      const r = await get(`${ITEMS}?f=html&limit=5`);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^text\/html/);
      const text = await r.text();
      expect(text).to.contain('<table>').and.to.contain('station_id').and.to.contain('next');
      const one = await get(`${ITEMS}/3?f=html`);
      expect(one.status).to.equal(200);
      expect(await one.text()).to.contain('temperature');
    });

    it('writes GeoParquet pages that DuckDB opens with the geometry recognised', async () => {
      const r = await get(`${ITEMS}?f=geoparquet&limit=25&offset=100&properties=station_id,temperature`);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/vnd.geo+parquet');
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'items-')), 'page.parquet');
      writeFileSync(file, Buffer.from(await r.arrayBuffer()));
      const rows = await duck<Json>(`SELECT typeof(geometry) AS t, station_id, temperature FROM read_parquet('${file}')`);
      expect(rows).to.have.length(25);
      expect(rows[0]!.t).to.match(/^GEOMETRY/);
      const kv = await duck<Json>(`SELECT decode(value) AS v FROM parquet_kv_metadata('${file}') WHERE decode(key) = 'geo'`);
      const geo = JSON.parse(kv[0]!.v);
      expect(geo.primary_column).to.equal('geometry');
      expect(geo.columns.geometry.encoding).to.equal('WKB');
      const page = await getJson(`${ITEMS}?f=json&limit=25&offset=100`);
      expect(rows.map((x) => x.station_id)).to.deep.equal(page.items.map((x: Json) => x.station_id));
    });

    it('writes plain parquet pages (geometry only when asked) and single-row files', async () => {
      const r = await get(`${ITEMS}?f=parquet&limit=4`);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/vnd.apache.parquet');
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'items-')), 'page.parquet');
      writeFileSync(file, Buffer.from(await r.arrayBuffer()));
      const rows = await duck<Json>(`SELECT * FROM read_parquet('${file}')`);
      expect(rows).to.have.length(4);
      expect(Object.keys(rows[0]!)).to.include('temperature');
      const one = await get(`${ITEMS}/7?f=geoparquet`);
      const file2 = path.join(mkdtempSync(path.join(tmpdir(), 'items-')), 'one.parquet');
      writeFileSync(file2, Buffer.from(await one.arrayBuffer()));
      expect(await duck(`SELECT * FROM read_parquet('${file2}')`)).to.have.length(1);
    });

    it('refuses png and tiff with 406', async () => {
      for (const f of ['png', 'tiff']) {
        expect((await status(`${ITEMS}?f=${f}`)).status).to.equal(406);
        expect((await status(`${ITEMS}/1?f=${f}`)).status).to.equal(406);
      }
    });

    it('lists the lake columns as queryables', async () => {
      const q = await getJson('/collections/demo-stations/queryables');
      expect(q.properties).to.include.keys('station_id', 'temperature', 'datetime', 'geometry');
      expect(q.properties.temperature.type).to.equal('number');
      expect(q.properties.datetime).to.include({ type: 'string', format: 'date-time' });
      expect(q.properties.geometry.format).to.equal('geometry-point');
    });

    it('declares the Features and CQL2 conformance classes', async () => {
      const c = await getJson('/conformance');
      expect(c.conformsTo).to.include.members([
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
        'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
        'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
      ]);
    });
  });

  describe('selection and paging', () => {
    it('keeps and drops columns; geometry stays for GeoJSON unless excluded', async () => {
      const b = await getJson(`${ITEMS}?properties=station_id,temperature&limit=2`);
      expect(Object.keys(b.features[0].properties)).to.deep.equal(['station_id', 'temperature']);
      expect(b.features[0].geometry.type).to.equal('Point');
      const x = await getJson(`${ITEMS}?exclude-properties=geometry,name&limit=2`);
      expect(x.features[0].geometry).to.equal(null);
      expect(x.features[0].properties).to.not.have.property('name');
      const j = await getJson(`${ITEMS}?properties=station_id&f=json&limit=1`);
      expect(j.columns).to.deep.equal(['station_id']);
    });

    it('walks next to the end seeing every matching row exactly once, links carrying every parameter', async () => {
      const filter = encodeURIComponent("temperature > 2 AND name LIKE 'P%'");
      let url: string | undefined = `${s.base}${ITEMS}?bbox=0,45,10,50&datetime=2024-01-05T00:00:00Z/2024-01-20T00:00:00Z&filter=${filter}&properties=station_id,datetime,temperature&limit=37&f=json`;
      const seen = new Set<string>();
      const ids: number[] = [];
      let matched = -1;
      while (url) {
        const r = await fetch(url);
        const b = (await r.json()) as Json;
        expect(r.status, JSON.stringify(b)).to.equal(200);
        matched = b.numberMatched;
        for (const it of b.items) seen.add(`${it.station_id}@${it.datetime}`);
        ids.push(...b.items.map((_: Json, i: number) => b.offset + i));
        const self = new URL(b.links.find((l: Json) => l.rel === 'self').href);
        for (const k of ['bbox', 'datetime', 'filter', 'properties', 'limit', 'f']) expect(self.searchParams.has(k), k).to.equal(true);
        url = b.links.find((l: Json) => l.rel === 'next')?.href;
      }
      const files = path.join(LAKE, 'demo-stations/data/*/*.parquet');
      const [expected] = await duck<{ n: string }>(
        `SELECT count(*) AS n FROM read_parquet('${files}') WHERE bbox.xmin <= 10 AND bbox.xmax >= 0 AND bbox.ymin <= 50 AND bbox.ymax >= 45
           AND datetime BETWEEN TIMESTAMP '2024-01-05 00:00:00' AND TIMESTAMP '2024-01-20 00:00:00' AND temperature > 2 AND name LIKE 'P%'`,
      );
      expect(matched).to.equal(Number(expected!.n));
      expect(matched).to.be.greaterThan(100);
      expect(seen.size).to.equal(matched);
      expect(ids).to.deep.equal([...Array(matched).keys()]);
    });

    it('pages the tail with offset = numberMatched - limit', async () => {
      const first = await getJson(`${ITEMS}?filter=${encodeURIComponent("station_id = 'ST0042'")}&limit=5&f=json`);
      const n = first.numberMatched;
      expect(n).to.equal(93);
      const tail = await getJson(`${ITEMS}?filter=${encodeURIComponent("station_id = 'ST0042'")}&limit=5&offset=${n - 5}&f=json`);
      expect(tail.numberReturned).to.equal(5);
      expect(tail.links.map((l: Json) => l.rel)).to.include('prev').and.not.include('next');
      const times = tail.items.map((x: Json) => x.datetime);
      const last = await getJson(`${ITEMS}/${n - 1}?filter=${encodeURIComponent("station_id = 'ST0042'")}&f=json`);
      expect(last.item.datetime).to.equal(times[4]);
      const whole = await getJson(`${ITEMS}?limit=5&offset=${TOTAL - 5}&f=json`);
      expect(whole.numberReturned).to.equal(5);
      const beyond = await getJson(`${ITEMS}?limit=5&offset=${TOTAL + 10}&f=json`);
      expect(beyond.numberReturned).to.equal(0);
    });

    it('numbers items within the filtered set', async () => {
      const q = `filter=${encodeURIComponent('humidity > 90')}&datetime=2024-01-10/2024-01-12`;
      const page = await getJson(`${ITEMS}?${q}&limit=3&offset=4`);
      const one = await getJson(`${ITEMS}/5?${q}`);
      expect(one.properties).to.deep.equal(page.features[1].properties);
      expect(one.properties.humidity).to.be.greaterThan(90);
      expect((await status(`${ITEMS}/${page.numberMatched}?${q}`)).status).to.equal(404);
    });

    it('accepts CQL2-JSON and spatial predicates', async () => {
      const json = encodeURIComponent(JSON.stringify({ op: 'and', args: [{ op: '=', args: [{ property: 'station_id' }, 'ST0042'] }, { op: '<', args: [{ property: 'wind_speed' }, 100] }] }));
      const b = await getJson(`${ITEMS}?filter-lang=cql2-json&filter=${json}&limit=1`);
      expect(b.numberMatched).to.equal(93);
      const p = b.features[0].geometry.coordinates as number[];
      const box = `S_INTERSECTS(geometry, BBOX(${p[0]! - 0.001}, ${p[1]! - 0.001}, ${p[0]! + 0.001}, ${p[1]! + 0.001}))`;
      const near = await getJson(`${ITEMS}?filter=${encodeURIComponent(box)}&limit=1`);
      expect(near.numberMatched % 93).to.equal(0);
      expect(near.numberMatched).to.be.greaterThan(0);
    });
  });

  describe('exact bbox and spatial filters, settled in the database', () => {
    /**
     * Expected rows from DuckDB alone: every row's point decoded from its WKB (ST_AsText, parsed
     * with a regular expression), compared with the box; keys in scan order.
     */
    async function expectedKeys(where: string, page = ''): Promise<string[]> {
      const files = path.join(LAKE, 'demo-stations/data/*/*.parquet');
      const rows = await duck<{ k: string }>(`
        WITH p AS (
          SELECT filename, file_row_number AS r, station_id || '@' || strftime(datetime, '%Y-%m-%dT%H:%M:%S.000Z') AS k,
            regexp_extract(ST_AsText(geometry), '^POINT \\(([^ ]+) ([^ )]+)\\)$', ['x', 'y']) AS xy
          FROM read_parquet('${files}', filename = true, file_row_number = true)),
        q AS (SELECT filename, r, k, xy.x::DOUBLE AS x, xy.y::DOUBLE AS y FROM p)
        SELECT k FROM q WHERE ${where} ORDER BY filename, r ${page}`);
      return rows.map((r) => r.k);
    }

    /** Every page of the answer, following offsets, as keys. */
    async function allKeys(query: string, limit = 1000): Promise<{ matched: number; keys: string[] }> {
      const keys: string[] = [];
      let matched = -1;
      for (let offset = 0; matched < 0 || offset < matched; offset += limit) {
        const b = await getJson(`${ITEMS}?${query}&properties=station_id,datetime&f=json&limit=${limit}&offset=${offset}`);
        matched = b.numberMatched;
        keys.push(...b.items.map((it: Json) => `${it.station_id}@${it.datetime}`));
      }
      return { matched, keys };
    }

    it('bbox answers equal the rows whose decoded point lies in the closed box, edges included, in scan order', async () => {
      // A box whose edges pass through stations, so rows lie exactly on them.
      const [corner] = await duck<{ x: number; y: number }>(
        `SELECT xy.x::DOUBLE AS x, xy.y::DOUBLE AS y FROM (SELECT regexp_extract(ST_AsText(geometry), '^POINT \\(([^ ]+) ([^ )]+)\\)$', ['x', 'y']) AS xy
           FROM read_parquet('${path.join(LAKE, 'demo-stations/data/week=01/observations.parquet')}') LIMIT 1 OFFSET 500)`,
      );
      const { x, y } = corner!;
      const [east, north] = [x + 1.5, y + 1.25];
      const onEdges = await expectedKeys(`(x = ${x} OR y = ${y}) AND x BETWEEN ${x} AND ${east} AND y BETWEEN ${y} AND ${north}`);
      expect(onEdges.length, 'rows on the edges').to.be.greaterThan(0);
      for (const [bbox, where] of [
        [`${x},${y},${east},${north}`, `x BETWEEN ${x} AND ${east} AND y BETWEEN ${y} AND ${north}`],
        ['0,45,10,50', 'x BETWEEN 0 AND 10 AND y BETWEEN 45 AND 50'],
        ['29,30,-9,70', '(x >= 29 OR x <= -9) AND y BETWEEN 30 AND 70'],
      ] as const) {
        const want = await expectedKeys(where);
        const got = await allKeys(`bbox=${bbox}`);
        expect(got.matched, bbox).to.equal(want.length);
        expect(got.keys, bbox).to.deep.equal(want);
      }
    });

    it('pages anywhere in a large bbox answer, tail included, equal to the same rows of the whole', async () => {
      const where = 'x BETWEEN -180 AND 180 AND y BETWEEN -90 AND 90';
      expect(await expectedKeys(where, `LIMIT 3 OFFSET ${TOTAL - 2}`)).to.have.length(2);
      for (const offset of [0, 41_995, 93_000, TOTAL - 7]) {
        const b = await getJson(`${ITEMS}?bbox=-180,-90,180,90&properties=station_id,datetime&f=json&limit=7&offset=${offset}`);
        expect(b.numberMatched).to.equal(TOTAL);
        const want = await expectedKeys(where, `LIMIT 7 OFFSET ${offset}`);
        expect(b.items.map((it: Json) => `${it.station_id}@${it.datetime}`), `offset ${offset}`).to.deep.equal(want);
      }
    });

    it('CQL2 rectangles and other polygons give the exact answers too', async () => {
      const rect = await allKeys(`filter=${encodeURIComponent('S_WITHIN(geometry, POLYGON((5 45, 5 47, 9 47, 9 45, 5 45)))')}`);
      expect(rect.keys).to.deep.equal(await expectedKeys('x > 5 AND x < 9 AND y > 45 AND y < 47'));
      // A triangle: the rows in its envelope get the exact test in the service.
      const tri = await allKeys(`filter=${encodeURIComponent('S_INTERSECTS(geometry, POLYGON((5 45, 9 45, 5 49, 5 45)))')}`);
      expect(tri.keys).to.deep.equal(await expectedKeys('x >= 5 AND y >= 45 AND x + y <= 54'));
      expect(tri.matched).to.be.greaterThan(100);
    });
  });

  describe('errors and injection', () => {
    it('answers 400 for an invalid collection id and 404 for a collection without lake data', async () => {
      for (const id of ['..%2F..%2Fetc', '..%2Fdemo-stations', "demo-stations'--", 'demo-stations%00', 'a%20b']) {
        const r = await status(`/collections/${id}/items`);
        expect(r.status, id).to.equal(400);
        expect(r.body.code).to.equal(400);
        expect((await status(`/collections/${id}/items/0`)).status, id).to.equal(400);
      }
      expect((await status('/collections/nope/items')).status).to.equal(404);
      expect((await status('/collections/demo-elevation/items')).status).to.equal(404);
      expect((await status('/collections/nope/items/0')).status).to.equal(404);
    });

    it('answers 404 past the last feature and 400 for a malformed feature_id', async () => {
      expect((await status(`${ITEMS}/${TOTAL}`)).status).to.equal(404);
      expect((await status(`${ITEMS}/${TOTAL - 1}`)).status).to.equal(200);
      for (const fid of ['-1', '1.5', '1%20OR%201%3D1', "1'%3B--", '0x10', '99999999999999999999']) {
        expect((await status(`${ITEMS}/${fid}`)).status, fid).to.equal(400);
      }
    });

    it('answers LIKE on a number column with 400 and compares number literals beyond 2^53 as doubles', async () => {
      const like = await status(`${ITEMS}?filter=${encodeURIComponent("temperature LIKE 'a%'")}`);
      expect(like.status).to.equal(400);
      expect(like.body.hint).to.match(/temperature.*LIKE/);
      // 1e300 and 1e20 are integral JS numbers; bound as integers they overflowed BIGINT (a 500).
      for (const [f, matched] of [['temperature > 1e300', 0], ['temperature < 1e300', -1], ['humidity > 99999999999999999999', 0]] as const) {
        const r = await status(`${ITEMS}?limit=1&filter=${encodeURIComponent(f)}`);
        expect(r.status, f).to.equal(200);
        const n = (r.body as unknown as { numberMatched: number }).numberMatched;
        if (matched === 0) expect(n, f).to.equal(0);
        else expect(n, f).to.be.greaterThan(0);
      }
    });

    it('answers 400 for bad parameters, naming the valid properties', async () => {
      const bad = await status(`${ITEMS}?properties=station_id,nope`);
      expect(bad.status).to.equal(400);
      expect(bad.body.hint).to.contain('nope').and.to.contain('temperature');
      const badFilter = await status(`${ITEMS}?filter=${encodeURIComponent('nope > 1')}`);
      expect(badFilter.status).to.equal(400);
      expect(badFilter.body.hint).to.contain('temperature');
      for (const q of ['limit=1001', 'limit=-1', 'limit=abc', 'offset=-5', 'bbox=1,2,3', 'bbox=0,50,10,40', 'datetime=yesterday', 'datetime=2024-02-30', 'filter-lang=sql', 'filter=temperature%20%3E', 'filter-lang=cql2-json&filter=%7Bnope']) {
        const r = await status(`${ITEMS}?${q}`);
        expect(r.status, q).to.equal(400);
        expect(r.body).to.have.keys('code', 'message', 'hint');
      }
    });

    it('answers an empty column selection: GeoJSON keeps ids and geometry, a selection of nothing is 400 naming the columns', async () => {
      for (const q of ['properties=', 'properties=,', 'properties=%20,%20']) {
        const b = await getJson(`${ITEMS}?${q}&limit=2`);
        expect(b.features, q).to.have.length(2);
        expect(b.features[0].properties, q).to.deep.equal({});
        expect(b.features[0].geometry.type, q).to.equal('Point');
        const one = await getJson(`${ITEMS}/3?${q}`);
        expect(one.properties, q).to.deep.equal({});
      }
      for (const q of ['exclude-properties=,', 'exclude-properties=']) expect((await getJson(`${ITEMS}?${q}&limit=1`)).features[0].properties, q).to.have.property('station_id');
      const all = 'station_id,name,temperature,humidity,wind_speed,datetime';
      for (const q of [
        'properties=&f=json',
        'properties=,&f=parquet',
        `exclude-properties=${all},geometry`,
        `exclude-properties=${all},geometry&f=json`,
        'properties=station_id&exclude-properties=station_id&f=json',
        'properties=geometry&exclude-properties=geometry',
      ]) {
        for (const route of [ITEMS, `${ITEMS}/3`]) {
          const r = await status(`${route}?${q}`);
          expect(r.status, `${route}?${q}`).to.equal(400);
          expect(r.body.code).to.equal(400);
          expect(r.body.hint, q).to.contain('station_id').and.to.contain('wind_speed');
        }
      }
    });

    it('refuses deep, long and wide CQL2 with 400 naming the bound', async () => {
      const deep = `${'('.repeat(1000)}temperature > 1${')'.repeat(1000)}`;
      const nots = `${'NOT '.repeat(1000)}temperature > 1`;
      const json = `${'{"op":"not","args":['.repeat(300)}{"op":">","args":[{"property":"temperature"},1]}${']}'.repeat(300)}`;
      const wide = `temperature IN (${Array.from({ length: 1001 }, (_, i) => i).join(',')})`;
      for (const [q, bound] of [
        [`filter=${encodeURIComponent(deep)}`, '64 levels'],
        [`filter=${encodeURIComponent(nots)}`, '64 levels'],
        [`filter-lang=cql2-json&filter=${encodeURIComponent(json)}`, '64 levels'],
        [`filter=${encodeURIComponent(wide)}`, '1000 values'],
      ]) {
        const r = await status(`${ITEMS}?${q}`);
        expect(r.status, bound).to.equal(400);
        expect(r.body.hint, bound).to.contain(bound);
      }
      expect((await getJson(`${ITEMS}?filter=${encodeURIComponent(`${'('.repeat(20)}temperature > 1${')'.repeat(20)}`)}&limit=1`)).numberMatched).to.be.greaterThan(0);
    });

    it('rejects or harmlessly binds SQL injection attempts', async () => {
      const bound = [
        "name = 'x'' OR ''1''=''1'",
        "name = 'x'') OR 1=1 --'",
        "station_id = 'ST0001''; DROP TABLE t; --'",
        "name LIKE '%'' UNION SELECT * FROM read_csv(''/etc/passwd'') --'",
      ];
      for (const f of bound) {
        const b = await getJson(`${ITEMS}?filter=${encodeURIComponent(f)}&f=json&limit=1`);
        expect(b.numberMatched, f).to.equal(0);
      }
      const rejected = [
        'temperature > 0; DROP TABLE x',
        'temperature > 0 OR 1=1 --',
        '"temperature" > 0) OR (1=1',
        "read_csv('/etc/passwd') = 1",
        'temperature > (SELECT 1)',
      ];
      for (const f of rejected) expect((await status(`${ITEMS}?filter=${encodeURIComponent(f)}`)).status, f).to.equal(400);
      for (const q of [
        `properties=${encodeURIComponent('station_id" FROM x; --')}`,
        `exclude-properties=${encodeURIComponent("name'); DROP TABLE x; --")}`,
        `bbox=${encodeURIComponent('0,0,1,1); DROP TABLE x; --')}`,
        `datetime=${encodeURIComponent("2024-01-01' OR '1'='1")}`,
        `limit=${encodeURIComponent('1; DROP TABLE x')}`,
        `offset=${encodeURIComponent('0 OR 1=1')}`,
      ]) {
        expect((await status(`${ITEMS}?${q}`)).status, q).to.equal(400);
      }
      expect((await getJson(ITEMS)).numberMatched).to.equal(TOTAL);
    });
  });
});
