import type { LonLat } from '../dggrs/dggrs.js';

/**
 * Makes longitudes continuous along a ring, in place: each point is moved by whole turns to within
 * 180° of the one before, so the ring never jumps across the antimeridian (it may leave [-180, 180];
 * the RFC 7946 helpers bring it back). Returns the ring.
 */
export function continuousLongitudes(ring: LonLat[]): LonLat[] {
  for (let i = 1; i < ring.length; i++) {
    const prev = ring[i - 1]![0];
    let lon = ring[i]![0];
    while (lon - prev > 180) lon -= 360;
    while (lon - prev < -180) lon += 360;
    if (lon !== ring[i]![0]) ring[i] = [lon, ring[i]![1]];
  }
  return ring;
}
