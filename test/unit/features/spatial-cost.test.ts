import { expect } from 'chai';
import { parseCql2Text } from '../../../src/domain/cql2/index.js';
import { spatialVertices } from '../../../src/domain/features/spatial-cost.js';

describe('features: the worst-case cost of a filter\'s spatial predicates, in literal vertices', () => {
  const cost = (text: string) => spatialVertices(parseCql2Text(text));

  it('a literal compared with the geometry costs its vertices, two literals the product, a BBOX five', () => {
    expect(cost('elevation > 3')).to.equal(0);
    expect(cost('S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 0)))')).to.equal(4);
    expect(cost('S_WITHIN(geometry, BBOX(0, 0, 1, 1)) OR NOT S_DISJOINT(POINT(1 1), geometry)')).to.equal(6);
    expect(cost('S_INTERSECTS(POLYGON((0 0, 1 0, 1 1, 0 0)), LINESTRING(0 0, 2 2, 3 3)) AND elevation > 3')).to.equal(12);
    expect(cost('S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(0 0), LINESTRING(0 0, 1 1)))')).to.equal(3);
  });
});
