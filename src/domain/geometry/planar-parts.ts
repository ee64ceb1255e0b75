/**
 * A geometry as the spatial relations see it (relate.ts): its points, lines and polygons in x/y,
 * its dimension and the tolerance its coordinates call for, and the location of a point in it
 * (interior, boundary or exterior, the parts taken as a union).
 *
 * Points closer than a relative 1e-9 to an edge count as on it (`eps`), so computed
 * intersection points land on the edges they came from.
 */
import type { Geometry, Position } from './geojson.js';

export type Pt = [number, number];
export type Loc = 'interior' | 'boundary' | 'exterior';

export interface Parts {
  points: Pt[];
  lines: Pt[][];
  polygons: Pt[][][];
  dim: -1 | 0 | 1 | 2;
  eps: number;
  /** Largest coordinate magnitude (at least 1): what `eps` is relative to. */
  scale: number;
  vertices: number;
  /** Flat copies for the clear-point test, made on first use: x/y pairs, and x0/y0/x1/y1 per edge. */
  flat?: { vertices: Float64Array; edges: Float64Array };
}

export const xy = (p: Position): Pt => [p[0]!, p[1]!];

/**
 * Geometries of this many vertices or more keep their parts (and their preparation, see
 * prepared-geometry.ts) per object: a filter's literal is tested against every row. Smaller ones
 * (zone outlines, rows) are cheaper to read again than to keep in a weak map.
 */
export const KEPT_MIN_VERTICES = 16;

const cache = new WeakMap<Geometry, Parts>();

export function parts(g: Geometry): Parts {
  let p = cache.get(g);
  if (!p) {
    p = partsOf(g);
    if (p.vertices >= KEPT_MIN_VERTICES) cache.set(g, p);
  }
  return p;
}

function partsOf(g: Geometry): Parts {
  const out: Parts = { points: [], lines: [], polygons: [], dim: -1, eps: 0, scale: 1, vertices: 0 };
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
  for (const p of allVertices(out)) {
    scale = Math.max(scale, Math.abs(p[0]), Math.abs(p[1]));
    out.vertices++;
  }
  out.scale = scale;
  out.eps = scale * 1e-9;
  return out;
}

export function* allVertices(p: Parts): Iterable<Pt> {
  yield* p.points;
  for (const l of p.lines) yield* l;
  for (const poly of p.polygons) for (const r of poly) yield* r;
}

export function* edges(p: Parts): Iterable<[Pt, Pt]> {
  for (const l of p.lines) for (let i = 1; i < l.length; i++) yield [l[i - 1]!, l[i]!];
  for (const poly of p.polygons) for (const r of poly) for (let i = 1; i < r.length; i++) yield [r[i - 1]!, r[i]!];
}

export function flat(p: Parts): NonNullable<Parts['flat']> {
  if (!p.flat) {
    const vertices = [...allVertices(p)].flat();
    const segments = [...edges(p)].flatMap(([a, b]) => [a[0], a[1], b[0], b[1]]);
    p.flat = { vertices: Float64Array.from(vertices), edges: Float64Array.from(segments) };
  }
  return p.flat;
}

// ---- primitives ----

export function distToSegment(p: Pt, a: Pt, b: Pt): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

export const near = (a: Pt, b: Pt, eps: number): boolean => Math.abs(a[0] - b[0]) <= eps && Math.abs(a[1] - b[1]) <= eps;

/**
 * Whether edge a-b of a ring crosses the ray from p towards +x (even-odd rule; an edge counts
 * when one end is above p's height and the other at or below it).
 */
export const crossesRay = (p: Pt, a: Pt, b: Pt): boolean => a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0];

/** 'boundary' when on the ring, else inside/outside by the even-odd rule. */
export function ringLoc(p: Pt, ring: Pt[], eps: number): Loc {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (distToSegment(p, a, b) <= eps) return 'boundary';
    if (crossesRay(p, a, b)) inside = !inside;
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
export function locate(p: Pt, g: Parts, eps: number): Loc {
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
    if (isOpen(line)) {
      if (near(p, line[0]!, eps)) endpointCount++;
      if (near(p, line[line.length - 1]!, eps)) endpointCount++;
    }
  }
  return lineAndPointLoc(onLine, endpointCount, g.points.some((q) => near(p, q, eps)), onBoundary);
}

/** A line with two or more vertices whose ends differ: its ends are its boundary. */
export const isOpen = (line: Pt[]): boolean => line.length > 1 && !near(line[0]!, line[line.length - 1]!, 0);

/** The location once no polygon holds the point in its interior. */
export function lineAndPointLoc(onLine: boolean, endpointCount: number, onPoint: boolean, onPolygonBoundary: boolean): Loc {
  if (onLine && endpointCount % 2 === 0) return 'interior';
  if (onPoint) return 'interior';
  if (onLine || onPolygonBoundary) return 'boundary';
  return 'exterior';
}

/**
 * A point strictly inside the polygon: on a horizontal line through no vertex, the stretch
 * between the first two ring crossings is inside (even-odd rule over all rings).
 */
export function interiorPoint(poly: Pt[][]): Pt | undefined {
  const ys = distinctHeights(poly);
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

/** The distinct heights of the vertices, ascending (as a Set of them sorted; without one when all are finite). */
function distinctHeights(poly: Pt[][]): number[] {
  const all: number[] = [];
  let finite = true;
  for (const ring of poly) {
    for (const p of ring) {
      all.push(p[1] === 0 ? 0 : p[1]); // a Set keeps -0 as 0
      finite &&= Number.isFinite(p[1]);
    }
  }
  if (!finite) return [...new Set(all)].sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  let n = 0;
  for (const y of all) if (n === 0 || all[n - 1] !== y) all[n++] = y;
  all.length = n;
  return all;
}
