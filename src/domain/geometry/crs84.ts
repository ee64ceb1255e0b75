/**
 * Coordinates given by a client in CRS84 (longitude, latitude, optional height): finite numbers
 * on the Earth. Checked before any engine sees them, so an absurd literal (1e19, 1e400) is a
 * refusal naming the rule rather than whatever each engine makes of it.
 */
import type { Position } from './geojson.js';

/** The rule, as a refusal states it. */
export const CRS84_RULE = 'CRS84 coordinates are finite numbers with -180 <= longitude <= 180 and -90 <= latitude <= 90';
/** The rule for boxes; a west edge east of the east edge is a box across the antimeridian. */
export const CRS84_BOX_RULE = `${CRS84_RULE}, and a box has south <= north (west > east crosses the antimeridian)`;

const lonOk = (x: number): boolean => x >= -180 && x <= 180;
const latOk = (y: number): boolean => y >= -90 && y <= 90;

/** Why the position is not a CRS84 place, or undefined. */
export function crs84PositionProblem(p: Position): string | undefined {
  if (!p.every(Number.isFinite)) return `the position (${p.join(' ')}) has a coordinate that is not a finite number`;
  if (!lonOk(p[0]!)) return `longitude ${p[0]} is outside -180..180`;
  if (!latOk(p[1]!)) return `latitude ${p[1]} is outside -90..90`;
  return undefined;
}

/** Why a box (`west,south,east,north`, or with heights `west,south,low,east,north,high`) is not a CRS84 box, or undefined. */
export function crs84BoxProblem(box: readonly number[]): string | undefined {
  if (box.length !== 4 && box.length !== 6) return `a box has 4 or 6 numbers, not ${box.length}`;
  if (!box.every(Number.isFinite)) return `the box (${box.join(', ')}) has a number that is not finite`;
  const [w, s, e, n] = box.length === 6 ? [box[0]!, box[1]!, box[3]!, box[4]!] : (box as [number, number, number, number]);
  if (!lonOk(w) || !lonOk(e)) return `a longitude of the box (${box.join(', ')}) is outside -180..180`;
  if (!latOk(s) || !latOk(n)) return `a latitude of the box (${box.join(', ')}) is outside -90..90`;
  if (s > n) return `the box (${box.join(', ')}) has its south edge north of its north edge`;
  return undefined;
}
