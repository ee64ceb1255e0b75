import type { BBox, LonLat } from '../../domain/dggrs/dggrs.js';
import { continuousLongitudes } from '../../domain/geometry/continuous-longitudes.js';

export const DEG = Math.PI / 180;

/** Makes longitudes continuous along a ring so it never jumps across the antimeridian. */
export function unwrap(ring: readonly LonLat[]): LonLat[] {
  return continuousLongitudes(ring.map(([lon, lat]): LonLat => [lon, lat]));
}

export function wrapLon(x: number): number {
  return ((((x + 180) % 360) + 360) % 360) - 180;
}

/**
 * Extent of a closed ring of continuous longitudes (west > east across the antimeridian). A ring that
 * winds round a pole holds it, and its extent reaches that pole all round; a vertex on a pole has no
 * longitude of its own, so it adds only its latitude.
 */
export function ringExtent(ring: readonly LonLat[]): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [x, y] of ring) {
    s = Math.min(s, y);
    n = Math.max(n, y);
    if (Math.abs(y) >= 90 - 1e-12) continue;
    w = Math.min(w, x);
    e = Math.max(e, x);
  }
  if (e - w >= 360 - 1e-9) return s + n > 0 ? [-180, s, 180, 90] : [-180, -90, 180, n];
  return [wrapLon(w), s, e > 180 || e < -180 ? wrapLon(e) : e, n];
}

/** About how many of `cells` equal-area cells a box holds (its share of the sphere), for planning only. */
export function cellsInBoxEstimate(bbox: BBox, cells: number): number {
  const [w, s, e, n] = bbox;
  const width = ((e - w + 360) % 360 || (e === w ? 0 : 360)) * DEG;
  const fraction = (width * (Math.sin(n * DEG) - Math.sin(s * DEG))) / (4 * Math.PI);
  return Math.ceil(fraction * cells * 1.2) + 1;
}

export type Vec3 = [number, number, number];

/** Unit vector of a point given in degrees. */
export function unitVector(lon: number, lat: number): Vec3 {
  const cl = Math.cos(lat * DEG);
  return [cl * Math.cos(lon * DEG), cl * Math.sin(lon * DEG), Math.sin(lat * DEG)];
}

/** Angle between two unit vectors, radians (atan2 form: exact for tiny angles too). */
export function angleBetween(a: Vec3, b: Vec3): number {
  const cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
  return Math.atan2(Math.hypot(cx, cy, cz), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}
