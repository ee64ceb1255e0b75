/**
 * The IVEA family: grids on the Icosahedral Vertex-oriented great circle Equal-Area (Slice & Dice) projection
 * of the WGS84 authalic sphere, one per lattice (7H, its Z7 naming, 3H, 9R and 4R).
 */
import { I3HGrid } from '../lattices/3h/i3h-grid.js';
import { I7HGrid } from '../lattices/7h/i7h-grid.js';
import { RhombicGrid, rhombicDescription } from '../lattices/rhombic/rhombic-grid.js';
import { Z7Grid } from '../lattices/z7/z7-grid.js';
import { iveaProjection } from '../projections/ivea-projection.js';

/** DGGAL's anchor for the projection, for the grids OGC registers no definition for. */
const DGGAL_IVEA = 'https://github.com/ecere/dggal#icosahedral-vertex-oriented-great-circle-equal-area-ivea-projection';
const IVEA = 'the Icosahedral Vertex-oriented great circle Equal-Area (Slice & Dice) projection';

export function createIvea7h(): I7HGrid {
  return new I7HGrid({
    id: 'IVEA7H',
    title: 'IVEA7H: aperture 7 hexagonal grid on the Icosahedral Vertex-oriented Equal-Area projection',
    description:
      'Equal-area aperture 7 hexagonal grid (OGC 21-038r1 Annex B) on the Slice & Dice vertex-oriented great circle ' +
      'icosahedral projection of the WGS84 authalic sphere, one icosahedron vertex on land; zones indexed by root ' +
      'rhombus and sub-rhombus, sub-zones in scanline order.',
    projection: iveaProjection,
  });
}

/** The IVEA7H zones under DGGAL's Z7 ids (base cell, then one digit 0-6 per level). */
export function createIvea7hZ7(): Z7Grid {
  return new Z7Grid({
    id: 'IVEA7H_Z7',
    title: 'IVEA7H_Z7: the IVEA7H grid with Z7 zone ids',
    description:
      'The zones, hierarchy and sub-zone order of IVEA7H (aperture 7 hexagons on the Slice & Dice vertex-oriented ' +
      'great circle icosahedral equal-area projection of the WGS84 authalic sphere), named by Z7 ids as DGGAL does: a ' +
      'base cell 00-11 followed by one digit 0-6 per level (0 for the centroid child).',
    uri: DGGAL_IVEA,
    projection: iveaProjection,
  });
}

export function createIvea3h(): I3HGrid {
  return new I3HGrid({
    id: 'IVEA3H',
    title: 'IVEA3H: aperture 3 hexagonal grid on the Icosahedral Vertex-oriented Equal-Area projection',
    description:
      'Equal-area aperture 3 hexagonal grid (OGC 21-038r1 Annex B) on the Slice & Dice vertex-oriented great circle ' +
      'icosahedral projection of the WGS84 authalic sphere, one icosahedron vertex on land; odd levels turned 30 degrees, ' +
      'zones indexed through the ISEA9R cells of their level, sub-zones in scanline order.',
    projection: iveaProjection,
  });
}

export function createIvea9r(): RhombicGrid {
  return new RhombicGrid('IVEA9R', iveaProjection, 9, {
    title: 'IVEA9R: aperture 9 rhombic grid on the Icosahedral Vertex-oriented great circle Equal-Area projection',
    description: rhombicDescription(9, IVEA),
    uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA9R',
  });
}

export function createIvea4r(): RhombicGrid {
  return new RhombicGrid('IVEA4R', iveaProjection, 4, {
    title: 'IVEA4R: aperture 4 rhombic grid on the Icosahedral Vertex-oriented great circle Equal-Area projection',
    description: rhombicDescription(4, IVEA),
    uri: DGGAL_IVEA,
  });
}
