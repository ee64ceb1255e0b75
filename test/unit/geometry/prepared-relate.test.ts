/**
 * The indexed spatial relation (prepared geometry: box index, ring parity, samples only near the
 * other geometry) gives the exhaustive method's answers, for all eight relations in both orders:
 * random polygons (with holes, self-intersecting, zig-zags), multipolygons, lines, points and
 * collections against zone-like hexagons, shapes sharing their vertices and edges, points on
 * their edges, and coordinates on a coarse grid (so that edges and vertices often coincide).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Geometry, Position } from '../../../src/domain/geometry/geojson.js';
import { exhaustiveRelation, indexedRelation, spatialRelation, type SpatialRelation } from '../../../src/domain/geometry/relate.js';
import { RingParity } from '../../../src/domain/geometry/ring-parity.js';
import { ringLoc, type Pt } from '../../../src/domain/geometry/planar-parts.js';
import { SpatialWorkError, StepMeter } from '../../../src/domain/geometry/spatial-work.js';

const RELATIONS: SpatialRelation[] = ['intersects', 'disjoint', 'equals', 'within', 'contains', 'touches', 'overlaps', 'crosses'];

const close = (ring: Position[]): Position[] => [...ring, ring[0]!];

/** A star-shaped ring around (cx, cy): n vertices at increasing angles and the given radii. */
function star(cx: number, cy: number, radii: number[], snap: number): Position[] {
  return close(radii.map((r, i) => snapped([cx + r * Math.cos((2 * Math.PI * i) / radii.length), cy + r * Math.sin((2 * Math.PI * i) / radii.length)], snap)));
}

function snapped(p: Position, snap: number): Position {
  return snap > 0 ? [Math.round(p[0]! / snap) * snap, Math.round(p[1]! / snap) * snap] : p;
}

/** A comb: base edge, then teeth between heights lo and hi across [x0, x1]. */
function zigzag(n: number, x0: number, x1: number, base: number, lo: number, hi: number): Geometry {
  const k = Math.max(2, n - 3);
  const ring: Position[] = [[x0, base], [x1, base]];
  for (let i = 0; i < k; i++) ring.push([x1 - ((x1 - x0) * i) / (k - 1), i % 2 === 0 ? hi : lo]);
  return { type: 'Polygon', coordinates: [close(ring)] };
}

/** Whether the hexagon's first vertex lies within 0.2 of (x, y). */
function near(z: Geometry, x: number, y: number): boolean {
  const [zx, zy] = (z as { coordinates: Position[][] }).coordinates[0]![0]!;
  return Math.abs(zx! - x) < 0.2 && Math.abs(zy! - y) < 0.2;
}

function hexagon(cx: number, cy: number, r: number, snap: number): Geometry {
  return { type: 'Polygon', coordinates: [star(cx, cy, [r, r, r, r, r, r], snap)] };
}

const radii = (n: number) => fc.array(fc.double({ min: 2, max: 10, noNaN: true }), { minLength: n, maxLength: n });
const snap = fc.constantFrom(0, 0, 0.5, 1);
const coord = fc.double({ min: -2, max: 22, noNaN: true });

/** The large side: what a filter literal (or a large row geometry) holds. */
const large: fc.Arbitrary<Geometry> = fc.oneof(
  fc.tuple(fc.integer({ min: 16, max: 120 }), snap).chain(([n, s]) => radii(n).map((r) => ({ type: 'Polygon', coordinates: [star(10, 10, r, s)] }) as Geometry)),
  // with a hole (the hole's star stays within the outer's least radius)
  fc.tuple(fc.integer({ min: 16, max: 80 }), snap).chain(([n, s]) =>
    fc.tuple(radii(n), fc.array(fc.double({ min: 0.5, max: 1.9, noNaN: true }), { minLength: 3, maxLength: 40 })).map(([r, h]) => ({ type: 'Polygon', coordinates: [star(10, 10, r, s), star(10, 10, h, s).reverse()] }) as Geometry),
  ),
  fc.tuple(fc.integer({ min: 20, max: 150 }), fc.double({ min: 0.5, max: 3, noNaN: true })).map(([n, depth]) => zigzag(n, 0, 20, 0, 10 - depth, 10)),
  // self-intersecting: vertices in random order
  fc.array(fc.tuple(coord, coord), { minLength: 16, maxLength: 60 }).map((ps) => ({ type: 'Polygon', coordinates: [close(ps)] }) as Geometry),
  fc.tuple(fc.integer({ min: 6, max: 30 }), fc.integer({ min: 6, max: 30 }), snap).chain(([n, m, s]) =>
    fc.tuple(radii(n), radii(m)).map(([r1, r2]) => ({ type: 'MultiPolygon', coordinates: [[star(6, 8, r1, s)], [star(14, 12, r2, s)]] }) as Geometry),
  ),
  fc.array(fc.tuple(coord, coord), { minLength: 16, maxLength: 80 }).map((ps) => ({ type: 'LineString', coordinates: ps }) as Geometry),
  fc.array(fc.array(fc.tuple(coord, coord), { minLength: 2, maxLength: 12 }), { minLength: 2, maxLength: 8 }).map((ls) => ({ type: 'MultiLineString', coordinates: ls }) as Geometry),
  fc.array(fc.tuple(coord, coord).map(([x, y]) => snapped([x, y], 1)), { minLength: 16, maxLength: 80 }).map((ps) => ({ type: 'MultiPoint', coordinates: ps }) as Geometry),
  fc.tuple(fc.integer({ min: 16, max: 60 }), snap).chain(([n, s]) =>
    fc.tuple(radii(n), fc.array(fc.tuple(coord, coord), { minLength: 2, maxLength: 10 })).map(
      ([r, l]) =>
        ({
          type: 'GeometryCollection',
          geometries: [{ type: 'Polygon', coordinates: [star(10, 10, r, s)] }, { type: 'LineString', coordinates: l }, { type: 'Point', coordinates: [10, 10] }],
        }) as Geometry,
    ),
  ),
);

/** Vertices of a geometry (to build shapes that share them). */
function vertices(g: Geometry): Position[] {
  switch (g.type) {
    case 'Point':
      return [g.coordinates];
    case 'LineString':
    case 'MultiPoint':
      return g.coordinates;
    case 'Polygon':
    case 'MultiLineString':
      return g.coordinates.flat();
    case 'MultiPolygon':
      return g.coordinates.flat(2);
    case 'GeometryCollection':
      return g.geometries.flatMap(vertices);
  }
}

/** The small side, knowing the large one: hexagons, shapes on its vertices and edges, points, lines. */
const small = (big: Geometry): fc.Arbitrary<Geometry> => {
  const vs = vertices(big);
  const vertex = fc.integer({ min: 0, max: vs.length - 1 }).map((i) => vs[i]!);
  const onEdge = fc.tuple(fc.integer({ min: 0, max: vs.length - 2 }), fc.constantFrom(0.5, 0.25, 0.1)).map(([i, t]) => [vs[i]![0]! + t * (vs[i + 1]![0]! - vs[i]![0]!), vs[i]![1]! + t * (vs[i + 1]![1]! - vs[i]![1]!)]);
  const anywhere = fc.tuple(coord, coord).map(([x, y]) => [x, y]);
  const spot = fc.oneof(vertex, onEdge, anywhere);
  return fc.oneof(
    fc.tuple(coord, coord, fc.double({ min: 0.2, max: 4, noNaN: true }), snap).map(([x, y, r, s]) => hexagon(x, y, r, s)),
    // a triangle or quad on the large geometry's vertices and edges (shared vertices, collinear edges)
    fc.array(spot, { minLength: 3, maxLength: 4 }).map((ps) => ({ type: 'Polygon', coordinates: [close(ps)] }) as Geometry),
    fc.tuple(vertex, vertex).map(([a, b]) => ({ type: 'LineString', coordinates: [a, b] }) as Geometry),
    fc.array(spot, { minLength: 2, maxLength: 5 }).map((ps) => ({ type: 'LineString', coordinates: ps }) as Geometry),
    spot.map((p) => ({ type: 'Point', coordinates: p }) as Geometry),
    fc.array(spot, { minLength: 1, maxLength: 4 }).map((ps) => ({ type: 'MultiPoint', coordinates: ps }) as Geometry),
    // the large geometry itself (equals), and a box around it all
    fc.constant(big),
    fc.constant({ type: 'Polygon', coordinates: [close([[-5, -5], [25, -5], [25, 25], [-5, 25]])] } as Geometry),
  );
};

function expectSameAnswers(a: Geometry, b: Geometry): void {
  for (const rel of RELATIONS) {
    for (const [x, y] of [[a, b], [b, a]] as const) {
      const expected = exhaustiveRelation(rel, x, y);
      expect(indexedRelation(rel, x, y), `${rel}(${JSON.stringify(x)}, ${JSON.stringify(y)})`).to.equal(expected);
      expect(spatialRelation(rel, x, y), `${rel}(${JSON.stringify(x)}, ${JSON.stringify(y)})`).to.equal(expected);
    }
  }
}

describe('geometry: the indexed relation (prepared geometries) answers as the exhaustive method', function () {
  this.timeout(120_000);

  it('for random large geometries against small ones near, on and away from them, all relations both ways', () => {
    fc.assert(
      fc.property(
        large.chain((big) => fc.tuple(fc.constant(big), fc.array(small(big), { minLength: 1, maxLength: 6 }))),
        ([big, smalls]) => smalls.forEach((s) => expectSameAnswers(big, s)),
      ),
      { numRuns: 80, seed: 20 },
    );
  });

  it('for two large geometries', () => {
    fc.assert(
      fc.property(large, large, (a, b) => expectSameAnswers(a, b)),
      { numRuns: 30, seed: 21 },
    );
  });

  it('for large coordinates, far-away geometries and non-finite coordinates (which take the exhaustive method)', () => {
    const far = zigzag(40, 1e6, 1e6 + 20, 1e6, 1e6 + 7, 1e6 + 10);
    expectSameAnswers(far, hexagon(1e6 + 10, 1e6 + 9, 0.5, 0));
    expectSameAnswers(far, hexagon(10, 9, 0.5, 0));
    expectSameAnswers(zigzag(40, 0, 20, 0, 7, 10), { type: 'Point', coordinates: [NaN, 5] });
    expectSameAnswers(zigzag(40, 0, 20, 0, 7, 10), { type: 'LineString', coordinates: [[0, 0], [Infinity, 5]] });
  });

  it('ring parity matches the plain ray for points on a grid around rings of every shape', () => {
    const rings: Pt[][] = [zigzag(200, 0, 20, 0, 3, 10), zigzag(50, 0, 20, 0, 9.9, 10), { type: 'Polygon', coordinates: [star(10, 10, Array.from({ length: 300 }, (_, i) => 2 + (i % 7)), 0.5)] } as Geometry].map(
      (g) => (g as { coordinates: Position[][] }).coordinates[0]!.map((p) => [p[0]!, p[1]!] as Pt),
    );
    // a ring whose vertices share x values (vertical edges), and one of long edges through the middle
    rings.push(Array.from({ length: 80 }, (_, i) => [Math.floor(i / 2), i % 4 < 2 ? 0 : 10] as Pt));
    rings.push(Array.from({ length: 101 }, (_, i) => (i % 2 === 0 ? [10 + 10 * Math.cos(i), 10 + 10 * Math.sin(i)] : [10, 10]) as Pt));
    let compared = 0;
    for (const ring of rings) {
      const parity = new RingParity(ring, 1e-9 * 20);
      for (let x = -1; x <= 21; x += 0.125) {
        for (let y = -1; y <= 21; y += 0.125) {
          const p: Pt = [x, y];
          const plain = ringLoc(p, ring, 1e-9 * 21);
          if (plain === 'boundary') continue;
          expect(parity.inside(p, new StepMeter()), `(${x}, ${y})`).to.equal(plain === 'interior');
          compared++;
        }
      }
    }
    expect(compared).to.be.greaterThan(50_000);
  });
});

describe('geometry: a 5,000-vertex zig-zag against thousands of zone-like hexagons', function () {
  this.timeout(120_000);

  it('is answered for every hexagon, as the exhaustive method answers for a sample of them', () => {
    const literal = zigzag(5000, 5, 16, 44, 45, 48);
    const zones: Geometry[] = [];
    for (let x = 4.5; x <= 16.5; x += 0.2) for (let y = 43.5; y <= 48.5; y += 0.17) zones.push(hexagon(x + (Math.round(y / 0.17) % 2) * 0.1, y, 0.1, 0));
    expect(zones.length).to.be.greaterThan(1500);
    const answers = zones.map((z) => ({ within: spatialRelation('within', z, literal), disjoint: spatialRelation('disjoint', literal, z) }));
    // Hexagons in the solid band under the teeth lie within it; those above the teeth are disjoint.
    let settled = 0;
    zones.forEach((z, i) => {
      const [x, y] = (z as { coordinates: Position[][] }).coordinates[0]![0]!;
      if (x! > 5.3 && x! < 15.7 && y! > 44.2 && y! < 44.8) {
        expect(answers[i]!.within, `zone ${i}`).to.equal(true);
        settled++;
      }
      if (y! > 48.2 || y! < 43.8) {
        expect(answers[i]!.disjoint, `zone ${i}`).to.equal(true);
        settled++;
      }
    });
    expect(settled).to.be.greaterThan(300);
    // A zone across the teeth, and one across the end of the comb (the exhaustive method takes seconds on this literal).
    const across = zones.find((z) => near(z, 10, 46.5))!;
    const end = zones.find((z) => near(z, 16, 47))!;
    expect(spatialRelation('overlaps', across, literal)).to.equal(exhaustiveRelation('overlaps', across, literal)).and.to.equal(true);
    expect(spatialRelation('touches', end, literal)).to.equal(exhaustiveRelation('touches', end, literal));
  });
});

describe('geometry: one relation stops at its step bound', function () {
  this.timeout(60_000);
  /** n spikes from (5, 5): every edge meets every other there, so each sample there meets them all. */
  const spikes = (n: number, last: Position = [5, 5]): Geometry => {
    const ring: Position[] = [];
    for (let i = 0; i < n / 2; i++) ring.push([5, 5], [5 + 4 * Math.cos(i), 5 + 4 * Math.sin(i)]);
    return { type: 'Polygon', coordinates: [[...ring, last]] };
  };
  const zone = hexagon(5, 5, 0.5, 0);

  it('a literal of spikes from one point: answered at 400 vertices, SpatialWorkError at 4,000 (indexed method)', () => {
    expect(spatialRelation('intersects', zone, spikes(400))).to.equal(true);
    expect(() => spatialRelation('intersects', zone, spikes(4000))).to.throw(SpatialWorkError, /steps \(the bound\)/);
  });

  it('the same with a non-finite coordinate, which takes the exhaustive method', () => {
    const broken = spikes(4000, [NaN, 5]);
    expect(() => spatialRelation('intersects', zone, broken)).to.throw(SpatialWorkError);
    expect(spatialRelation('intersects', zone, spikes(40, [NaN, 5]))).to.equal(exhaustiveRelation('intersects', zone, spikes(40, [NaN, 5])));
  });

  it('two literals crossing at every edge', () => {
    const comb = (n: number, flip: boolean): Geometry => {
      const ring: Position[] = [[0, -1], [10, -1]];
      for (let i = 0; i < n; i++) ring.push([10 - (10 * i) / (n - 1), i % 2 === 0 ? 11 : 0]);
      ring.push([0, -1]);
      return { type: 'Polygon', coordinates: [flip ? ring.map(([x, y]) => [y!, x!]) : ring] };
    };
    expect(() => spatialRelation('intersects', comb(2000, false), comb(2000, true))).to.throw(SpatialWorkError);
  });
});
