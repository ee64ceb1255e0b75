/**
 * Exact(ish) planar spatial relations between two geometries, for the CQL2 spatial predicates
 * (S_INTERSECTS, S_DISJOINT, S_EQUALS, S_WITHIN, S_CONTAINS, S_TOUCHES, S_OVERLAPS,
 * S_CROSSES) with their DE-9IM (OGC Simple Features) meaning, x/y only.
 *
 * Method: each geometry's linework is cut at every point where the other geometry's edges or
 * vertices touch it; between two cuts a piece lies wholly in the other geometry's interior,
 * boundary or exterior, so testing the cut points and the piece midpoints is exhaustive for
 * points and lines. For areas, one interior point per polygon settles what the boundary
 * pieces leave open (the domain stays free of packages, so no polygon-overlay library).
 * Polygons are assumed valid (OGC simple features); for invalid ones the answers are a
 * best effort.
 *
 * Points closer than a relative 1e-9 to an edge count as on it, so computed intersection
 * points land on the edges they came from.
 *
 * A single point well clear of the other geometry's vertices and edges (more than twice that
 * tolerance) is settled by its location alone, which is what the exhaustive method finds for
 * it too (`exhaustiveRelation` stays exported so tests can hold the two together). Literal
 * geometries are prepared once per object and reused across the rows they are tested against.
 */
import type { Geometry, Position } from './geojson.js';

type Pt = [number, number];
type Loc = 'interior' | 'boundary' | 'exterior';

interface Parts {
  points: Pt[];
  lines: Pt[][];
  polygons: Pt[][][];
  dim: -1 | 0 | 1 | 2;
  eps: number;
  /** Flat copies for the clear-point test, made on first use: x/y pairs, and x0/y0/x1/y1 per edge. */
  flat?: { vertices: Float64Array; edges: Float64Array };
}

function flat(p: Parts): NonNullable<Parts['flat']> {
  if (!p.flat) {
    const vertices = [...allVertices(p)].flat();
    const segments = [...edges(p)].flatMap(([a, b]) => [a[0], a[1], b[0], b[1]]);
    p.flat = { vertices: Float64Array.from(vertices), edges: Float64Array.from(segments) };
  }
  return p.flat;
}

const xy = (p: Position): Pt => [p[0]!, p[1]!];

/** Prepared parts per geometry object: a filter's literal is tested against every row. */
const prepared = new WeakMap<Geometry, Parts>();

function parts(g: Geometry): Parts {
  let p = prepared.get(g);
  if (!p) prepared.set(g, (p = partsOf(g)));
  return p;
}

function partsOf(g: Geometry): Parts {
  const out: Parts = { points: [], lines: [], polygons: [], dim: -1, eps: 0 };
  const walk = (x: Geometry): void => {
    switch (x.type) {
      case 'Point':
        out.points.push(xy(x.coordinates));
        break;
      case 'MultiPoint':
        out.points.push(...x.coordinates.map(xy));
        break;
      case 'LineString':
        out.lines.push(x.coordinates.map(xy));
        break;
      case 'MultiLineString':
        out.lines.push(...x.coordinates.map((l) => l.map(xy)));
        break;
      case 'Polygon':
        if (x.coordinates.length > 0) out.polygons.push(x.coordinates.map((r) => r.map(xy)));
        break;
      case 'MultiPolygon':
        out.polygons.push(...x.coordinates.filter((p) => p.length > 0).map((p) => p.map((r) => r.map(xy))));
        break;
      case 'GeometryCollection':
        x.geometries.forEach(walk);
        break;
    }
  };
  walk(g);
  out.dim = out.polygons.length ? 2 : out.lines.length ? 1 : out.points.length ? 0 : -1;
  let scale = 1;
  for (const p of allVertices(out)) scale = Math.max(scale, Math.abs(p[0]), Math.abs(p[1]));
  out.eps = scale * 1e-9;
  return out;
}

function* allVertices(p: Parts): Iterable<Pt> {
  yield* p.points;
  for (const l of p.lines) yield* l;
  for (const poly of p.polygons) for (const r of poly) yield* r;
}

function* edges(p: Parts): Iterable<[Pt, Pt]> {
  for (const l of p.lines) for (let i = 1; i < l.length; i++) yield [l[i - 1]!, l[i]!];
  for (const poly of p.polygons) for (const r of poly) for (let i = 1; i < r.length; i++) yield [r[i - 1]!, r[i]!];
}

// ---- primitives ----

function distToSegment(p: Pt, a: Pt, b: Pt): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

const near = (a: Pt, b: Pt, eps: number): boolean => Math.abs(a[0] - b[0]) <= eps && Math.abs(a[1] - b[1]) <= eps;

/** 'boundary' when on the ring, else inside/outside by the even-odd rule. */
function ringLoc(p: Pt, ring: Pt[], eps: number): Loc {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (distToSegment(p, a, b) <= eps) return 'boundary';
    if (a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside ? 'interior' : 'exterior';
}

function polygonLoc(p: Pt, poly: Pt[][], eps: number): Loc {
  const outer = ringLoc(p, poly[0]!, eps);
  if (outer !== 'interior') return outer;
  for (const hole of poly.slice(1)) {
    const h = ringLoc(p, hole, eps);
    if (h === 'boundary') return 'boundary';
    if (h === 'interior') return 'exterior';
  }
  return 'interior';
}

/** Location of a point relative to a geometry, treating the geometry's parts as a union. */
function locate(p: Pt, g: Parts, eps: number): Loc {
  let onBoundary = false;
  for (const poly of g.polygons) {
    const l = polygonLoc(p, poly, eps);
    if (l === 'interior') return 'interior';
    if (l === 'boundary') onBoundary = true;
  }
  let onLine = false;
  let endpointCount = 0;
  for (const line of g.lines) {
    for (let i = 1; i < line.length; i++) {
      if (distToSegment(p, line[i - 1]!, line[i]!) <= eps) onLine = true;
    }
    // Mod-2 rule: a point that ends an odd number of lines is on the boundary.
    if (line.length > 1 && !near(line[0]!, line[line.length - 1]!, 0)) {
      if (near(p, line[0]!, eps)) endpointCount++;
      if (near(p, line[line.length - 1]!, eps)) endpointCount++;
    }
  }
  if (onLine && endpointCount % 2 === 0) return 'interior';
  if (g.points.some((q) => near(p, q, eps))) return 'interior';
  if (onLine || onBoundary) return 'boundary';
  return 'exterior';
}

/** Parameters along a-b (0..1) where the other geometry's edges or vertices meet it. */
function cuts(a: Pt, b: Pt, other: Parts, eps: number): number[] {
  const ts = [0, 1];
  const r: Pt = [b[0] - a[0], b[1] - a[1]];
  const len2 = r[0] * r[0] + r[1] * r[1];
  const project = (q: Pt): void => {
    if (len2 === 0 || distToSegment(q, a, b) > eps) return;
    ts.push(((q[0] - a[0]) * r[0] + (q[1] - a[1]) * r[1]) / len2);
  };
  for (const q of allVertices(other)) project(q);
  for (const [c, d] of edges(other)) {
    const s: Pt = [d[0] - c[0], d[1] - c[1]];
    const denom = r[0] * s[1] - r[1] * s[0];
    if (denom === 0) continue; // parallel: collinear overlaps are caught by the vertex projections
    const qp: Pt = [c[0] - a[0], c[1] - a[1]];
    const t = (qp[0] * s[1] - qp[1] * s[0]) / denom;
    const u = (qp[0] * r[1] - qp[1] * r[0]) / denom;
    if (t >= -1e-12 && t <= 1 + 1e-12 && u >= -1e-12 && u <= 1 + 1e-12) ts.push(t);
  }
  return [...new Set(ts.map((t) => Math.max(0, Math.min(1, t))))].sort((x, y) => x - y);
}

interface Sample {
  p: Pt;
  /** Location in the geometry the sample was taken from. */
  own: Loc;
  /** Location in the other geometry. */
  other: Loc;
  /** Midpoint of a cut piece (stands for a 1-dimensional stretch). */
  piece: boolean;
  fromArea: boolean;
}

function samples(g: Parts, other: Parts, eps: number): Sample[] {
  const out: Sample[] = [];
  const add = (p: Pt, piece: boolean, fromArea: boolean): void => {
    out.push({ p, own: locate(p, g, eps), other: locate(p, other, eps), piece, fromArea });
  };
  for (const p of g.points) add(p, false, false);
  const linework = (seq: Pt[], fromArea: boolean): void => {
    for (let i = 1; i < seq.length; i++) {
      const a = seq[i - 1]!;
      const b = seq[i]!;
      const ts = cuts(a, b, other, eps);
      const at = (t: number): Pt => [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
      for (let k = 0; k < ts.length; k++) {
        add(at(ts[k]!), false, fromArea);
        if (k + 1 < ts.length) add(at((ts[k]! + ts[k + 1]!) / 2), true, fromArea);
      }
    }
    if (seq.length === 1) add(seq[0]!, false, fromArea);
  };
  for (const l of g.lines) linework(l, false);
  for (const poly of g.polygons) for (const r of poly) linework(r, true);
  return out;
}

// ---- areas ----

/**
 * A point strictly inside the polygon: on a horizontal line through no vertex, the stretch
 * between the first two ring crossings is inside (even-odd rule over all rings).
 */
function interiorPoint(poly: Pt[][]): Pt | undefined {
  const ys = [...new Set(poly.flat().map((p) => p[1]))].sort((a, b) => a - b);
  let best = -1;
  let y = 0;
  for (let i = 1; i < ys.length; i++) {
    if (ys[i]! - ys[i - 1]! > best) {
      best = ys[i]! - ys[i - 1]!;
      y = (ys[i]! + ys[i - 1]!) / 2;
    }
  }
  if (best <= 0) return undefined;
  const xs: number[] = [];
  for (const ring of poly) {
    for (let i = 1; i < ring.length; i++) {
      const [a, b] = [ring[i - 1]!, ring[i]!];
      if (a[1] > y !== b[1] > y) xs.push(a[0] + ((y - a[1]) * (b[0] - a[0])) / (b[1] - a[1]));
    }
  }
  xs.sort((a, b) => a - b);
  return xs.length >= 2 && xs[1]! > xs[0]! ? [(xs[0]! + xs[1]!) / 2, y] : undefined;
}

/**
 * Facts about the areas of two geometries that boundary samples alone cannot settle: once
 * no boundary of one enters the other's interior, each polygon's interior lies wholly
 * inside or wholly outside the other, which one interior point per polygon decides.
 */
function areaFacts(a: Parts, b: Parts, sa: Sample[], sb: Sample[], eps: number): { overlap: boolean; aCovered: boolean; bCovered: boolean } {
  // sa: samples of a's linework (own = loc in a, other = loc in b); sb likewise for b.
  const aRing = sa.filter((s) => s.fromArea);
  const bRing = sb.filter((s) => s.fromArea);
  const aBoundaryInB = aRing.some((s) => s.other === 'interior');
  const bBoundaryInA = bRing.some((s) => s.other === 'interior');
  const inside = (g: Parts, other: Parts): Loc[] =>
    g.polygons.map((poly) => {
      const p = interiorPoint(poly);
      return p ? locate(p, other, eps) : 'boundary';
    });
  const aIn = inside(a, b);
  const bIn = inside(b, a);
  const overlap = aBoundaryInB || bBoundaryInA || aIn.includes('interior') || bIn.includes('interior');
  const covered = (ring: Sample[], otherBoundaryInside: boolean, locs: Loc[]): boolean =>
    !otherBoundaryInside && ring.every((s) => s.other !== 'exterior') && locs.every((l) => l !== 'exterior');
  return {
    overlap,
    aCovered: b.polygons.length > 0 && covered(aRing, bBoundaryInA, aIn),
    bCovered: a.polygons.length > 0 && covered(bRing, aBoundaryInB, bIn),
  };
}

// ---- relation ----

interface Relation {
  intersects: boolean;
  /** Interiors meet. */
  ii: boolean;
  /** Interiors share a 1-dimensional stretch (only meaningful for lines). */
  ii1: boolean;
  aCoveredByB: boolean;
  bCoveredByA: boolean;
  dimA: number;
  dimB: number;
}

function relation(ga: Geometry, gb: Geometry): Relation | undefined {
  const a = parts(ga);
  const b = parts(gb);
  if (a.dim < 0 || b.dim < 0) return undefined;
  const eps = Math.max(a.eps, b.eps);
  const sa = samples(a, b, eps);
  const sb = samples(b, a, eps);
  const both = [...sa, ...sb.map((s) => ({ ...s, own: s.other, other: s.own }))];
  const intersects = both.some((s) => s.own !== 'exterior' && s.other !== 'exterior');
  let ii = both.some((s) => s.own === 'interior' && s.other === 'interior');
  const ii1 = both.some((s) => s.piece && s.own === 'interior' && s.other === 'interior' && !s.fromArea);
  const areas = areaFacts(a, b, sa, sb, eps);
  if (a.polygons.length && b.polygons.length) ii ||= areas.overlap;
  const covered = (g: Parts, other: Parts, own: Sample[], areaCovered: boolean): boolean => {
    if (g.dim > other.dim) return false;
    if (g.polygons.length && !areaCovered) return false;
    return own.filter((s) => !s.fromArea).every((s) => s.other !== 'exterior');
  };
  return {
    intersects,
    ii,
    ii1,
    aCoveredByB: covered(a, b, sa, areas.aCovered),
    bCoveredByA: covered(b, a, sb, areas.bCovered),
    dimA: a.dim,
    dimB: b.dim,
  };
}

export type SpatialRelation =
  | 'intersects'
  | 'disjoint'
  | 'equals'
  | 'within'
  | 'contains'
  | 'touches'
  | 'overlaps'
  | 'crosses';

/**
 * Whether `relation(a, b)` holds. Empty geometries are disjoint from everything and take
 * part in no other relation.
 */
export function spatialRelation(rel: SpatialRelation, a: Geometry, b: Geometry): boolean {
  const fast = a.type === 'Point' ? clearPointRelation(rel, a.coordinates, b, true) : b.type === 'Point' ? clearPointRelation(rel, b.coordinates, a, false) : undefined;
  return fast ?? exhaustiveRelation(rel, a, b);
}

/**
 * A point's relation to a geometry when the point is clear of all its linework and vertices:
 * then the point is either in the interior of one of its polygons or outside it altogether,
 * no boundary or cut point of either comes near the other, and the relation follows from that.
 * Undefined when the point is not clear (or not finite): the exhaustive method decides.
 */
function clearPointRelation(rel: SpatialRelation, position: Position, other: Geometry, pointFirst: boolean): boolean | undefined {
  const p = xy(position);
  const o = parts(other);
  if (o.dim < 0 || !Number.isFinite(p[0]) || !Number.isFinite(p[1])) return undefined;
  const eps = Math.max(o.eps, Math.max(1, Math.abs(p[0]), Math.abs(p[1])) * 1e-9);
  const clear = 2 * eps;
  const { vertices, edges: segments } = flat(o);
  for (let i = 0; i < vertices.length; i += 2) if (Math.abs(p[0] - vertices[i]!) <= clear && Math.abs(p[1] - vertices[i + 1]!) <= clear) return undefined;
  for (let i = 0; i < segments.length; i += 4) {
    if (!(distToSegment(p, [segments[i]!, segments[i + 1]!], [segments[i + 2]!, segments[i + 3]!]) > clear)) return undefined;
  }
  const inside = locate(p, o, eps) === 'interior';
  switch (rel) {
    case 'intersects':
      return inside;
    case 'disjoint':
      return !inside;
    case 'within':
      return pointFirst && inside;
    case 'contains':
      return !pointFirst && inside;
    default:
      return false; // equals, touches, overlaps, crosses need a shared boundary or equal dimensions
  }
}

/** The relation by the general method (see the module comment). */
export function exhaustiveRelation(rel: SpatialRelation, a: Geometry, b: Geometry): boolean {
  const r = relation(a, b);
  if (!r) return rel === 'disjoint';
  switch (rel) {
    case 'intersects':
      return r.intersects;
    case 'disjoint':
      return !r.intersects;
    case 'equals':
      return r.aCoveredByB && r.bCoveredByA;
    case 'within':
      return r.ii && r.aCoveredByB;
    case 'contains':
      return r.ii && r.bCoveredByA;
    case 'touches':
      return r.intersects && !r.ii && !(r.dimA === 0 && r.dimB === 0);
    case 'overlaps':
      if (r.dimA !== r.dimB) return false;
      if (r.dimA === 1 && !r.ii1) return false;
      return r.ii && !r.aCoveredByB && !r.bCoveredByA;
    case 'crosses':
      if (r.dimA === r.dimB) return r.dimA === 1 && r.ii && !r.ii1;
      // P/L, P/A, L/A (and the transposed cases): interiors meet and the lower-dimensional
      // one leaves the other.
      return r.ii && (r.dimA < r.dimB ? !r.aCoveredByB : !r.bCoveredByA);
  }
}
