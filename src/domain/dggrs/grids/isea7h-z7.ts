/** ISEA7H_Z7: the ISEA7H zones under DGGAL's Z7 ids (base cell, then one digit 0-6 per level). */
import { iseaProjection } from '../projections/isea-projection.js';
import { Z7Grid } from '../lattices/z7/z7-grid.js';

export function createIsea7hZ7(): Z7Grid {
  return new Z7Grid({
    id: 'ISEA7H_Z7',
    title: 'ISEA7H_Z7: the ISEA7H grid with Z7 zone ids',
    description:
      'The zones, hierarchy and sub-zone order of ISEA7H (aperture 7 hexagons on the Icosahedral Snyder Equal-Area ' +
      'projection of the WGS84 authalic sphere, vertex 0 at 11.20E), named by Z7 ids as DGGAL does: a base cell 00-11 ' +
      'followed by one digit 0-6 per level (0 for the centroid child).',
    uri: 'https://github.com/ecere/dggal#icosahedral-snyder-equal-area-isea-projection',
    projection: iseaProjection,
  });
}
