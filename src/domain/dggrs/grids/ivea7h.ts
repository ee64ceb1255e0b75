/** IVEA7H: the aperture-7 hexagonal DGGRS on the Icosahedral Vertex-oriented great circle Equal-Area projection. */
import { I7HGrid } from '../lattices/7h/i7h-grid.js';
import { iveaProjection } from '../projections/ivea-projection.js';

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
