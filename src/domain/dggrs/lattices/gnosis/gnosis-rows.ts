/**
 * Lists of GNOSIS zones held as runs of rows: within a run every row has the same coalescing and the same
 * column intervals, so a list is counted, and any page of it found, from the runs alone (a few per level),
 * without producing the zones before the page. Bbox lists follow DGGAL's listGGGZones (its snapping of the box
 * to the level's rows and columns); sub-zone lists are the parent's rows and columns at the deeper level,
 * north to south and west to east, DGGAL's scanline sub-zone order.
 */
import type { BBox, Page, Stepped, ZoneSelection } from '../../dggrs.js';
import {
  coalesceShift, colCount, deltaLonAt, RAD_EPSILON, rowCount, wrapLonDggal, ZONE_EPSILON, type GnosisZone,
} from './gnosis-zone.js';

/** Rows rowStart..rowEnd-1 of a level, each holding the zones whose columns lie in the intervals. */
export interface RowRun {
  rowStart: number;
  rowEnd: number;
  /** Zone width in columns (2^coalescing). */
  width: number;
  /** Ascending, disjoint [start, end) column intervals, multiples of `width`. */
  intervals: [number, number][];
  /** Zones in each row. */
  perRow: number;
}

const PI = Math.PI;
const HALF_PI = PI / 2;
const TO_RAD = PI / 180;
/** Zones produced between pauses of a page. */
const SLICE = 4096;

export function runsCount(runs: readonly RowRun[]): number {
  let n = 0;
  for (const r of runs) n += r.perRow * (r.rowEnd - r.rowStart);
  return n;
}

/** Zones at positions offset .. offset + limit - 1 of the runs' order, pausing every few thousand. */
export function* runsPage(level: number, runs: readonly RowRun[], page: Page, emit: (z: GnosisZone) => string): Stepped<string[]> {
  const out: string[] = [];
  let skip = page.offset;
  const limit = page.limit;
  for (const run of runs) {
    if (out.length >= limit) break;
    const rows = run.rowEnd - run.rowStart;
    if (skip >= run.perRow * rows) {
      skip -= run.perRow * rows;
      continue;
    }
    let row = run.rowStart + Math.floor(skip / run.perRow);
    skip %= run.perRow;
    for (; row < run.rowEnd && out.length < limit; row++) {
      for (const [start, end] of run.intervals) {
        const n = (end - start) / run.width;
        if (skip >= n) {
          skip -= n;
          continue;
        }
        for (let col = start + skip * run.width; col < end && out.length < limit; col += run.width) {
          out.push(emit({ level, row, col }));
          if (out.length % SLICE === 0) yield;
        }
        skip = 0;
      }
    }
  }
  return out;
}

/** The sub-zones of `z` at `depth` levels below, as runs (one per coalescing band of its rows). */
export function subZoneRuns(z: GnosisZone, depth: number): RowRun[] {
  const level = z.level + depth;
  const scale = 2 ** depth;
  const start = z.col * scale;
  const end = (z.col + 2 ** coalesceShift(z.level, z.row)) * scale;
  return bandRuns(level, z.row * scale, (z.row + 1) * scale, () => [[start, end]]);
}

/**
 * Splits rows rowStart..rowEnd-1 of a level where the coalescing changes, and gives each band the intervals
 * `intervalsFor(width)` says (empty bands are dropped).
 */
function bandRuns(level: number, rowStart: number, rowEnd: number, intervalsFor: (width: number, row: number) => [number, number][]): RowRun[] {
  const runs: RowRun[] = [];
  for (const [a, b] of bands(level, rowStart, rowEnd)) {
    const width = 2 ** coalesceShift(level, a);
    const intervals = intervalsFor(width, a);
    const perRow = intervals.reduce((n, [s, e]) => n + (e - s) / width, 0);
    if (perRow > 0) runs.push({ rowStart: a, rowEnd: b, width, intervals, perRow });
  }
  return runs;
}

/** [a, b) row ranges of equal coalescing covering rowStart..rowEnd-1. */
function bands(level: number, rowStart: number, rowEnd: number): [number, number][] {
  const n = rowCount(level);
  const cuts = new Set<number>([rowStart, rowEnd]);
  // Coalescing changes where the row's distance from its pole reaches a power of two.
  for (let p = 1; p <= n / 2; p *= 2) {
    if (p > rowStart && p < rowEnd) cuts.add(p);
    if (n - p > rowStart && n - p < rowEnd) cuts.add(n - p);
  }
  const sorted = [...cuts].sort((x, y) => x - y);
  const out: [number, number][] = [];
  for (let i = 1; i < sorted.length; i++) out.push([sorted[i - 1]!, sorted[i]!]);
  return out;
}

const floorDelta = (v: number, d: number): number => Math.floor(v / d + ZONE_EPSILON) * d;
const ceilDelta = (v: number, d: number): number => Math.ceil(v / d - ZONE_EPSILON) * d;

/** One box as DGGAL's listGGGZones reads it (radians). */
interface SnappedBox {
  /** First and past-the-last rows. */
  rowStart: number;
  rowEnd: number;
  llLon: number;
  urLon: number;
  dateLine: boolean;
}

function snapBox(level: number, [w, s, e, n]: BBox): SnappedBox | null {
  const llLat = s * TO_RAD;
  const urLat = n * TO_RAD;
  const dLat = HALF_PI / 2 ** level;
  let sLl = floorDelta(Math.max(llLat + 0.00001 * dLat, -HALF_PI), dLat);
  const sUr = ceilDelta(Math.min(urLat - 0.00001 * dLat, HALF_PI), dLat);
  // DGGAL: a box thinner than a row near a pole still takes that row.
  if (sUr <= sLl && urLat > llLat) sLl = sUr - dLat;
  const rows = Math.ceil((sUr - sLl) / dLat - ZONE_EPSILON);
  if (rows <= 0) return null;
  const nRows = rowCount(level);
  const firstClassic = Math.min(nRows - 1, Math.trunc((sUr - dLat / 2 + HALF_PI) / dLat));
  const rowStart = nRows - 1 - firstClassic;
  let llLon = wrapLonDggal(w * TO_RAD);
  let urLon = wrapLonDggal(e * TO_RAD);
  let dateLine = false;
  if ((e - w) * TO_RAD > 2 * PI - RAD_EPSILON) {
    llLon = -PI;
    urLon = PI;
  } else if (llLon > urLon + 0.000001) dateLine = true;
  return { rowStart, rowEnd: Math.min(nRows, rowStart + rows), llLon, urLon, dateLine };
}

/** The column intervals DGGAL lists in a row of zone width `dLon` (radians) for one box. */
function boxColumns(b: SnappedBox, level: number, width: number, dLon: number): [number, number][] {
  let sLl = floorDelta(b.llLon + 0.00001 * dLon, dLon);
  let sUr = ceilDelta(b.urLon - 0.00001 * dLon, dLon);
  if (sUr <= sLl && b.urLon > b.llLon) sUr = sLl + dLon;
  let parts: [number, number][];
  if (!b.dateLine) parts = [[sLl, sUr]];
  else if (sUr > sLl - 0.000001) parts = [[-PI, PI]];
  else parts = [[-PI, sUr], [sLl, PI]];
  const nZones = colCount(level) / width;
  const out: [number, number][] = [];
  for (const [a, z] of parts) {
    const count = Math.ceil((z - a) / dLon - ZONE_EPSILON);
    if (count <= 0) continue;
    let mid = (a + (a + dLon)) / 2;
    if (mid >= PI - RAD_EPSILON) mid -= 2 * PI;
    const first = Math.trunc((mid + PI) / dLon);
    const last = first + count;
    if (last <= nZones) out.push([first * width, last * width]);
    else {
      out.push([first * width, nZones * width]);
      out.push([0, Math.min(first, last - nZones) * width]);
    }
  }
  return out;
}

/** Sorts and merges intervals. */
function merge(intervals: [number, number][]): [number, number][] {
  const s = [...intervals].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of s) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The zones of `level` DGGAL lists for any of the boxes, as runs in ascending 64-bit id order. */
export function bboxRuns(level: number, boxes: readonly BBox[]): RowRun[] {
  const snapped = boxes.map((b) => snapBox(level, b)).filter((b): b is SnappedBox => b !== null);
  if (!snapped.length) return [];
  const cuts = new Set<number>();
  for (const b of snapped) cuts.add(b.rowStart).add(b.rowEnd);
  const sorted = [...cuts].sort((x, y) => x - y);
  const runs: RowRun[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [a, z] = [sorted[i - 1]!, sorted[i]!];
    const inside = snapped.filter((b) => b.rowStart <= a && b.rowEnd >= z);
    if (!inside.length) continue;
    runs.push(
      ...bandRuns(level, a, z, (width, row) => {
        const n = rowCount(level);
        const lat = HALF_PI - (row + 0.5) * (PI / n);
        const dLon = deltaLonAt(lat, lat, level);
        return merge(inside.flatMap((b) => boxColumns(b, level, width, dLon)));
      }),
    );
  }
  return runs;
}

/** A selection over precomputed runs: counting is a sum over the runs, paging skips whole rows. */
export class GnosisRunSelection implements ZoneSelection {
  /** The runs are the whole work beyond the page: a few per level and box. */
  readonly edgeZones: number;

  constructor(
    private readonly level: number,
    private readonly runs: readonly RowRun[],
    private readonly emit: (z: GnosisZone) => string,
  ) {
    this.edgeZones = runs.length;
  }

  // eslint-disable-next-line require-yield
  *count(): Stepped<number> {
    return runsCount(this.runs);
  }

  page(page: Page): Stepped<string[]> {
    return runsPage(this.level, this.runs, page, this.emit);
  }
}
