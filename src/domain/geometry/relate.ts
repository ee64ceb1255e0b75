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
 * points land on the edges they came from (planar-parts.ts).
 *
 * Cost: the exhaustive method locates every sample in both geometries, O((n + m)^2) and more
 * for geometries of n and m vertices. Relations take instead the indexed method: both geometries
 * are prepared once per object (prepared-geometry.ts: a box index of their pieces, ring parity by
 * columns) and the same samples are taken only where the geometries come near each other, each
 * located in about O(log n + k), so a filter literal tested against many zones or rows costs each
 * test about the literal's pieces near the row, not the literal's size. The answers are the
 * exhaustive method's (a property test holds the two together over all relations). A point
 * against a geometry of fewer than INDEXED_MIN_VERTICES vertices, and geometries with non-finite
 * coordinates or magnitudes over 1e100, keep the old ways. Every relation counts its steps and
 * stops past a bound (spatial-work.ts).
 *
 * A single point well clear of the other geometry's vertices and edges (more than twice that
 * tolerance) is settled by its location alone, which is what the exhaustive method finds for
 * it too (`exhaustiveRelation` stays exported so tests can hold the two together).
 */
import type { Geometry, Position } from './geojson.js';
import { allVertices, distToSegment, edges, flat, interiorPoint, locate, parts, xy, type Loc, type Parts, type Pt } from './planar-parts.js';
import { PreparedGeometry, type Box, type Source } from './prepared-geometry.js';
import { StepMeter } from './spatial-work.js';

/**
 * Parameters along a-b (0..1) where the other geometry's edges or vertices meet it, given
 * (at least) those of its vertices and edges (c, d pairs) that can.
 */
function cuts(a: Pt, b: Pt, eps: number, vertices: readonly Pt[], edges: readonly Pt[], meter?: StepMeter): number[] {
  meter?.spend(vertices.length + edges.length / 2 + 1);
  if (vertices.length === 0 && edges.length === 0) return [0, 1];
  const ts = [0, 1];
  const r: Pt = [b[0] - a[0], b[1] - a[1]];
  const len2 = r[0] * r[0] + r[1] * r[1];
  for (const q of vertices) {
    if (len2 === 0 || distToSegment(q, a, b) > eps) continue;
    ts.push(((q[0] - a[0]) * r[0] + (q[1] - a[1]) * r[1]) / len2);
  }
  for (let i = 0; i < edges.length; i += 2) {
    const c = edges[i]!;
    const d = edges[i + 1]!;
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

/** All of a geometry's sample sources: its points, and its lines' and rings' edges (or lone vertices). */
function allSources(g: Parts): Source[] {
  const out: Source[] = g.points.map((p) => ({ kind: 'vertex', p, fromArea: false }));
  const linework = (seq: Pt[], fromArea: boolean): void => {
    for (let i = 1; i < seq.length; i++) out.push({ kind: 'edge', a: seq[i - 1]!, b: seq[i]!, fromArea });
    if (seq.length === 1) out.push({ kind: 'vertex', p: seq[0]!, fromArea });
  };
  for (const l of g.lines) linework(l, false);
  for (const poly of g.polygons) for (const r of poly) linework(r, true);
  return out;
}

const pointAt = (a: Pt, b: Pt, t: number): Pt => [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];

/** Samples of a geometry's sources: vertices as they are, edges at every cut and between cuts. */
function samples(sources: readonly Source[], own: (p: Pt) => Loc, other: (p: Pt) => Loc, cutsOf: (a: Pt, b: Pt) => number[]): Sample[] {
  const out: Sample[] = [];
  const add = (s: Source, p: Pt, piece: boolean): void => {
    out.push({ p, own: s.own ?? own(p), other: other(p), piece, fromArea: s.fromArea });
  };
  for (const s of sources) {
    if (s.kind === 'vertex') {
      add(s, s.p, false);
      continue;
    }
    const { a, b } = s;
    const ts = cutsOf(a, b);
    for (let k = 0; k < ts.length; k++) {
      add(s, pointAt(a, b, ts[k]!), false);
      if (k + 1 < ts.length) add(s, pointAt(a, b, (ts[k]! + ts[k + 1]!) / 2), true);
    }
  }
  return out;
}

// ---- areas ----

/**
 * Facts about the areas of two geometries that boundary samples alone cannot settle: once
 * no boundary of one enters the other's interior, each polygon's interior lies wholly
 * inside or wholly outside the other, which one interior point per polygon decides
 * (`aIn`: where the interior points of a's polygons lie in b).
 */
function areaFacts(a: Parts, b: Parts, sa: Sample[], sb: Sample[], aIn: Loc[], bIn: Loc[]): { overlap: boolean; aCovered: boolean; bCovered: boolean } {
  // sa: samples of a's linework (own = loc in a, other = loc in b); sb likewise for b.
  const aRing = sa.filter((s) => s.fromArea);
  const bRing = sb.filter((s) => s.fromArea);
  const aBoundaryInB = aRing.some((s) => s.other === 'interior');
  const bBoundaryInA = bRing.some((s) => s.other === 'interior');
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

/** The relation of a and b from the samples of each against the other and where their polygons' interior points lie. */
function relationOf(a: Parts, b: Parts, sa: Sample[], sb: Sample[], aIn: Loc[], bIn: Loc[]): Relation {
  const both = [...sa, ...sb.map((s) => ({ ...s, own: s.other, other: s.own }))];
  const intersects = both.some((s) => s.own !== 'exterior' && s.other !== 'exterior');
  let ii = both.some((s) => s.own === 'interior' && s.other === 'interior');
  const ii1 = both.some((s) => s.piece && s.own === 'interior' && s.other === 'interior' && !s.fromArea);
  const areas = areaFacts(a, b, sa, sb, aIn, bIn);
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

/** The exhaustive method: every sample of each geometry against the whole other (steps counted when a meter is given). */
function relation(ga: Geometry, gb: Geometry, meter?: StepMeter): Relation | undefined {
  const a = parts(ga);
  const b = parts(gb);
  if (a.dim < 0 || b.dim < 0) return undefined;
  const eps = Math.max(a.eps, b.eps);
  const sampled = (g: Parts, other: Parts) => {
    const [vertices, segments] = [[...allVertices(other)], [...edges(other)].flat()];
    const at = (p: Pt, h: Parts): Loc => {
      meter?.spend(h.vertices + 1);
      return locate(p, h, eps);
    };
    return samples(
      allSources(g),
      (p) => at(p, g),
      (p) => at(p, other),
      (x, y) => cuts(x, y, eps, vertices, segments, meter),
    );
  };
  const inside = (g: Parts, other: Parts): Loc[] =>
    g.polygons.map((poly) => {
      const p = interiorPoint(poly);
      meter?.spend(poly.reduce((n, r) => n + r.length, 0) + other.vertices + 1);
      return p ? locate(p, other, eps) : 'boundary';
    });
  return relationOf(a, b, sampled(a, b), sampled(b, a), inside(a, b), inside(b, a));
}

const NOWHERE: Box = [Infinity, Infinity, -Infinity, -Infinity];
const grow = (box: Box | undefined, m: number): Box => (box ? [box[0] - m, box[1] - m, box[2] + m, box[3] + m] : NOWHERE);

/**
 * The same relation from prepared geometries: each geometry's samples only from its pieces near
 * the other's envelope, each cut from the other's pieces near the edge, each point located through
 * the index. A piece farther than 4 eps from the other's envelope has all its samples (and a
 * polygon interior point there its location) in the other's exterior, where they can only tell
 * that some sample lies outside: one of them stands for all (see `PreparedGeometry.sources`).
 */
function indexedRelationOf(pa: PreparedGeometry, pb: PreparedGeometry, meter: StepMeter): Relation | undefined {
  const [a, b] = [pa.parts, pb.parts];
  if (a.dim < 0 || b.dim < 0) return undefined;
  const eps = Math.max(a.eps, b.eps);
  const m = 4 * eps;
  const [nearA, nearB] = [pa.sources(grow(pb.envelope, m), meter), pb.sources(grow(pa.envelope, m), meter)];
  /** Samples of g; `clear`: no linework of the other comes near g, so one location in it holds for all of them. */
  const sampled = (g: PreparedGeometry, own: { sources: Source[] }, other: PreparedGeometry, clear: boolean) => {
    let there: Loc | undefined;
    return samples(
      own.sources,
      (p) => g.locate(p, eps, meter),
      clear ? (p) => (there ??= other.locate(p, eps, meter)) : (p) => other.locate(p, eps, meter),
      (x, y) => {
        const near = other.candidates(grow([Math.min(x[0], y[0]), Math.min(x[1], y[1]), Math.max(x[0], y[0]), Math.max(x[1], y[1])], m), meter);
        return cuts(x, y, eps, near.vertices, near.edges, meter);
      },
    );
  };
  const inside = (g: PreparedGeometry, other: PreparedGeometry): Loc[] => g.interiorPoints(grow(other.envelope, m), meter).map((p) => other.locate(p, eps, meter));
  return relationOf(a, b, sampled(pa, nearA, pb, nearB.clear), sampled(pb, nearB, pa, nearA.clear), inside(pa, pb), inside(pb, pa));
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

/** A point is related to a geometry of fewer vertices by its location (or the exhaustive method); all else takes the indexed method. */
const INDEXED_MIN_VERTICES = 16;

/**
 * Whether `relation(a, b)` holds. Empty geometries are disjoint from everything and take
 * part in no other relation. Throws SpatialWorkError (spatial-work.ts) past MAX_RELATION_STEPS.
 */
export function spatialRelation(rel: SpatialRelation, a: Geometry, b: Geometry): boolean {
  const meter = new StepMeter();
  const [partsA, partsB] = [parts(a), parts(b)];
  if (Math.max(partsA.vertices, partsB.vertices) >= INDEXED_MIN_VERTICES || (a.type !== 'Point' && b.type !== 'Point')) {
    const [pa, pb] = [PreparedGeometry.of(a, partsA), PreparedGeometry.of(b, partsB)];
    if (pa.indexable && pb.indexable) return holds(rel, indexedRelationOf(pa, pb, meter));
  }
  const fast = a.type === 'Point' ? clearPointRelation(rel, a.coordinates, b, true) : b.type === 'Point' ? clearPointRelation(rel, b.coordinates, a, false) : undefined;
  return fast ?? holds(rel, relation(a, b, meter));
}

/** The relation by the indexed method whatever the sizes (the exhaustive one for coordinates it does not take); for tests. */
export function indexedRelation(rel: SpatialRelation, a: Geometry, b: Geometry): boolean {
  const [pa, pb] = [PreparedGeometry.of(a), PreparedGeometry.of(b)];
  return pa.indexable && pb.indexable ? holds(rel, indexedRelationOf(pa, pb, new StepMeter())) : exhaustiveRelation(rel, a, b);
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

/** The relation by the general method (see the module comment), its steps not counted: the reference for tests. */
export function exhaustiveRelation(rel: SpatialRelation, a: Geometry, b: Geometry): boolean {
  return holds(rel, relation(a, b));
}

function holds(rel: SpatialRelation, r: Relation | undefined): boolean {
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
