/**
 * Planar polygon helpers for zonal statistics. They work in whatever plane the caller gives
 * (lon/lat degrees or raster pixel coordinates); rings are closed or open, either orientation.
 */
export type Point = [number, number];

/** Unsigned area by the shoelace formula. */
export function ringArea(ring: readonly Point[]): number {
  let s = 0;
  for (let i = 0, n = ring.length; i < n; i++) {
    const [x1, y1] = ring[i]!;
    const [x2, y2] = ring[(i + 1) % n]!;
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

/** Area centroid (not the vertex mean): a linear field's mean over the polygon is its value here. */
export function ringCentroid(ring: readonly Point[]): Point {
  let a = 0, cx = 0, cy = 0;
  for (let i = 0, n = ring.length; i < n; i++) {
    const [x1, y1] = ring[i]!;
    const [x2, y2] = ring[(i + 1) % n]!;
    const cross = x1 * y2 - x2 * y1;
    a += cross;
    cx += (x1 + x2) * cross;
    cy += (y1 + y2) * cross;
  }
  return [cx / (3 * a), cy / (3 * a)];
}

export function ringBounds(ring: readonly Point[]): [number, number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of ring) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

/** Even-odd point in polygon. */
export function pointInRing(x: number, y: number, ring: readonly Point[]): boolean {
  let inside = false;
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function segmentsIntersect(a: Point, b: Point, c: Point, d: Point): boolean {
  const orient = (p: Point, q: Point, r: Point) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
  if (o1 !== o2 && o3 !== o4) return true;
  const on = (p: Point, q: Point, r: Point) => Math.min(p[0], r[0]) <= q[0] && q[0] <= Math.max(p[0], r[0]) && Math.min(p[1], r[1]) <= q[1] && q[1] <= Math.max(p[1], r[1]);
  return (o1 === 0 && on(a, c, b)) || (o2 === 0 && on(a, d, b)) || (o3 === 0 && on(c, a, d)) || (o4 === 0 && on(c, b, d));
}

/** True when the axis-aligned rectangle and the polygon share any point (touching counts). */
export function rectTouchesRing(x0: number, y0: number, x1: number, y1: number, ring: readonly Point[]): boolean {
  for (const [x, y] of ring) if (x >= x0 && x <= x1 && y >= y0 && y <= y1) return true;
  if (pointInRing((x0 + x1) / 2, (y0 + y1) / 2, ring)) return true;
  const corners: Point[] = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
  for (let i = 0, n = ring.length; i < n; i++) {
    const a = ring[i]!, b = ring[(i + 1) % n]!;
    for (let k = 0; k < 4; k++) if (segmentsIntersect(a, b, corners[k]!, corners[(k + 1) % 4]!)) return true;
  }
  return false;
}
