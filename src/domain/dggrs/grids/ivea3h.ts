/** IVEA3H: the aperture-3 hexagonal DGGRS on the Icosahedral Vertex-oriented great circle Equal-Area projection. */
import { I3HGrid } from '../lattices/3h/i3h-grid.js';
import { iveaProjection } from '../projections/ivea-projection.js';

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
