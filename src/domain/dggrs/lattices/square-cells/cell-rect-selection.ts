/**
 * Zone selections of the square-cell grids (rHEALPix, HEALPix), whose list order is a scanline order
 * over a level's cells: (row, column) with rows numbered across the whole grid. A selection is held as
 * disjoint rectangles of cells, found by descending the zone hierarchy with DGGAL's extent test and
 * taking a whole block at once where a box holds all of it. Counting sums the rectangles; a page is
 * read by sweeping rows from the first one the offset reaches, so neither lists the other zones.
 */
import type { Page, Stepped, ZoneSelection } from '../../dggrs.js';
import { BoxCover, extentsIntersect, IN, type RadExtent } from '../../core/box-cover.js';
import type { BBox } from '../../dggrs.js';

/** Cells [r0, r1) x [c0, c1) of one level. */
export interface CellRect { r0: number; r1: number; c0: number; c1: number }

/** Cells named, rows swept or rectangles merged between pauses of stepped work (well under 10 ms). */
const SLICE = 2000;
/** Hierarchy nodes tested between pauses (each is a few inverse projections). */
const NODE_SLICE = 200;

export class CellRectSelection implements ZoneSelection {
  private rects: CellRect[] | null = null;

  constructor(
    readonly edgeZones: number,
    private readonly produce: () => Stepped<CellRect[]>,
    private readonly name: (row: number, col: number) => string,
  ) {}

  private *load(): Stepped<CellRect[]> {
    if (!this.rects) {
      this.rects = yield* sortInSlices(yield* this.produce(), (a, b) => a.r0 - b.r0 || a.c0 - b.c0);
    }
    return this.rects;
  }

  *count(stopAbove = Infinity): Stepped<number> {
    const rects = yield* this.load();
    let n = 0;
    for (const r of rects) {
      n += (r.r1 - r.r0) * (r.c1 - r.c0);
      if (n > stopAbove) return n;
    }
    return n;
  }

  *page(page: Page): Stepped<string[]> {
    const rects = yield* this.load();
    const out: string[] = [];
    if (page.limit <= 0 || rects.length === 0) return out;
    // First row whose cells, with those of every row before, pass the offset.
    const before = (row: number): number => {
      let n = 0;
      for (const r of rects) if (r.r0 < row) n += (Math.min(r.r1, row) - r.r0) * (r.c1 - r.c0);
      return n;
    };
    let lo = rects[0]!.r0, hi = 0;
    for (const r of rects) hi = Math.max(hi, r.r1);
    if (before(hi) <= page.offset) return out;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (before(mid) <= page.offset) lo = mid;
      else hi = mid;
      yield;
    }
    let skip = page.offset - before(lo);
    let next = 0;
    const active: CellRect[] = [];
    let work = 0;
    for (let row = lo; out.length < page.limit;) {
      while (next < rects.length && rects[next]!.r0 <= row) {
        if (rects[next]!.r1 > row) active.push(rects[next]!);
        next++;
      }
      for (let i = active.length - 1; i >= 0; i--) if (active[i]!.r1 <= row) active.splice(i, 1);
      if (active.length === 0) {
        if (next >= rects.length) break;
        row = rects[next]!.r0;
        continue;
      }
      active.sort((a, b) => a.c0 - b.c0);
      for (const r of active) {
        const width = r.c1 - r.c0;
        if (skip >= width) { skip -= width; continue; }
        for (let c = r.c0 + skip; c < r.c1 && out.length < page.limit; c++) {
          out.push(this.name(row, c));
          if (++work % SLICE === 0) yield;
        }
        skip = 0;
        if (out.length >= page.limit) break;
      }
      row++;
      if (++work % SLICE === 0) yield;
    }
    return out;
  }
}

/** Bottom-up merge sort that pauses every few thousand moves (a selection may hold 10^5 rectangles). */
export function* sortInSlices<T>(items: T[], cmp: (a: T, b: T) => number): Stepped<T[]> {
  let a = items, b = new Array<T>(items.length);
  let work = 0;
  for (let width = 1; width < a.length; width *= 2) {
    for (let lo = 0; lo < a.length; lo += 2 * width) {
      const mid = Math.min(lo + width, a.length), hi = Math.min(lo + 2 * width, a.length);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = cmp(a[i]!, a[j]!) <= 0 ? a[i++]! : a[j++]!;
      while (i < mid) b[k++] = a[i++]!;
      while (j < hi) b[k++] = a[j++]!;
      work += hi - lo;
      if (work >= SLICE * 4) { work = 0; yield; }
    }
    [a, b] = [b, a];
  }
  return a;
}

/** Rectangles covering the union of possibly overlapping ones, disjoint, in bands of rows. */
export function disjointUnion(rects: readonly CellRect[]): CellRect[] {
  if (rects.length <= 1) return [...rects];
  const cuts = [...new Set(rects.flatMap((r) => [r.r0, r.r1]))].sort((a, b) => a - b);
  const out: CellRect[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const r0 = cuts[i]!, r1 = cuts[i + 1]!;
    const spans = rects.filter((r) => r.r0 <= r0 && r.r1 >= r1).map((r) => [r.c0, r.c1] as [number, number]).sort((a, b) => a[0] - b[0]);
    let cur: [number, number] | null = null;
    for (const s of spans) {
      if (cur && s[0] <= cur[1]) cur[1] = Math.max(cur[1], s[1]);
      else {
        if (cur) out.push({ r0, r1, c0: cur[0], c1: cur[1] });
        cur = [s[0], s[1]];
      }
    }
    if (cur) out.push({ r0, r1, c0: cur[0], c1: cur[1] });
  }
  return out;
}

/** One node of a square-cell hierarchy, as a grid describes it to the descent. */
export interface TreeNode<N> {
  node: N;
  level: number;
}

/** What the descent needs from a grid. */
export interface SquareTree<N> {
  /** Extent in radians, DGGAL's getZoneWGS84Extent. */
  extent(n: N): RadExtent;
  childNodes(n: N): N[];
  nodeLevel(n: N): number;
  /** Cells of `level` the node covers. */
  rect(n: N, level: number): CellRect;
  /** Centroid (radians) and a radius holding every point of the node, for deciding whole blocks. */
  cap(n: N): { lat: number; lon: number; radius: number };
}

/** Boxes in degrees to DGGAL GeoExtents in radians ([llLat, llLon, urLat, urLon]). */
export function boxExtent([w, s, e, n]: BBox): RadExtent {
  const d = Math.PI / 180;
  return [s * d, w * d, n * d, e * d];
}

/**
 * DGGAL's hierarchical listing: a zone of `level` is listed when its extent and that of each ancestor
 * from `testFrom` on meets one same box. Nodes whose whole area lies inside a box are taken whole;
 * `coverBoxes` (the boxes by default) are the boxes that decision uses, which a grid may widen where
 * no zone can fall short of a box edge.
 */
export function* descend<N>(
  tree: SquareTree<N>, roots: N[], level: number, boxes: readonly RadExtent[], testFrom: number, out: CellRect[],
  coverBoxes: readonly RadExtent[] = boxes,
): Stepped<void> {
  const RAD = 180 / Math.PI;
  const covers = coverBoxes.map((b) => new BoxCover([[b[1] * RAD, b[0] * RAD, b[3] * RAD, b[2] * RAD]]));
  const stack: { n: N; live: number[] }[] = roots.map((n) => ({ n, live: boxes.map((_, i) => i) }));
  let work = 0;
  while (stack.length) {
    const { n, live } = stack.pop()!;
    const l = tree.nodeLevel(n);
    let kept = live;
    const e = l >= testFrom || l >= 2 ? tree.extent(n) : null;
    if (e !== null && l >= testFrom) {
      kept = live.filter((i) => extentsIntersect(e, boxes[i]!));
      if (kept.length === 0) continue;
    }
    if (l === level) {
      out.push(tree.rect(n, level));
    } else {
      // Only a node whose corners' extent lies inside a box can lie wholly inside it: the cap decides then.
      const inside = l >= 2 && e !== null ? kept.filter((i) => holds(coverBoxes[i]!, e)) : [];
      const c = inside.length ? tree.cap(n) : null;
      if (c && inside.some((i) => covers[i]!.classify(c.lat, c.lon, c.radius, c.radius) === IN)) out.push(tree.rect(n, level));
      else for (const ch of tree.childNodes(n)) stack.push({ n: ch, live: kept });
    }
    if (++work % NODE_SLICE === 0) yield;
  }
}

/** The box holds the extent (a box all round holds any longitudes; otherwise neither may cross the antimeridian). */
function holds(box: RadExtent, e: RadExtent): boolean {
  if (!(e[0] >= box[0] && e[2] <= box[2])) return false;
  if (box[1] <= -Math.PI && box[3] >= Math.PI) return true;
  return e[1] <= e[3] && box[1] <= box[3] && e[1] >= box[1] && e[3] <= box[3];
}
