import type { BBox } from '../dggrs/dggrs.js';

/**
 * The OGC WebMercatorQuad tile matrix set (OGC 17-083r4, annex D.1): EPSG:3857, 256-pixel tiles,
 * tile matrix z holds 2^z x 2^z tiles, row 0 at the north edge (85.0511...° N), column 0 at 180° W.
 */
export const WEB_MERCATOR_QUAD = {
  id: 'WebMercatorQuad',
  uri: 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad',
  crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
  /** The last tile matrix the set defines (its matrices are 0-24). */
  maxZoom: 24,
  tileSize: 256,
  /** Latitude of the matrix's north and south edges. */
  maxLatitude: (Math.atan(Math.sinh(Math.PI)) * 180) / Math.PI,
  /** Half the projected world's width, metres (pi times the WGS84 semi-major axis). */
  originShift: Math.PI * 6378137,
} as const;

/** Metres the equator spans on one pixel of a 256-pixel tile at zoom z. */
export function metresPerPixel(z: number): number {
  return (2 * WEB_MERCATOR_QUAD.originShift) / (WEB_MERCATOR_QUAD.tileSize * 2 ** z);
}

/** True when tile (z, x, y) lies in the matrix set: 0 <= z <= 24 and 0 <= x, y < 2^z. */
export function tileInMatrix(z: number, x: number, y: number): boolean {
  if (!Number.isInteger(z) || !Number.isInteger(x) || !Number.isInteger(y)) return false;
  if (z < 0 || z > WEB_MERCATOR_QUAD.maxZoom) return false;
  const n = 2 ** z;
  return x >= 0 && x < n && y >= 0 && y < n;
}

/** Longitude of a fractional tile column at zoom z (unbounded: past the antimeridian it leaves [-180, 180]). */
export function columnLongitude(z: number, x: number): number {
  return (x / 2 ** z) * 360 - 180;
}

/** Latitude of a fractional tile row at zoom z (rows past the matrix give latitudes beyond 85.05°, never the pole). */
export function rowLatitude(z: number, y: number): number {
  const n = Math.PI - (2 * Math.PI * y) / 2 ** z;
  return (Math.atan(Math.sinh(n)) * 180) / Math.PI;
}

/** Fractional tile column of a longitude at zoom z. */
export function longitudeColumn(z: number, lon: number): number {
  return ((lon + 180) / 360) * 2 ** z;
}

/** Fractional tile row of a latitude at zoom z (latitudes clamped to the matrix's edges). */
export function latitudeRow(z: number, lat: number): number {
  const clamped = Math.max(-WEB_MERCATOR_QUAD.maxLatitude, Math.min(WEB_MERCATOR_QUAD.maxLatitude, lat));
  const r = (clamped * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z;
}

/**
 * The lon/lat boxes covering tile (z, x, y) grown by `margin` of a tile on each side (the tile's
 * buffer): one box, or two when the grown tile crosses the antimeridian (x = 0 or x = 2^z - 1), as
 * grids list the zones of a box only within [-180, 180]. The top and bottom rows stop just past the
 * matrix's 85.05°: a zone beyond it is not drawn, and one straddling it meets the box.
 */
export function tileBoxes(z: number, x: number, y: number, margin = 0): BBox[] {
  const south = rowLatitude(z, y + 1 + margin);
  const north = rowLatitude(z, y - margin);
  const west = columnLongitude(z, x - margin), east = columnLongitude(z, x + 1 + margin);
  if (east - west >= 360) return [[-180, south, 180, north]];
  if (west < -180) return [[west + 360, south, 180, north], [-180, south, east, north]];
  if (east > 180) return [[west, south, 180, north], [-180, south, east - 360, north]];
  return [[west, south, east, north]];
}

/** Tile columns and rows of zoom z that a lon/lat box meets (a box with west > east crosses the antimeridian). */
export interface TileRange {
  zoom: number;
  minCol: number;
  maxCol: number;
  minRow: number;
  maxRow: number;
}

/**
 * The tiles of zoom z that meet `bbox`, grown by `grow` tiles on each side and clamped to the
 * matrix. A box crossing the antimeridian covers every column (a tile range cannot wrap).
 */
export function tileRange(z: number, bbox: BBox, grow = 0): TileRange {
  const last = 2 ** z - 1;
  const clamp = (v: number) => Math.max(0, Math.min(last, v));
  const wraps = bbox[0] > bbox[2];
  const minCol = wraps ? 0 : clamp(Math.floor(longitudeColumn(z, bbox[0])) - grow);
  const maxCol = wraps ? last : clamp(Math.ceil(longitudeColumn(z, bbox[2])) - 1 + grow);
  const minRow = clamp(Math.floor(latitudeRow(z, bbox[3])) - grow);
  const maxRow = clamp(Math.ceil(latitudeRow(z, bbox[1])) - 1 + grow);
  return { zoom: z, minCol, maxCol: Math.max(minCol, maxCol), minRow, maxRow: Math.max(minRow, maxRow) };
}

export function inRange(r: TileRange, x: number, y: number): boolean {
  return x >= r.minCol && x <= r.maxCol && y >= r.minRow && y <= r.maxRow;
}
