/**
 * The cells of a zone pyramid as an ingest part computes them from rows: per (level, zone key,
 * period), the rows counted and each field's moments (valid, sum, Welford's M2, min, max), so a
 * reader gets count, mean, min, max and the population standard deviation of any cell, and
 * combines periods with Chan's formula. A row counts in the cell of each level whose zone holds
 * its point, exactly as the lake's on-the-fly aggregation bins it (`ZonePointAggregator`): a value
 * is valid unless it is NaN (the lake's "not a number"). Zones are found as the lake's binning finds
 * them, by zone patches where the grid vouches for them (zone-patches.ts: the same zones as
 * locating every point).
 */
import type { Dggrs } from '../dggrs/dggrs.js';
import { periodStart, type TimePeriod } from '../time-periods.js';
import { LOCATE, ZonePatches } from './zone-patches.js';

/** `period` of all-time cells: the same value as the pyramid port's `ALL_TIME`. */
export const ALL_TIME_PERIOD = Number.MIN_SAFE_INTEGER;

/** One field's moments of one cell (as the pyramid port's FieldMoments). */
export interface CellFieldMoments {
  valid: number;
  sum: number;
  m2: number;
  min: number;
  max: number;
}

export interface AccumulatedCell {
  level: number;
  key: number;
  period: number;
  count: number;
  fields: CellFieldMoments[];
}

/**
 * The coarse zones whose cells the caller keeps (a part's), so rows that cannot reach them are
 * skipped: `reach` (radians, on the sphere of geodetic latitude and longitude, as the grid's
 * clearances) bounds how far a cell finer than the coarse level extends from its centroid.
 */
export interface OwnedZones {
  coarseLevel: number;
  coarse: ReadonlySet<number>;
  reach: number;
}

/** Growable columns of per-cell state, one slot per cell. */
class Columns {
  count = new Float64Array(0);
  valid: Float64Array[];
  sum: Float64Array[];
  mean: Float64Array[];
  m2: Float64Array[];
  min: Float64Array[];
  max: Float64Array[];
  size = 0;

  constructor(private readonly fields: number) {
    this.valid = this.arrays();
    this.sum = this.arrays();
    this.mean = this.arrays();
    this.m2 = this.arrays();
    this.min = this.arrays();
    this.max = this.arrays();
  }

  private arrays(): Float64Array[] {
    return Array.from({ length: this.fields }, () => new Float64Array(0));
  }

  /** A new slot, its state empty. */
  add(): number {
    if (this.size === this.count.length) this.grow(Math.max(1024, this.size * 2));
    const slot = this.size++;
    for (let f = 0; f < this.fields; f++) {
      this.min[f]![slot] = Infinity;
      this.max[f]![slot] = -Infinity;
    }
    return slot;
  }

  private grow(to: number): void {
    const more = (a: Float64Array) => {
      const b = new Float64Array(to);
      b.set(a);
      return b;
    };
    this.count = more(this.count);
    for (const list of [this.valid, this.sum, this.mean, this.m2, this.min, this.max]) for (let f = 0; f < list.length; f++) list[f] = more(list[f]!);
  }
}

/**
 * Cells accumulated from batches of rows (points, field values, optional instants), at several
 * levels, all-time and (with a period) per period. Memory is one slot per cell met.
 */
export class PyramidCellAccumulator {
  private readonly columns: Columns;
  /** Per level: period -> slot by the zone's index (below). */
  private readonly slots: Map<number, number[]>[];
  /** Per level: the zones met, numbered from 0 in the order met (index -> key, key -> index). */
  private readonly keyOf: number[][];
  private readonly indexOf: Map<number, number>[];
  /** Per level, where the grid vouches for whole patches of points: their zone's index without locating each. */
  private readonly patches: (ZonePatches | undefined)[];
  private readonly cellOf: { level: number; key: number; period: number }[] = [];
  /** Rows with a place taken so far. */
  rows = 0;
  private readonly clearance = new Float64Array(2);

  constructor(
    private readonly grid: Dggrs,
    readonly levels: readonly number[],
    readonly fieldCount: number,
    private readonly period?: TimePeriod,
    private readonly owned?: OwnedZones,
  ) {
    if (!grid.zoneKeyFromPoint || !grid.zoneIdFromKey) throw new Error(`${grid.id} has no numeric zone keys`);
    this.columns = new Columns(fieldCount);
    this.slots = levels.map(() => new Map());
    this.keyOf = levels.map(() => []);
    this.indexOf = levels.map(() => new Map());
    const clear = grid.zoneKeyClearance ? (grid as Dggrs & Pick<Required<Dggrs>, 'zoneKeyClearance'>) : undefined;
    this.patches = levels.map((level, k) => (clear ? new ZonePatches(clear, level, (key) => (Number.isNaN(key) ? -1 : this.zoneIndex(k, key))) : undefined));
  }

  private zoneIndex(k: number, key: number): number {
    const byKey = this.indexOf[k]!;
    let i = byKey.get(key);
    if (i === undefined) {
      i = this.keyOf[k]!.push(key) - 1;
      byKey.set(key, i);
    }
    return i;
  }

  /** Cells met so far (a bound on memory the caller may check between batches). */
  get cells(): number {
    return this.columns.size;
  }

  /**
   * Rows 0..n-1 of a batch: points, one array per field (NaN: not valid), and (with a period) each
   * row's instant (NaN: none; such a row counts in all-time cells only). Rows without a place (NaN
   * or beyond the poles) are dropped, as the lake drops them. `from`: the first row to take (a
   * caller slicing a batch between turns of its event loop).
   */
  add(x: Float64Array, y: Float64Array, values: readonly Float64Array[], n: number, time?: Float64Array, from = 0): void {
    const grid = this.grid;
    const periodic = this.period !== undefined && time !== undefined;
    let lastT = NaN;
    let lastP = ALL_TIME_PERIOD;
    for (let i = from; i < n; i++) {
      const lon = x[i]!, lat = y[i]!;
      if (!Number.isFinite(lon) || !(lat >= -90 && lat <= 90)) continue;
      this.rows++;
      let p = ALL_TIME_PERIOD;
      if (periodic) {
        const t = time[i]!;
        if (Number.isFinite(t)) {
          if (t !== lastT) [lastT, lastP] = [t, periodStart(t, this.period!)];
          p = lastP;
        }
      }
      let first = 0;
      if (this.owned && grid.zoneKeyClearance) {
        // A row in another part's coarse zone, farther inside it than any finer cell reaches,
        // has no cell here: only rows near the edge of the part's zones are binned for them.
        grid.zoneKeyClearance(lon, lat, this.owned.coarseLevel, this.clearance);
        const key = this.clearance[0]!;
        if (!Number.isNaN(key) && !this.owned.coarse.has(key)) {
          if (this.clearance[1]! > this.owned.reach) continue;
          if (this.levels[0] === this.owned.coarseLevel) first = 1;
        }
      }
      for (let k = first; k < this.levels.length; k++) {
        let zone = this.patches[k]?.valueAt(lon, lat) ?? LOCATE;
        if (zone === LOCATE) {
          const key = grid.zoneKeyFromPoint!(lon, lat, this.levels[k]!);
          zone = Number.isNaN(key) ? -1 : this.zoneIndex(k, key);
        }
        if (zone < 0) continue;
        this.take(this.slot(k, ALL_TIME_PERIOD, zone), values, i);
        if (p !== ALL_TIME_PERIOD) this.take(this.slot(k, p, zone), values, i);
      }
    }
  }

  private slot(k: number, period: number, zone: number): number {
    const levelSlots = this.slots[k]!;
    let byZone = levelSlots.get(period);
    if (!byZone) levelSlots.set(period, (byZone = []));
    let slot = byZone[zone];
    if (slot === undefined) {
      slot = byZone[zone] = this.columns.add();
      this.cellOf.push({ level: this.levels[k]!, key: this.keyOf[k]![zone]!, period });
    }
    return slot;
  }

  /** Welford's update of every field of `slot` with row i. */
  private take(slot: number, values: readonly Float64Array[], i: number): void {
    const c = this.columns;
    c.count[slot]! += 1;
    for (let f = 0; f < this.fieldCount; f++) {
      const v = values[f]![i]!;
      if (Number.isNaN(v)) continue;
      const n = (c.valid[f]![slot]! += 1);
      c.sum[f]![slot]! += v;
      const mean = c.mean[f]!;
      const d = v - mean[slot]!;
      mean[slot]! += d / n;
      c.m2[f]![slot]! += d * (v - mean[slot]!);
      if (v < c.min[f]![slot]!) c.min[f]![slot] = v;
      if (v > c.max[f]![slot]!) c.max[f]![slot] = v;
    }
  }

  /** The cells, in the order first met; min and max NaN where a field has no valid value. */
  *results(): Generator<AccumulatedCell> {
    const c = this.columns;
    for (let s = 0; s < c.size; s++) {
      const fields: CellFieldMoments[] = [];
      for (let f = 0; f < this.fieldCount; f++) {
        const valid = c.valid[f]![s]!;
        fields.push({ valid, sum: c.sum[f]![s]!, m2: c.m2[f]![s]!, min: valid > 0 ? c.min[f]![s]! : NaN, max: valid > 0 ? c.max[f]![s]! : NaN });
      }
      yield { ...this.cellOf[s]!, count: c.count[s]!, fields };
    }
  }
}
