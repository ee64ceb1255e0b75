import type { LonLat } from '../dggrs/dggrs.js';

/** Within this (degrees) of the antimeridian a point is put on it. */
const ANTIMERIDIAN_SNAP = 1e-10;

/**
 * Makes longitudes continuous along a ring, in place: each point is moved by whole turns to within
 * 180° of the one before, so the ring never jumps across the antimeridian (it may leave [-180, 180];
 * the RFC 7946 helpers bring it back). A point within 1e-10° of the antimeridian is put on it: an edge
 * along it (HEALPix zones have them) otherwise zigzags across it by an ulp or two, and the pieces the
 * RFC 7946 split cuts from the zigzag are self-intersecting slivers. Returns the ring.
 */
export function continuousLongitudes(ring: LonLat[]): LonLat[] {
  for (let i = 0; i < ring.length; i++) {
    let lon = ring[i]![0];
    if (i > 0) {
      const prev = ring[i - 1]![0];
      while (lon - prev > 180) lon -= 360;
      while (lon - prev < -180) lon += 360;
    }
    const turns = Math.round((lon - 180) / 360);
    const meridian = 180 + 360 * turns;
    if (lon !== meridian && Math.abs(lon - meridian) < ANTIMERIDIAN_SNAP) lon = meridian;
    if (lon !== ring[i]![0]) ring[i] = [lon, ring[i]![1]];
  }
  return ring;
}
