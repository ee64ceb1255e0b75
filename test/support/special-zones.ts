/**
 * The zones where a grid's lon/lat outlines are hardest, at one level: those holding or touching a pole,
 * those on the antimeridian, and those at the grid's singular points (the centroids and corners of its
 * level-0 zones: icosahedron vertices and so pentagons for the icosahedral grids and H3, the corners
 * where three faces meet for the HEALPix family, the dodecahedron's for A5), each with its neighbours.
 */
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';

/** Latitudes (degrees) sampled along the antimeridian: the equator, the tropics, the caps' edges, the poles' rings. */
const MERIDIAN_LATS = [-89.99, -80, -70, -60, -50, -41.9, -30, -20, -10, 0, 10, 20, 30, 41.9, 50, 60, 70, 80, 89.99];

export function singularPoints(grid: Dggrs): [number, number][] {
  const out: [number, number][] = [];
  for (const id of grid.zonesInBBox(0, [-180, -90, 180, 90])) {
    const d = grid.describeZone(id);
    out.push(d.centroid, ...d.vertices);
  }
  return out;
}

/**
 * The zones, and the ids zone-from-point gave for these places that the grid itself refuses (`refused`;
 * HEALPix at its level-0 corner 41.94°S 180° answers DGGAL's root C, as DGGAL does).
 */
export function specialZones(grid: Dggrs, level: number, singular: readonly [number, number][] = singularPoints(grid)): { zones: string[]; refused: string[] } {
  const seeds = new Set<string>();
  const refused = new Set<string>();
  const at = (lon: number, lat: number): void => {
    const id = grid.zoneFromPoint(lon, lat, level);
    (grid.isValidZone(id) ? seeds : refused).add(id);
  };
  for (const lon of [-180, -135, -90, -45, 0, 45, 90, 135]) { at(lon, 90); at(lon, -90); }
  for (const lat of MERIDIAN_LATS) { at(180, lat); at(-180, lat); at(179.999999, lat); at(-179.999999, lat); }
  for (const [lon, lat] of singular) at(lon, lat);
  const ids = new Set(seeds);
  for (const id of seeds) for (const n of grid.neighbours(id)) ids.add(n);
  return { zones: [...ids], refused: [...refused] };
}
