import { expect } from 'chai';
import { ringCrossesItself } from '../../../src/domain/geometry/ring-crossing.js';

describe('ringCrossesItself', () => {
  it('finds the crossing of a bow tie, open or closed', () => {
    expect(ringCrossesItself([[0, 0], [1, 1], [1, 0], [0, 1]])).to.equal(true);
    expect(ringCrossesItself([[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]])).to.equal(true);
  });
  it('finds none in a simple ring, nor where neighbouring edges meet at their shared corner', () => {
    expect(ringCrossesItself([[0, 0], [1, 0], [1, 1], [0, 1]])).to.equal(false);
    expect(ringCrossesItself([[0, 0], [2, 0], [1, 1], [1, 0.5]])).to.equal(false);
  });
  it('takes longitudes the short way round, as the GeoJSON draws them', () => {
    // Across the antimeridian: 179 to -179 is a step of 2 degrees east, so these are a square and a bow tie.
    expect(ringCrossesItself([[179, 0], [-179, 0], [-179, 1], [179, 1]])).to.equal(false);
    expect(ringCrossesItself([[179, 0], [-179, 1], [-179, 0], [179, 1]])).to.equal(true);
  });
});
