/**
 * DGGRID's placement of the ISEA icosahedron against ours (DGGAL's). DGGRID 9.0 puts vertex 0 at 11.25E
 * where DGGAL puts it at 11.20E (both at 58.2825255885...N, DGGRID's 58.28252559 being that value cut to
 * 10 digits), and reads longitude and latitude as points of the WGS84 authalic sphere, where DGGAL
 * converts geodetic latitude to authalic first. So a DGGRID point is one of ours turned 0.05 degrees east
 * about the polar axis, with its latitude read as authalic: both moves are exact, and DGGRID's cells are
 * our zones moved (its 10-digit constants aside).
 */
import type { BBox, LonLat } from '../../dggrs.js';
import { authalicToGeodetic, geodeticToAuthalic } from '../../core/authalic-latitude.js';

const DEG = Math.PI / 180;
/** DGGRID's vertex-0 longitude (11.25E) minus DGGAL's (11.20E). */
export const DGGRID_LON_SHIFT = 0.05;

const wrapDeg = (lon: number): number => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);

/** Latitude off the sphere (or not a number) stays as it is, so the grid refuses it as it would. */
const toGeodetic = (lat: number): number => (Math.abs(lat) <= 90 ? authalicToGeodetic(lat * DEG) / DEG : lat);

/** A DGGRID point (authalic latitude) as our point (geodetic latitude, our orientation). */
export function dggridToOurs(lon: number, lat: number): LonLat {
  return [wrapDeg(lon - DGGRID_LON_SHIFT), toGeodetic(lat)];
}

/** Our point as DGGRID's; `wrap` false keeps the longitude continuous with its neighbours along a ring. */
export function oursToDggrid(p: LonLat, wrap = true): LonLat {
  const lon = p[0] + DGGRID_LON_SHIFT;
  return [wrap ? wrapDeg(lon) : lon, geodeticToAuthalic(p[1] * DEG) / DEG];
}

const isWholeTurn = (b: BBox): boolean => b[0] === -180 && b[2] === 180;

/** A DGGRID box as ours: the same points, so a zone meets one exactly when it meets the other. */
export function dggridBoxToOurs(b: BBox): BBox {
  const [minLon, minLat] = dggridToOurs(b[0], b[1]);
  const [maxLon, maxLat] = dggridToOurs(b[2], b[3]);
  return isWholeTurn(b) ? [-180, minLat, 180, maxLat] : [minLon, minLat, maxLon, maxLat];
}

/** Our box as DGGRID's. */
export function oursBoxToDggrid(b: BBox): BBox {
  const [minLon, minLat] = oursToDggrid([b[0], b[1]]);
  const [maxLon, maxLat] = oursToDggrid([b[2], b[3]]);
  return isWholeTurn(b) ? [-180, minLat, 180, maxLat] : [minLon, minLat, maxLon, maxLat];
}
