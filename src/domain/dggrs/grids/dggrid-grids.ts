/**
 * DGGRID's (Kevin Sahr's) presets that people hold data in, as the zones of our lattices in DGGRID's frame.
 * DGGRID is their reference; test/fixtures/dggrid holds its answers.
 */
import { MovedFrameGrid } from '../core/moved-frame-grid.js';
import { Z3Grid } from '../lattices/z3/z3-grid.js';
import { iseaProjection } from '../projections/isea-projection.js';
import { createIsea7hZ7 } from './isea-grids.js';

/** DGGRID's icosahedron: vertex 0 at 11.25E (DGGAL, and OGC 21-038r1 Annex B: 11.20E), same latitude and azimuth. */
export const DGGRID_FRAME = { lonShift: 11.25 - 11.2 };

/**
 * DGGRID's `dggs_type IGEO7`: ISEA aperture-7 hexagons named by Z7 ids, longitude and latitude taken as
 * positions on the authalic sphere. Its zones are ISEA7H_Z7's (the same ids, hierarchy and 64-bit form)
 * in DGGRID's frame; DGGRID 9.0 truncates its ISEA constants to 10 digits, we use exact ones.
 */
export function createIgeo7(): MovedFrameGrid {
  return new MovedFrameGrid(createIsea7hZ7(), DGGRID_FRAME, {
    id: 'IGEO7',
    title: 'IGEO7: the ISEA aperture 7 hexagonal grid of DGGRID, with Z7 zone ids',
    description:
      "DGGRID's IGEO7 preset: equal-area aperture 7 hexagons on the Icosahedral Snyder Equal-Area (1992) projection, " +
      'icosahedron vertex 0 at 11.25E 58.2825N, longitude and latitude read on the authalic sphere (no datum ' +
      'conversion), zones named by Z7 ids (a base cell 00-11, then one digit 0-6 per level, 0 for the centroid ' +
      'child) and their 64-bit form. The ids, hierarchy and sub-zone order of ISEA7H_Z7, placed as DGGRID places them.',
    uri: 'https://github.com/sahrk/DGGRID',
  });
}

/**
 * DGGRID's `dggs_type ISEA3H` with `hier_indexing_system_type Z3` (DGGRID's words for it, hence the id):
 * ISEA3H's zones named by Z3 ids, in DGGRID's frame. Its hierarchy is DGGRID's index hierarchy, one parent.
 */
export function createIsea3hZ3(): MovedFrameGrid {
  const identity = {
    id: 'ISEA3H_Z3',
    title: 'ISEA3H_Z3: the ISEA aperture 3 hexagonal grid of DGGRID, with Z3 zone ids',
    description:
      "DGGRID's ISEA3H with Z3 indexing: equal-area aperture 3 hexagons on the Icosahedral Snyder Equal-Area (1992) " +
      'projection, icosahedron vertex 0 at 11.25E 58.2825N, longitude and latitude read on the authalic sphere (no ' +
      'datum conversion), zones named by Z3 ids (a quad 00-11, then one digit 0-2 per level, 0 for the centroid ' +
      'child) and their 64-bit form; one (index) parent per zone, the id without its last digit.',
    uri: 'https://github.com/sahrk/DGGRID',
  };
  return new MovedFrameGrid(new Z3Grid({ ...identity, projection: iseaProjection }), DGGRID_FRAME, identity);
}
