import { expect } from 'chai';
import { examplePairs } from '../cql2/examples.js';
import { parseCql2Json, parseCql2Text } from '../../../src/domain/cql2/index.js';
import { toCql2Json, toCql2Text } from '../../../src/domain/features/cql2-encode.js';
import { conjuncts, filterProperties, requiredClasses, supportedBy } from '../../../src/domain/features/cql2-classes.js';
import { assertEvaluable, matchesFilter, UnsupportedFilterError } from '../../../src/domain/features/cql2-evaluate.js';

const GEOM = new Set(['geometry']);
const f = (properties: Record<string, unknown>, geometry: unknown = { type: 'Point', coordinates: [10, 45] }) => ({ properties, geometry: geometry as never });
const ok = (text: string, props: Record<string, unknown>, geometry?: unknown) => matchesFilter(parseCql2Text(text), f(props, geometry), GEOM);

describe('CQL2 for remote backends', () => {
  describe('encoders: every OGC example survives a round trip through both encodings', () => {
    const { pairs } = examplePairs();
    for (const p of pairs) {
      it(p.name, () => {
        const tree = parseCql2Text(p.text);
        expect(parseCql2Text(toCql2Text(tree)), toCql2Text(tree)).to.deep.equal(tree);
        expect(parseCql2Json(toCql2Json(tree))).to.deep.equal(tree);
      });
    }
  });

  it('names the conformance classes a filter needs, and whether a server has them', () => {
    expect([...requiredClasses(parseCql2Text('a = 1 AND b < 2'))]).to.deep.equal(['basic-cql2']);
    expect([...requiredClasses(parseCql2Text("a LIKE 'x%'"))].sort()).to.deep.equal(['advanced-comparison-operators', 'basic-cql2']);
    expect([...requiredClasses(parseCql2Text('a = b'))].sort()).to.deep.equal(['basic-cql2', 'property-property']);
    expect([...requiredClasses(parseCql2Text('S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))'))].sort()).to.deep.equal(['basic-cql2', 'basic-spatial-functions']);
    expect([...requiredClasses(parseCql2Text('S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 0)))'))].sort()).to.deep.equal(['basic-cql2', 'basic-spatial-functions-plus']);
    expect([...requiredClasses(parseCql2Text('S_WITHIN(geometry, POLYGON((0 0, 1 0, 1 1, 0 0)))'))].sort()).to.deep.equal(['basic-cql2', 'spatial-functions']);
    expect(supportedBy(parseCql2Text('S_INTERSECTS(geometry, BBOX(0, 0, 1, 1))'), new Set(['basic-cql2', 'spatial-functions']))).to.equal(true);
    expect(supportedBy(parseCql2Text("a LIKE 'x'"), new Set(['basic-cql2']))).to.equal(false);
    expect(conjuncts(parseCql2Text('a = 1 AND (b = 2 AND c = 3) AND (d = 4 OR e = 5)'))).to.have.length(4);
    expect([...filterProperties(parseCql2Text("a = 1 AND CASEI(b) LIKE 'x' AND S_INTERSECTS(geometry, POINT(1 2))"))].sort()).to.deep.equal(['a', 'b', 'geometry']);
  });

  it('evaluates comparisons with SQL three-valued logic on nulls and missing properties', () => {
    expect(ok('t > 5', { t: 6 })).to.equal(true);
    expect(ok('t > 5', { t: null })).to.equal(false);
    expect(ok('NOT (t > 5)', { t: null })).to.equal(false);
    expect(ok('NOT (t > 5)', {})).to.equal(false);
    expect(ok('t > 5 OR k = 1', { t: null, k: 1 })).to.equal(true);
    expect(ok('t IS NULL', {})).to.equal(true);
    expect(ok("k <> 'a'", { k: 'b' })).to.equal(true);
  });

  it('evaluates LIKE, BETWEEN, IN, CASEI, ACCENTI and arithmetic', () => {
    expect(ok("n LIKE 'Al_ine%'", { n: 'Alpine station' })).to.equal(true);
    expect(ok("n LIKE 'a\\%b'", { n: 'a%b' })).to.equal(true);
    expect(ok("n LIKE 'a\\%b'", { n: 'axb' })).to.equal(false);
    expect(ok('e BETWEEN 1000 AND 1500', { e: 1500 })).to.equal(true);
    expect(ok("k IN ('a', 'b')", { k: 'b' })).to.equal(true);
    expect(ok("CASEI(k) = CASEI('ALPINE')", { k: 'Alpine' })).to.equal(true);
    expect(ok("ACCENTI(k) = ACCENTI('Zurich')", { k: 'Zürich' })).to.equal(true);
    expect(ok('a * 2 + 1 = 7', { a: 3 })).to.equal(true);
    expect(ok('a / 0 = 1', { a: 3 })).to.equal(false);
  });

  it('evaluates spatial and temporal predicates on the feature geometry and instants', () => {
    expect(ok('S_INTERSECTS(geometry, BBOX(9, 44, 11, 46))', {})).to.equal(true);
    expect(ok('S_INTERSECTS(geometry, BBOX(11, 44, 12, 46))', {})).to.equal(false);
    expect(ok('S_WITHIN(geometry, POLYGON((9 44, 11 44, 11 46, 9 46, 9 44)))', {})).to.equal(true);
    expect(ok('S_INTERSECTS(geometry, BBOX(9, 44, 11, 46))', {}, null)).to.equal(false);
    expect(ok("observed > TIMESTAMP('2024-01-10T00:00:00Z')", { observed: '2024-01-11T05:00:00Z' })).to.equal(true);
    expect(ok("T_INTERSECTS(observed, INTERVAL('2024-01-01', '2024-01-10'))", { observed: '2024-01-10T23:00:00Z' })).to.equal(true);
    expect(ok("T_BEFORE(observed, TIMESTAMP('2024-01-10T00:00:00Z'))", { observed: '2024-01-11T00:00:00Z' })).to.equal(false);
    expect(ok("T_DURING(observed, INTERVAL('2024-01-01T00:00:00Z', '..'))", { observed: '2024-01-11T00:00:00Z' })).to.equal(true);
  });

  it('evaluates array predicates', () => {
    expect(ok("A_CONTAINS(tags, ('a', 'b'))", { tags: ['a', 'b', 'c'] })).to.equal(true);
    expect(ok("A_OVERLAPS(tags, ('x', 'b'))", { tags: ['a', 'b'] })).to.equal(true);
    expect(ok("A_EQUALS(tags, ('a'))", { tags: ['a', 'b'] })).to.equal(false);
  });

  it('refuses functions it cannot evaluate, before any feature is read', () => {
    expect(() => assertEvaluable(parseCql2Text('my_fn(a) > 1'))).to.throw(UnsupportedFilterError, /my_fn/);
    expect(() => assertEvaluable(parseCql2Text('a > 1'))).to.not.throw();
  });
});
