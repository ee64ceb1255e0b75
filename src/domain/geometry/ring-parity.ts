/**
 * Even-odd inside test of one ring for many points, in about O(log n + k) per point instead of a
 * ray over all n edges, with the same answers as that ray (planar-parts.ts `ringLoc`) for every
 * point that is not on the ring.
 *
 * Method: vertical lines ("columns") cut the ring's x-range; for each the heights where the ring
 * crosses it are kept sorted. A point's parity is that of the point q where its horizontal ray
 * meets the next column (the number of crossings below q on that column, found by binary search),
 * plus the crossings of the short stretch from the point to q (edges found by a box index). Both
 * counts equal the exact ones whenever no edge passes within the ring's tolerance of q, which is
 * checked; otherwise the point takes the full ray. Crossing parity is the same along any path for
 * a closed chain, and the computed ray agrees with the exact one for points clear of the ring
 * (their distance to every edge dwarfs the rounding of an intercept), hence the same answers.
 */
import { BoxIndex } from './box-index.js';
import { crossesRay, distToSegment, type Pt } from './planar-parts.js';
import type { StepMeter } from './spatial-work.js';

/** Rings with fewer edges take the plain ray. */
const MIN_EDGES = 32;
/** Column crossings kept, at most, per ring edge (long edges cross many columns). */
const CROSSINGS_PER_EDGE = 16;

export class RingParity {
  /** Edge i runs from ring[i] to ring[i - 1] (edge 0 closes the ring), as in `ringLoc`. */
  private readonly index?: BoxIndex;
  /** Column x positions, ascending; the last is +Infinity. */
  private readonly columns: Float64Array = new Float64Array();
  /** Per column, the heights of the ring's crossings, ascending. */
  private readonly crossings: Float64Array[] = [];

  constructor(
    private readonly ring: Pt[],
    /** Edges closer than this to q send the point to the full ray. */
    private readonly tolerance: number,
  ) {
    if (ring.length < MIN_EDGES) return;
    const boxes = new Float64Array(4 * ring.length);
    for (let i = 0; i < ring.length; i++) {
      const [a, b] = this.edge(i);
      boxes.set([Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])], 4 * i);
    }
    this.index = new BoxIndex(boxes);
    this.columns = this.placeColumns();
    const lists: number[][] = Array.from(this.columns, () => []);
    for (let i = 0; i < ring.length; i++) {
      const [a, b] = this.edge(i);
      // The edge crosses column x when one end is right of x and the other not: min x <= x < max x.
      for (let c = lowerBound(this.columns, Math.min(a[0], b[0])); this.columns[c]! < Math.max(a[0], b[0]); c++) {
        const x = this.columns[c]!;
        lists[c]!.push(a[1] + ((x - a[0]) * (b[1] - a[1])) / (b[0] - a[0]));
      }
    }
    this.crossings = lists.map((list) => Float64Array.from(list).sort());
  }

  private edge(i: number): [Pt, Pt] {
    return [this.ring[i]!, this.ring[i === 0 ? this.ring.length - 1 : i - 1]!];
  }

  /**
   * Columns between distinct vertex x values (never through a vertex), every `stride`-th one,
   * the stride doubled until the crossings stay within CROSSINGS_PER_EDGE per edge.
   */
  private placeColumns(): Float64Array {
    const xs = [...new Set(this.ring.map((p) => p[0]))].sort((a, b) => a - b);
    const mids = xs.slice(1).map((x, k) => (xs[k]! + x) / 2);
    const spans = this.ring.map((_, i) => {
      const [a, b] = this.edge(i);
      return [Math.min(a[0], b[0]), Math.max(a[0], b[0])] as const;
    });
    for (let stride = 4; ; stride *= 2) {
      const columns = mids.filter((_, k) => k % stride === stride - 1);
      // An edge crosses the columns in [min x, max x).
      const total = spans.reduce((n, [lo, hi]) => n + lowerBound(columns, hi) - lowerBound(columns, lo), 0);
      if (total <= CROSSINGS_PER_EDGE * this.ring.length || columns.length === 0) return Float64Array.from([...columns, Infinity]);
    }
  }

  /** Whether p is inside the ring by the even-odd rule; p must not be within the tolerance of it. */
  inside(p: Pt, meter: StepMeter): boolean {
    const hits = this.hits;
    hits.length = 0;
    if (!this.index) {
      for (let i = 0; i < this.ring.length; i++) hits.push(i);
      meter.spend(hits.length);
      return this.ray(p, Infinity);
    }
    const c = lowerBound(this.columns, p[0]);
    const x = this.columns[c]!;
    const blocked = x !== Infinity && this.edgeNear([x, p[1]]);
    meter.spend(hits.length + 1);
    hits.length = 0;
    if (blocked) {
      this.index.search(p[0], p[1], Infinity, p[1], hits);
      meter.spend(hits.length);
      return this.ray(p, Infinity);
    }
    this.index.search(p[0], p[1], x, p[1], hits);
    meter.spend(hits.length);
    return (lowerBound(this.crossings[c]!, p[1]) % 2 === 1) !== this.ray(p, x);
  }

  /** Edges found by the last search (scratch: searches do not nest). */
  private readonly hits: number[] = [];

  /** Parity of the edges in `hits` that cross p's ray before x. */
  private ray(p: Pt, x: number): boolean {
    let inside = false;
    for (const i of this.hits) {
      const [a, b] = this.edge(i);
      if (crossesRay(p, a, b) && ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0] < x) inside = !inside;
    }
    return inside;
  }

  private edgeNear(q: Pt): boolean {
    const t = this.tolerance;
    const hits = this.hits;
    hits.length = 0;
    this.index!.search(q[0] - 2 * t, q[1] - 2 * t, q[0] + 2 * t, q[1] + 2 * t, hits);
    return hits.some((i) => {
      const [a, b] = this.edge(i);
      return distToSegment(q, a, b) <= t;
    });
  }
}

/** First index whose value is >= v (values ascending). */
function lowerBound(values: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
