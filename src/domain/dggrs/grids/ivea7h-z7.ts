/** IVEA7H_Z7: the IVEA7H zones under DGGAL's Z7 ids (base cell, then one digit 0-6 per level). */
import { iveaProjection } from '../projections/ivea-projection.js';
import { Z7Grid } from '../lattices/z7/z7-grid.js';

export function createIvea7hZ7(): Z7Grid {
  return new Z7Grid({
    id: 'IVEA7H_Z7',
    title: 'IVEA7H_Z7: the IVEA7H grid with Z7 zone ids',
    description:
      'The zones, hierarchy and sub-zone order of IVEA7H (aperture 7 hexagons on the Slice & Dice vertex-oriented ' +
      'great circle icosahedral equal-area projection of the WGS84 authalic sphere), named by Z7 ids as DGGAL does: a ' +
      'base cell 00-11 followed by one digit 0-6 per level (0 for the centroid child).',
    uri: 'https://github.com/ecere/dggal#icosahedral-vertex-oriented-great-circle-equal-area-ivea-projection',
    projection: iveaProjection,
  });
}
