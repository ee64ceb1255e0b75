/**
 * Zone data from point-like rows (lake rows, features of a remote backend): each row counts in
 * the sub-zone that holds its representative point, and each selected numeric field is
 * aggregated per sub-zone (count, valid, min, max, mean, stdDev, and median when asked). One
 * implementation for every source of rows, so they all answer alike.
 *
 * Memory is one accumulator per sub-zone and field, independent of the row count; a median keeps
 * its values packed, within the request's allowance (median-store.ts). Rows arrive one by one
 * (`add`) or in batches of plain columns (`slotsOf` + `addBatch`), where the slots may also come
 * from elsewhere (a worker thread running `ZoneSlots` on the same grid): accumulating stays in
 * row order either way, so every path gives the same numbers to the last bit.
 */
import type { FieldMeta } from '../collection.js';
import type { Dggrs, Stepped } from '../dggrs/dggrs.js';
import type { DepthValues } from '../zone-data.js';
import { StatAccumulator, type Statistic } from './statistics.js';
import { MedianBudget, MedianStore } from './median-store.js';
import { LOCATE, ZonePatches } from './zone-patches.js';

/** One output field: a statistic of one source field. */
export interface PointFieldPlan {
  name: string;
  source: string;
  stat: Statistic;
  meta: FieldMeta;
}

/** As for rasters: a field alone is its mean; with `stats`, one `<field>_<stat>` per statistic. */
export function pointFieldPlan(known: Record<string, FieldMeta>, selected: string[], stats: Statistic[] | undefined): PointFieldPlan[] {
  const out: PointFieldPlan[] = [];
  for (const name of selected) {
    const meta = known[name];
    if (!meta) continue;
    if (stats && stats.length > 0) {
      for (const stat of stats) {
        const counting = stat === 'count' || stat === 'valid';
        out.push({ name: `${name}_${stat}`, source: name, stat, meta: { ...meta, title: `${meta.title} (${stat})`, type: counting ? 'integer' : 'number', svc_dggs_stat: stat } });
      }
    } else out.push({ name, source: name, stat: 'mean', meta: { ...meta, type: 'number', svc_dggs_stat: 'mean' } });
  }
  return out;
}

/** The sub-zones of a zone at one relative depth, in the grid's sub-zone order. */
export interface DepthZones {
  depth: number;
  level: number;
  zones: string[];
}

/** Lists each depth's sub-zones, pausing between depths (a deep one lists thousands of zones). */
export function* listSubZones(grid: Dggrs, zoneId: string, depths: readonly number[]): Stepped<DepthZones[]> {
  const level = grid.zoneLevel(zoneId);
  const out: DepthZones[] = [];
  for (const depth of depths) {
    out.push({ depth, level: level + depth, zones: grid.subZones(zoneId, depth) });
    yield;
  }
  return out;
}

/** Points binned between two pauses of stepped work (about a millisecond). */
const POINTS_PER_STEP = 2048;

/** A point the grids can place: finite, latitude within the poles. */
const placeable = (lon: number, lat: number): boolean => Number.isFinite(lon) && lat >= -90 && lat <= 90;

/**
 * Which of a list of zones of one level holds a point: its index in `zones` (its slot), or -1
 * when none does or the point has no zone. Through the grid's numeric keys where it offers them
 * (an id is built once per distinct zone met), else through text ids.
 */
export class ZoneSlots {
  private readonly index: Map<string, number>;
  private readonly byKey = new Map<number, number>();
  private readonly keyed: boolean;
  /** Slots of whole patches of points, where the grid gives clearances (zone-patches.ts). */
  private readonly patches: ZonePatches | undefined;

  constructor(
    private readonly grid: Dggrs,
    readonly level: number,
    zones: readonly string[],
  ) {
    this.index = new Map(zones.map((z, i) => [z, i]));
    this.keyed = !!grid.zoneKeyFromPoint && !!grid.zoneIdFromKey && level <= (grid.maxZoneKeyLevel ?? -1);
    if (this.keyed && grid.zoneKeyClearance) this.patches = new ZonePatches(grid as Dggrs & Pick<Required<Dggrs>, 'zoneKeyClearance'>, level, (key) => this.slotOfKey(key));
  }

  slotOf(lon: number, lat: number): number {
    if (!placeable(lon, lat)) return -1;
    if (this.keyed) return this.slotOfKey(this.grid.zoneKeyFromPoint!(lon, lat, this.level));
    return this.index.get(zoneIdAt(this.grid, lon, lat, this.level) ?? '') ?? -1;
  }

  /** The slot of a zone given by the grid's numeric key at this level (NaN: none). */
  slotOfKey(key: number): number {
    if (Number.isNaN(key)) return -1;
    let slot = this.byKey.get(key);
    if (slot === undefined) this.byKey.set(key, (slot = this.index.get(this.grid.zoneIdFromKey!(key, this.level)) ?? -1));
    return slot;
  }

  /** Slots of points `from` to `to` - 1 into `out`. */
  fill(x: Float64Array, y: Float64Array, to: number, out: Int32Array, from = 0): void {
    const patches = this.patches;
    for (let i = from; i < to; i++) {
      const lon = x[i]!, lat = y[i]!;
      const slot = patches ? patches.valueAt(lon, lat) : LOCATE;
      out[i] = slot === LOCATE ? this.slotOf(lon, lat) : slot;
    }
  }
}

/** The zones of one level that hold at least one of the points given (for zone queries over rows). */
export class ZonesMet {
  private readonly keys = new Set<number>();
  private readonly ids = new Set<string>();
  private readonly keyed: boolean;

  constructor(
    private readonly grid: Dggrs,
    readonly level: number,
  ) {
    this.keyed = !!grid.zoneKeyFromPoint && !!grid.zoneIdFromKey && level <= (grid.maxZoneKeyLevel ?? -1);
  }

  add(x: Float64Array, y: Float64Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const lon = x[i]!, lat = y[i]!;
      if (!placeable(lon, lat)) continue;
      if (this.keyed) {
        const key = this.grid.zoneKeyFromPoint!(lon, lat, this.level);
        if (!Number.isNaN(key)) this.keys.add(key);
      } else {
        const id = zoneIdAt(this.grid, lon, lat, this.level);
        if (id !== undefined) this.ids.add(id);
      }
    }
  }

  /** Ids met since the last call, in no particular order (each call hands over what it returns). */
  zoneIds(): string[] {
    for (const k of this.keys) this.ids.add(this.grid.zoneIdFromKey!(k, this.level));
    const out = [...this.ids];
    this.keys.clear();
    this.ids.clear();
    return out;
  }
}

function zoneIdAt(grid: Dggrs, lon: number, lat: number, level: number): string | undefined {
  try {
    return grid.zoneFromPoint(lon, lat, level);
  } catch {
    return undefined; // the grid places no zone there
  }
}

/** Statistics per zone key of one level, as an engine computed them from stored zone-key columns. */
export interface KeyedZoneStats {
  /** Zone keys (the grid's numeric keys at the level) holding rows; the arrays below run parallel. */
  keys: number[];
  /** Rows per key. */
  count: number[];
  /** Per source field. `median` only when asked. */
  fields: Record<string, { valid: number[]; min: number[]; max: number[]; mean: number[]; stdDev: number[]; median?: number[] }>;
}

/** Accumulates rows into the sub-zones of one zone at one or more relative depths. */
export class ZonePointAggregator {
  /** The distinct source fields of the plan, in first-use order: the order values arrive in. */
  readonly sources: string[];
  private readonly perDepth: DepthState[];
  private readonly budget: MedianBudget;
  private readonly medianOf: Set<string>;

  constructor(
    grid: Dggrs,
    readonly depths: readonly DepthZones[],
    private readonly plan: PointFieldPlan[],
    maxMedianValues: number,
  ) {
    this.sources = [...new Set(plan.map((f) => f.source))];
    this.medianOf = new Set(plan.filter((f) => f.stat === 'median').map((f) => f.source));
    this.budget = new MedianBudget(maxMedianValues);
    this.perDepth = depths.map((zones) => ({
      zones,
      slots: new ZoneSlots(grid, zones.level, zones.zones),
      acc: this.sources.map(() => new StatAccumulator(zones.zones.length, false)),
      medians: this.sources.map((s) => (this.medianOf.has(s) ? new MedianStore(zones.zones.length, this.budget) : undefined)),
    }));
  }

  /** Sources whose median is asked. */
  get medianSources(): string[] {
    return this.sources.filter((s) => this.medianOf.has(s));
  }

  /**
   * One row at `lon`/`lat`; `value(f)` is the row's value of `sources[f]` (NaN when missing or
   * not a number: it counts, but is not valid). A point outside the zone's sub-zones is ignored.
   */
  add(lon: number, lat: number, value: (f: number) => number): void {
    for (const d of this.perDepth) {
      const i = d.slots.slotOf(lon, lat);
      if (i >= 0) this.addAt(d, i, value);
    }
  }

  /** Slots of a batch of points, one array per depth (what `addBatch` takes), pausing every few thousand points. */
  *slotsOf(x: Float64Array, y: Float64Array, n: number): Stepped<Int32Array[]> {
    const out: Int32Array[] = [];
    for (const d of this.perDepth) {
      const slots = new Int32Array(n);
      for (let i = 0; i < n; i += POINTS_PER_STEP) {
        d.slots.fill(x, y, Math.min(n, i + POINTS_PER_STEP), slots, i);
        yield;
      }
      out.push(slots);
    }
    return out;
  }

  /** A batch of `n` rows in row order: `slots[d][i]` per depth (-1: none), `values[f][i]` per source (NaN: not valid). */
  addBatch(slots: readonly Int32Array[], values: readonly Float64Array[], n: number): void {
    this.perDepth.forEach((d, k) => {
      const at = slots[k]!;
      for (let f = 0; f < this.sources.length; f++) {
        const acc = d.acc[f]!, med = d.medians[f], v = values[f]!;
        for (let i = 0; i < n; i++) {
          const slot = at[i]!;
          if (slot < 0) continue;
          const x = v[i]!;
          acc.add(slot, x);
          if (med && !Number.isNaN(x)) med.add(slot, x);
        }
      }
    });
  }

  private addAt(d: DepthState, i: number, value: (f: number) => number): void {
    for (let f = 0; f < this.sources.length; f++) {
      const x = value(f);
      d.acc[f]!.add(i, x);
      if (!Number.isNaN(x)) d.medians[f]?.add(i, x);
    }
  }

  result(): DepthValues[] {
    return this.perDepth.map((d) => ({
      depth: d.zones.depth,
      zones: d.zones.zones,
      values: Object.fromEntries(
        this.plan.map((f) => {
          const k = this.sources.indexOf(f.source);
          if (f.stat === 'median') return [f.name, d.medians[k]!.medians()];
          return [f.name, d.acc[k]?.result(f.stat) ?? d.zones.zones.map(() => null)];
        }),
      ),
    }));
  }

  /**
   * Takes the statistics of depth `k` as computed elsewhere from stored zone keys (the same rows,
   * grouped by the key of the zone holding each row's point); keys of zones that are not
   * sub-zones are dropped. Medians are refused beyond the allowance as when values are kept.
   */
  setFromKeyed(k: number, stats: KeyedZoneStats): void {
    const d = this.perDepth[k]!;
    const size = d.zones.zones.length;
    const slots = stats.keys.map((key) => d.slots.slotOfKey(key));
    const keyed = (d.keyed ??= { count: new Array<number>(size).fill(0), fields: {} });
    slots.forEach((slot, j) => {
      if (slot >= 0) keyed.count[slot] = stats.count[j]!;
    });
    for (const [source, s] of Object.entries(stats.fields)) {
      const into = (keyed.fields[source] ??= { valid: new Array<number>(size).fill(0) });
      slots.forEach((slot, j) => {
        if (slot >= 0) into.valid[slot] = s.valid[j]!;
      });
      for (const stat of ['min', 'max', 'mean', 'stdDev', 'median'] as const) {
        const from = s[stat];
        if (!from?.length) continue;
        const to = (into[stat] ??= new Array<number | null>(size).fill(null));
        slots.forEach((slot, j) => {
          if (slot >= 0) to[slot] = from[j]!;
        });
      }
    }
  }

  /** Valid values the sub-zones of every depth hold for the median sources, from keyed statistics taken so far. */
  keyedMedianValues(): number {
    let n = 0;
    for (const d of this.perDepth) {
      for (const s of this.medianSources) for (const v of d.keyed?.fields[s]?.valid ?? []) n += v;
    }
    return n;
  }

  /** Refuses (MedianBoundError) when keeping `n` values would cross the request's allowance. */
  reserveMedianValues(n: number): void {
    this.budget.take(n);
  }

  /** The result when every depth was set from keyed statistics. */
  keyedResult(): DepthValues[] {
    return this.perDepth.map((d) => {
      const keyed = d.keyed;
      const size = d.zones.zones.length;
      return {
        depth: d.zones.depth,
        zones: d.zones.zones,
        values: Object.fromEntries(
          this.plan.map((f) => {
            const s = keyed?.fields[f.source];
            const valid = s?.valid ?? new Array<number>(size).fill(0);
            if (f.stat === 'count') return [f.name, keyed?.count ?? new Array<number>(size).fill(0)];
            if (f.stat === 'valid') return [f.name, valid];
            const values = s?.[f.stat];
            return [f.name, valid.map((n, i) => (n > 0 && values ? (values[i] as number) : null))];
          }),
        ),
      };
    });
  }
}

interface DepthState {
  zones: DepthZones;
  slots: ZoneSlots;
  acc: StatAccumulator[];
  medians: (MedianStore | undefined)[];
  /** Set instead of `acc`/`medians` when the statistics come from stored zone keys. */
  keyed?: KeyedDepth;
}

interface KeyedDepth {
  count: number[];
  fields: Record<string, { valid: number[] } & Partial<Record<'min' | 'max' | 'mean' | 'stdDev' | 'median', (number | null)[]>>>;
}
