/**
 * Zones of the GNOSIS Global Grid (DGGAL's GNOSISGlobalGrid, the OGC 2D Tile Matrix Set of the same name):
 * a quadtree on WGS84 latitude and longitude. Level L has 2^(L+1) rows of pi / 2^(L+1) latitude, counted from
 * the north, and 4 * 2^L columns of pi / 2^(L+1) longitude counted from -180; towards the poles zones are
 * coalesced in longitude (row r from the nearer pole, r < 2^L, joins 2^(L - bitLength(r)) columns, the polar
 * row all 2^L of a quarter turn), so a zone splits into 4 children, or 3 when it touches a pole.
 *
 * A zone is { level, row, col } with `col` in units of the level's uncoalesced columns (a multiple of the
 * row's coalesced width), exactly DGGAL's GGGZone; its text id is `{level}-{row}-{col}` in uppercase hex and its
 * 64-bit id level << 59 | row << 30 | col. Arithmetic follows DGGAL's GNOSISGlobalGrid.ec, in radians.
 */
import { WGS84_A, WGS84_B } from '../../core/authalic-latitude.js';

export interface GnosisZone {
  level: number;
  row: number;
  col: number;
}

/** A 64-bit GGGZone holds 29 bits of row and 30 of column: level 28 at most. */
export const GNOSIS_MAX_LEVEL = 28;

const PI = Math.PI;
const HALF_PI = PI / 2;
const DBL_EPSILON = 2.220446049250313e-16;
/** DGGAL's radEpsilon. */
export const RAD_EPSILON = 10 * DBL_EPSILON;
/** DGGAL's zoneEpsilon: the slack of its floor/ceil snapping, in units of a zone. */
export const ZONE_EPSILON = 1e-9;
const TO_RAD = PI / 180;

export const rowCount = (level: number): number => 2 * 2 ** level;
export const colCount = (level: number): number => 4 * 2 ** level;

/** Bits of `r` (0 for 0); rows stay below 2^29. */
const bitLength = (r: number): number => 32 - Math.clz32(r);

/** How many times the row's columns are halved-and-joined: log2 of its zone width in columns (0 outside the level). */
export function coalesceShift(level: number, row: number): number {
  const n = rowCount(level);
  if (!(row >= 0 && row < n)) return 0;
  const r = row >= n / 2 ? n - 1 - row : row;
  return level - bitLength(r);
}

/** Longitude width of the row's zones, radians (DGGAL's getTileDeltaLon). */
export function rowDeltaLon(level: number, row: number): number {
  return (2 * PI) / (colCount(level) / 2 ** coalesceShift(level, row));
}

/** DGGAL's getDeltaLon: the zone width of the row whose latitudes are lat1..lat2 (radians). */
export function deltaLonAt(lat1: number, lat2: number, level: number): number {
  const lat = Math.abs((lat1 + lat2) / 2 + ZONE_EPSILON);
  const row = Math.trunc(((HALF_PI - lat) * rowCount(level)) / PI);
  return rowDeltaLon(level, row);
}

export const isPolarRow = (level: number, row: number): boolean => row === 0 || row === rowCount(level) - 1;

/** [llLat, llLon, urLat, urLon] in radians (DGGAL's ClassicGGGKey extent; never crosses the antimeridian). */
export function gnosisExtent(z: GnosisZone): [number, number, number, number] {
  const c = coalesceShift(z.level, z.row);
  const n = rowCount(z.level);
  const diffLat = PI / n;
  const diffLon = rowDeltaLon(z.level, z.row);
  const llLat = -HALF_PI + (n - 1 - z.row) * diffLat;
  const llLon = (z.col / 2 ** c) * diffLon - PI;
  return [llLat, llLon, llLat + diffLat, Math.min(PI, llLon + diffLon)];
}

/** DGGAL's wrapLon. */
export function wrapLonDggal(x: number): number {
  if (x < -PI - RAD_EPSILON) x += 2 * PI * Math.floor((PI - x) / (2 * PI));
  else if (x > PI + RAD_EPSILON) x -= 2 * PI * Math.floor((x + PI) / (2 * PI));
  return x;
}

/**
 * The zone of `level` holding the point (degrees), as DGGAL's fromExtent of a point, with one change: DGGAL
 * takes the row's coalescing before clamping latitude 90 into the last row, which at the North Pole gives
 * ids it refuses itself (`3-0-2`); here the pole is clamped first, giving the polar zone by longitude.
 */
export function gnosisZoneAt(lonDeg: number, latDeg: number, level: number, out: GnosisZone = { level: 0, row: 0, col: 0 }): GnosisZone {
  const lat = latDeg * TO_RAD;
  let lon = wrapLonDggal(lonDeg * TO_RAD);
  const n = rowCount(level);
  const diffLat = PI / n;
  const classicRow = Math.min(n - 1, Math.trunc((lat + HALF_PI) / diffLat));
  const llLat = -HALF_PI + classicRow * diffLat;
  const diffLon = deltaLonAt(llLat, llLat + diffLat, level);
  if (lon >= PI - RAD_EPSILON) lon -= 2 * PI;
  const row = n - 1 - classicRow;
  const classicCol = Math.trunc((lon + PI) / diffLon);
  out.level = level;
  out.row = row;
  out.col = classicCol * 2 ** coalesceShift(level, row);
  return out;
}

export function isValidGnosisZone(z: GnosisZone): boolean {
  const { level, row, col } = z;
  if (!(Number.isInteger(level) && level >= 0 && level <= GNOSIS_MAX_LEVEL)) return false;
  if (!(Number.isInteger(row) && row >= 0 && row < rowCount(level))) return false;
  if (!(Number.isInteger(col) && col >= 0 && col < colCount(level))) return false;
  return col % 2 ** coalesceShift(level, row) === 0;
}

const HEX = '(0|[1-9A-F][0-9A-F]*)';
const ID = new RegExp(`^${HEX}-${HEX}-${HEX}$`);

/** Parses a canonical id (uppercase hex, no leading zeros); null for anything else or a zone that does not exist. */
export function parseGnosisId(id: string): GnosisZone | null {
  const m = ID.exec(id);
  if (!m || m[1]!.length > 2 || m[2]!.length > 8 || m[3]!.length > 8) return null;
  const z = { level: parseInt(m[1]!, 16), row: parseInt(m[2]!, 16), col: parseInt(m[3]!, 16) };
  return isValidGnosisZone(z) ? z : null;
}

export function gnosisId(z: GnosisZone): string {
  return `${z.level.toString(16)}-${z.row.toString(16)}-${z.col.toString(16)}`.toUpperCase();
}

export function gnosisToUint64(z: GnosisZone): bigint {
  return (BigInt(z.level) << 59n) | (BigInt(z.row) << 30n) | BigInt(z.col);
}

export function gnosisFromUint64(v: bigint): GnosisZone {
  return { level: Number(v >> 59n), row: Number((v >> 30n) & 0x1fffffffn), col: Number(v & 0x3fffffffn) };
}

/** The parent: the zone one level up whose quadrant holds this one (null at level 0). */
export function gnosisParent(z: GnosisZone): GnosisZone | null {
  if (z.level === 0) return null;
  const level = z.level - 1;
  const row = Math.floor(z.row / 2);
  const w = 2 ** coalesceShift(level, row);
  return { level, row, col: Math.floor(Math.floor(z.col / 2) / w) * w };
}

/** Children in DGGAL's order: west column north then south, then east column north then south (3 at a pole). */
export function gnosisChildren(z: GnosisZone): GnosisZone[] {
  const level = z.level + 1;
  if (level > GNOSIS_MAX_LEVEL) return [];
  const n = rowCount(level);
  const row1 = 2 * z.row;
  const row2 = row1 + 1;
  // The row nearer the equator is the narrower one.
  const c = 2 ** coalesceShift(level, z.row >= n / 4 ? row1 : row2);
  const col1 = 2 * z.col;
  const col2 = col1 + c;
  const out: GnosisZone[] = [{ level, row: row1, col: col1 }, { level, row: row2, col: col1 }];
  if (z.row > 0) out.push({ level, row: row1, col: col2 });
  if (z.row < rowCount(z.level) - 1) out.push({ level, row: row2, col: col2 });
  return out;
}

/** Neighbours in DGGAL's order: north (two when that row is narrower), west, east, south (likewise). */
export function gnosisNeighbours(z: GnosisZone): GnosisZone[] {
  const { level, row, col } = z;
  const c = 2 ** coalesceShift(level, row);
  const cNorth = 2 ** coalesceShift(level, row - 1);
  const cSouth = 2 ** coalesceShift(level, row + 1);
  const nCol = colCount(level);
  const last = rowCount(level) - 1;
  const out: GnosisZone[] = [];
  if (row > 0) {
    out.push({ level, row: row - 1, col: col - (col % cNorth) });
    if (cNorth < c) out.push({ level, row: row - 1, col: col + c / 2 });
  }
  out.push({ level, row, col: col === 0 ? nCol - c : col - c });
  out.push({ level, row, col: col === nCol - c ? 0 : col + c });
  if (row < last) {
    out.push({ level, row: row + 1, col: col - (col % cSouth) });
    if (cSouth < c) out.push({ level, row: row + 1, col: col + c / 2 });
  }
  return out;
}

/** Sub-zones `depth` levels below: 4^depth, or (2^(2 depth + 1) + 1) / 3 for a polar zone (DGGAL's count). */
export function gnosisSubZoneCount(z: GnosisZone, depth: number): number {
  if (depth <= 0) return 1;
  return isPolarRow(z.level, z.row) ? (2 ** (2 * depth + 1) + 1) / 3 : 4 ** depth;
}

/** Zones of a level: 8 polar-zone quadtrees. */
export function gnosisZoneCount(level: number): number {
  return Number(8n * ((1n << BigInt(2 * level + 1)) + 1n) / 3n);
}

const E2 = 1 - (WGS84_B * WGS84_B) / (WGS84_A * WGS84_A);
const E = Math.sqrt(E2);

/**
 * Area on the WGS84 ellipsoid, m², between the parallels whose sines are x1 < x2 over `dLon` radians of
 * longitude, given d = x2 - x1 computed without cancellation: the ellipsoid's closed form (Snyder's q
 * function), the area DGGAL's GeoExtent.geodeticArea computes, with its differences of nearly equal terms
 * rewritten as single terms. DGGAL subtracts terms of about 1e20 m², so its areas of zones of a few m² keep
 * only a few digits (and its level-28 polar zones have none: area 0); these keep about 14.
 */
function bandArea(x1: number, x2: number, d: number, dLon: number): number {
  const rational = (d * (1 + E2 * x1 * x2)) / ((1 - E2 * x1 * x1) * (1 - E2 * x2 * x2));
  const log = Math.atanh((E * d) / (1 - E2 * x1 * x2)) / E;
  return (dLon / 2) * WGS84_A * WGS84_A * (1 - E2) * (rational + log);
}

/**
 * Area of the zone's rectangle: its edges are parallels and meridians, so this is exact. Latitudes are taken
 * as co-latitudes from the nearer pole (row indices times the row height), where their sines differ without
 * cancellation.
 */
export function gnosisArea(z: GnosisZone): number {
  const n = rowCount(z.level);
  const r = z.row < n / 2 ? z.row : n - 1 - z.row;
  // sin(t1) - sin(t2) as a product of the mid and half co-latitudes, each from integers without a difference.
  const d = 2 * Math.sin(((2 * r + 1) * PI) / (2 * n)) * Math.sin(PI / (2 * n));
  return bandArea(Math.cos(((r + 1) * PI) / n), Math.cos((r * PI) / n), d, rowDeltaLon(z.level, z.row));
}

/** DGGAL's wholeWorld.geodeticArea: the reference for mean zone areas. */
export const GNOSIS_EARTH_AREA = bandArea(-1, 1, 2, 2 * PI);
