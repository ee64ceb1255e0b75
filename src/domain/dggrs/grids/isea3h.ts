/** ISEA3H: the aperture-3 hexagonal DGGRS on Snyder's Icosahedral Snyder Equal-Area projection. */
import { I3HGrid } from '../lattices/3h/i3h-grid.js';
import { iseaProjection } from '../projections/isea-projection.js';

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
