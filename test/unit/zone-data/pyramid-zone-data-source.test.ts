/**
 * The pyramid zone-data source against an in-memory store with hand-made cells: what it asks the
 * store (the level, the sub-zones' keys and their coarse keys, the fields, the periods, the
 * request's signal), how it merges per-period cells (Chan), and what it refuses before reading.
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { PyramidZoneDataSource, MAX_PERIOD_CELLS } from '../../../src/app/zone-data/pyramid-zone-data-source.js';
import { addValue, emptyMoments, type Moments } from '../../../src/domain/aggregation/moments.js';
import { coarseKeyOfZone, zoneKeyOfId, type KeyedGrid } from '../../../src/domain/aggregation/pyramid-keys.js';
import { parseDatetime } from '../../../src/domain/time-interval.js';
import type { Collection } from '../../../src/domain/collection.js';
import type { ZoneDataRequest } from '../../../src/domain/zone-data.js';
import { ALL_TIME, type PyramidCell, type ZonePyramidStore } from '../../../src/ports/zone-pyramid-store.js';
import { AppError } from '../../../src/ports/errors.js';
import { MemoryPyramidStore } from '../../support/memory-pyramid-store.js';

const grid = GRID_FACTORIES.IVEA7H!() as KeyedGrid;
const collection: Collection = { id: 'p', title: 'P', backing: { kind: 'clickhouse-pyramid', table: 't', source: 'lake', grid: 'IVEA7H', levels: [3, 4], coarseLevel: 3, period: 'day' } };
const DAY = 86_400_000;
const JAN1 = Date.UTC(2024, 0, 1);
const zone = grid.zoneFromPoint(10, 50, 3);
const subs = grid.subZones(zone, 1);

const moments = (xs: number[]): Moments => {
  const m = emptyMoments();
  xs.forEach((x) => addValue(m, x));
  return m;
};

async function setup(): Promise<{ store: MemoryPyramidStore; source: PyramidZoneDataSource }> {
  const store = new MemoryPyramidStore();
  const ref = { table: 't' };
  const port: ZonePyramidStore = store;
  const gen = await port.prepare(ref, { dggrsId: 'IVEA7H', levels: [3, 4], coarseLevel: 3, fields: ['a', 'b'], period: 'day' });
  const cell = (z: string, period: number, a: number[], b: number[], count = a.length): PyramidCell => ({ level: 4, key: zoneKeyOfId(grid, z), coarse: coarseKeyOfZone(grid, z, 3), period, count, fields: [moments(a), moments(b)] });
  const cells = [
    cell(subs[0]!, ALL_TIME, [1, 2, 3, 10], [5, NaN, NaN, 7]),
    cell(subs[0]!, JAN1, [1, 2], [5, NaN]),
    cell(subs[0]!, JAN1 + DAY, [3], [NaN]),
    cell(subs[0]!, JAN1 + 2 * DAY, [10], [7]),
    cell(subs[1]!, ALL_TIME, [NaN], [NaN]),
    cell(subs[1]!, JAN1 + DAY, [NaN], [NaN]),
  ];
  await store.writePart(ref, gen, 'one', (async function* () {
    yield cells;
  })());
  await store.publish(ref, gen, { dggrsId: 'IVEA7H', levels: [3, 4], coarseLevel: 3, fields: ['a', 'b'], period: 'day', timeExtent: [JAN1, JAN1 + 3 * DAY - 1], rows: 4, source: 'lake', ingestedAt: '2026-01-01T00:00:00Z' });
  return { store, source: new PyramidZoneDataSource(store, 50_000) };
}

const request = (extra: Partial<ZoneDataRequest> = {}): ZoneDataRequest => ({ grid, zoneId: zone, depths: [1], fields: ['a', 'b'], options: { stats: ['count', 'valid', 'mean', 'min', 'max', 'stdDev'] }, ...extra });

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).to.be.instanceOf(AppError);
  return e as AppError;
}

describe('PyramidZoneDataSource', () => {
  it('offers the layout\'s fields as numbers (their mean)', async () => {
    const { source } = await setup();
    expect(await source.fields(collection)).to.deep.equal({ a: { title: 'a', type: 'number', svc_dggs_stat: 'mean' }, b: { title: 'b', type: 'number', svc_dggs_stat: 'mean' } });
  });

  it('reads the sub-zones\' keys and coarse keys at their level with the request\'s signal, and answers each sub-zone from its cell', async () => {
    const { store, source } = await setup();
    const signal = new AbortController().signal;
    const data = await source.zoneData(collection, request({ signal }));
    expect(store.reads).to.have.length(1);
    const read = store.reads[0]!;
    expect(read.level).to.equal(4);
    expect(read.keys).to.deep.equal(subs.map((z) => zoneKeyOfId(grid, z)));
    expect(read.coarse).to.deep.equal([...new Set(subs.map((z) => coarseKeyOfZone(grid, z, 3)))].sort((x, y) => x - y));
    expect(read.fields).to.deep.equal(['a', 'b']);
    expect(read.periods).to.equal(undefined);
    expect(read.signal).to.equal(signal);
    const v = data.depths[0]!.values;
    expect(v.a_count!.slice(0, 3)).to.deep.equal([4, 1, 0]);
    expect(v.a_valid!.slice(0, 3)).to.deep.equal([4, 0, 0]);
    expect(v.a_mean!.slice(0, 3)).to.deep.equal([4, null, null]);
    expect(v.a_stdDev![0]).to.be.closeTo(Math.sqrt(((1 - 4) ** 2 + (2 - 4) ** 2 + (3 - 4) ** 2 + (10 - 4) ** 2) / 4), 1e-12);
    expect([v.b_valid![0], v.b_min![0], v.b_max![0], v.b_mean![0], v.b_stdDev![0]]).to.deep.equal([2, 5, 7, 6, 1]);
  });

  it('merges the per-day cells of whole days (Chan), asking the store for their period starts', async () => {
    const { store, source } = await setup();
    const data = await source.zoneData(collection, request({ datetime: parseDatetime('2024-01-02/2024-01-03') }));
    expect(store.reads[0]!.periods).to.deep.equal({ from: JAN1 + DAY, to: JAN1 + 3 * DAY });
    const v = data.depths[0]!.values;
    expect([v.a_count![0], v.a_valid![0], v.a_min![0], v.a_max![0], v.a_mean![0]]).to.deep.equal([2, 2, 3, 10, 6.5]);
    expect(v.a_stdDev![0]).to.be.closeTo(3.5, 1e-12);
    expect([v.b_valid![0], v.b_mean![0], v.b_stdDev![0]]).to.deep.equal([1, 7, 0]);
    expect([v.a_count![1], v.a_valid![1], v.a_mean![1]]).to.deep.equal([1, 0, null]);
  });

  it('refuses before any read: medians, row filters, levels outside the pyramid, other grids, cut periods', async () => {
    const { store, source } = await setup();
    const cases: [Partial<ZoneDataRequest>, RegExp][] = [
      [{ options: { stats: ['median'] } }, /lake/],
      [{ filter: { kind: 'bool', value: true } as never }, /no rows/],
      [{ depths: [2] }, /levels 3, 4/],
      [{ grid: GRID_FACTORIES.ISEA7H!(), zoneId: GRID_FACTORIES.ISEA7H!().zoneFromPoint(10, 50, 3) }, /IVEA7H/],
      [{ datetime: parseDatetime('2024-01-02T06:00:00Z/..') }, /day/],
    ];
    for (const [extra, hint] of cases) {
      const e = await refusal(source.zoneData(collection, request(extra)));
      expect(e.kind, JSON.stringify(extra)).to.equal('invalid-request');
      expect(e.hint).to.match(hint);
    }
    expect(store.reads).to.have.length(0);
  });

  it('finds the zones holding rows in whole days for a zone query, bounded before reading', async () => {
    const { store, source } = await setup();
    const parent = { zoneId: zone, depth: 1 };
    expect(await source.zonesWithRows(collection, { grid, level: 4, parent, boxes: [], datetime: parseDatetime('2024-01-01') })).to.deep.equal(new Set([subs[0]]));
    expect(await source.zonesWithRows(collection, { grid, level: 4, parent, boxes: [], datetime: parseDatetime('2024-01-02') }), 'a row without a number counts').to.deep.equal(new Set([subs[0], subs[1]]));
    expect(store.reads.map((r) => r.fields)).to.deep.equal([[], []]);
    const small = new PyramidZoneDataSource(store, 100);
    const e = await refusal(small.zonesWithRows(collection, { grid, level: 4, boxes: [[-180, -90, 180, 90]], datetime: parseDatetime('2024-01-01') }));
    expect(e.hint).to.contain('limits.maxSubZones');
    expect(store.reads).to.have.length(2);
  });

  it('bounds the per-period cells a request merges, before reading', async () => {
    const { store, source } = await setup();
    // A century of hours: 7 sub-zones x ~876,000 hours.
    await store.publish({ table: 'hours' }, 'none', { dggrsId: 'IVEA7H', levels: [3, 4], coarseLevel: 3, fields: ['a'], period: 'hour', timeExtent: [Date.UTC(1950, 0, 1), Date.UTC(2050, 0, 1)], rows: 1, source: 'lake', ingestedAt: '2026-01-01T00:00:00Z' });
    const hourly: Collection = { ...collection, backing: { kind: 'clickhouse-pyramid', table: 'hours', source: 'lake', grid: 'IVEA7H', levels: [3, 4] } };
    const e = await refusal(source.zoneData(hourly, request({ fields: ['a'], datetime: parseDatetime('1950-01-01/..') })));
    expect(e.kind).to.equal('invalid');
    expect(e.hint).to.contain(String(MAX_PERIOD_CELLS));
    expect(store.reads).to.have.length(0);
  });
});
