/**
 * Geometry quantized to the sub-zones of a reference zone (the `dggsPlace` of DGGS-JSON-FG, OGC
 * 21-038r1 /req/data-dggs-jsonfg/content): each position becomes the sub-zone holding it, named by its
 * local index (1 .. number of sub-zones, in the grid's sub-zone order; 0 outside the reference zone)
 * or by its zone id (null outside).
 *
 * Lines and rings are first densified to `step` degrees, so a contour crossing the zone edge keeps
 * the sub-zones it passes through, the boundary ones included (a corner it clips for less than `step`
 * can be missed); then consecutive positions in one
 * sub-zone become one, and each run of outside positions a single 0 (null). A point, a line or a ring
 * with no position inside is left out, and a feature with nothing left is not in the zone. Positions
 * beyond x/y (heights) are dropped: the grid is 2D. Densified positions are counted against `budget`.
 */
import type { Geometry, Position } from './geojson.js';

export type DggsCoordinate = number | string | null;

export type DggsPlace =
  | { type: 'Point'; coordinates: DggsCoordinate }
  | { type: 'MultiPoint'; coordinates: DggsCoordinate[] }
  | { type: 'LineString'; coordinates: DggsCoordinate[] }
  | { type: 'MultiLineString'; coordinates: DggsCoordinate[][] }
  | { type: 'Polygon'; coordinates: DggsCoordinate[][] }
  | { type: 'MultiPolygon'; coordinates: DggsCoordinate[][][] }
  | { type: 'GeometryCollection'; geometries: DggsPlace[] };

export interface Quantizer {
  /** Local 1-based index of the sub-zone holding the position; 0 outside the reference zone. */
  locate(lon: number, lat: number): number;
  /** What a position is written as: the index itself, or the sub-zone id (null for 0). */
  name(index: number): DggsCoordinate;
  /** Largest distance in degrees between two positions of a densified line. */
  step: number;
  /** Positions left to locate in this request; throws QuantizeBudgetError beyond. */
  budget: { left: number };
}

export class QuantizeBudgetError extends Error {
  override readonly name = 'QuantizeBudgetError';
}

function spend(q: Quantizer, n: number): void {
  q.budget.left -= n;
  if (q.budget.left < 0) throw new QuantizeBudgetError('too many positions to quantize');
}

function point(q: Quantizer, p: Position): number {
  spend(q, 1);
  return q.locate(p[0]!, p[1]!);
}

/** Indices along a densified line: runs in one sub-zone merged, runs outside one 0. */
function contour(q: Quantizer, line: Position[]): number[] | null {
  const out: number[] = [];
  let inside = false;
  const push = (ix: number): void => {
    if (ix > 0) inside = true;
    if (out.length === 0 || out[out.length - 1] !== ix) out.push(ix);
  };
  for (let i = 0; i < line.length; i++) {
    const b = line[i]!;
    if (i > 0) {
      const a = line[i - 1]!;
      const pieces = Math.ceil(Math.max(Math.abs(b[0]! - a[0]!), Math.abs(b[1]! - a[1]!)) / q.step);
      spend(q, Math.max(0, pieces - 1));
      for (let k = 1; k < pieces; k++) push(q.locate(a[0]! + ((b[0]! - a[0]!) * k) / pieces, a[1]! + ((b[1]! - a[1]!) * k) / pieces));
    }
    push(point(q, b));
  }
  return inside ? out : null;
}

const names = (q: Quantizer, ixs: number[]): DggsCoordinate[] => ixs.map((i) => q.name(i));

/** The geometry's place in the reference zone, or null when no part of it is inside. */
export function dggsPlace(g: Geometry, q: Quantizer): DggsPlace | null {
  switch (g.type) {
    case 'Point': {
      const ix = point(q, g.coordinates);
      return ix > 0 ? { type: 'Point', coordinates: q.name(ix) } : null;
    }
    case 'MultiPoint': {
      const ixs = g.coordinates.map((p) => point(q, p)).filter((ix) => ix > 0);
      return ixs.length ? { type: 'MultiPoint', coordinates: names(q, ixs) } : null;
    }
    case 'LineString': {
      const c = contour(q, g.coordinates);
      return c ? { type: 'LineString', coordinates: names(q, c) } : null;
    }
    case 'MultiLineString': {
      const parts = g.coordinates.map((l) => contour(q, l)).filter((c): c is number[] => c !== null);
      return parts.length ? { type: 'MultiLineString', coordinates: parts.map((c) => names(q, c)) } : null;
    }
    case 'Polygon': {
      const rings = polygon(q, g.coordinates);
      return rings ? { type: 'Polygon', coordinates: rings } : null;
    }
    case 'MultiPolygon': {
      const parts = g.coordinates.map((p) => polygon(q, p)).filter((r): r is DggsCoordinate[][] => r !== null);
      return parts.length ? { type: 'MultiPolygon', coordinates: parts } : null;
    }
    case 'GeometryCollection': {
      const parts = g.geometries.map((x) => dggsPlace(x, q)).filter((p): p is DggsPlace => p !== null);
      return parts.length ? { type: 'GeometryCollection', geometries: parts } : null;
    }
  }
}

/** A polygon whose exterior has a position inside; holes wholly outside the zone are dropped. */
function polygon(q: Quantizer, rings: Position[][]): DggsCoordinate[][] | null {
  const [outer, ...holes] = rings;
  const exterior = outer ? contour(q, outer) : null;
  if (!exterior) return null;
  return [exterior, ...holes.map((h) => contour(q, h)).filter((c): c is number[] => c !== null)].map((c) => names(q, c));
}
