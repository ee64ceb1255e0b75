/** ISEA7H: the aperture-7 hexagonal DGGRS on Snyder's Icosahedral Snyder Equal-Area projection. */
import { I7HGrid } from '../lattices/7h/i7h-grid.js';
import { iseaProjection } from '../projections/isea-projection.js';

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
