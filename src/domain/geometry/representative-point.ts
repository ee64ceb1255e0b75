/**
 * The one point that stands for a row's geometry when rows are binned into zones: the point
 * itself, or the centroid (planar, in lon/lat degrees) of a line or polygon. Polygons weigh by
 * area, lines by length, points equally; a geometry of mixed dimension uses its highest one, as
 * the OGC centroid does. Degenerate shapes fall back to the lower dimension, then to the
 * envelope centre.
 */
import { envelope, type Geometry, type Position } from './geojson.js';

export type LonLatPoint = [number, number];

/** x/y of a little- or big-endian 2D WKB point (21 bytes), or undefined for anything else: the fast path for point lakes. */
export function wkbPointXY(bytes: Uint8Array): LonLatPoint | undefined {
  if (bytes.byteLength !== 21) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 21);
  const little = view.getUint8(0) === 1;
  if (view.getUint32(1, little) !== 1) return undefined;
  const x = view.getFloat64(5, little);
  const y = view.getFloat64(13, little);
  return Number.isNaN(x) || Number.isNaN(y) ? undefined : [x, y]; // NaN coordinates: an empty point
}

interface Sums {
  dim: number;
  w: number;
  x: number;
  y: number;
}

function ring(r: Position[], s: Sums, sign: number): void {
  let a = 0, cx = 0, cy = 0;
  for (let i = 0; i + 1 < r.length; i++) {
    const [x0, y0] = r[i]!, [x1, y1] = r[i + 1]!;
    const cross = x0! * y1! - x1! * y0!;
    a += cross;
    cx += (x0! + x1!) * cross;
    cy += (y0! + y1!) * cross;
  }
  // Rings are signed by orientation; weigh by |area| with the ring's role (shell +, hole -).
  const area = Math.abs(a / 2);
  if (area === 0) return;
  s.w += sign * area;
  s.x += sign * area * (cx / (3 * a));
  s.y += sign * area * (cy / (3 * a));
}

function line(ps: Position[], s: Sums): void {
  for (let i = 0; i + 1 < ps.length; i++) {
    const [x0, y0] = ps[i]!, [x1, y1] = ps[i + 1]!;
    const len = Math.hypot(x1! - x0!, y1! - y0!);
    s.w += len;
    s.x += len * ((x0! + x1!) / 2);
    s.y += len * ((y0! + y1!) / 2);
  }
}

function point(p: Position, s: Sums): void {
  s.w += 1;
  s.x += p[0]!;
  s.y += p[1]!;
}

function accumulate(g: Geometry, dim: number, s: Sums): void {
  // A single geometry counts as a collection of one of its kind.
  switch (g.type) {
    case 'Point':
    case 'MultiPoint':
      if (dim === 0) (g.type === 'Point' ? [g.coordinates] : g.coordinates).forEach((p) => point(p, s));
      return;
    case 'LineString':
    case 'MultiLineString':
      if (dim === 1) (g.type === 'LineString' ? [g.coordinates] : g.coordinates).forEach((l) => line(l, s));
      return;
    case 'Polygon':
    case 'MultiPolygon':
      for (const poly of g.type === 'Polygon' ? [g.coordinates] : g.coordinates) {
        if (dim === 2) poly.forEach((r, i) => ring(r, s, i === 0 ? 1 : -1));
        else if (dim === 1) poly.forEach((r) => line(r, s));
      }
      return;
    case 'GeometryCollection':
      g.geometries.forEach((x) => accumulate(x, dim, s));
  }
}

export function representativePoint(g: Geometry): LonLatPoint | undefined {
  if (g.type === 'Point') return g.coordinates.length >= 2 && !Number.isNaN(g.coordinates[0]) ? [g.coordinates[0]!, g.coordinates[1]!] : undefined;
  for (const dim of [2, 1, 0]) {
    const s: Sums = { dim, w: 0, x: 0, y: 0 };
    accumulate(g, dim, s);
    if (s.w > 0) return [s.x / s.w, s.y / s.w];
  }
  const e = envelope(g);
  return e ? [(e[0] + e[2]) / 2, (e[1] + e[3]) / 2] : undefined;
}
