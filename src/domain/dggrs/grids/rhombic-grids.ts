import type { Dggrs } from '../dggrs.js';
import { iseaProjection } from '../projections/isea-projection.js';
import { iveaProjection } from '../projections/ivea-projection.js';
import { createRhombicGrid } from '../lattices/rhombic/rhombic-grid.js';

const ISEA = 'the Icosahedral Snyder Equal-Area (1992) projection';
const IVEA = 'the Icosahedral Vertex-oriented great circle Equal-Area (Slice & Dice) projection';

function describe(aperture: 4 | 9, projection: string): string {
  const cut = aperture === 9 ? '3 x 3' : '2 x 2';
  return (
    `Equal-area rhombic grid of aperture ${aperture} (DGGAL): the ten rhombi of two icosahedron faces each, unfolded ` +
    `into the 5x6 net by ${projection} of the WGS84 authalic sphere (one icosahedron vertex on land), cut into ` +
    `${cut} axis-aligned squares per level; zones indexed by level, root rhombus and row-major square index, ` +
    'sub-zones in scanline order.'
  );
}

/** DGGAL's anchors for the projections of grids OGC registers no definition for. */
const DGGAL_ISEA = 'https://github.com/ecere/dggal#icosahedral-snyder-equal-area-isea-projection';
const DGGAL_IVEA = 'https://github.com/ecere/dggal#icosahedral-vertex-oriented-great-circle-equal-area-ivea-projection';

/** The rhombic family's grids by id, each held to its DGGAL oracle (test/unit/dggrs/rhombic-oracle.test.ts). */
export const RHOMBIC_GRIDS: Record<string, () => Dggrs> = {
  ISEA9R: () => createRhombicGrid('ISEA9R', iseaProjection, 9, {
    title: 'ISEA9R: aperture 9 rhombic grid on the Icosahedral Snyder Equal-Area projection',
    description: describe(9, ISEA),
    uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/ISEA9R',
  }),
  IVEA9R: () => createRhombicGrid('IVEA9R', iveaProjection, 9, {
    title: 'IVEA9R: aperture 9 rhombic grid on the Icosahedral Vertex-oriented great circle Equal-Area projection',
    description: describe(9, IVEA),
    uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA9R',
  }),
  ISEA4R: () => createRhombicGrid('ISEA4R', iseaProjection, 4, {
    title: 'ISEA4R: aperture 4 rhombic grid on the Icosahedral Snyder Equal-Area projection',
    description: describe(4, ISEA),
    uri: DGGAL_ISEA,
  }),
  IVEA4R: () => createRhombicGrid('IVEA4R', iveaProjection, 4, {
    title: 'IVEA4R: aperture 4 rhombic grid on the Icosahedral Vertex-oriented great circle Equal-Area projection',
    description: describe(4, IVEA),
    uri: DGGAL_IVEA,
  }),
};
