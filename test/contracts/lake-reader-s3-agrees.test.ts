/**
 * The object-store lake and the DuckDB lake on the same files, typed columns of every kind
 * (NULLs, NaN and infinities, decimals, microsecond timestamps, dates, lists, accents): the same
 * description, queryables, pages and scans for a battery of filters, and where DuckDB cannot run
 * a filter the object-store lake refuses it as a LakeQueryError (400), never a crash.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';
import { S3ParquetLake } from '../../src/adapters/lake-s3/s3-parquet-lake.js';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Json, parseCql2Text } from '../../src/domain/cql2/index.js';
import { LakeQueryError, type LakeReader } from '../../src/ports/lake-reader.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';

const typed: Collection = { id: 'typed', title: 'typed', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'ts' } };
const COLUMNS = ['i', 't', 'd', 'f', 'dec', 's', 'b', 'ts', 'tsz', 'dt', 'tags', 'nums', 'geometry'];

const FILTERS = [
  'i > 3', 'i % 3 = 1', 't <= 2', 'd > 1e18', 'd = d', 'd < 0', 'd / 0 > 1', 'd / 0 < 0', 'i div 2 = 1', 'i ^ 2 >= 16', '(i - 3) / 0 IS NULL',
  'f > 0.1', 'dec = 2.25', 'dec BETWEEN 1 AND 3', 'dec IN (1.5, 4.75)',
  "s = 'Ångström'", "s > 'b'", "s LIKE '%o%'", "s LIKE 'a\\_b'", "s LIKE '_b_' OR s LIKE '%\\_%'", "CASEI(s) LIKE CASEI('%Ö%')", "ACCENTI(s) LIKE 'caf_'", "ACCENTI(CASEI(s)) LIKE ACCENTI(CASEI('ÅNG%'))", "'abc' LIKE '%b%' AND i > 2", "CASEI(s) = 'café'", "ACCENTI(s) = 'Angstrom'", "s IN ('x', 'café') OR s IS NULL",
  'b = TRUE', 'NOT b = FALSE', 'b IS NULL',
  "ts > TIMESTAMP('2024-01-02T00:00:00.000001Z')", "ts = TIMESTAMP('2024-01-02T00:00:00Z')", "ts >= DATE('2024-01-03')", "ts = DATE('2024-01-02')",
  "T_DURING(ts, INTERVAL('2024-01-01T12:00:00Z', '2024-01-04T00:00:00Z'))", "T_BEFORE(ts, DATE('2024-01-03'))", "T_INTERSECTS(ts, INTERVAL('..', '2024-01-02T00:00:00Z'))",
  "T_AFTER(tsz, TIMESTAMP('2024-01-03T00:00:00Z'))",
  "dt = DATE('2024-02-02')", "dt < TIMESTAMP('2024-02-03T00:00:01Z')", "T_EQUALS(dt, DATE('2024-02-03'))",
  "A_CONTAINS(tags, ('a'))", "A_EQUALS(tags, ('b', 'a'))", "A_OVERLAPS(nums, (3, 9))", "A_CONTAINEDBY(nums, (1, 2, 3, 4))",
  'S_INTERSECTS(geometry, BBOX(0, 0, 2.5, 2.5))', 'S_WITHIN(geometry, POLYGON((0 0, 4 0, 0 4, 0 0)))', 'NOT S_INTERSECTS(geometry, BBOX(0, 0, 1, 1)) AND i < 6',
  "i > 'x'", "s > 5", "ts > 'yesterday'", "dt = 3", "b < 5", "nope = 1", "A_CONTAINS(tags, (1))", 'S_INTERSECTS(geometry, i)', 'i = i + 1 OR s = s',
];

async function writeTypedLake(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'lake-typed-'));
  const dir = path.join(root, 'typed', 'data');
  mkdirSync(dir, { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`SET TimeZone = 'UTC'`);
    await c.run(`CREATE TABLE rows AS SELECT * FROM (VALUES
      (0, 1::TINYINT, 1.5::DOUBLE, 0.1::FLOAT, 1.50::DECIMAL(10,2), 'abc', true, TIMESTAMP '2024-01-01 00:00:00', TIMESTAMPTZ '2024-01-01 00:00:00+00', DATE '2024-02-01', ['a', 'b'], [1, 2], 'POINT (0.5 0.5)'),
      (1, 2::TINYINT, 'nan'::DOUBLE, 0.2::FLOAT, 2.25, 'café', false, TIMESTAMP '2024-01-02 00:00:00', TIMESTAMPTZ '2024-01-02 12:00:00+00', DATE '2024-02-02', ['b', 'a', 'a'], [3], 'POINT (2 2)'),
      (2, 3::TINYINT, 'inf'::DOUBLE, NULL, 4.75, 'Ångström', NULL, TIMESTAMP '2024-01-02 00:00:00.000001', TIMESTAMPTZ '2024-01-03 00:00:00+00', DATE '2024-02-03', ['a', NULL], [1, NULL, 4], 'LINESTRING (0 3, 3 0)'),
      (3, NULL, -2.0::DOUBLE, 1.5::FLOAT, NULL, 'a_b', true, TIMESTAMP '2024-01-03 00:00:00', NULL, NULL, NULL, [], 'POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))'),
      (4, 5::TINYINT, '-inf'::DOUBLE, 2.5::FLOAT, 3.00, NULL, false, NULL, TIMESTAMPTZ '2024-01-05 00:00:00+00', DATE '2024-02-05', [], [9], NULL),
      (5, 6::TINYINT, 0.0::DOUBLE, -0.5::FLOAT, -1.25, 'b', true, TIMESTAMP '2024-01-04 23:59:59.999999', TIMESTAMPTZ '2024-01-06 00:00:00+00', DATE '2024-02-06', ['c'], [2, 3], 'POINT (5 5)'),
      (6, 7::TINYINT, 1e301::DOUBLE, 0.0::FLOAT, 0.01, 'xyz', NULL, TIMESTAMP '2024-01-05 00:00:00', TIMESTAMPTZ '2024-01-07 00:00:00+00', DATE '2024-02-07', ['a'], [4, 1], 'POINT (1 1)')
    ) t(i, t, d, f, dec, s, b, ts, tsz, dt, tags, nums, wkt)`);
    for (const [file, where] of [['a.parquet', 'i < 3'], ['b.parquet', 'i >= 3']]) {
      await c.run(`COPY (SELECT i::BIGINT AS i, t, d, f, dec, s, b, ts, tsz, dt, tags, nums::INTEGER[] AS nums, CASE WHEN wkt IS NULL THEN NULL ELSE st_aswkb(CAST(wkt AS GEOMETRY)) END AS geometry
        FROM rows WHERE ${where} ORDER BY i) TO '${path.join(dir, file)}' (FORMAT parquet, ROW_GROUP_SIZE 2)`);
    }
  } finally {
    c.closeSync();
  }
  return root;
}

describe('S3ParquetLake agrees with DuckDbLake on typed columns and every kind of filter', function () {
  this.timeout(60_000);
  let s3: LoopbackS3;
  let duck: DuckDbLake;
  let obj: S3ParquetLake;

  before(async () => {
    const root = await writeTypedLake();
    s3 = await startLoopbackS3();
    await s3.upload(root, 'typed-lake');
    duck = new DuckDbLake(root);
    obj = new S3ParquetLake(`s3://${s3.bucket}/typed-lake`, s3.options);
  });
  after(async () => {
    await duck?.close();
    await obj?.close();
    await s3?.close();
  });

  const outcome = async (lake: LakeReader, text: string) => {
    try {
      const filter = text.startsWith('{') ? parseCql2Json(text) : parseCql2Text(text);
      const p = await lake.page(typed, { offset: 0, limit: 100, columns: COLUMNS, filter });
      const seen: unknown[] = [];
      await lake.scan(typed, { columns: ['i', 'd'], filter }, (chunk) => void seen.push(...chunk.columns.i!));
      return { ok: p, scanned: seen };
    } catch (e) {
      return { error: e };
    }
  };

  it('describes the same columns (DuckDB type names), files and queryables', async () => {
    const [a, b] = [await duck.describe(typed), await obj.describe(typed)];
    expect(b).to.deep.equal(a);
    expect(await obj.fields(typed)).to.deep.equal(await duck.fields(typed));
  });

  it('pages every column alike, values converted as the DuckDB lake converts them', async () => {
    const [a, b] = [await duck.page(typed, { offset: 1, limit: 10, columns: COLUMNS }), await obj.page(typed, { offset: 1, limit: 10, columns: COLUMNS })];
    expect(b).to.deep.equal(a);
  });

  for (const text of FILTERS) {
    it(`filter: ${text}`, async () => {
      const [a, b] = [await outcome(duck, text), await outcome(obj, text)];
      if ('error' in a) {
        expect(b, `DuckDB failed (${(a.error as Error).message.split('\n')[0]}); the object-store lake refuses too`).to.have.property('error');
        expect((b as { error: unknown }).error).to.be.instanceOf(LakeQueryError);
        return;
      }
      expect(b).to.not.have.property('error');
      expect(b).to.deep.equal(a);
    });
  }
});
