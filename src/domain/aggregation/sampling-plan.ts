import type { BBox, Dggrs, LonLat } from '../dggrs/dggrs.js';
import { ringArea, ringBounds } from './planar.js';

export const DEFAULT_SAMPLING_FACTOR = 8;

/**
 * What the zonal statistics of one depth need before any pixel is read. A plan depends only on
 * the zone, the depth and the sampling factor, never on the other depths of the request: that is
 * what keeps a sub-zone's value the same whatever else is asked.
 */
export interface DepthPlan {
  zoneId: string;
  /** Level of the zone itself; the sub-zones are at `level + depth`. */
  level: number;
  depth: number;
  /** Sub-zones in the grid's order. */
  subZones: string[];
  /** The zone's outline, longitudes continuous. */
  outline: LonLat[];
  /** Lon/lat box covering every sub-zone (sub-zones may reach past the parent's edge). */
  extent: BBox;
  /** Distance between samples of the first pass, degrees: about `samplingFactor` samples per sub-zone. */
  spacingDegrees: number;
  samplingFactor: number;
  /** Samples with a value each sub-zone must end with, unless it holds fewer pixel centres with a value. */
  minValid: number;
}

export function planDepth(grid: Dggrs, zoneId: string, depth: number, samplingFactor = DEFAULT_SAMPLING_FACTOR): DepthPlan {
  const level = grid.zoneLevel(zoneId);
  const subZones = grid.subZones(zoneId, depth);
  const outline = grid.zoneOutline(zoneId, false);
  const extent = depthExtent(grid, zoneId, depth, outline);
  // A sub-zone's share of the zone's area: `samplingFactor` samples fall in a sub-zone of the level's regular size.
  const share = grid.levelInfo(level + depth).zoneAreaMetersSquare / grid.levelInfo(level).zoneAreaMetersSquare;
  const spacingDegrees = Math.sqrt((ringArea(outline) * share) / samplingFactor);
  return {
    zoneId,
    level,
    depth,
    subZones,
    outline,
    extent,
    spacingDegrees,
    samplingFactor,
    minValid: Math.max(1, Math.ceil(samplingFactor)),
  };
}

/**
 * A lon/lat box holding every sub-zone of a depth, longitudes continuous with the zone's outline.
 * Sub-zones reach past their parent's outline (aperture 7 hexagons do not nest, H3 children
 * stick out), so it is the union of the sub-zones' own boxes down to depth 2; deeper, the union
 * at depth 2 grown by half a depth-2 sub-zone, more than deeper levels add (finer descendants
 * protrude less). A sub-zone that still reaches past it loses samples there and is sampled again
 * over its own box when that leaves it short of samples.
 */
function depthExtent(grid: Dggrs, zoneId: string, depth: number, outline: LonLat[]): BBox {
  let [w, s, e, n] = ringBounds(outline);
  const boxes = depth === 0 ? [] : grid.subZones(zoneId, Math.min(depth, 2)).map((z) => ringBounds(unwrapNear(grid.zoneOutline(z, false), outline[0]![0])));
  for (const [bw, bs, be, bn] of boxes) {
    w = Math.min(w, bw); s = Math.min(s, bs); e = Math.max(e, be); n = Math.max(n, bn);
  }
  if (depth > 2 && boxes.length > 0) {
    const mx = boxes.reduce((m, b) => Math.max(m, b[2] - b[0]), 0) / 2, my = boxes.reduce((m, b) => Math.max(m, b[3] - b[1]), 0) / 2;
    w -= mx; e += mx; s -= my; n += my;
  }
  return [w, Math.max(-90, s), e, Math.min(90, n)];
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
