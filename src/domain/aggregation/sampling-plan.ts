import type { BBox, Dggrs, LonLat } from '../dggrs/dggrs.js';
import { ringArea, ringBounds } from './planar.js';

export const DEFAULT_SAMPLING_FACTOR = 8;

/**
 * What a zonal-statistics request needs before any pixel is read: the sub-zones per depth, the
 * lon/lat extent to read, and the sample spacing that decides which overview to read.
 */
export interface SamplingPlan {
  zoneId: string;
  level: number;
  depths: number[];
  /** Sub-zones of each depth, in the grid's order (aligned with `depths`). */
  subZones: string[][];
  /** The zone's outline, longitudes continuous. */
  outline: LonLat[];
  /** Lon/lat box covering the zone and all its sub-zones (sub-zones may reach past the parent's edge). */
  extent: BBox;
  /** Wanted distance between samples, degrees: `factor` samples per deepest sub-zone. */
  spacingDegrees: number;
  samplingFactor: number;
  /** Sub-zone count of the deepest depth. */
  deepestCount: number;
}

export function planSampling(grid: Dggrs, zoneId: string, depths: readonly number[], samplingFactor = DEFAULT_SAMPLING_FACTOR): SamplingPlan {
  const level = grid.zoneLevel(zoneId);
  const subZones = depths.map((d) => grid.subZones(zoneId, d));
  const outline = grid.zoneOutline(zoneId, false);
  const deepest = Math.max(...depths);
  const deepestCount = subZones[depths.indexOf(deepest)]!.length;
  let [w, s, e, n] = ringBounds(outline);
  if (deepest >= 1) {
    // Children can reach past the parent's outline (aperture 7 hexagons do not nest exactly);
    // their union, plus a margin for grandchildren, bounds every sub-zone.
    for (const child of grid.subZones(zoneId, 1)) {
      const [cw, cs, ce, cn] = ringBounds(unwrapNear(grid.zoneOutline(child, false), outline[0]![0]));
      w = Math.min(w, cw); s = Math.min(s, cs); e = Math.max(e, ce); n = Math.max(n, cn);
    }
    if (deepest >= 2) {
      const mx = (e - w) * 0.04, my = (n - s) * 0.04;
      w -= mx; e += mx; s -= my; n += my;
    }
  }
  const areaDeg = ringArea(outline);
  const spacingDegrees = Math.sqrt(areaDeg / (samplingFactor * deepestCount));
  return { zoneId, level, depths: [...depths], subZones, outline, extent: [w, Math.max(-90, s), e, Math.min(90, n)], spacingDegrees, samplingFactor, deepestCount };
}

/** Shifts a ring by whole turns so it sits next to `lon` (a child across the antimeridian from its parent's first vertex). */
export function unwrapNear(ring: LonLat[], lon: number): LonLat[] {
  const first = ring[0]![0];
  const shift = Math.round((lon - first) / 360) * 360;
  return shift === 0 ? ring : ring.map(([x, y]) => [x + shift, y] as LonLat);
}

/** Longitude into [-180, 180). */
export function normaliseLon(lon: number): number {
  return lon >= -180 && lon < 180 ? lon : ((((lon + 180) % 360) + 360) % 360) - 180;
}
