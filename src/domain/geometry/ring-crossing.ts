/**
 * Whether a ring, drawn with straight lon/lat lines as GeoJSON draws it, crosses itself. Longitudes are
 * taken step by step the short way round (as the RFC 7946 conversion unwraps them), so a ring across the
 * antimeridian is judged as one piece.
 */
import type { LonLat } from '../dggrs/dggrs.js';

type P = readonly [number, number];

const orient = (a: P, b: P, c: P): number => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
const shortStep = (d: number): number => d - 360 * Math.round(d / 360);

/** Whether two edges of the ring (closed or open) that share no corner cross properly, each strictly straddling the other. */
export function ringCrossesItself(ring: readonly LonLat[]): boolean {
  const first = ring[0], last = ring[ring.length - 1];
  if (!first || !last) return false;
  const closed = first[0] === last[0] && first[1] === last[1] ? ring : [...ring, first];
  const pts: P[] = [[first[0], first[1]]];
  for (let i = 1; i < closed.length; i++) pts.push([pts[i - 1]![0] + shortStep(closed[i]![0] - closed[i - 1]![0]), closed[i]![1]]);
  const edges = pts.length - 1;
  for (let i = 0; i < edges; i++) {
    const a = pts[i]!, b = pts[i + 1]!;
    for (let j = i + 2; j < edges; j++) {
      if (i === 0 && j === edges - 1) continue;
      const c = pts[j]!, d = pts[j + 1]!;
      if (orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0) return true;
    }
  }
  return false;
}
