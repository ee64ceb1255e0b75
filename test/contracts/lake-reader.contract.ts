/**
 * What every LakeReader adapter must do, run against a small lake written here: scan order,
 * paging, counts, filters, streaming, missing data, ids that try to leave the root, and work
 * that stops when its signal aborts.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { LakeNotFoundError, LakeQueryError, type LakePageRequest, type LakeReader } from '../../src/ports/lake-reader.js';

const lakeCollection = (id: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } });

/** Three files (two in a sub-folder) of 10, 20 and 30 rows; `v` is the global scan index. */
export async function writeContractLake(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'lake-contract-'));
  const dir = path.join(root, 'c1', 'data');
  mkdirSync(path.join(dir, 'p=2'), { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const files: [string, number, number][] = [[path.join(dir, 'p=1.parquet'), 0, 10], [path.join(dir, 'p=2', 'a.parquet'), 10, 30], [path.join(dir, 'p=2', 'b.parquet'), 30, 60]];
  for (const [file, from, to] of files) {
    await c.run(`COPY (SELECT i AS v, 'r' || i AS label, TIMESTAMP '2024-01-01' + to_hours(i::BIGINT) AS datetime,
        st_aswkb(CAST('POINT (' || (i % 10) || ' ' || (i // 10) || ')' AS GEOMETRY)) AS geometry FROM range(${from}, ${to}) t(i) ORDER BY i)
      TO '${file}' (FORMAT parquet)`);
  }
  // Escapes that must stay invisible: a symlinked file and folder pointing outside the root.
  const outside = mkdtempSync(path.join(tmpdir(), 'lake-outside-'));
  await c.run(`COPY (SELECT 999 AS v) TO '${path.join(outside, 'secret.parquet')}' (FORMAT parquet)`);
  symlinkSync(path.join(outside, 'secret.parquet'), path.join(dir, 'p=2', 'z-link.parquet'));
  symlinkSync(outside, path.join(dir, 'zz-outside'));
  // The same odd geometries twice: `c2` with a GeoParquet bbox covering, `c3` without one.
  for (const [id, covering] of [['c2', true], ['c3', false]] as const) {
    const d = path.join(root, id, 'data');
    mkdirSync(d, { recursive: true });
    const geo = JSON.stringify({
      version: '1.1.0',
      primary_column: 'geometry',
      columns: { geometry: { encoding: 'WKB', geometry_types: [], ...(covering ? { covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } : {}) } },
    });
    const half = Math.ceil(ODD_ROWS.length / 2);
    for (const [file, rows] of [['a.parquet', ODD_ROWS.slice(0, half)], ['b.parquet', ODD_ROWS.slice(half)]] as const) {
      const n = (x: number | string) => `'${x}'::DOUBLE`;
      const values = rows.map(([v, wkb, env]) => `(${v}, ${wkb}, ${env ? `{'xmin': ${n(env[0])}, 'ymin': ${n(env[1])}, 'xmax': ${n(env[2])}, 'ymax': ${n(env[3])}}` : 'NULL'})`);
      const select = `SELECT v, geometry${covering ? ', bbox' : ''} FROM (VALUES ${values.join(', ')}) t(v, geometry, bbox) ORDER BY v`;
      await c.run(`COPY (${select}) TO '${path.join(d, file)}' (FORMAT parquet, ROW_GROUP_SIZE 4, KV_METADATA {geo: '${geo}'})`);
    }
  }
  c.closeSync();
  return root;
}

/**
 * A lake whose work takes long: collection `big`, `rows` rows of `v` (the row number), `x` (a
 * number no row-group statistic groups usefully) and a point among a few hundred, in one file.
 */
export async function writeSlowLake(rows = 1_000_000): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'lake-slow-'));
  mkdirSync(path.join(root, 'big', 'data'), { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (SELECT i AS v, (i * 7919) % 1000003 * 0.001 AS x,
      st_aswkb(CAST('POINT (' || (i % 37) * 0.1 || ' ' || (45 + (i % 41) * 0.1) || ')' AS GEOMETRY)) AS geometry FROM range(0, ${rows}) t(i))
    TO '${path.join(root, 'big', 'data', 'rows.parquet')}' (FORMAT parquet)`);
  c.closeSync();
  return root;
}

/**
 * A CQL2 filter that no row matches and no statistic settles, costing each row `terms` powers:
 * seconds of work over the slow lake's million rows, in SQL and in JS alike, whatever LIKE costs.
 */
export function slowFilterText(terms = 400): string {
  return Array.from({ length: terms }, (_, i) => `x*v^1.${i}=${i}.5`).join(' OR ');
}

/**
 * Starts work with a signal, aborts it after `runMs` (the work must still be running then), and
 * expects the work to reject with the abort's reason within a second.
 */
export async function expectStopsOnAbort(start: (signal: AbortSignal) => Promise<unknown>, runMs: number): Promise<void> {
  const ctl = new AbortController();
  const outcome = start(ctl.signal).then(() => 'finished before the abort', (e: unknown) => e);
  await new Promise((r) => setTimeout(r, runMs));
  const reason = new Error('the client left');
  const abortedAt = performance.now();
  ctl.abort(reason);
  expect(await outcome).to.equal(reason);
  expect(performance.now() - abortedAt, 'ms from the abort to the rejection').to.be.below(1000);
}

const wkt = (text: string) => `ST_AsWKB(CAST('${text}' AS GEOMETRY))`;
/**
 * `[v, WKB SQL, envelope]`: points inside, on and just off the box [0, 0, 2, 2], an empty point,
 * a NULL, lines and polygons, a Z point, a big-endian point, points by the antimeridian.
 */
const ODD_ROWS: [number, string, [number, number, number, number] | null][] = [
  [0, wkt('POINT (1 1)'), [1, 1, 1, 1]],
  [1, wkt('POINT (2 2)'), [2, 2, 2, 2]],
  [2, wkt('POINT (2.0000001 1)'), [2.0000001, 1, 2.0000001, 1]],
  [3, `unhex('0101000000000000000000F87F000000000000F87F')`, ['NaN', 'NaN', 'NaN', 'NaN'] as never],
  [4, 'NULL', null],
  [5, wkt('LINESTRING (-1 3, 3 -1)'), [-1, -1, 3, 3]],
  [6, wkt('LINESTRING (3 3, 4 4)'), [3, 3, 4, 4]],
  [7, wkt('POLYGON ((-1 -1, 3 -1, 3 3, -1 3, -1 -1))'), [-1, -1, 3, 3]],
  [8, wkt('POLYGON ((2.5 0, 3 0, 3 1, 2.5 0))'), [2.5, 0, 3, 1]],
  [9, wkt('POLYGON ((1.6 2.5, 3 1.1, 3 2.5, 1.6 2.5))'), [1.6, 1.1, 3, 2.5]],
  [10, wkt('POINT (0 0)'), [0, 0, 0, 0]],
  [11, wkt('POINT Z (1 1 7)'), [1, 1, 1, 1]],
  [12, `unhex('00000000013FF00000000000003FF0000000000000')`, [1, 1, 1, 1]],
  [13, wkt('POINT (179.5 0)'), [179.5, 0, 179.5, 0]],
  [14, wkt('POINT (-179.5 0)'), [-179.5, 0, -179.5, 0]],
  [15, wkt('POINT (180 0)'), [180, 0, 180, 0]],
  [16, wkt('POINT (-180 0)'), [-180, 0, -180, 0]],
];


/** `make` gets the local lake written here; an adapter for another store copies it there first. */
export function lakeReaderContract(name: string, make: (root: string) => LakeReader | Promise<LakeReader>): void {
  describe(`LakeReader contract: ${name}`, function () {
    this.timeout(30_000);
    let lake: LakeReader;
    const c1 = lakeCollection('c1');

    before(async () => {
      lake = await make(await writeContractLake());
    });
    after(() => lake.close());

    it('close releases the engine, and the reader starts again on the next call', async () => {
      const before = await lake.describe(c1);
      await lake.close();
      await lake.close();
      expect(await lake.describe(c1)).to.deep.equal(before);
    });

    it('describes the files in path order with their row counts and columns, never following links out of the root', async () => {
      const d = await lake.describe(c1);
      expect(d.files).to.deep.equal([
        { file: 'c1/data/p=1.parquet', rows: 10 },
        { file: 'c1/data/p=2/a.parquet', rows: 20 },
        { file: 'c1/data/p=2/b.parquet', rows: 30 },
      ]);
      expect(d.totalRows).to.equal(60);
      expect(d.columns.map((x) => x.name)).to.deep.equal(['v', 'label', 'datetime', 'geometry']);
      expect(d.geometryColumn).to.equal('geometry');
      expect(d.datetimeColumn).to.equal('datetime');
    });

    it('pages in scan order across file boundaries', async () => {
      for (const [offset, limit] of [[0, 5], [8, 5], [25, 30], [55, 10], [60, 3]] as const) {
        const p = await lake.page(c1, { offset, limit, columns: ['v'] });
        expect(p.numberMatched).to.equal(60);
        const want = Array.from({ length: Math.max(0, Math.min(limit, 60 - offset)) }, (_, i) => offset + i);
        expect(p.rows.map((r) => r.values.v)).to.deep.equal(want);
        expect(p.rows.map((r) => r.index)).to.deep.equal(want);
      }
    });

    it('filters with CQL2, bbox and datetime, numbering within the filtered set', async () => {
      const p = await lake.page(c1, { offset: 2, limit: 100, columns: ['v'], filter: parseCql2Text('v % 7 = 0') });
      expect(p.numberMatched).to.equal(9);
      expect(p.rows.map((r) => r.values.v)).to.deep.equal([14, 21, 28, 35, 42, 49, 56]);
      expect(p.rows[0]!.index).to.equal(2);
      const b = await lake.page(c1, { offset: 0, limit: 100, columns: ['v'], bbox: [1.5, 1.5, 3.5, 2.5] });
      expect(b.rows.map((r) => r.values.v)).to.deep.equal([22, 23]);
      const t = await lake.page(c1, { offset: 0, limit: 100, columns: ['v'], datetime: { start: Date.parse('2024-01-02T10:00:00Z'), end: Date.parse('2024-01-02T12:00:00Z'), text: '' } });
      expect(t.rows.map((r) => r.values.v)).to.deep.equal([34, 35, 36]);
    });

    for (const id of ['c2', 'c3']) {
      const coll = lakeCollection(id);
      const all = async (filter: Partial<LakePageRequest>, limit = 100) => {
        const p = await lake.page(coll, { offset: 0, limit, columns: ['v'], ...filter });
        return { matched: p.numberMatched, v: p.rows.map((r) => r.values.v) };
      };
      it(`${id}: bbox is exact for points on and off the edges, empty, Z and big-endian points, lines and polygons`, async () => {
        expect(await all({ bbox: [0, 0, 2, 2] })).to.deep.equal({ matched: 7, v: [0, 1, 5, 7, 10, 11, 12] });
        expect(await all({ bbox: [179, -1, -179, 1] })).to.deep.equal({ matched: 4, v: [13, 14, 15, 16] });
        expect(await all({ bbox: [-180, -90, 180, 90] })).to.deep.equal({ matched: 15, v: [0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] });
      });
      it(`${id}: spatial predicates in CQL2 are exact, with rectangles and other polygons`, async () => {
        expect((await all({ filter: parseCql2Text('S_WITHIN(geometry, BBOX(0, 0, 2, 2))') })).v).to.deep.equal([0, 11, 12]);
        expect((await all({ filter: parseCql2Text('S_CONTAINS(POLYGON((0 0, 0 2, 2 2, 2 0, 0 0)), geometry)') })).v).to.deep.equal([0, 11, 12]);
        expect((await all({ filter: parseCql2Text('S_TOUCHES(geometry, BBOX(0, 0, 2, 2))') })).v).to.deep.equal([1, 10]);
        expect((await all({ filter: parseCql2Text('S_DISJOINT(geometry, BBOX(0, 0, 2, 2)) AND v < 13') })).v).to.deep.equal([2, 3, 6, 8, 9]);
        expect((await all({ filter: parseCql2Text('S_INTERSECTS(geometry, POLYGON((0 0, 2 0, 0 2, 0 0)))') })).v).to.deep.equal([0, 5, 7, 10, 11, 12]);
        expect((await all({ filter: parseCql2Text('NOT S_INTERSECTS(geometry, BBOX(0, 0, 2, 2)) OR v = 0') })).v).to.deep.equal([0, 2, 3, 6, 8, 9, 13, 14, 15, 16]);
      });
      it(`${id}: scans stream exactly the rows of a spatial filter`, async () => {
        for (const [text, want] of [
          ['S_INTERSECTS(geometry, POLYGON((0 0, 2 0, 0 2, 0 0)))', [0, 5, 7, 10, 11, 12]],
          ['S_WITHIN(geometry, BBOX(0, 0, 2, 2))', [0, 11, 12]],
        ] as const) {
          const seen: unknown[] = [];
          await lake.scan(coll, { columns: ['v', 'geometry'], filter: parseCql2Text(text) }, (chunk) => void seen.push(...chunk.columns.v!));
          expect(seen.map(Number).sort((a, b) => a - b), text).to.deep.equal(want);
        }
      });
      it(`${id}: pages of an exact spatial filter agree with the whole answer`, async () => {
        const whole = (await all({ bbox: [0, 0, 2, 2] })).v;
        for (const limit of [1, 2, 3]) {
          const seen: unknown[] = [];
          for (let offset = 0; offset < whole.length + 2; offset += limit) {
            const p = await lake.page(coll, { offset, limit, columns: ['v'], bbox: [0, 0, 2, 2] });
            expect(p.numberMatched).to.equal(whole.length);
            expect(p.rows.map((r) => r.index)).to.deep.equal(p.rows.map((_, i) => offset + i));
            seen.push(...p.rows.map((r) => r.values.v));
          }
          expect(seen).to.deep.equal(whole);
        }
      });
    }

    it('streams the filtered rows in chunks', async () => {
      const seen: unknown[] = [];
      await lake.scan(c1, { columns: ['v', 'geometry'], filter: parseCql2Text('v >= 50') }, (chunk) => {
        expect(chunk.columns.geometry![0]).to.be.instanceOf(Uint8Array);
        seen.push(...chunk.columns.v!);
      });
      expect([...seen].sort((a, b) => Number(a) - Number(b))).to.deep.equal([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);
    });

    it('writes a page as parquet', async () => {
      const bytes = await lake.pageAsParquet(c1, { offset: 9, limit: 3, columns: ['v', 'geometry'] }, true);
      expect(Buffer.from(bytes.subarray(0, 4)).toString()).to.equal('PAR1');
    });

    describe('work stops when its signal aborts', () => {
      const big = lakeCollection('big');
      let slow: LakeReader;
      before(async function () {
        this.timeout(60_000);
        slow = await make(await writeSlowLake());
      });
      after(() => slow?.close());
      const filter = parseCql2Text(slowFilterText());
      const runs: [string, (r: LakeReader, signal: AbortSignal) => Promise<unknown> | undefined][] = [
        ['page', (r, signal) => r.page(big, { offset: 0, limit: 1, columns: ['v'], filter, signal })],
        ['scan', (r, signal) => r.scan(big, { columns: ['v'], filter, signal }, () => undefined)],
      ];
      for (const [name, run] of runs) {
        it(`${name}: a running request rejects with the signal's reason within a second, and the reader goes on`, async () => {
          await expectStopsOnAbort((signal) => run(slow, signal)!, 300);
          // The same kind of request, cheap this time, on the same engine.
          const seen: unknown[] = [];
          if (name === 'page') seen.push(...(await slow.page(big, { offset: 0, limit: 5, columns: ['v'], filter: parseCql2Text('v < 3') })).rows.map((r) => r.values.v));
          if (name === 'scan') await slow.scan(big, { columns: ['v'], filter: parseCql2Text('v < 3') }, (chunk) => void seen.push(...chunk.columns.v!));
          expect(seen.map(Number)).to.deep.equal([0, 1, 2]);
        });
      }
      it('an aborted signal stops a request before it starts', async () => {
        const reason = new Error('gone already');
        const err = await slow.page(big, { offset: 0, limit: 1, columns: ['v'], signal: AbortSignal.abort(reason) }).then(() => undefined, (e: unknown) => e);
        expect(err).to.equal(reason);
      });
    });

    it('reports missing data, unknown columns and unsafe ids', async () => {
      const err = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
      expect(await err(lake.describe(lakeCollection('nothing-here')))).to.be.instanceOf(LakeNotFoundError);
      expect(await err(lake.page(c1, { offset: 0, limit: 1, columns: ['nope'] }))).to.be.instanceOf(LakeQueryError);
      expect(await err(lake.page(c1, { offset: 0, limit: 1, columns: ['v'], filter: parseCql2Text('nope = 1') }))).to.be.instanceOf(LakeQueryError);
      for (const id of ['..', '../c1', 'c1/../c1', '/etc', "c1'--", '']) {
        expect(await err(lake.describe(lakeCollection(id))), id).to.be.instanceOf(LakeQueryError);
      }
    });
  });
}
