/**
 * Whether a closed ring crosses or touches itself, judged with orientation signs that are only trusted
 * beyond their rounding error (Shewchuk's bound for orient2d): an orientation within it counts as
 * collinear, and collinear segments meet only where their extents overlap. turf's kinks reports crossings
 * between collinear pieces of one straight densified edge of a zone a few 1e-6 degrees wide; this does not.
 */
type P = readonly number[];

const ERR = (3 + 16 * Number.EPSILON) * Number.EPSILON;

function orient(a: P, b: P, c: P): number {
  const l = (a[0]! - c[0]!) * (b[1]! - c[1]!);
  const r = (a[1]! - c[1]!) * (b[0]! - c[0]!);
  const det = l - r;
  return Math.abs(det) <= ERR * (Math.abs(l) + Math.abs(r)) ? 0 : Math.sign(det);
}

const between = (a: number, b: number, v: number): boolean => Math.min(a, b) <= v && v <= Math.max(a, b);
const onSegment = (a: P, b: P, p: P): boolean => between(a[0]!, b[0]!, p[0]!) && between(a[1]!, b[1]!, p[1]!);

function segmentsMeet(a: P, b: P, c: P, d: P): boolean {
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
  if (o1 !== o2 && o3 !== o4 && o1 !== 0 && o2 !== 0 && o3 !== 0 && o4 !== 0) return true;
  return (o1 === 0 && onSegment(a, b, c)) || (o2 === 0 && onSegment(a, b, d)) || (o3 === 0 && onSegment(c, d, a)) || (o4 === 0 && onSegment(c, d, b));
}

/** The first place the ring (first position repeated last) meets itself other than at shared corners, or null. */
export function ringSelfContact(ring: readonly P[]): string | null {
  const n = ring.length - 1;
  for (let i = 0; i < n; i++) {
    const a = ring[i]!, b = ring[i + 1]!;
    // A corner that turns straight back (the next segment runs back over this one).
    const c = ring[(i + 2) % n]!;
    if (orient(a, b, c) === 0 && (b[0]! - a[0]!) * (c[0]! - b[0]!) + (b[1]! - a[1]!) * (c[1]! - b[1]!) < 0) return `spike at ${b}`;
    const x0 = Math.min(a[0]!, b[0]!), x1 = Math.max(a[0]!, b[0]!), y0 = Math.min(a[1]!, b[1]!), y1 = Math.max(a[1]!, b[1]!);
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const p = ring[j]!, q = ring[j + 1]!;
      if (Math.max(p[0]!, q[0]!) < x0 || Math.min(p[0]!, q[0]!) > x1 || Math.max(p[1]!, q[1]!) < y0 || Math.min(p[1]!, q[1]!) > y1) continue;
      if (segmentsMeet(a, b, p, q)) return `segments ${i} and ${j} meet near ${a}`;
    }
  }
  return null;
}
