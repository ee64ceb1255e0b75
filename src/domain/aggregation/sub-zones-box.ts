/**
 * The box to read rows from for a zone's sub-zones: rows are binned by a point, and a row whose
 * point lies in a sub-zone must be read, so the box has to hold every sub-zone, not only the
 * zone itself.
 */
import type { BBox, Dggrs, Stepped } from '../dggrs/dggrs.js';

/** Sub-zones measured exactly for the box; deeper levels use a margin instead. */
const EXACT_ZONES = 4096;
/** Outlines measured between two pauses of stepped work (about a millisecond). */
const OUTLINES_PER_STEP = 64;

/**
 * A box holding every sub-zone: sub-zones are not nested in their parent's outline (H3
 * children and 7H centroid children stick out), so the parent's own bbox would lose rows.
 * Exact union of sub-zone outlines where there are few; for deep levels, the union at the
 * deepest affordable depth widened by one such zone's size (finer descendants protrude less).
 * Each affordable depth is measured once, from plain outlines (no areas), since several asked
 * depths share it.
 */
export function* subZonesBox(grid: Dggrs, zoneId: string, depths: readonly number[]): Stepped<BBox> {
  const boxes: BBox[] = [outlineBox(grid, zoneId)];
  const measured = new Map<number, BBox[]>();
  let margin = 0;
  for (const depth of depths) {
    let k = depth;
    while (k > 1 && grid.subZoneCount(zoneId, k) > EXACT_ZONES) k--;
    let zoneBoxes = measured.get(k);
    if (!zoneBoxes) {
      zoneBoxes = [];
      for (const z of grid.subZones(zoneId, k)) {
        zoneBoxes.push(outlineBox(grid, z));
        if (zoneBoxes.length % OUTLINES_PER_STEP === 0) yield;
      }
      measured.set(k, zoneBoxes);
      boxes.push(...zoneBoxes);
    }
    if (k < depth) for (const b of zoneBoxes) margin = Math.max(margin, b[3] - b[1], b[2] - b[0]);
  }
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const b of boxes) {
    w = Math.min(w, b[0]);
    s = Math.min(s, b[1]);
    e = Math.max(e, b[2]);
    n = Math.max(n, b[3]);
  }
  w -= margin;
  e += margin;
  const south = Math.max(-90, s - margin), north = Math.min(90, n + margin);
  // Outlines are continuous in longitude: one past the antimeridian (or a box over it) keeps the latitude bounds only.
  return e - w >= 360 || w < -180 || e > 180 ? [-180, south, 180, north] : [w, south, e, north];
}

/**
 * Bounds of a zone from its plain outline (no area computed), longitudes continuous (they may
 * leave [-180, 180] over the antimeridian). Outlines of zones at or next to a pole do not reach
 * it: one that circles a pole gets the pole, others past 60 degrees take the grid's own bbox.
 */
function outlineBox(grid: Dggrs, zoneId: string): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [lon, lat] of grid.zoneOutline(zoneId, false)) {
    if (lon < w) w = lon;
    if (lon > e) e = lon;
    if (lat < s) s = lat;
    if (lat > n) n = lat;
  }
  if (n <= 60 && s >= -60) return [w, s, e, n];
  // An outline that goes all the way round encloses a pole, which its vertices do not reach.
  if (e - w >= 359.999) return n + s > 0 ? [-180, s, 180, 90] : [-180, -90, 180, n];
  const b = grid.describeZone(zoneId).bbox;
  return b[0] > b[2] ? [-180, b[1], 180, b[3]] : b;
}
