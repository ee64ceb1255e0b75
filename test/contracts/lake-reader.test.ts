import { expect } from 'chai';
import { expectStopsOnAbort, lakeReaderContract, slowFilterText, writeContractLake, writeSlowLake } from './lake-reader.contract.js';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { LakeQueryError, type LakeScanRequest } from '../../src/ports/lake-reader.js';
import { decodeWkb } from '../../src/domain/geometry/wkb.js';
import { representativePoint } from '../../src/domain/geometry/representative-point.js';

lakeReaderContract('DuckDbLake', (root) => new DuckDbLake(root));

describe('DuckDbLake: the exact geometry test in JS is bounded per request', function () {
  this.timeout(30_000);
  const c2: Collection = { id: 'c2', title: 'c2', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } };
  let lake: DuckDbLake;
  before(async () => {
    lake = new DuckDbLake(await writeContractLake(), 3);
  });
  after(() => lake.close());

  it('refuses, naming the bound, when more rows than the bound would need it, before testing any', async () => {
    // The triangle leaves every candidate to the exact test: 8 rows pass its envelope.
    const filter = parseCql2Text('S_INTERSECTS(geometry, POLYGON((0 0, 2 0, 0 2, 0 0)))');
    const err = await lake.page(c2, { offset: 0, limit: 10, columns: ['v'], filter }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(LakeQueryError);
    expect((err as LakeQueryError).hint).to.contain('at most 3 per request');
    const scanErr = await lake.scan(c2, { columns: ['v'], filter }, () => undefined).then(() => undefined, (e: unknown) => e);
    expect(scanErr).to.be.instanceOf(LakeQueryError);
  });

  it('answers points against boxes in the database, so the bound does not apply to them', async () => {
    const p = await lake.page(c2, { offset: 0, limit: 10, columns: ['v'], bbox: [-180, -90, 180, 90], filter: parseCql2Text('v <> 5 AND v <> 6 AND v <> 7 AND v <> 8 AND v <> 9') });
    expect(p.rows.map((r) => r.values.v)).to.deep.equal([0, 1, 2, 10, 11, 12, 13, 14, 15, 16]);
  });
});

/** The decoder's representative point; none where it refuses the bytes. */
function placeOf(g: Uint8Array): [number, number] | undefined {
  try {
    return representativePoint(decodeWkb(g));
  } catch {
    return undefined;
  }
}

describe('DuckDbLake: scanPoints streams the rows scan streams, as plain numbers', function () {
  this.timeout(30_000);
  const lakeOf = (id: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } });
  let lake: DuckDbLake;
  before(async () => {
    lake = new DuckDbLake(await writeContractLake());
  });
  after(() => lake.close());

  const cases: [string, Omit<LakeScanRequest, 'columns'>][] = [
    ['everything', {}],
    ['a bbox prefilter', { bbox: [0, 0, 2, 2] }],
    ['a filter settled in SQL', { filter: parseCql2Text('v > 3') }],
    ['a filter left to the exact test', { filter: parseCql2Text('S_INTERSECTS(geometry, POLYGON((0 0, 2 0, 0 2, 0 0)))') }],
  ];
  for (const id of ['c1', 'c2', 'c3']) {
    for (const [what, filter] of cases) {
      it(`${id}: ${what}`, async () => {
        const want: number[][] = [];
        await lake.scan(lakeOf(id), { columns: ['geometry', 'v'], ...filter }, (chunk) => {
          for (let i = 0; i < chunk.size; i++) {
            const g = chunk.columns.geometry![i];
            const p = g instanceof Uint8Array ? placeOf(g) : undefined;
            want.push([p?.[0] ?? NaN, p?.[1] ?? NaN, chunk.columns.v![i] as number]);
          }
        });
        const got: number[][] = [];
        await lake.scanPoints(lakeOf(id), { fields: ['v'], ...filter }, (b) => {
          for (let i = 0; i < b.size; i++) got.push([b.x[i]!, b.y[i]!, b.values[0]![i]!]);
        });
        expect(got).to.deep.equal(want);
        expect(got.length).to.be.greaterThan(2);
      });
    }
  }
});

describe('DuckDbLake: scanPoints gives each row\'s instant when asked', function () {
  this.timeout(30_000);
  const lakeOf = (id: string, datetimeColumn?: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry', ...(datetimeColumn ? { datetimeColumn } : {}) } });
  let lake: DuckDbLake;
  before(async () => {
    lake = new DuckDbLake(await writeContractLake());
  });
  after(() => lake.close());

  it('as epoch ms in UTC, the instants scan gives, in scan order, beside the same points and values', async () => {
    const want: number[][] = [];
    await lake.scan(lakeOf('c1', 'datetime'), { columns: ['geometry', 'v', 'datetime'] }, (chunk) => {
      for (let i = 0; i < chunk.size; i++) {
        const g = chunk.columns.geometry![i];
        const p = g instanceof Uint8Array ? placeOf(g) : undefined;
        const t = chunk.columns.datetime![i];
        want.push([p?.[0] ?? NaN, p?.[1] ?? NaN, chunk.columns.v![i] as number, typeof t === 'string' ? Date.parse(t) : NaN]);
      }
    });
    const got: number[][] = [];
    await lake.scanPoints(lakeOf('c1', 'datetime'), { fields: ['v'], time: true }, (b) => {
      expect(b.time).to.be.instanceOf(Float64Array);
      for (let i = 0; i < b.size; i++) got.push([b.x[i]!, b.y[i]!, b.values[0]![i]!, b.time![i]!]);
    });
    expect(got).to.deep.equal(want);
    expect(got.filter((r) => Number.isFinite(r[3])).length).to.be.greaterThan(2);
    expect(got[0]![3]).to.equal(Date.parse('2024-01-01T00:00:00Z') + 3_600_000 * (got[0]![2]!));
  });

  it('NaN for every row of a collection without a datetime column; no time array unless asked', async () => {
    const times: number[] = [];
    await lake.scanPoints(lakeOf('c1'), { fields: ['v'], time: true }, (b) => void times.push(...b.time!.subarray(0, b.size)));
    expect(times.length).to.be.greaterThan(2);
    expect(times.every(Number.isNaN)).to.equal(true);
    await lake.scanPoints(lakeOf('c1', 'datetime'), { fields: ['v'] }, (b) => void expect(b.time).to.equal(undefined));
  });
});

describe('DuckDbLake: scanPoints stops when its signal aborts', function () {
  this.timeout(60_000);
  const big: Collection = { id: 'big', title: 'big', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } };
  let lake: DuckDbLake;
  before(async () => {
    lake = new DuckDbLake(await writeSlowLake());
  });
  after(() => lake.close());

  it("a running scan rejects with the signal's reason within a second, and the reader goes on", async () => {
    const filter = parseCql2Text(slowFilterText());
    await expectStopsOnAbort((signal) => lake.scanPoints(big, { fields: ['v'], filter, signal }, () => undefined), 300);
    const seen: number[] = [];
    await lake.scanPoints(big, { fields: ['v'], filter: parseCql2Text('v < 3') }, (b) => void seen.push(...b.values[0]!.subarray(0, b.size)));
    expect(seen).to.deep.equal([0, 1, 2]);
  });
});
