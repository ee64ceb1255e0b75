/**
 * How a pyramid ingest is cut into parts (jobs) so that every cell's whole aggregate comes from
 * exactly one part:
 * - a cell of a level at or above the coarse level C is its own coarse zone; a finer cell belongs
 *   to the coarse zone holding its zone's centroid (`coarseKey`, domain/aggregation/pyramid-keys.ts);
 * - a part owns a few coarse zones: it reads the rows whose envelope meets the union of their
 *   boxes widened by the size of a zone of the finest-but-one level (so every row of a cell whose
 *   centroid is inside lies inside), bins them at every level from C down, and writes only the
 *   cells whose coarse key it owns;
 * - the levels above C (bigger than a coarse zone) are one part reading every row.
 * The coarse zones planned are those holding rows and their neighbours (a cell straddling the edge
 * of a zone with rows may have its centroid in an empty neighbour).
 */
import type { BBox, Dggrs } from '../../domain/dggrs/dggrs.js';

/** What a first pass over the rows found: enough to size the parts and describe the pyramid. */
export interface PyramidSurvey {
  /** Rows with a place. */
  rows: number;
  bbox?: BBox;
  timeExtent?: [number, number];
  /** Rows per coarse zone key (level C). */
  perCoarse: Map<number, number>;
  /** Counts spread evenly over the zones of the lake's extent, not counted (the zones may hold none). */
  estimated?: boolean;
}

export interface PlannedPart {
  part: string;
  levels: number[];
  /** Owned coarse keys; empty: every cell of `levels` (the part of the levels above C). */
  coarse: number[];
  bbox?: BBox;
  /** Rows of its own coarse zones (the survey's count), for sizing. */
  rows: number;
}

export interface PartPlanOptions {
  /** Rows a part aims at (several small coarse zones go together up to it). */
  targetRows: number;
  /** A coarse zone with more rows is refused: its part would hold too much (a finer coarse level splits it). */
  maxPartRows: number;
}

export class PartPlanError extends Error {
  override readonly name = 'PartPlanError';
}

/** The coarse level unless configured: level 2 (492 zones on the 7H grids), within the ingested levels. */
export function chooseCoarseLevel(levels: readonly number[], configured: number | undefined): number {
  if (configured !== undefined) return configured;
  return Math.min(levels[levels.length - 1]!, Math.max(levels[0]!, 2));
}

/** A zone's box with longitudes wrapped to [-180, 180]; a box crossing the antimeridian spans every longitude. */
function plainBox(b: BBox): BBox {
  return b[0] > b[2] ? [-180, b[1], 180, b[3]] : b;
}

const area = (b: BBox): number => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
const union = (a: BBox, b: BBox): BBox => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];

/**
 * The box of the rows a coarse zone's cells may hold: the zone's box widened by the largest reach
 * (centroid to corner, in latitude and in longitude) of its children, the biggest zones finer than
 * it, and a fifth more. Near the poles or across the antimeridian: every longitude.
 */
export function coarseZoneReadBox(grid: Dggrs, zoneId: string): BBox {
  const zone = grid.describeZone(zoneId);
  const [w, s, e, n] = plainBox(zone.bbox);
  let dLat = 0;
  let dLon = 0;
  for (const child of grid.children(zoneId)) {
    const c = grid.describeZone(child);
    for (const [lon, lat] of c.vertices) {
      dLat = Math.max(dLat, Math.abs(lat - c.centroid[1]));
      dLon = Math.max(dLon, Math.abs(((lon - c.centroid[0] + 540) % 360) - 180));
    }
  }
  // A fifth more: the finer zones whose centroids lie near the edge are the neighbours' children, shaped alike.
  const [mLat, mLon] = [dLat * 1.2 + 1e-9, dLon * 1.2 + 1e-9];
  const south = Math.max(-90, s - mLat);
  const north = Math.min(90, n + mLat);
  if (w - mLon < -180 || e + mLon > 180 || south <= -89 || north >= 89 || e - w > 180) return [-180, south, 180, north];
  return [w - mLon, south, e + mLon, north];
}

/** The parts of an ingest of `levels` with coarse level `coarseLevel`, from the survey. */
export function planParts(grid: Dggrs, levels: readonly number[], coarseLevel: number, survey: PyramidSurvey, opts: PartPlanOptions): PlannedPart[] {
  const upper = levels.filter((l) => l < coarseLevel);
  const lower = levels.filter((l) => l >= coarseLevel);
  const parts: PlannedPart[] = [];
  if (upper.length > 0 && survey.rows > 0) parts.push({ part: 'upper', levels: upper, coarse: [], rows: survey.rows });
  if (lower.length === 0 || survey.perCoarse.size === 0) return parts;
  const idOf = (key: number) => grid.zoneIdFromKey!(key, coarseLevel);
  for (const [key, rows] of survey.perCoarse) {
    if (!survey.estimated && rows > opts.maxPartRows) {
      throw new PartPlanError(`coarse zone ${idOf(key)} (level ${coarseLevel}) holds ${rows.toLocaleString('en')} rows, more than a part may read (${opts.maxPartRows.toLocaleString('en')}): set the backing's coarseLevel to a finer level`);
    }
  }
  // Neighbours of zones with rows: a finer cell near an edge may have its centroid there.
  const zones = new Map(survey.perCoarse);
  if (lower.some((l) => l > coarseLevel)) {
    for (const key of survey.perCoarse.keys()) {
      for (const n of grid.neighbours(idOf(key))) {
        const [lon, lat] = grid.describeZone(n).centroid;
        const k = grid.zoneKeyFromPoint!(lon, lat, coarseLevel);
        if (!Number.isNaN(k) && !zones.has(k)) zones.set(k, 0);
      }
    }
  }
  const boxes = new Map([...zones.keys()].map((k) => [k, coarseZoneReadBox(grid, idOf(k))] as const));
  // Consecutive keys together while the part stays under the target and its box stays compact
  // (its area at most twice its zones' boxes: a part reads every row of its box).
  let current: { coarse: number[]; rows: number; box: BBox; areas: number } | undefined;
  const close = () => {
    if (current) parts.push({ part: `c${coarseLevel}-${String(parts.length).padStart(5, '0')}`, levels: lower, coarse: current.coarse, bbox: current.box, rows: current.rows });
    current = undefined;
  };
  for (const key of [...zones.keys()].sort((a, b) => a - b)) {
    const rows = zones.get(key)!;
    const box = boxes.get(key)!;
    if (current) {
      const joined = union(current.box, box);
      const fits = current.rows + rows <= opts.targetRows && area(joined) <= 2 * (current.areas + area(box));
      if (fits) {
        current.coarse.push(key);
        current.rows += rows;
        current.box = joined;
        current.areas += area(box);
        continue;
      }
      close();
    }
    current = { coarse: [key], rows, box, areas: area(box) };
  }
  close();
  return parts;
}
