/**
 * The HEALPix projection (H = 4, K = 3) of the WGS84 ellipsoid through the authalic latitude, and the
 * rHEALPix projection derived from it (polar triangles rearranged into two squares, prime meridian 50°E),
 * as DGGAL computes them (projections/rHEALPix.ec). Plane coordinates are in radians: x in [-pi, pi],
 * the equatorial band |y| <= pi/4, the caps up to |y| = pi/2 (HEALPix) or 3pi/4 (rHEALPix squares).
 */
import { authalicToGeodetic, geodeticToAuthalic } from '../core/authalic-latitude.js';
import { wrapLon } from '../core/wgs84.js';

const PI = Math.PI;
const HALF_PI = PI / 2;
const QUARTER_PI = PI / 4;
const SQRT3 = Math.sqrt(3);

export interface PlanePoint { x: number; y: number }
/** Geodetic latitude and longitude in radians. */
export interface GeoRad { lat: number; lon: number }

/** Geodetic latitude (radians) of the edge of the equatorial band: authalic asin(2/3). */
export const CAP_EDGE_LAT = authalicToGeodetic(Math.asin(2 / 3));

const sgn = (v: number): number => (v < 0 ? -1 : v > 0 ? 1 : 0);

/** Quarter of the cap a longitude (radians) falls in, 0 at -180°..-90°. */
const quarter = (lon: number): number => (lon > HALF_PI ? 3 : lon > 0 ? 2 : lon > -HALF_PI ? 1 : 0);

export function healpixForward(lat: number, lon: number, v: PlanePoint): void {
  const sinLat = Math.sin(geodeticToAuthalic(lat));
  if (Math.abs(sinLat) <= 2 / 3.0) {
    v.x = lon;
    v.y = ((3 * PI) / 8) * sinLat;
    return;
  }
  const n = quarter(lon);
  const s = Math.sqrt(1 - Math.abs(sinLat));
  const dLon = lon - (-PI + HALF_PI * n);
  const width = ((SQRT3 * PI) / 2) * s;
  v.x = -PI + HALF_PI * n + (HALF_PI - width) / 2 + (dLon * width) / HALF_PI;
  v.y = (sgn(lat) * (PI - width)) / 2;
}

/** False (result still set) where DGGAL refuses the point: outside a cap's triangle. */
export function healpixInverse(x: number, y: number, g: GeoRad): boolean {
  if (Math.abs(y) <= QUARTER_PI) {
    g.lon = x + (x < -PI - 1e-11 ? 2 * PI : 0);
    g.lat = authalicToGeodetic(Math.asin((8 * y) / (3 * PI)));
    return true;
  }
  const n = quarter(x);
  const width = PI - 2 * Math.abs(y);
  if (!(width > 1e-15)) {
    g.lat = sgn(y) * HALF_PI;
    g.lon = 0;
    return true;
  }
  let ok = true;
  const s = (2 * width) / (SQRT3 * PI);
  let dLon = ((x - (-PI + HALF_PI * n + (HALF_PI - width) / 2)) * HALF_PI) / width;
  if (dLon < 0 || dLon > HALF_PI + 1e-15) {
    if (dLon < 0 && dLon > -1e-11) dLon = 0;
    else if (dLon > 0 && dLon < HALF_PI + 1e-11) dLon = HALF_PI;
    else ok = false;
  }
  g.lat = sgn(y) * authalicToGeodetic(Math.asin(1 - s * s));
  g.lon = dLon + (-PI + HALF_PI * n);
  return ok;
}

/** rHEALPix's prime meridian, 50°E. */
export const RHEALPIX_MERIDIAN = (50 * PI) / 180;

export function rhealpixForward(lat: number, lonIn: number, v: PlanePoint): void {
  const lon = wrapLon(lonIn - RHEALPIX_MERIDIAN);
  healpixForward(lat, lon, v);
  const s = v.y < 0 ? -1 : 1;
  const y = v.y * s;
  if (y <= QUARTER_PI) return;
  switch (quarter(lon)) {
    case 1: { const x = v.x; v.x = -QUARTER_PI - y; v.y = s * (x + (3 * PI) / 4); break; }
    case 2: { v.x = -HALF_PI - v.x; v.y = s * (PI - y); break; }
    case 3: { const x = v.x; v.x = y - (5 * PI) / 4; v.y = s * ((5 * PI) / 4 - x); break; }
    default: break;
  }
}

/** Which HEALPix cap triangle (0-3) a point of an rHEALPix polar square came from; -1 outside the squares. */
export function rhealpixPolarSection(x: number, yIn: number): number {
  const y = Math.abs(yIn);
  if (!(y >= QUARTER_PI && x <= -HALF_PI)) return -1;
  const dx = PI + x, dy = (3 * PI) / 4 - y, mdx = HALF_PI - dx;
  return dx > dy ? (mdx > dy ? 2 : 1) : (mdx > dy + 1e-15 ? 3 : 0);
}

export function rhealpixInverse(x: number, yIn: number, g: GeoRad): boolean {
  let ok = false;
  const s = yIn < 0 ? -1 : 1;
  const y = yIn * s;
  if (y <= QUARTER_PI + 1e-15) ok = healpixInverse(x, yIn, g);
  else if (x <= -HALF_PI + 1e-15) {
    const dx = PI + x, dy = (3 * PI) / 4 - y, mdx = HALF_PI - dx;
    const n = dx > dy ? (mdx > dy ? 2 : 1) : (mdx > dy ? 3 : 0);
    switch (n) {
      case 1: ok = healpixInverse(y - (3 * PI) / 4, s * (-QUARTER_PI - x), g); break;
      case 2: ok = healpixInverse(-x - HALF_PI, s * (PI - y), g); break;
      case 3: ok = healpixInverse((5 * PI) / 4 - y, s * ((5 * PI) / 4 + x), g); break;
      default: ok = healpixInverse(x, yIn, g); break;
    }
  }
  if (ok && Math.abs(Math.abs(g.lat) - HALF_PI) > 1e-11) g.lon = wrapLon(g.lon + RHEALPIX_MERIDIAN);
  return ok;
}
