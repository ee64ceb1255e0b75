/**
 * The zones of one rhombic (9R/4R) level listed for lat/lon boxes as DGGAL's listZones lists them,
 * counted and paged without listing them all. DGGAL takes the squares of the 5x6 rectangle found by
 * sampling the box through the projection (extent5x6FromWGS84), keeps those whose refined extent meets
 * the box, and sorts them by 64-bit id: global row, then column. A box that is a single point lists the
 * zone there.
 *
 * Here each root rhombus's squares inside the rectangles form a tree of rectangles decided by spherical
 * caps (box-cover.ts); only undecided ones are split, down to single squares tested exactly. A global
 * row crosses at most two rhombi (roots 2R-1 and 2R for the row band R), so pages are read band by band,
 * row by row, left rhombus first: the id order.
 */
import { BoxCover, IN, OUT, SOME, extentsIntersect, type Cover, type RadExtent } from './box-cover.js';
import type { BBox, Page, Stepped, ZoneSelection } from './dggrs.js';
import { extent5x6 } from './i3h-box-zones.js';
import { SCALE_MAX } from './i7h-box-zones.js';
import { rhombicExtentRadians, rhombicForward, type RhombicProjection } from './rhombic-outline.js';
import { rhombicAt, rhombicId, type RhombicLattice, type RhombicZone } from './rhombic-zone.js';

const DEG = Math.PI / 180;
const WORK_PER_STEP = 1000;
const EXACT_WORK = 40;

/** A rectangle of one root rhombus's squares (local rows r0..r1-1, columns c0..c1-1). */
interface Node {
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  cover: Cover;
  /** Zones in (known once `done`). */
  n: number;
  done: boolean;
  kids?: Node[];
}

/** One box with DGGAL's square rectangle for it (global rows and columns, inclusive ends as DGGAL clamps them). */
interface BoxCells {
  extent: RadExtent;
  cover: BoxCover;
  row0: number;
  row1: number;
  col0: number;
  col1: number;
}

export class RhombicBoxZones implements ZoneSelection {
  readonly edgeZones: number;
  private readonly p: number;
  private readonly boxes: BoxCells[];
  private readonly whole: boolean;
  private work = 0;
  private readonly geo = { lat: 0, lon: 0 };
  private roots: (Node | null)[] | undefined;
  private pending: [number, Node][] = [];
  private settled = 0;
  private complete = false;

  constructor(
    private readonly lat: RhombicLattice,
    private readonly level: number,
    bboxes: readonly BBox[],
    private readonly proj: RhombicProjection,
  ) {
    this.p = lat.pow[level]!;
    const cover = new BoxCover(bboxes);
    this.whole = cover.whole;
    this.boxes = this.whole ? [] : bboxes.map((b) => this.boxCells(b));
    this.edgeZones = Math.ceil(cover.edgeLength() / Math.sqrt((4 * Math.PI) / (10 * this.p * this.p)));
  }

  private boxCells([w, s, e, n]: BBox): BoxCells {
    const extent: RadExtent = [s * DEG, w * DEG, n * DEG, e * DEG];
    const cover = new BoxCover([[w, s, e, n]]);
    const p = this.p;
    if (Math.abs(extent[2] - extent[0]) < 1e-11 && Math.abs(extent[3] - extent[1]) < 1e-11) {
      // A single point: DGGAL lists the zone there, and nothing else (a one-square rectangle, kept without a test).
      const xy = new Float64Array(2);
      rhombicForward(this.proj, s, w, xy);
      const z = rhombicAt(this.lat, this.level, xy[0]!, xy[1]!);
      return { extent, cover, row0: z.row, row1: z.row, col0: z.col, col1: z.col };
    }
    const r = extent5x6(extent, this.proj);
    const clampCol = (v: number): number => Math.min(Math.max(0, Math.trunc(v * p)), 5 * p - 1);
    const clampRow = (v: number): number => Math.min(Math.max(0, Math.trunc(v * p)), 6 * p - 1);
    return { extent, cover, row0: clampRow(r.tly), row1: clampRow(r.bry), col0: clampCol(r.tlx), col1: clampCol(r.brx) };
  }

  private isPoint(b: BoxCells): boolean {
    return Math.abs(b.extent[2] - b.extent[0]) < 1e-11 && Math.abs(b.extent[3] - b.extent[1]) < 1e-11;
  }

  *count(stopAbove = Infinity): Stepped<number> {
    if (this.whole) return 10 * this.p * this.p;
    yield* this.build(stopAbove);
    return this.settled;
  }

  *page({ offset, limit }: Page): Stepped<string[]> {
    const out: string[] = [];
    if (limit <= 0) return out;
    if (this.whole) return this.pageOfWorld(offset, limit);
    yield* this.build(Infinity);
    let skip = offset;
    for (let band = 0; band < 6 && out.length < limit; band++) {
      const tops = [2 * band - 1, 2 * band].map((root) => (root >= 0 && root < 10 ? this.roots![root] ?? null : null));
      const inBand = tops.reduce((a, t) => a + (t?.n ?? 0), 0);
      if (skip >= inBand) {
        skip -= inBand;
        continue;
      }
      for (let row = 0; row < this.p && out.length < limit; row++) {
        for (const [k, top] of tops.entries()) {
          if (!top) continue;
          skip = this.emitRow(2 * band - 1 + k, top, row, skip, limit, out);
        }
        if (++this.work >= WORK_PER_STEP) { this.work = 0; yield; }
      }
    }
    return out;
  }

  /** Every zone of the level: positions map straight to ids (band 0 and 5 hold one rhombus, the others two). */
  private pageOfWorld(offset: number, limit: number): string[] {
    const p = this.p;
    const out: string[] = [];
    const end = Math.min(offset + limit, 10 * p * p);
    for (let i = offset; i < end; i++) {
      let band: number, pos: number;
      if (i < p * p) { band = 0; pos = i; }
      else if (i >= 9 * p * p) { band = 5; pos = i - 9 * p * p; }
      else { band = 1 + Math.floor((i - p * p) / (2 * p * p)); pos = i - p * p - (band - 1) * 2 * p * p; }
      const width = band === 0 || band === 5 ? p : 2 * p;
      const y = Math.floor(pos / width), x = pos - y * width;
      const col = (band === 0 ? 0 : (band - 1) * p) + x;
      out.push(rhombicId(this.lat, { level: this.level, row: band * p + y, col }));
    }
    return out;
  }

  /** Decides every rectangle of every root (once), counting the zones in; stops early above `stopAbove`. */
  private *build(stopAbove: number): Stepped<void> {
    if (this.complete) return;
    if (!this.roots) {
      this.roots = [];
      const p = this.p;
      for (let root = 0; root < 10; root++) {
        const rowOP = (root + 1) >> 1, colOP = root >> 1;
        let r0 = p, r1 = 0, c0 = p, c1 = 0;
        for (const b of this.boxes) {
          const br0 = Math.max(0, b.row0 - rowOP * p), br1 = Math.min(p, b.row1 + 1 - rowOP * p);
          const bc0 = Math.max(0, b.col0 - colOP * p), bc1 = Math.min(p, b.col1 + 1 - colOP * p);
          if (br0 >= br1 || bc0 >= bc1) continue;
          r0 = Math.min(r0, br0); r1 = Math.max(r1, br1); c0 = Math.min(c0, bc0); c1 = Math.max(c1, bc1);
        }
        const top = r0 < r1 && c0 < c1 ? this.node(root, r0, r1, c0, c1) : null;
        if (top?.done) this.settled += top.n;
        else if (top) this.pending.push([root, top]);
        this.roots.push(top);
      }
    }
    while (this.pending.length) {
      if (this.settled > stopAbove) return;
      const [root, node] = this.pending.pop()!;
      yield* this.open(root, node);
    }
    for (const top of this.roots) if (top) this.sum(top);
    this.complete = true;
  }

  private sum(node: Node): number {
    if (node.kids) node.n = node.kids.reduce((a, k) => a + this.sum(k), 0);
    return node.n;
  }

  private node(root: number, r0: number, r1: number, c0: number, c1: number): Node {
    const cover = this.classify(root, r0, r1, c0, c1);
    return { r0, r1, c0, c1, cover, n: cover === IN ? (r1 - r0) * (c1 - c0) : 0, done: cover !== SOME };
  }

  /** Rows r0..r1-1, columns c0..c1-1 of a root rhombus against every box (and its square rectangle). */
  private classify(root: number, r0: number, r1: number, c0: number, c1: number): Cover {
    this.work++;
    const p = this.p;
    const rowOP = (root + 1) >> 1, colOP = root >> 1;
    // Zones lie within the rectangle: its corners are the farthest any centroid or outline point reaches.
    const a = (c1 - c0) / (2 * p), b = (r1 - r0) / (2 * p);
    const reach = Math.sqrt(a * a + a * b + b * b);
    this.proj.inverse(colOP + (c0 + c1) / (2 * p), rowOP + (r0 + r1) / (2 * p), false, this.geo);
    const lat = this.geo.lat * DEG, lon = this.geo.lon * DEG;
    const gr0 = rowOP * p + r0, gr1 = rowOP * p + r1 - 1, gc0 = colOP * p + c0, gc1 = colOP * p + c1 - 1;
    let result: Cover = OUT;
    for (const box of this.boxes) {
      if (gr1 < box.row0 || gr0 > box.row1 || gc1 < box.col0 || gc0 > box.col1) continue;
      if (this.isPoint(box)) {
        result = SOME;
        continue;
      }
      const inside = gr0 >= box.row0 && gr1 <= box.row1 && gc0 >= box.col0 && gc1 <= box.col1;
      const c = box.cover.classify(lat, lon, SCALE_MAX * reach, SCALE_MAX * (reach + 0.5 / p));
      if (c === IN && inside) return IN;
      if (c !== OUT) result = SOME;
    }
    return result;
  }

  /** Splits an undecided rectangle into quarters, or tests a single square. */
  private *open(root: number, node: Node): Stepped<void> {
    const { r0, r1, c0, c1 } = node;
    if (r1 - r0 === 1 && c1 - c0 === 1) {
      const p = this.p;
      const z: RhombicZone = { level: this.level, row: ((root + 1) >> 1) * p + r0, col: (root >> 1) * p + c0 };
      node.n = (yield* this.zoneIn(z)) ? 1 : 0;
      node.done = true;
      this.settled += node.n;
      return;
    }
    const rm = r1 - r0 > 1 ? Math.floor((r0 + r1) / 2) : r1;
    const cm = c1 - c0 > 1 ? Math.floor((c0 + c1) / 2) : c1;
    node.kids = [this.node(root, r0, rm, c0, cm)];
    if (cm < c1) node.kids.push(this.node(root, r0, rm, cm, c1));
    if (rm < r1) node.kids.push(this.node(root, rm, r1, c0, cm));
    if (rm < r1 && cm < c1) node.kids.push(this.node(root, rm, r1, cm, c1));
    node.done = true;
    for (const kid of node.kids) {
      if (kid.done) this.settled += kid.n;
      else this.pending.push([root, kid]);
    }
    if (this.work >= WORK_PER_STEP) { this.work = 0; yield; }
  }

  /** DGGAL's test for one square: in a box's rectangle, and its refined extent meets that box (a point box: the square there). */
  private *zoneIn(z: RhombicZone): Stepped<boolean> {
    this.work += EXACT_WORK;
    if (this.work >= WORK_PER_STEP) { this.work = 0; yield; }
    let extent: RadExtent | undefined;
    for (const box of this.boxes) {
      if (z.row < box.row0 || z.row > box.row1 || z.col < box.col0 || z.col > box.col1) continue;
      if (this.isPoint(box)) return true;
      extent ??= rhombicExtentRadians(this.lat, z, this.proj);
      if (extentsIntersect(extent, box.extent)) return true;
    }
    return false;
  }

  /** Adds the zones of local `row` after skipping `skip` of them; returns what is left to skip. */
  private emitRow(root: number, node: Node, row: number, skip: number, limit: number, out: string[]): number {
    if (row < node.r0 || row >= node.r1 || out.length >= limit) return skip;
    if (node.kids) {
      for (const k of node.kids) skip = this.emitRow(root, k, row, skip, limit, out);
      return skip;
    }
    // A leaf not wholly in is out (n = 0) or a single square tested exactly (n = 0 or 1).
    const n = node.cover === IN ? node.c1 - node.c0 : node.n;
    if (skip >= n) return skip - n;
    const p = this.p;
    const gRow = ((root + 1) >> 1) * p + row, gCol = (root >> 1) * p + node.c0;
    for (let j = skip; j < n && out.length < limit; j++) {
      out.push(rhombicId(this.lat, { level: this.level, row: gRow, col: gCol + j }));
    }
    return 0;
  }
}
