/** WGS84 helpers shared by the icosahedral grids: longitude wrapping and the ellipsoid's area. */
import { WGS84_A, WGS84_B } from './authalic-latitude.js';

const DBL_EPSILON = 2.220446049250313e-16;

/** Wraps into [-pi, pi]; values within 10 ulps-ish of +-pi are left alone so 180 and -180 survive. */
export function wrapLon(lon: number): number {
  const eps = 10 * DBL_EPSILON;
  while (lon < -Math.PI - eps) lon += 2 * Math.PI;
  while (lon > Math.PI + eps) lon -= 2 * Math.PI;
  return lon;
}

/** Area of the whole WGS84 ellipsoid in m^2 (closed form of the authalic sphere area). */
export function ellipsoidArea(): number {
  const a = WGS84_A;
  const b = WGS84_B;
  const e = Math.sqrt(1 - (b * b) / (a * a));
  return 2 * Math.PI * a * a * (1 + ((1 - e * e) / e) * Math.atanh(e));
}

export const EARTH_AREA = ellipsoidArea();
