/**
 * What every LakeReader adapter must do, run against a small lake written here: scan order,
 * paging, counts, filters, streaming, missing data, and ids that try to leave the root.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { LakeNotFoundError, LakeQueryError, type LakeReader } from '../../src/ports/lake-reader.js';

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
  c.closeSync();
  return root;
}

export function lakeReaderContract(name: string, make: (root: string) => LakeReader): void {
  describe(`LakeReader contract: ${name}`, function () {
    this.timeout(30_000);
    let lake: LakeReader;
    const c1 = lakeCollection('c1');

    before(async () => {
      lake = make(await writeContractLake());
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
