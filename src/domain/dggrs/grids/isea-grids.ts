/**
 * The ISEA family: grids on Snyder's Icosahedral Snyder Equal-Area (1992) projection of the WGS84 authalic
 * sphere, one per lattice (7H, its Z7 naming, 3H, 9R and 4R).
 */
import { I3HGrid } from '../lattices/3h/i3h-grid.js';
import { I7HGrid } from '../lattices/7h/i7h-grid.js';
import { RhombicGrid, rhombicDescription } from '../lattices/rhombic/rhombic-grid.js';
import { Z7Grid } from '../lattices/z7/z7-grid.js';
import { iseaProjection } from '../projections/isea-projection.js';

/** DGGAL's anchor for the projection, for the grids OGC registers no definition for. */
const DGGAL_ISEA = 'https://github.com/ecere/dggal#icosahedral-snyder-equal-area-isea-projection';
const ISEA = 'the Icosahedral Snyder Equal-Area (1992) projection';

export function createIsea7h(): I7HGrid {
  return new I7HGrid({
    id: 'ISEA7H',
    title: 'ISEA7H: aperture 7 hexagonal grid on the Icosahedral Snyder Equal-Area projection',
    description:
      'Equal-area aperture 7 hexagonal grid (OGC 21-038r1 Annex B) on the Icosahedral Snyder Equal-Area (1992) ' +
      'projection of the WGS84 authalic sphere, one icosahedron vertex on land; zones indexed by root rhombus and ' +
      'sub-rhombus, sub-zones in scanline order.',
    projection: iseaProjection,
  });
}

/** The ISEA7H zones under DGGAL's Z7 ids (base cell, then one digit 0-6 per level). */
export function createIsea7hZ7(): Z7Grid {
  return new Z7Grid({
    id: 'ISEA7H_Z7',
    title: 'ISEA7H_Z7: the ISEA7H grid with Z7 zone ids',
    description:
      'The zones, hierarchy and sub-zone order of ISEA7H (aperture 7 hexagons on the Icosahedral Snyder Equal-Area ' +
      'projection of the WGS84 authalic sphere, vertex 0 at 11.20E), named by Z7 ids as DGGAL does: a base cell 00-11 ' +
      'followed by one digit 0-6 per level (0 for the centroid child).',
    uri: DGGAL_ISEA,
    projection: iseaProjection,
  });
}

export function createIsea3h(): I3HGrid {
  return new I3HGrid({
    id: 'ISEA3H',
    title: 'ISEA3H: aperture 3 hexagonal grid on the Icosahedral Snyder Equal-Area projection',
    description:
      'Equal-area aperture 3 hexagonal grid (OGC 21-038r1 Annex B) on the Icosahedral Snyder Equal-Area (1992) ' +
      'projection of the WGS84 authalic sphere, one icosahedron vertex on land; odd levels turned 30 degrees, zones ' +
      'indexed through the ISEA9R cells of their level, sub-zones in scanline order.',
    projection: iseaProjection,
  });
}

export function createIsea9r(): RhombicGrid {
  return new RhombicGrid('ISEA9R', iseaProjection, 9, {
    title: 'ISEA9R: aperture 9 rhombic grid on the Icosahedral Snyder Equal-Area projection',
    description: rhombicDescription(9, ISEA),
    uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/ISEA9R',
  });
}

export function createIsea4r(): RhombicGrid {
  return new RhombicGrid('ISEA4R', iseaProjection, 4, {
    title: 'ISEA4R: aperture 4 rhombic grid on the Icosahedral Snyder Equal-Area projection',
    description: rhombicDescription(4, ISEA),
    uri: DGGAL_ISEA,
  });
}
