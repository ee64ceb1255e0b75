/** Whether two outline points are one place on the ground, shared by the grids that densify outlines. */
import type { GeoRadians } from './outline-extent.js';

/**
 * Whether two outline points are one place (within 1e-11 rad on the ground). Longitudes are compared as
 * distances: near a pole the two ends of adjacent edges differ by more than 1e-11 rad of longitude while
 * being nanometres apart, and kept both they make a spike back along the edge (a self-intersection).
 */
export function samePlace(a: GeoRadians, b: GeoRadians): boolean {
  return Math.abs(a.lat - b.lat) < 1e-11 && Math.abs(a.lon - b.lon) * Math.cos(a.lat) < 1e-11;
}
