/**
 * The RTEA family: DGGAL's grids on the Rhombic Triacontahedron Equal-Area projection (Slice & Dice with the
 * icosahedron edge midpoints, the rhombic triacontahedron's face centres, as radial corners). Zone layout,
 * ids and hierarchy are those of the ISEA/IVEA grids of the same shape; only the projection differs.
 */
import { I3HGrid } from '../lattices/3h/i3h-grid.js';
import { I7HGrid } from '../lattices/7h/i7h-grid.js';
import { RhombicGrid } from '../lattices/rhombic/rhombic-grid.js';
import { rteaProjection } from '../projections/rtea-projection.js';
import { Z7Grid } from '../lattices/z7/z7-grid.js';

const PROJECTION_TEXT =
  'the Rhombic Triacontahedron Equal-Area projection (Slice & Dice great circles radiating from the icosahedron ' +
  'edge midpoints) of the WGS84 authalic sphere';
const RTEA_URI = 'https://github.com/ecere/dggal';

export function createRtea3h(): I3HGrid {
  return new I3HGrid({
    id: 'RTEA3H',
    title: 'RTEA3H: aperture 3 hexagonal grid on the Rhombic Triacontahedron Equal-Area projection',
    description:
      `Equal-area aperture 3 hexagonal grid on ${PROJECTION_TEXT}; odd levels turned 30 degrees, zones indexed ` +
      'through the 9R cells of their level, sub-zones in scanline order (DGGAL RTEA3H).',
    projection: rteaProjection,
    uri: RTEA_URI,
  });
}

export function createRtea7h(): I7HGrid {
  return new I7HGrid({
    id: 'RTEA7H',
    title: 'RTEA7H: aperture 7 hexagonal grid on the Rhombic Triacontahedron Equal-Area projection',
    description:
      `Equal-area aperture 7 hexagonal grid on ${PROJECTION_TEXT}; zones indexed by root rhombus and sub-rhombus, ` +
      'sub-zones in scanline order (DGGAL RTEA7H).',
    projection: rteaProjection,
    uri: RTEA_URI,
  });
}

export function createRtea7hZ7(): Z7Grid {
  return new Z7Grid({
    id: 'RTEA7H_Z7',
    title: 'RTEA7H_Z7: the RTEA7H grid with Z7 zone ids',
    description:
      `The zones, hierarchy and sub-zone order of RTEA7H (aperture 7 hexagons on ${PROJECTION_TEXT}), named by Z7 ` +
      'ids as DGGAL does: a base cell 00-11 followed by one digit 0-6 per level (0 for the centroid child).',
    uri: RTEA_URI,
    projection: rteaProjection,
  });
}

function createRteaRhombic(aperture: 4 | 9): RhombicGrid {
  const id = `RTEA${aperture}R`;
  const cut = aperture === 9 ? '3 x 3' : '2 x 2';
  return new RhombicGrid(id, rteaProjection, aperture, {
    title: `${id}: aperture ${aperture} rhombic grid on the Rhombic Triacontahedron Equal-Area projection`,
    description:
      `Equal-area rhombic grid of aperture ${aperture}: the ten rhombi of two icosahedron faces each, unfolded into ` +
      `the 5x6 net by ${PROJECTION_TEXT}, cut into ${cut} axis-aligned squares per level; zones indexed by level, ` +
      'root rhombus and row-major square index, sub-zones in scanline order (DGGAL ' + id + ').',
    uri: RTEA_URI,
  });
}

export const createRtea9r = (): RhombicGrid => createRteaRhombic(9);
export const createRtea4r = (): RhombicGrid => createRteaRhombic(4);
