/**
 * The shared aggregation of point-like rows by sub-zone (lake rows, remote features): slots from
 * numeric keys and from text ids agree with zone-from-point, batches and single rows give the
 * same numbers to the last bit, statistics and medians are those computed naively, the median
 * allowance is enforced, statistics taken from stored keys land in the right sub-zones, and the
 * box to read rows from holds every sub-zone (poles and antimeridian included).
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { MedianBoundError, MedianBudget, MedianStore } from '../../../src/domain/aggregation/median-store.js';
import { subZonesBox } from '../../../src/domain/aggregation/sub-zones-box.js';
import { listSubZones, pointFieldPlan, ZonePointAggregator, ZoneSlots, ZonesMet, type KeyedZoneStats } from '../../../src/domain/aggregation/zone-points.js';
import { runToEnd, type Dggrs } from '../../../src/domain/dggrs/dggrs.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

const known = { t: { title: 't', type: 'number' as const }, p: { title: 'p', type: 'integer' as const } };
const STATS = ['count', 'valid', 'min', 'max', 'mean', 'stdDev', 'median'] as const;

/** Points around (lon, lat), plus ones no grid can place. */
function points(n: number, lon: number, lat: number, spread: number, seed: number): { x: Float64Array; y: Float64Array; t: Float64Array; p: Float64Array } {
  const rand = mulberry32(seed);
  const x = new Float64Array(n), y = new Float64Array(n), t = new Float64Array(n), p = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = lon + (rand() - 0.5) * spread;
    y[i] = Math.max(-90, Math.min(90, lat + (rand() - 0.5) * spread));
    t[i] = i % 7 === 0 ? NaN : Math.round(rand() * 1000) / 10;
    p[i] = Math.floor(rand() * 5); // many ties: medians of even and odd counts
  }
  [[NaN, 1], [1, NaN], [Infinity, 0], [0, 91], [0, -Infinity]].forEach(([a, b], k) => {
    x[k] = a!;
    y[k] = b!;
  });
  return { x, y, t, p };
}

const grids = (): Dggrs[] => ['IVEA7H', 'H3', 'ISEA3H'].map((id) => GRID_FACTORIES[id]!());
/** Twice a zone's width, in degrees: points spread over it fall in and around the zone. */
const around = (grid: Dggrs, zone: string): number => {
  const [w, s, e, n] = grid.describeZone(zone).bbox;
  return 2 * Math.max(e - w, n - s);
};

describe('zone points: patches of points binned at once (grids giving clearances)', () => {
  // H3's finest resolution is 15.
  for (const [id, finest] of [['IVEA7H', 15], ['ISEA7H', 15], ['RTEA7H', 15], ['H3', 14]] as const) {
    it(`${id}: every slot is the one of locating its point alone, and dense points mostly skip locating`, function () {
      this.timeout(60_000);
      const grid = GRID_FACTORIES[id]!();
      // Coarse levels have many zones at rhombus edges (never cleared), sparse points many patches of one point:
      // those are checked for their answers only.
      for (const [level, depth, n, mostlyPatched] of [[2, 1, 200_000, false], [5, 2, 200_000, false], [10, 1, 100_000, true], [finest, 1, 100_000, true]] as const) {
        const zone = grid.zoneFromPoint(10.3, 49.7, level);
        const zones = grid.subZones(zone, depth);
        // Counts the points located one by one (the clearance of a patch's centre locates it too).
        let located = 0;
        const counted = Object.create(grid) as Dggrs;
        counted.zoneKeyFromPoint = (lon, lat, l) => (located++, grid.zoneKeyFromPoint!(lon, lat, l));
        const slots = new ZoneSlots(counted, level + depth, zones);
        const { x, y } = points(n, 10.3, 49.7, around(grid, zone), level);
        const out = new Int32Array(n);
        slots.fill(x, y, n, out);
        const byKey = new Map(zones.map((z, i) => [grid.zoneKeyFromPoint!(...grid.describeZone(z).centroid, level + depth), i]));
        let inside = 0;
        for (let i = 5; i < n; i++) {
          const want = byKey.get(grid.zoneKeyFromPoint!(x[i]!, y[i]!, level + depth)) ?? -1;
          if (out[i] !== want) expect(out[i], `${x[i]},${y[i]} at level ${level + depth}`).to.equal(want);
          if (want >= 0) inside++;
        }
        expect(inside, `level ${level}`).to.be.greaterThan(n / 10);
        if (mostlyPatched) expect(located / n, `points located one by one at level ${level + depth}`).to.be.below(0.7);
      }
    });
  }
});

describe('zone points: the shared aggregation of rows by sub-zone', () => {
  for (const grid of grids()) {
    it(`${grid.id}: slots (${grid.zoneKeyFromPoint ? 'numeric keys' : 'text ids'}) are the index of zone-from-point, -1 where it has none`, () => {
      const zone = grid.zoneFromPoint(10, 50, 3);
      const zones = grid.subZones(zone, 2);
      const level = grid.zoneLevel(zone) + 2;
      const slots = new ZoneSlots(grid, level, zones);
      const { x, y } = points(3000, 10, 50, around(grid, zone), 1);
      const out = new Int32Array(x.length);
      slots.fill(x, y, x.length, out);
      let inside = 0;
      for (let i = 0; i < x.length; i++) {
        let want = -1;
        try {
          want = zones.indexOf(grid.zoneFromPoint(x[i]!, y[i]!, level));
        } catch {
          // no zone there
        }
        expect(out[i], `${x[i]},${y[i]}`).to.equal(want);
        if (want >= 0) inside++;
      }
      expect(out.slice(0, 5)).to.deep.equal(new Int32Array([-1, -1, -1, -1, -1]));
      expect(inside).to.be.greaterThan(200);
      // The zones met at a level are the zones of the points, each once.
      const met = new ZonesMet(grid, level);
      met.add(x, y, x.length);
      const expected = new Set<string>();
      for (let i = 5; i < x.length; i++) expected.add(grid.zoneFromPoint(x[i]!, y[i]!, level));
      expect(met.zoneIds().sort()).to.deep.equal([...expected].sort());
      expect(met.zoneIds(), 'handed over once').to.deep.equal([]);
    });

    it(`${grid.id}: batches and single rows give the same numbers, the naive statistics and medians`, () => {
      const zone = grid.zoneFromPoint(10, 50, 4);
      const depths = runToEnd(listSubZones(grid, zone, [1, 2]));
      const plan = pointFieldPlan(known, ['t', 'p'], [...STATS]);
      const { x, y, t, p } = points(4000, 10, 50, around(grid, zone), 2);
      const one = new ZonePointAggregator(grid, depths, plan, 1e9);
      for (let i = 0; i < x.length; i++) one.add(x[i]!, y[i]!, (f) => [t, p][f]![i]!);
      const batched = new ZonePointAggregator(grid, depths, plan, 1e9);
      for (let from = 0; from < x.length; from += 1000) {
        const part = (a: Float64Array) => a.slice(from, from + 1000);
        batched.addBatch(runToEnd(batched.slotsOf(part(x), part(y), 1000)), [part(t), part(p)], 1000);
      }
      const result = one.result();
      expect(batched.result()).to.deep.equal(result);
      // Naively, per sub-zone of the deeper depth.
      const level = grid.zoneLevel(zone) + 2;
      const byZone = new Map<string, number[]>();
      for (let i = 5; i < x.length; i++) {
        const z = grid.zoneFromPoint(x[i]!, y[i]!, level);
        if (!byZone.has(z)) byZone.set(z, []);
        byZone.get(z)!.push(t[i]!);
      }
      const d = result[1]!;
      let checked = 0;
      d.zones.forEach((z, i) => {
        const all = byZone.get(z) ?? [];
        const valid = all.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
        expect(d.values.t_count![i]).to.equal(all.length);
        expect(d.values.t_valid![i]).to.equal(valid.length);
        if (valid.length === 0) return expect(d.values.t_mean![i]).to.equal(null);
        checked++;
        const mean = valid.reduce((s, v) => s + v, 0) / valid.length;
        const m = valid.length >> 1;
        expect(d.values.t_min![i]).to.equal(valid[0]);
        expect(d.values.t_max![i]).to.equal(valid[valid.length - 1]);
        expect(d.values.t_median![i]).to.equal(valid.length % 2 ? valid[m] : (valid[m - 1]! + valid[m]!) / 2);
        expect(d.values.t_mean![i] as number).to.be.closeTo(mean, 1e-9);
        expect(d.values.t_stdDev![i] as number).to.be.closeTo(Math.sqrt(valid.reduce((s, v) => s + (v - mean) ** 2, 0) / valid.length), 1e-9);
      });
      expect(checked).to.be.greaterThan(5);
    });
  }

  it('refuses medians beyond the allowance, counting every depth and field, and only valid values', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const zone = grid.zoneFromPoint(10, 50, 4);
    const depths = runToEnd(listSubZones(grid, zone, [1, 2]));
    const { x, y, t } = points(400, 10, 50, 0.5, 3);
    const agg = (max: number) => new ZonePointAggregator(grid, depths, pointFieldPlan(known, ['t'], ['median']), max);
    // Values in sub-zones at both depths (valid ones only) are what a median keeps.
    let need = 0;
    for (const d of depths) {
      const slots = new ZoneSlots(grid, d.level, d.zones);
      for (let i = 0; i < x.length; i++) if (slots.slotOf(x[i]!, y[i]!) >= 0 && !Number.isNaN(t[i]!)) need++;
    }
    expect(need).to.be.greaterThan(100);
    const exact = agg(need);
    exact.addBatch(runToEnd(exact.slotsOf(x, y, x.length)), [t], x.length);
    const short = agg(need - 1);
    const err = (() => {
      try {
        short.addBatch(runToEnd(short.slotsOf(x, y, x.length)), [t], x.length);
      } catch (e) {
        return e;
      }
    })();
    expect(err).to.be.instanceOf(MedianBoundError);
    expect((err as MedianBoundError).hint).to.contain(`more than ${need - 1} (limits.maxMedianValues)`);
    const budget = new MedianBudget(3);
    const store = new MedianStore(2, budget);
    [5, 1, 3].forEach((v, i) => store.add(i % 2, v));
    expect(store.medians()).to.deep.equal([4, 1]);
    expect(() => store.add(0, 9)).to.throw(MedianBoundError);
  });

  it('takes statistics computed from stored keys into the sub-zones they name, dropping other zones', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const zone = grid.zoneFromPoint(10, 50, 4);
    const depths = runToEnd(listSubZones(grid, zone, [2]));
    const level = depths[0]!.level;
    const { x, y, t } = points(3000, 10, 50, 3, 4);
    const plan = pointFieldPlan(known, ['t'], ['count', 'valid', 'min', 'max', 'median']);
    const rows = new ZonePointAggregator(grid, depths, plan, 1e9);
    rows.addBatch(runToEnd(rows.slotsOf(x, y, x.length)), [t], x.length);
    // What an engine grouping by the stored key would return: every zone met, sub-zone or not.
    const groups = new Map<number, number[]>();
    for (let i = 0; i < x.length; i++) {
      const key = Number.isFinite(x[i]!) && y[i]! >= -90 && y[i]! <= 90 ? grid.zoneKeyFromPoint!(x[i]!, y[i]!, level) : NaN;
      if (Number.isNaN(key)) continue;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(t[i]!);
    }
    const keys = [...groups.keys()];
    const valid = (k: number) => groups.get(k)!.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
    const med = (v: number[]) => (v.length % 2 ? v[v.length >> 1]! : (v[(v.length >> 1) - 1]! + v[v.length >> 1]!) / 2);
    const stats: KeyedZoneStats = {
      keys,
      count: keys.map((k) => groups.get(k)!.length),
      fields: { t: { valid: keys.map((k) => valid(k).length), min: keys.map((k) => valid(k)[0] ?? NaN), max: keys.map((k) => valid(k).at(-1) ?? NaN), mean: [], stdDev: [], median: keys.map((k) => (valid(k).length ? med(valid(k)) : NaN)) } },
    };
    expect(keys.length, 'zones beyond the sub-zones too').to.be.greaterThan(depths[0]!.zones.length);
    const keyed = new ZonePointAggregator(grid, depths, plan, 1e9);
    keyed.setFromKeyed(0, stats);
    expect(keyed.keyedResult()).to.deep.equal(rows.result());
    expect(keyed.keyedMedianValues()).to.equal((rows.result()[0]!.values.t_valid as number[]).reduce((s, n) => s + n, 0));
  });

  it('the box to read rows from holds every sub-zone, at the poles and over the antimeridian too', () => {
    let checked = 0;
    for (const grid of grids()) {
      for (const [lon, lat] of [[0, 90], [0, -90], [179.99, 10], [-179.99, -40], [30, 89.5], [10, 50]] as const) {
        for (const level of [1, 3]) {
          const zone = grid.zoneFromPoint(lon, lat, level);
          const [w, s, e, n] = runToEnd(subZonesBox(grid, zone, [1, 2]));
          for (const depth of [1, 2]) {
            for (const sub of grid.subZones(zone, depth)) {
              for (const [x0, y] of [...grid.zoneOutline(sub, false), grid.describeZone(sub).centroid]) {
                const x = ((((x0 + 180) % 360) + 360) % 360) - 180;
                const inLon = w <= e ? x >= w - 1e-9 && x <= e + 1e-9 : x >= w - 1e-9 || x <= e + 1e-9;
                expect(inLon && y >= s - 1e-9 && y <= n + 1e-9, `${grid.id} ${zone}: ${sub} at ${x},${y} outside ${[w, s, e, n]}`).to.equal(true);
              }
              checked++;
            }
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(1000);
  });
});
