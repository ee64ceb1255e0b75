import { expect } from 'chai';
import { ALL_TIME, type FieldMoments, type PyramidCell, type PyramidLayout, type PyramidRef, type ZonePyramidStore } from '../../src/ports/zone-pyramid-store.js';

/** Opens the store under test; `cleanup` closes it and removes what the suite wrote. */
export type PyramidStoreSetup = () => Promise<{ store: ZonePyramidStore; cleanup: () => Promise<void> }>;

/** A deterministic generator of doubles using every bit of the mantissa, so exactness is tested, not rounding luck. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const FIELDS = ['temperature', 'rain mm', "o'zone\\"];
const DAY = 86_400_000;
const PERIOD0 = Date.UTC(2024, 4, 1);

/** Cells of levels 3 and 4 under coarse zones 1000..1000+coarseCount-1, all-time and per day, NaN min/max where a field has no value. */
export function sampleCells(coarseCount: number, perCoarse: number, seed = 1): PyramidCell[] {
  const rnd = random(seed);
  const out: PyramidCell[] = [];
  for (let c = 0; c < coarseCount; c++) {
    const coarse = 1000 + c;
    for (let k = 0; k < perCoarse; k++) {
      for (const level of [3, 4]) {
        const key = coarse * 1_000_000 + level * 100_000 + k;
        for (const period of [ALL_TIME, PERIOD0, PERIOD0 + DAY]) {
          const count = 1 + Math.floor(rnd() * 1000);
          const fields: FieldMoments[] = FIELDS.map((_, f) => {
            if ((k + f) % 7 === 0) return { valid: 0, sum: 0, m2: 0, min: NaN, max: NaN };
            const valid = 1 + Math.floor(rnd() * count);
            const min = (rnd() - 0.5) * 1e3 * rnd();
            return { valid, sum: (rnd() - 0.3) * 1e6 * rnd(), m2: rnd() * 1e9 + rnd() * 1e-9, min, max: min + rnd() * 1e-3 };
          });
          out.push({ level, key, coarse, period, count, fields });
        }
      }
    }
  }
  return out;
}

export function sampleLayout(cells: readonly PyramidCell[], source = 'demo-lake data/demo/lake/demo/*.parquet'): PyramidLayout {
  return { dggrsId: 'IVEA7H', levels: [3, 4], coarseLevel: 2, fields: [...FIELDS], period: 'day', timeExtent: [PERIOD0, PERIOD0 + 2 * DAY - 1], bbox: [-10, -5, 10, 5], rows: cells.length, source, ingestedAt: '2026-12-07T00:00:00.000Z' };
}

async function* batches(cells: readonly PyramidCell[], size = 500): AsyncIterable<PyramidCell[]> {
  for (let i = 0; i < cells.length; i += size) yield cells.slice(i, i + size);
}

/** Ingests `cells` as one generation, one part per coarse zone, and publishes it. */
export async function ingest(store: ZonePyramidStore, ref: PyramidRef, cells: readonly PyramidCell[], layout = sampleLayout(cells)): Promise<string> {
  const generation = await store.prepare(ref, layout);
  const parts = new Map<number, PyramidCell[]>();
  for (const c of cells) {
    const part = parts.get(c.coarse);
    if (part) part.push(c);
    else parts.set(c.coarse, [c]);
  }
  for (const [coarse, part] of parts) await store.writePart(ref, generation, `coarse-${coarse}`, batches(part));
  await store.publish(ref, generation, layout);
  return generation;
}

/** The sort order tests compare cells in (the port promises no order). */
export function sorted(cells: readonly PyramidCell[]): PyramidCell[] {
  return [...cells].sort((a, b) => a.level - b.level || a.key - b.key || a.period - b.period);
}

/** Chai's deep equality treats NaN as equal to NaN, so NaN min/max must come back as NaN, not null or 0. */
function expectSameCells(actual: readonly PyramidCell[], expected: readonly PyramidCell[]): void {
  expect(actual.length).to.equal(expected.length);
  expect(sorted(actual)).to.deep.equal(sorted(expected));
}

let tableSeq = 0;
/** A table name unique to this run and test (the store's tables outlive nothing: cleanup drops the database). */
export function freshRef(): PyramidRef {
  return { table: `contract_${process.pid}_${Date.now().toString(36)}_${tableSeq++}` };
}

/** What every ZonePyramidStore must do. */
export function zonePyramidStoreContract(name: string, setup: PyramidStoreSetup): void {
  describe(`ZonePyramidStore contract: ${name}`, function () {
    this.timeout(120_000);
    let store: ZonePyramidStore;
    let cleanup: (() => Promise<void>) | undefined;
    before(async () => {
      ({ store, cleanup } = await setup());
    });
    after(async () => cleanup?.());

    it('answers no layout and no cells for a pyramid never published', async () => {
      const ref = freshRef();
      expect(await store.layout(ref)).to.equal(undefined);
      expect(await store.read(ref, { level: 3, keys: [1], coarse: [1], fields: ['temperature'] })).to.deep.equal([]);
    });

    it('round-trips cells bit for bit, NaN min/max of empty fields included; all-time cells by default, per-period cells in [from, to)', async () => {
      const ref = freshRef();
      const cells = sampleCells(4, 30);
      const layout = sampleLayout(cells);
      await ingest(store, ref, cells, layout);
      expect(await store.layout(ref)).to.deep.equal(layout);

      const level4 = cells.filter((c) => c.level === 4);
      const keys = [...new Set(level4.map((c) => c.key))];
      const coarse = [...new Set(level4.map((c) => c.coarse))];
      const allTime = await store.read(ref, { level: 4, keys, coarse, fields: FIELDS });
      expectSameCells(allTime, level4.filter((c) => c.period === ALL_TIME));
      expect(allTime.some((c) => c.fields.some((f) => f.valid === 0 && Number.isNaN(f.min) && Number.isNaN(f.max)))).to.equal(true);

      const firstDay = await store.read(ref, { level: 4, keys, coarse, fields: FIELDS, periods: { from: PERIOD0, to: PERIOD0 + DAY } });
      expectSameCells(firstDay, level4.filter((c) => c.period === PERIOD0));
      const bothDays = await store.read(ref, { level: 4, keys, coarse, fields: FIELDS, periods: { from: PERIOD0 - 365 * DAY, to: PERIOD0 + 2 * DAY } });
      expectSameCells(bothDays, level4.filter((c) => c.period !== ALL_TIME));
      // A range reaching below every period still never includes the all-time cells.
      const everything = await store.read(ref, { level: 4, keys, coarse, fields: FIELDS, periods: { from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER } });
      expectSameCells(everything, level4.filter((c) => c.period !== ALL_TIME));
    });

    it('answers only the wanted keys of the wanted level, with the wanted fields in the order asked', async () => {
      const ref = freshRef();
      const cells = sampleCells(3, 10, 7);
      await ingest(store, ref, cells);
      const wanted = cells.filter((c) => c.level === 3 && c.period === ALL_TIME && c.key % 3 === 0);
      const got = await store.read(ref, { level: 3, keys: wanted.map((c) => c.key), coarse: [...new Set(wanted.map((c) => c.coarse))], fields: ["o'zone\\", 'temperature'] });
      expectSameCells(
        got,
        wanted.map((c) => ({ ...c, fields: [c.fields[2]!, c.fields[0]!] })),
      );
      expect(await store.read(ref, { level: 3, keys: [999], coarse: [1000], fields: ['temperature'] })).to.deep.equal([]);
    });

    it('replaces what an earlier attempt of a part wrote: a retried part leaves no duplicate', async () => {
      const ref = freshRef();
      const cells = sampleCells(2, 20, 3);
      const layout = sampleLayout(cells);
      const generation = await store.prepare(ref, layout);
      const first = cells.filter((c) => c.coarse === 1000);
      const second = cells.filter((c) => c.coarse === 1001);
      // An attempt that wrote half, then a retry that writes all, then the same retry again.
      await store.writePart(ref, generation, 'part "1"', batches(first.slice(0, 40)));
      await store.writePart(ref, generation, 'part "1"', batches(first));
      await store.writePart(ref, generation, 'part "1"', batches(first));
      await store.writePart(ref, generation, 'part 2', batches(second));
      await store.publish(ref, generation, layout);
      const allTime = cells.filter((c) => c.period === ALL_TIME && c.level === 3);
      const got = await store.read(ref, { level: 3, keys: allTime.map((c) => c.key), coarse: [1000, 1001], fields: FIELDS });
      expectSameCells(got, allTime);
    });

    it('keeps the published generation readable while the next is written, answers the next once published, and refuses parts of the replaced one', async () => {
      const ref = freshRef();
      const before = sampleCells(2, 5, 11);
      const gen1 = await ingest(store, ref, before);
      const after = sampleCells(2, 5, 12);
      const layout2 = { ...sampleLayout(after), rows: 12345 };
      const gen2 = await store.prepare(ref, layout2);
      expect(gen2).to.not.equal(gen1);
      await store.writePart(ref, gen2, 'all', batches(after));
      const query = { level: 3, keys: before.filter((c) => c.level === 3).map((c) => c.key), coarse: [1000, 1001], fields: FIELDS };
      expectSameCells(await store.read(ref, query), before.filter((c) => c.level === 3 && c.period === ALL_TIME));
      expect((await store.layout(ref))!.rows).to.equal(before.length);
      await store.publish(ref, gen2, layout2);
      expectSameCells(await store.read(ref, query), after.filter((c) => c.level === 3 && c.period === ALL_TIME));
      expect(await store.layout(ref)).to.deep.equal(layout2);
      let refused: unknown;
      await store.writePart(ref, gen1, 'late', batches(before)).catch((err: unknown) => (refused = err));
      expect(refused, 'a part of the replaced generation').to.be.instanceOf(Error);
    });

    it('keeps hostile text in the layout and part names intact: quotes, backslashes, NUL, controls, multi-byte UTF-8', async () => {
      const ref = freshRef();
      const every = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
      const source = `x' OR 1=1; DROP TABLE t; -- \\' \\\\ \u0000 \t\n\r ${every} é 中文 😀 \\x27 '''`;
      const cells = sampleCells(1, 3, 5);
      const layout = sampleLayout(cells, source);
      const generation = await store.prepare(ref, layout);
      const part = `${every.slice(0, 200)}é中文😀'\\`;
      await store.writePart(ref, generation, part, batches(cells));
      await store.writePart(ref, generation, part, batches(cells));
      await store.publish(ref, generation, layout);
      expect((await store.layout(ref))!.source).to.equal(source);
      const want = cells.filter((c) => c.level === 4 && c.period === ALL_TIME);
      expectSameCells(await store.read(ref, { level: 4, keys: want.map((c) => c.key), coarse: [1000], fields: FIELDS }), want);
    });

    it('answers a read of many cells (far more than one network chunk) whole', async () => {
      const ref = freshRef();
      const cells = sampleCells(8, 1500, 21);
      await ingest(store, ref, cells);
      const want = cells.filter((c) => c.level === 4 && c.period !== ALL_TIME);
      const got = await store.read(ref, { level: 4, keys: [...new Set(want.map((c) => c.key))], coarse: [...new Set(want.map((c) => c.coarse))], fields: FIELDS, periods: { from: PERIOD0, to: PERIOD0 + 2 * DAY } });
      expect(got.length).to.equal(24_000);
      expectSameCells(got, want);
    });

    it('stops a read whose signal is aborted with the signal\'s reason', async () => {
      const ref = freshRef();
      const cells = sampleCells(1, 3, 9);
      await ingest(store, ref, cells);
      const controller = new AbortController();
      const reason = new Error('client left');
      controller.abort(reason);
      let caught: unknown;
      await store.read(ref, { level: 3, keys: [cells[0]!.key], coarse: [1000], fields: FIELDS, signal: controller.signal }).catch((err: unknown) => (caught = err));
      expect(caught).to.equal(reason);
    });
  });
}
