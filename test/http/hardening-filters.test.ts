/**
 * Backtracking LIKE patterns and spatial literals past int64, on the service as a child process
 * (as test/http/hardening.test.ts).
 *
 * Backtracking LIKE: a short LIKE filter (`'aaa…' LIKE '%a%a…%b'`) held the event loop for 26.5 s on a raster
 * zone list, ran 77.8 s in DuckDB on the directory lake and 61.8 s on the object-store lake,
 * because every engine matched LIKE by backtracking. Each request here is answered with the
 * right rows (none for the false variant, all for the true one, DuckDB's own count for a LIKE
 * on data) while a concurrent GET /conformance keeps answering within 200 ms; a pattern past the
 * bounds is a 400 naming the bound.
 *
 * Spatial literals past int64: a coordinate past 2^63 (`BBOX(0,0,1e19,1e19)`) was a 500 "bigint out of
 * int64 range" (a 502 through the remote collection) on items, zone data, zone lists, the
 * cross-collection POST and CQL2-JSON. Each is a 400 naming the CRS84 rule, a box across the
 * antimeridian is answered, and a big number elsewhere (`temperature > 1e19`) is a comparison.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import type { FuzzRequest, FuzzResponse } from '../../scripts/fuzz/http-client.js';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';
import { CQL2_LIMITS } from '../../src/domain/cql2/limits.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';
import { answerUnderLoad } from '../support/under-load.js';

/** How long one request may take before the test gives up on it (the fixed service answers each in well under a second). */
const WINDOW_MS = 20_000;
const q = encodeURIComponent;
const a = (n: number) => 'a'.repeat(n);
/** Backtracking filters: a literal LIKE whose pattern backtracks on every `%a` (false as written, true with the `b` appended). */
const backtrackingLike = (n: number, wildcards: number, value = a(n)) => `'${value}' LIKE '${'%a'.repeat(wildcards)}%b'`;
const RULE = /-180 <= longitude <= 180 and -90 <= latitude <= 90/;
const HUGE_BBOX = 'S_INTERSECTS(geometry,BBOX(0,0,1e19,1e19))';
const HUGE_BBOX_JSON = JSON.stringify({ op: 's_intersects', args: [{ property: 'geometry' }, { bbox: [0, 0, 1e19, 1e19] }] });

describe('HTTP: hardening of filters — LIKE in linear time, spatial literals checked', function () {
  this.timeout(240_000);
  let srv: ServerProcess;
  let s3srv: ServerProcess;
  let s3: LoopbackS3;
  let allRows: number;
  let lakeFiles: string;

  before(async function () {
    this.timeout(180_000);
    const root = mkdtempSync(path.join(tmpdir(), 'hardening-filters-lake-'));
    await ensureDemoLake(root);
    s3 = await startLoopbackS3();
    await s3.upload(root, 'lakes/demo');
    [srv, s3srv] = await Promise.all([
      startServerProcess(),
      startServerProcess({ config: { lake: { root: `s3://${s3.bucket}/lakes/demo`, s3: { ...s3.options, listCacheSeconds: 60 } } } }),
    ]);
    lakeFiles = `read_parquet('${path.join(REPO_ROOT, 'data/demo/lake/demo-stations/**/*.parquet')}')`;
    allRows = Number((await duckdb(`SELECT count(*) FROM ${lakeFiles}`))[0]![0]);
  });
  after(async () => {
    await Promise.all([srv?.stop(), s3srv?.stop()]);
    await s3?.close();
  });

  async function duckdb(sql: string): Promise<unknown[][]> {
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      return (await c.runAndReadAll(sql)).getRows();
    } finally {
      c.closeSync();
    }
  }

  const answer = (server: ServerProcess, req: FuzzRequest, what: string) => answerUnderLoad(server, req, what, WINDOW_MS, 8 * 2 ** 20);

  const get = (p: string): FuzzRequest => ({ method: 'GET', path: p, headers: [] });
  const post = (p: string, body: unknown): FuzzRequest => ({ method: 'POST', path: p, headers: [['Content-Type', 'application/json']], body: Buffer.from(JSON.stringify(body)) });

  function ok(res: FuzzResponse, what: string): Record<string, any> {
    expect(res.status, `${what}: ${res.body.subarray(0, 400).toString()}`).to.equal(200);
    return JSON.parse(res.body.toString('utf8'));
  }

  function refused(res: FuzzResponse, hint: RegExp, what: string): void {
    expect(res.status, `${what}: ${res.body.subarray(0, 400).toString()}`).to.equal(400);
    expect(apiErrorProblem(res.status, String(res.headers['content-type'] ?? ''), res.body, res.bodyBytes), `${what}: ApiError body`).to.equal(undefined);
    expect(JSON.parse(res.body.toString('utf8')).hint, what).to.match(hint);
  }

  describe('LIKE never backtracks', () => {
    const ZONES = '/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=3&f=json';

    it("raster zone list: the 68-character filter that once held the loop for 26.5 s keeps no zone, its true variant every zone, and the loop is never held", async () => {
      const all = ok(await answer(srv, get(ZONES), 'unfiltered'), 'unfiltered').zones as string[];
      expect(all.length).to.be.above(0);
      const none = ok(await answer(srv, get(`${ZONES}&filter=${q(backtrackingLike(34, 11))}`), 'backtracking LIKE, raster'), 'backtracking LIKE, raster');
      expect(none.zones).to.deep.equal([]);
      const every = ok(await answer(srv, get(`${ZONES}&filter=${q(backtrackingLike(34, 11, `${a(34)}b`))}`), 'backtracking LIKE, raster, true'), 'backtracking LIKE, raster, true');
      expect(every.zones).to.deep.equal(all);
    });

    for (const [lake, server, n, wildcards] of [
      ['directory lake (DuckDB)', () => srv, 36, 12],
      ['object-store lake', () => s3srv, 20, 7],
    ] as const) {
      it(`${lake} items: the backtracking filter matches no row, its true variant every row`, async () => {
        const items = '/collections/demo-stations/items?limit=1&f=json';
        const none = ok(await answer(server(), get(`${items}&filter=${q(backtrackingLike(n, wildcards))}`), `backtracking LIKE, ${lake}`), `backtracking LIKE, ${lake}`);
        expect(none.numberMatched).to.equal(0);
        const every = ok(await answer(server(), get(`${items}&filter=${q(backtrackingLike(n, wildcards, `${a(n)}b`))}`), `backtracking LIKE, ${lake}, true`), `backtracking LIKE, ${lake}, true`);
        expect(every.numberMatched).to.equal(allRows);
      });

      it(`${lake} items: LIKE on data (wildcards at the bound, escapes, CASEI) counts what DuckDB's own LIKE counts`, async () => {
        for (const pattern of [`${'%a'.repeat(CQL2_LIMITS.maxLikeWildcards - 1)}%`, '%o%a%', '%a_e%', 'Oak%', '%\\_%']) {
          const [[expected]] = (await duckdb(`SELECT count(*) FROM ${lakeFiles} WHERE name LIKE '${pattern}' ESCAPE '\\'`)) as [[bigint]];
          const res = await answer(server(), get(`/collections/demo-stations/items?limit=1&f=json&filter=${q(`name LIKE '${pattern}'`)}`), `${lake} ${pattern}`);
          expect(ok(res, pattern).numberMatched, pattern).to.equal(Number(expected));
        }
        const [[folded]] = (await duckdb(`SELECT count(*) FROM ${lakeFiles} WHERE lower(name) LIKE '%bay 1%'`)) as [[bigint]];
        expect(Number(folded)).to.be.above(0);
        const res = await answer(server(), get(`/collections/demo-stations/items?limit=1&f=json&filter=${q("CASEI(name) LIKE CASEI('%BAY 1%')")}`), `${lake} CASEI`);
        expect(ok(res, 'CASEI').numberMatched).to.equal(Number(folded));
      });

      it(`${lake} items: a pattern past a bound is a 400 naming it`, async () => {
        const items = '/collections/demo-stations/items?limit=1';
        refused(await answer(server(), get(`${items}&filter=${q(backtrackingLike(36, CQL2_LIMITS.maxLikeWildcards))}`), 'wildcards'), new RegExp(`at most ${CQL2_LIMITS.maxLikeWildcards} are allowed \\(the bound\\)`), 'wildcards');
        refused(await answer(server(), get(`${items}&filter=${q(`name LIKE '${a(CQL2_LIMITS.maxLikePattern + 1)}'`)}`), 'length'), new RegExp(`at most ${CQL2_LIMITS.maxLikePattern} are allowed \\(the bound\\)`), 'length');
      });
    }
  });

  describe('a filter on raster values: a STAC zone list computed under 88 ancestor zones (found by npm run fuzz)', () => {
    const ZONES = '/collections/demo-ndvi/dggs/IVEA7H/zones?zone-level=6&limit=10000&f=json';

    it('is answered while the loop stays free (each ancestor read gives a turn; 600 ms held before), and the kept zones and the rest split the list', async () => {
      const kept = ok(await answer(srv, get(`${ZONES}&filter=${q('ndvi >= 5e-324')}`), 'STAC >='), 'STAC >=').zones as string[];
      const rest = ok(await answer(srv, get(`${ZONES}&filter=${q('ndvi < 5e-324')}`), 'STAC <'), 'STAC <').zones as string[];
      const all = ok(await answer(srv, get(ZONES), 'unfiltered'), 'unfiltered').zones as string[];
      expect(kept.length).to.be.above(0);
      expect(rest.filter((z) => kept.includes(z))).to.deep.equal([]);
      expect([...kept, ...rest].every((z) => all.includes(z))).to.equal(true);
    });
  });

  describe('spatial literals are CRS84 places, big numbers are numbers', () => {
    const cases: [string, () => ServerProcess, FuzzRequest][] = [
      ['items', () => srv, get(`/collections/demo-stations/items?filter=${q(HUGE_BBOX)}`)],
      ['items, CQL2-JSON', () => srv, get(`/collections/demo-stations/items?filter-lang=cql2-json&filter=${q(HUGE_BBOX_JSON)}`)],
      ['zone data', () => srv, get(`/collections/demo-stations/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1&filter=${q(HUGE_BBOX)}`)],
      ['zone list', () => srv, get(`/collections/demo-stations/dggs/IVEA7H/zones?zone-level=4&filter=${q(HUGE_BBOX)}`)],
      ['zone list, CQL2-JSON', () => srv, get(`/collections/demo-stations/dggs/IVEA7H/zones?zone-level=4&filter-lang=cql2-json&filter=${q(HUGE_BBOX_JSON)}`)],
      ['cross-collection POST', () => srv, post('/dggs/IVEA7H/zones/E4-120-A/data', { collections: [{ id: 'demo-stations', fields: ['temperature'], filter: HUGE_BBOX }] })],
      ['cross-collection POST, CQL2-JSON', () => srv, post('/dggs/IVEA7H/zones/E4-120-A/data', { collections: [{ id: 'demo-stations', fields: ['temperature'], filter: JSON.parse(HUGE_BBOX_JSON) }] })],
      ['remote collection, zone list', () => srv, get(`/collections/demo-stations-remote/dggs/IVEA7H/zones?zone-level=4&filter=${q(HUGE_BBOX)}`)],
      ['remote collection, zone data', () => srv, get(`/collections/demo-stations-remote/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1&filter=${q(HUGE_BBOX)}`)],
      ['raster zone list', () => srv, get(`/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=3&filter=${q(HUGE_BBOX)}`)],
      ['object-store lake items', () => s3srv, get(`/collections/demo-stations/items?filter=${q(HUGE_BBOX)}`)],
    ];
    for (const [what, server, req] of cases) {
      it(`${what}: BBOX(0,0,1e19,1e19) is a 400 naming the CRS84 rule`, async () => {
        refused(await answer(server(), req, what), RULE, what);
      });
    }

    it('a point off the Earth and a non-finite coordinate are 400s too', async () => {
      refused(await answer(srv, get(`/collections/demo-stations/items?filter=${q('S_INTERSECTS(geometry, POINT(0 91))')}`), 'latitude'), /latitude 91 is outside/, 'latitude');
      refused(await answer(srv, get(`/collections/demo-stations/items?filter=${q('S_INTERSECTS(geometry, POINT(1e400 0))')}`), 'infinite'), /not a finite number/, 'infinite');
    });

    it('a box across the antimeridian (west > east) is answered with the rows DuckDB counts in its two halves', async () => {
      const count = async (where: string) => Number(((await duckdb(`SELECT count(*) FROM ${lakeFiles} WHERE ${where}`)) as [[bigint]])[0][0]);
      const items = '/collections/demo-stations/items?limit=1&f=json&filter=';
      const across = ok(await answer(srv, get(`${items}${q('S_INTERSECTS(geometry, BBOX(20, 40, -170, 50))')}`), 'antimeridian'), 'antimeridian');
      const expected = await count('((bbox.xmin BETWEEN 20 AND 180) OR (bbox.xmin BETWEEN -180 AND -170)) AND bbox.ymin BETWEEN 40 AND 50');
      expect(expected).to.be.above(0);
      expect(across.numberMatched).to.equal(expected);
    });

    it('temperature > 1e19 and < 1e19 are comparisons: no row above, every row below (items, zone list; the remote collection too)', async () => {
      const items = '/collections/demo-stations/items?limit=1&f=json&filter=';
      expect(ok(await answer(srv, get(`${items}${q('temperature > 1e19')}`), 'items >'), 'items >').numberMatched).to.equal(0);
      const [[withTemperature]] = (await duckdb(`SELECT count(*) FROM ${lakeFiles} WHERE temperature IS NOT NULL`)) as [[bigint]];
      expect(ok(await answer(srv, get(`${items}${q('temperature < 1e19')}`), 'items <'), 'items <').numberMatched).to.equal(Number(withTemperature));
      const zones = (collection: string) => `/collections/${collection}/dggs/IVEA7H/zones?zone-level=3&bbox=5,44,9,47&f=json`;
      const all = ok(await answer(srv, get(zones('demo-stations')), 'zone list'), 'zone list').zones as string[];
      expect(all.length).to.be.above(0);
      expect(ok(await answer(srv, get(`${zones('demo-stations')}&filter=${q('temperature < 1e19')}`), 'zone list <'), 'zone list <').zones).to.deep.equal(all);
      // A zone list's filter tests each zone's own values: the remote collection's are computed from
      // every feature in the interval, so one hour keeps its reads within remoteBackends.maxFeatures.
      const hour = `&datetime=${q('2024-01-05T00:00:00Z/2024-01-05T01:00:00Z')}`;
      for (const collection of ['demo-stations', 'demo-stations-remote']) {
        const withValue = ok(await answer(srv, get(`${zones(collection)}${hour}&filter=${q('temperature < 1e19')}`), `${collection} <`), `${collection} <`).zones as string[];
        expect(withValue, `${collection} <`).to.not.be.empty;
        expect(ok(await answer(srv, get(`${zones(collection)}${hour}&filter=${q('temperature > 1e19')}`), `${collection} >`), `${collection} >`).zones).to.deep.equal([]);
      }
    });
  });
});
