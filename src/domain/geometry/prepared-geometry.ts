/**
 * A geometry prepared for many spatial relations (relate.ts): its pieces (points, edges, lone
 * vertices, ring envelopes, polygon interior points) in a box index, so that a relation with a
 * small geometry visits only the pieces near it, and a point is located in about O(log n + k)
 * (nearby edges from the index, ring parity from ring-parity.ts) with the answers of the plain
 * `locate` in planar-parts.ts.
 */
import { BoxIndex } from './box-index.js';
import type { Geometry } from './geojson.js';
import { distToSegment, interiorPoint, isOpen, KEPT_MIN_VERTICES, lineAndPointLoc, locate, near, parts, type Loc, type Parts, type Pt } from './planar-parts.js';
import { RingParity } from './ring-parity.js';
import type { StepMeter } from './spatial-work.js';

/** Geometries with fewer vertices locate points by the plain method (it is as fast for them). */
const LOCATE_INDEX_MIN_VERTICES = 16;
/** Pieces up to this many are scanned rather than indexed. */
const SCAN_MAX_PIECES = 16;
/**
 * Coordinates up to this magnitude keep every product of the methods finite; beyond it (or with a
 * non-finite coordinate) relations take the exhaustive method.
 */
const MAX_MAGNITUDE = 1e100;

const enum Kind {
  /** points[g] */
  Point,
  /** lines[g][v - 1] to lines[g][v] */
  LineEdge,
  /** lines[g], a line of one vertex */
  LineVertex,
  /** ring r of polygons[g]: ring[v - 1] to ring[v] (v >= 1) */
  RingEdge,
  /** ring r of polygons[g]: ring[0] to its last vertex (closes the ring for `ringLoc`; the lone vertex of a one-vertex ring) */
  RingClose,
  /** envelope of ring r of polygons[g] */
  RingBox,
}

/**
 * Where the samples of a relation come from: what `samples` in relate.ts walks. `own`, when
 * given, is where every sample of the source lies in its own geometry.
 */
export type Source = { kind: 'vertex'; p: Pt; fromArea: boolean; own?: Loc } | { kind: 'edge'; a: Pt; b: Pt; fromArea: boolean; own?: Loc };

export type Box = readonly [number, number, number, number];

const cache = new WeakMap<Geometry, PreparedGeometry>();

export class PreparedGeometry {
  readonly parts: Parts;
  /** Envelope of all vertices, or undefined for an empty geometry. */
  readonly envelope: Box | undefined;
  /** Whether the indexed relation may be used (finite coordinates of moderate magnitude). */
  readonly indexable: boolean;
  /** A single polygon, without lines or points. */
  private readonly onePolygon: boolean;
  private readonly kind: Kind[] = [];
  private readonly g: number[] = [];
  private readonly r: number[] = [];
  private readonly v: number[] = [];
  /** minX, minY, maxX, maxY per piece. */
  private readonly boxes: number[] = [];
  private readonly index?: BoxIndex;
  /** Pieces that give samples from areas (ring edges, lone ring vertices), and from lines and points. */
  private readonly classes: { area: number[]; other: number[] } = { area: [], other: [] };
  /** The polygons' interior points (those that have one), made on first use, indexed when many. */
  private interiors?: { points: Pt[]; index?: BoxIndex };
  /** Number of the first ring of each polygon, over all polygons. */
  private readonly ringBase: number[] = [];
  private readonly parities = new Map<number, RingParity>();

  /** The preparation of g, whose parts are `p` (kept per object for large geometries, as their parts). */
  static of(g: Geometry, p: Parts = parts(g)): PreparedGeometry {
    let prepared = cache.get(g);
    if (!prepared) {
      prepared = new PreparedGeometry(p);
      if (p.vertices >= KEPT_MIN_VERTICES) cache.set(g, prepared);
    }
    return prepared;
  }

  private constructor(p: Parts) {
    this.parts = p;
    this.indexable = Number.isFinite(p.scale) && p.scale <= MAX_MAGNITUDE;
    this.onePolygon = p.polygons.length === 1 && p.lines.length === 0 && p.points.length === 0;
    const envelope: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    p.points.forEach((q, g) => this.classes.other.push(this.add(Kind.Point, g, 0, 0, q, q, envelope)));
    p.lines.forEach((line, g) => {
      if (line.length === 1) this.classes.other.push(this.add(Kind.LineVertex, g, 0, 0, line[0]!, line[0]!, envelope));
      for (let v = 1; v < line.length; v++) this.classes.other.push(this.add(Kind.LineEdge, g, 0, v, line[v - 1]!, line[v]!, envelope));
    });
    let rings = 0;
    p.polygons.forEach((poly, g) => {
      this.ringBase.push(rings);
      rings += poly.length;
      poly.forEach((ring, r) => {
        if (ring.length === 0) return;
        const close = this.add(Kind.RingClose, g, r, 0, ring[0]!, ring[ring.length - 1]!, envelope);
        if (ring.length === 1) this.classes.area.push(close);
        for (let v = 1; v < ring.length; v++) this.classes.area.push(this.add(Kind.RingEdge, g, r, v, ring[v - 1]!, ring[v]!, envelope));
        const [x0, y0, x1, y1] = envelopeOf(ring);
        this.add(Kind.RingBox, g, r, 0, [x0, y0], [x1, y1], envelope);
      });
    });
    this.onRing = new Uint32Array(rings);
    this.nearLine = new Uint32Array(p.lines.length);
    if (this.kind.length > SCAN_MAX_PIECES && this.indexable) this.index = new BoxIndex(Float64Array.from(this.boxes));
    this.envelope = envelope[0] <= envelope[2] ? envelope : undefined;
  }

  private add(k: Kind, g: number, r: number, v: number, a: Pt, b: Pt, envelope: [number, number, number, number]): number {
    const box = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])] as const;
    this.kind.push(k);
    this.g.push(g);
    this.r.push(r);
    this.v.push(v);
    this.boxes.push(...box);
    envelope[0] = Math.min(envelope[0], box[0]);
    envelope[1] = Math.min(envelope[1], box[1]);
    envelope[2] = Math.max(envelope[2], box[2]);
    envelope[3] = Math.max(envelope[3], box[3]);
    return this.kind.length - 1;
  }

  /** The pieces whose envelope meets the box (a new array). */
  private search(box: Box, meter: StepMeter): number[] {
    const out: number[] = [];
    if (this.index) this.index.search(box[0], box[1], box[2], box[3], out);
    else for (let i = 0; i < this.kind.length; i++) if (this.meets(i, box)) out.push(i);
    meter.spend(out.length + 1);
    return out;
  }

  private meets(i: number, box: Box): boolean {
    const b = this.boxes;
    return !(b[4 * i]! > box[2] || b[4 * i + 1]! > box[3] || b[4 * i + 2]! < box[0] || b[4 * i + 3]! < box[1]);
  }

  private ring(i: number): Pt[] {
    return this.parts.polygons[this.g[i]!]![this.r[i]!]!;
  }

  private isAreaSource(i: number): boolean {
    const k = this.kind[i]!;
    return k === Kind.RingEdge || (k === Kind.RingClose && this.ring(i).length === 1);
  }

  private source(i: number): Source | undefined {
    const k = this.kind[i]!;
    const v = this.v[i]!;
    const g = this.g[i]!;
    if (k === Kind.Point) return { kind: 'vertex', p: this.parts.points[g]!, fromArea: false };
    if (k === Kind.LineVertex) return { kind: 'vertex', p: this.parts.lines[g]![0]!, fromArea: false };
    if (k === Kind.LineEdge) return { kind: 'edge', a: this.parts.lines[g]![v - 1]!, b: this.parts.lines[g]![v]!, fromArea: false };
    // A point on the outer ring of the only part is on its boundary, whatever else the polygon does (`ringLoc` finds it on that ring first).
    const own = this.onePolygon && this.r[i] === 0 ? { own: 'boundary' as const } : {};
    if (k === Kind.RingEdge) return { kind: 'edge', a: this.ring(i)[v - 1]!, b: this.ring(i)[v]!, fromArea: true, ...own };
    if (k === Kind.RingClose && this.ring(i).length === 1) return { kind: 'vertex', p: this.ring(i)[0]!, fromArea: true, ...own };
    return undefined;
  }

  /**
   * The sources of this geometry's samples whose pieces meet the box, and one more of each
   * class (area, other) when some of the class lie outside it: a relation needs, of the
   * samples away from the other geometry, only that one exists (all of them lie outside it).
   * `clear` when no point, line or ring edge of this geometry meets the box: then every point
   * of the box has one and the same location in it.
   */
  sources(box: Box, meter: StepMeter): { sources: Source[]; clear: boolean } {
    const sources: Source[] = [];
    const met = { area: 0, other: 0 };
    let clear = true;
    for (const i of this.search(box, meter)) {
      const k = this.kind[i]!;
      if (k === Kind.RingBox) continue;
      clear = false;
      const s = this.source(i);
      if (!s) continue;
      met[this.isAreaSource(i) ? 'area' : 'other']++;
      sources.push(s);
    }
    for (const c of ['area', 'other'] as const) {
      const outside = met[c] < this.classes[c].length ? this.classes[c].find((i) => !this.meets(i, box)) : undefined;
      if (outside !== undefined) sources.push(this.source(outside)!);
    }
    return { sources, clear };
  }

  /** Interior points of the polygons (as `interiorPoint`) that lie in the box, and one more outside it if there is one. */
  interiorPoints(box: Box, meter: StepMeter): Pt[] {
    if (!this.interiors) {
      const points = this.parts.polygons.map(interiorPoint).filter((q): q is Pt => q !== undefined);
      this.interiors = { points, ...(points.length > SCAN_MAX_PIECES ? { index: new BoxIndex(Float64Array.from(points.flatMap(([x, y]) => [x, y, x, y]))) } : {}) };
    }
    const { points, index } = this.interiors;
    const inBox = ([x, y]: Pt): boolean => x >= box[0] && y >= box[1] && x <= box[2] && y <= box[3];
    const out: Pt[] = [];
    if (index) {
      const found: number[] = [];
      index.search(box[0], box[1], box[2], box[3], found);
      for (const i of found) out.push(points[i]!);
    } else out.push(...points.filter(inBox));
    meter.spend(out.length + 1);
    if (out.length < points.length) {
      const outside = points.find((q) => !inBox(q));
      if (outside) out.push(outside);
    }
    return out;
  }

  /**
   * The vertices, and the edges (as `edges` in planar-parts.ts: c, d pairs), of the pieces
   * meeting the box: all that can meet a segment inside it.
   */
  candidates(box: Box, meter: StepMeter): { vertices: Pt[]; edges: Pt[] } {
    const vertices: Pt[] = [];
    const edges: Pt[] = [];
    for (const i of this.search(box, meter)) {
      const k = this.kind[i]!;
      const v = this.v[i]!;
      if (k === Kind.Point) vertices.push(this.parts.points[this.g[i]!]!);
      else if (k === Kind.LineVertex) vertices.push(this.parts.lines[this.g[i]!]![0]!);
      else if (k === Kind.LineEdge || k === Kind.RingEdge) {
        const seq = k === Kind.LineEdge ? this.parts.lines[this.g[i]!]! : this.ring(i);
        vertices.push(seq[v - 1]!, seq[v]!);
        edges.push(seq[v - 1]!, seq[v]!);
      } else if (k === Kind.RingClose) {
        const ring = this.ring(i);
        vertices.push(ring[0]!, ring[ring.length - 1]!);
      }
    }
    return { vertices, edges };
  }

  /** Scratch for `locate` (it does not nest): the pieces found, and per ring and line the last call that found p on or near it. */
  private readonly hits: number[] = [];
  private readonly onRing: Uint32Array;
  private readonly nearLine: Uint32Array;
  private mark = 0;

  /** Location of p, as `locate` in planar-parts.ts. */
  locate(p: Pt, eps: number, meter: StepMeter): Loc {
    if (this.parts.vertices < LOCATE_INDEX_MIN_VERTICES || !this.index) {
      meter.spend(this.parts.vertices + 1);
      return locate(p, this.parts, eps);
    }
    // Marks of this call: rings p is on, lines near p.
    const mark = ++this.mark;
    const aroundRings: number[] = [];
    const nearLines: number[] = [];
    let onLine = false;
    let onPoint = false;
    const r = 2 * eps;
    const hits = this.hits;
    hits.length = 0;
    this.index.search(p[0] - r, p[1] - r, p[0] + r, p[1] + r, hits);
    meter.spend(hits.length + 1);
    for (const i of hits) {
      const k = this.kind[i]!;
      const g = this.g[i]!;
      const v = this.v[i]!;
      if (k === Kind.RingEdge || k === Kind.RingClose) {
        const ring = this.ring(i);
        // `ringLoc` measures edge i from ring[i] to ring[i - 1], edge 0 from ring[0] to the last vertex.
        if (distToSegment(p, ring[v]!, ring[v === 0 ? ring.length - 1 : v - 1]!) <= eps) this.onRing[this.ringBase[g]! + this.r[i]!] = mark;
      } else if (k === Kind.RingBox) aroundRings.push(this.ringBase[g]! + this.r[i]!);
      else if (k === Kind.LineEdge) {
        if (this.nearLine[g] !== mark) nearLines.push(g);
        this.nearLine[g] = mark;
        const line = this.parts.lines[g]!;
        if (distToSegment(p, line[v - 1]!, line[v]!) <= eps) onLine = true;
      } else if (k === Kind.Point) onPoint ||= near(p, this.parts.points[g]!, eps);
    }
    // A ring whose envelope is clear of p has it outside: polygons and holes not around p drop out.
    aroundRings.sort((a, b) => a - b);
    let onBoundary = false;
    for (let k = 0; k < aroundRings.length; ) {
      const polygon = this.polygonOfRing(aroundRings[k]!);
      const base = this.ringBase[polygon]!;
      let l: Loc = 'exterior';
      if (aroundRings[k] === base) {
        l = this.ringLoc(p, base, polygon, mark, meter);
        for (let h = k + 1; l === 'interior' && h < aroundRings.length && this.polygonOfRing(aroundRings[h]!) === polygon; h++) {
          const hole = this.ringLoc(p, aroundRings[h]!, polygon, mark, meter);
          if (hole === 'boundary') l = 'boundary';
          else if (hole === 'interior') l = 'exterior';
        }
      }
      if (l === 'interior') return 'interior';
      if (l === 'boundary') onBoundary = true;
      while (k < aroundRings.length && this.polygonOfRing(aroundRings[k]!) === polygon) k++;
    }
    let endpoints = 0;
    for (const g of nearLines) {
      const line = this.parts.lines[g]!;
      if (isOpen(line)) endpoints += Number(near(p, line[0]!, eps)) + Number(near(p, line[line.length - 1]!, eps));
    }
    return lineAndPointLoc(onLine, endpoints, onPoint, onBoundary);
  }

  private polygonOfRing(ring: number): number {
    let lo = 0;
    let hi = this.ringBase.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.ringBase[mid]! <= ring) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private ringLoc(p: Pt, ringId: number, polygon: number, mark: number, meter: StepMeter): Loc {
    if (this.onRing[ringId] === mark) return 'boundary';
    let parity = this.parities.get(ringId);
    if (!parity) this.parities.set(ringId, (parity = new RingParity(this.parts.polygons[polygon]![ringId - this.ringBase[polygon]!]!, this.parts.eps)));
    return parity.inside(p, meter) ? 'interior' : 'exterior';
  }
}

function envelopeOf(points: Iterable<Pt>): [number, number, number, number] {
  const e: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    e[0] = Math.min(e[0], x);
    e[1] = Math.min(e[1], y);
    e[2] = Math.max(e[2], x);
    e[3] = Math.max(e[3], y);
  }
  return e;
}
