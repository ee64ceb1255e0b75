/**
 * Numeric zone keys of many points at once on a 7H grid (IVEA7H, ISEA7H): typed arrays in, typed
 * arrays out, no object or string per point. The keys are those of I7HGrid.zoneKeyFromPoint
 * ((ix * 12 + root) * 8 + sh at the level; NaN where a point cannot be located), for bulk work such as
 * binning millions of rows, where a call per point through the Dggrs interface costs its dispatch and
 * argument checks each time.
 */
import { LOC, locate, MAX_LEVEL } from './i7h-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';

/** Highest level whose keys are all safe integers (I7HGrid.maxZoneKeyLevel). */
export const MAX_I7H_KEY_LEVEL = 17;

/**
 * Writes into `out[i]` the key of the zone of `level` containing (lons[i], lats[i]) for every i < lons.length;
 * returns how many points were located (the others get NaN).
 */
export function i7hZoneKeysFromPoints(proj: SliceAndDiceProjection, lons: Float64Array, lats: Float64Array, level: number, out: Float64Array): number {
  if (!Number.isInteger(level) || level < 0 || level > Math.min(MAX_LEVEL, MAX_I7H_KEY_LEVEL)) throw new RangeError(`No numeric zone keys at level ${level}`);
  const n = lons.length;
  if (lats.length !== n || out.length < n) throw new RangeError('lons, lats and out must hold as many values');
  const xy = new Float64Array(2);
  let located = 0;
  for (let i = 0; i < n; i++) {
    const lon = lons[i]!, lat = lats[i]!;
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) {
      out[i] = NaN;
      continue;
    }
    proj.forward(lat, lon, xy);
    if (locate(level, xy[0]!, xy[1]!)) {
      out[i] = (LOC.ix * 12 + LOC.root) * 8 + LOC.sh;
      located++;
    } else out[i] = NaN;
  }
  return located;
}
