/**
 * Zones drawn as a raster: which zone holds each pixel of a lon/lat grid. The rasterized encodings
 * (GeoTIFF, PNG, JPEG-XL zone data; GeoTIFF zone lists) write one value per pixel from it.
 *
 * A pixel belongs to the zone the grid puts its centre in. OGC 21-038r1 asks that every sub-zone's
 * value reach at least one cell, so a zone no pixel centre falls in (a small or thin zone) takes the
 * pixel holding its centroid, from no zone or from a zone that keeps other pixels. The raster is
 * never made finer than its frame: the frame's pixels are what the callers bounded before the work
 * (limits.maxRasterCells); when two zones need the same pixel, the frame is too coarse (an error).
 */
import type { BBox, Dggrs, Stepped } from '../dggrs/dggrs.js';

/**
 * A raster of zones in CRS84: pixels of (west-east)/width by (north-south)/height degrees, nearly
 * square, rows from the north. west < east; east may pass 180 for zones across the antimeridian
 * (a pixel centre there is located at lon - 360).
 */
export interface RasterFrame {
  west: number;
  south: number;
  east: number;
  north: number;
  width: number;
  height: number;
}

export interface ZoneRaster extends RasterFrame {
  /** Per pixel, row-major from the north-west corner: the index in `zones` of the zone holding the pixel's centre, -1 where none. */
  index: Int32Array;
}

/** Two zones need the same pixel: the frame is too coarse to give each zone a pixel of its own. */
export class ZoneRasterBoundError extends Error {
  constructor(readonly width: number, readonly height: number) {
    super(`the ${width} x ${height} raster is too coarse to give each zone a pixel of its own`);
    this.name = 'ZoneRasterBoundError';
  }
}

/** Metres in one degree of latitude on the authalic sphere (R = 6,371,007 m). */
const METRES_PER_DEGREE = (6_371_007 * Math.PI) / 180;
/** Pixels along a regular zone's side: about 9 pixels a zone, so few zones miss every pixel centre. */
const PIXELS_PER_ZONE_SIDE = 3;
/** Pixels located between two pauses (a zone lookup costs a few microseconds). */
const PIXELS_PER_SLICE = 1024;

/**
 * The frame a raster of zones of `level` over `bbox` gets: the box itself (crossing the antimeridian,
 * east unwrapped past 180), with pixels about a third of the level's regular zone side. Cheap: for
 * bounding the pixels (width x height) before any work.
 */
export function zoneRasterFrame(grid: Dggrs, bbox: BBox, level: number): RasterFrame {
  const [west, south, rawEast, north] = bbox;
  const east = rawEast < west ? rawEast + 360 : rawEast;
  const zoneSideDegrees = Math.sqrt(grid.levelInfo(level).zoneAreaMetersSquare) / METRES_PER_DEGREE;
  const pixel = zoneSideDegrees / PIXELS_PER_ZONE_SIDE;
  return {
    west,
    south,
    east,
    north,
    width: Math.max(1, Math.ceil((east - west) / pixel - 1e-9)),
    height: Math.max(1, Math.ceil((north - south) / pixel - 1e-9)),
  };
}

/** The box of `zones` together (their bboxes' union, across the antimeridian when the zones are), for a zone list's raster. */
export function zonesBBox(grid: Dggrs, zones: readonly string[]): BBox {
  // Longitudes are gathered twice, as given in [-180, 180] and shifted into [0, 360): the smaller span is the zones' extent.
  let south = Infinity, north = -Infinity;
  const plain = { min: Infinity, max: -Infinity };
  const shifted = { min: Infinity, max: -Infinity };
  for (const z of zones) {
    const [w, s, e, n] = grid.describeZone(z).bbox;
    south = Math.min(south, s);
    north = Math.max(north, n);
    const east = e < w ? e + 360 : e;
    // A zone across the antimeridian has no extent in [-180, 180]: only the shifted one holds it.
    plain.min = Math.min(plain.min, e < w ? -Infinity : w);
    plain.max = Math.max(plain.max, east);
    const sw = w < 0 ? w + 360 : w;
    shifted.min = Math.min(shifted.min, sw);
    shifted.max = Math.max(shifted.max, sw + (east - w));
  }
  if (plain.max - plain.min >= 360 && shifted.max - shifted.min >= 360) return [-180, south, 180, north];
  if (plain.max - plain.min <= shifted.max - shifted.min) return [plain.min, south, plain.max > 180 ? plain.max - 360 : plain.max, north];
  const w = shifted.min > 180 ? shifted.min - 360 : shifted.min;
  const e = shifted.max > 180 ? shifted.max - 360 : shifted.max;
  return [w, south, e, north];
}

/**
 * Rasterizes `zones` (any levels; typically the sub-zones of one depth, in the order DepthValues.zones
 * gives) on `frame`, exactly (same extent and pixels): one pass locating each pixel centre, then the
 * centroid pixel for each zone that got none. Throws ZoneRasterBoundError when two zones need one pixel.
 */
export function* rasterizeZones(grid: Dggrs, zones: readonly string[], frame: RasterFrame): Stepped<ZoneRaster> {
  const locate = zoneLocator(grid, zones);
  // A zone listed twice is drawn under its first index; its later places need no pixel of their own.
  const firstIndex = new Map<string, number>();
  zones.forEach((z, i) => {
    if (!firstIndex.has(z)) firstIndex.set(z, i);
  });
  const raster = yield* sample(frame, locate);
  const missed = missedZones(raster, zones.length).filter((i) => firstIndex.get(zones[i]!) === i);
  if (missed.length > 0) giveCentroidPixels(grid, zones, raster, missed);
  return raster;
}

/** Index in `zones` of the zone holding a point, -1 for none: finest level first, keyed where the grid offers keys. */
function zoneLocator(grid: Dggrs, zones: readonly string[]): (lon: number, lat: number) => number {
  const indexOfId = new Map<string, number>();
  const levels = new Set<number>();
  zones.forEach((z, i) => {
    if (!indexOfId.has(z)) indexOfId.set(z, i);
    levels.add(grid.zoneLevel(z));
  });
  const locators = [...levels].sort((a, b) => b - a).map((level) => levelLocator(grid, level, indexOfId));
  if (locators.length === 1) return locators[0]!;
  return (lon, lat) => {
    for (const locate of locators) {
      const i = locate(lon, lat);
      if (i >= 0) return i;
    }
    return -1;
  };
}

function levelLocator(grid: Dggrs, level: number, indexOfId: ReadonlyMap<string, number>): (lon: number, lat: number) => number {
  const byId = (lon: number, lat: number): number => {
    try {
      return indexOfId.get(grid.zoneFromPoint(lon, lat, level)) ?? -1;
    } catch {
      return -1;
    }
  };
  const keyOf = grid.zoneKeyFromPoint?.bind(grid);
  const idOf = grid.zoneIdFromKey?.bind(grid);
  if (!keyOf || !idOf || level > (grid.maxZoneKeyLevel ?? -1)) return byId;
  // Neighbouring pixels share zones: each key's index is looked up once.
  const indexOfKey = new Map<number, number>();
  return (lon, lat) => {
    const key = keyOf(lon, lat, level);
    if (Number.isNaN(key)) return byId(lon, lat);
    let i = indexOfKey.get(key);
    if (i === undefined) {
      i = indexOfId.get(idOf(key, level)) ?? -1;
      indexOfKey.set(key, i);
    }
    return i;
  };
}

function* sample(frame: RasterFrame, locate: (lon: number, lat: number) => number): Stepped<ZoneRaster> {
  const { west, north, width, height } = frame;
  const dx = (frame.east - west) / width;
  const dy = (north - frame.south) / height;
  const index = new Int32Array(width * height);
  let sinceYield = 0;
  for (let row = 0; row < height; row++) {
    const lat = north - (row + 0.5) * dy;
    for (let col = 0; col < width; col++) {
      let lon = west + (col + 0.5) * dx;
      if (lon > 180) lon -= 360;
      index[row * width + col] = locate(lon, lat);
      if (++sinceYield >= PIXELS_PER_SLICE) {
        sinceYield = 0;
        yield;
      }
    }
  }
  return { ...frame, index };
}

function pixelCounts(raster: ZoneRaster, zoneCount: number): Int32Array {
  const counts = new Int32Array(zoneCount);
  for (const i of raster.index) if (i >= 0) counts[i]!++;
  return counts;
}

function missedZones(raster: ZoneRaster, zoneCount: number): number[] {
  const counts = pixelCounts(raster, zoneCount);
  const missed: number[] = [];
  counts.forEach((n, i) => {
    if (n === 0) missed.push(i);
  });
  return missed;
}

/**
 * Gives each missed zone the pixel holding its centroid, taken from no zone or from a zone that keeps
 * another pixel; a pixel two zones both need means the raster is too coarse.
 */
function giveCentroidPixels(grid: Dggrs, zones: readonly string[], raster: ZoneRaster, missed: readonly number[]): void {
  const counts = pixelCounts(raster, zones.length);
  const { west, north, width, height } = raster;
  const dx = (raster.east - west) / width;
  const dy = (north - raster.south) / height;
  for (const zone of missed) {
    const [cLon, lat] = grid.describeZone(zones[zone]!).centroid;
    const lon = cLon < west ? cLon + 360 : cLon;
    const col = Math.min(width - 1, Math.max(0, Math.floor((lon - west) / dx)));
    const row = Math.min(height - 1, Math.max(0, Math.floor((north - lat) / dy)));
    const pixel = row * width + col;
    const holder = raster.index[pixel]!;
    if (holder >= 0 && counts[holder]! <= 1) throw new ZoneRasterBoundError(width, height);
    if (holder >= 0) counts[holder]!--;
    raster.index[pixel] = zone;
    counts[zone] = 1;
  }
}
