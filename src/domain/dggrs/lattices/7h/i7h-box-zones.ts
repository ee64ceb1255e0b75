/**
 * The zones of one 7H level meeting lat/lon boxes (DGGAL's listZones: a zone is in when its extent meets a
 * box; sorted by 64-bit id, that is by root, index, sub-hex letter), counted and paged without listing them.
 *
 * Each root rhombus holds a p x p lattice of cells at the even level 2k (p = 7^k); a cell holds one zone at
 * even levels and seven at odd ones (its centroid child and six vertex children, six at the pentagon cell
 * 0). Rectangles of cells are bounded by caps (see box-cover.ts) and split only where a box edge runs, so
 * the work follows the boxes' edges. Counting splits rows and columns together; paging splits rows first,
 * which keeps the id order, and skips whole rectangles by their counts.
 */
import { BoxCover, IN, OUT, SOME, type Cover } from '../../core/box-cover.js';
import { CellRectTreeSelection, popcount, WORK_PER_STEP, type CellRectNode as Node } from '../../core/cell-rect-tree.js';
import type { Page, Stepped, ZoneSelection } from '../../dggrs.js';
import { formatZoneId, POW7, zoneCentroid } from './i7h-zone.js';
import { extentRadians } from './i7h-outline.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';

const DEG = Math.PI / 180;

/**
 * Bounds of the projection's scale: radians on the sphere of (geodetic latitude, longitude) per unit of the
 * 5x6 net measured in its equilateral metric (|(dx, dy)|^2 = dx^2 - dx dy + dy^2, in which lattice
 * hexagons are regular). Measured over every rhombus: 1.05..1.33 (IVEA) and 0.99..1.41 (ISEA); kept with a
 * margin, since every decision without an exact test rests on them (the unit tests re-measure them).
 */
export const SCALE_MAX = 1.6;
export const SCALE_MIN = 0.85;

/** Lattice distances in the equilateral metric, in units of the even-level cell spacing 1 / p. */
const EVEN_OUTLINE = 1 / Math.sqrt(3);
export const EVEN_INRADIUS = 0.5;
/** Odd zones: centroid offset of a vertex child from its cell's centre, outline radius, inradius. */
const ODD_OFFSET = Math.sqrt(7) / 7;
const ODD_OUTLINE = 1 / Math.sqrt(21);
export const ODD_INRADIUS = 0.5 / Math.sqrt(7);
/**
 * DGGAL snaps centroids within 1e-6 of y = 0 or x = 5 onto that line and walks the outline from there:
 * zones of cells next to a rhombus edge may sit this far (net units) from their lattice position, which at
 * fine levels is many cells. Cells farther than SNAP_BAND from every rhombus edge are never snapped.
 */
const SNAP = 2e-6;
const SNAP_BAND = 1e-5;
/** The inner square of a zone's extent, shrunk for the chords between densified outline points. */
const CHORD_SAG = 0.9;

/** Work units an exact extent costs. */
const EXACT_WORK = 40;

/*
 * Undecided rectangles are opened into quarters, undecided cells into a bit per zone (cell-rect-tree.ts).
 * Counting builds the tree breadth first, so the large rectangles inside a box are summed before any edge
 * is followed to its finest cells (a count over its bound stops early); the finished tree then serves
 * every page.
 */

export class I7HBoxZones extends CellRectTreeSelection implements ZoneSelection {
  readonly edgeZones: number;
  private readonly k: number;
  private readonly p: number;
  private readonly odd: boolean;
  /** Zones per cell (away from the pentagon cell 0). */
  private readonly perCell: number;
  private readonly centroidReach: number;
  private readonly outlineReach: number;
  /** Cells within this many cells of a rhombus edge may hold snapped zones. */
  private readonly snapCells: number;
  private readonly zoneInner: number;
  private readonly zoneOuter: number;
  private readonly geo = { lat: 0, lon: 0 };
  private readonly pt = { x: 0, y: 0 };
  private readonly zone = { k: 0, root: 0, ix: 0, sh: 0 };
  private roots: Node[] | undefined;
  /** Zones in of the polar roots 10 and 11, one bit per letter. */
  private polar: number[] = [];

  constructor(private readonly level: number, private readonly cover: BoxCover, private readonly proj: SliceAndDiceProjection) {
    super();
    this.k = level >> 1;
    this.p = POW7[this.k]!;
    this.odd = (level & 1) === 1;
    this.perCell = this.odd ? 7 : 1;
    const unit = 1 / this.p;
    this.centroidReach = this.odd ? ODD_OFFSET * unit : 0;
    this.outlineReach = (this.odd ? ODD_OFFSET + ODD_OUTLINE : EVEN_OUTLINE) * unit;
    this.snapCells = 1 + ODD_OFFSET + SNAP_BAND * this.p;
    // A zone's outline is walked from its own (snapped) centroid: no snap allowance around it.
    this.zoneOuter = SCALE_MAX * (this.odd ? ODD_OUTLINE : EVEN_OUTLINE) * unit;
    this.zoneInner = CHORD_SAG * SCALE_MIN * (this.odd ? ODD_INRADIUS : EVEN_INRADIUS) * unit;
    this.edgeZones = Math.ceil(cover.edgeLength() / Math.sqrt((4 * Math.PI) / (10 * POW7[level]!)));
  }

  *count(stopAbove = Infinity): Stepped<number> {
    if (this.cover.empty) return 0;
    if (this.cover.whole) return 10 * POW7[this.level]! + 2;
    if (!this.roots) {
      this.roots = Array.from({ length: 10 }, (_, root) => this.node(root, 0, this.p, 0, this.p));
      for (const root of [10, 11]) {
        let bits = 0;
        for (const [i, sh] of this.polarLetters().entries()) if (yield* this.zoneIn(root, 0, sh)) bits |= 1 << i;
        this.polar.push(bits);
        this.settled += popcount(bits);
      }
      for (const node of this.roots) {
        if (node.done) this.settled += node.n;
        else this.pending.push(node);
      }
    }
    return yield* this.countInRounds(this.roots, stopAbove);
  }

  *page({ offset, limit }: Page): Stepped<string[]> {
    const out: string[] = [];
    if (this.cover.empty || limit <= 0) return out;
    if (this.cover.whole) return this.pageOfWorld(offset, limit);
    yield* this.count();
    let skip = offset;
    for (let root = 0; root < 10 && out.length < limit; root++) {
      const top = this.roots![root]!;
      if (skip >= top.n) {
        skip -= top.n;
        continue;
      }
      // The first row holding the page's first zone, by prefix counts over rows.
      let lo = 0, hi = this.p;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (this.rowsAbove(top, mid) <= skip) lo = mid;
        else hi = mid;
      }
      skip -= this.rowsAbove(top, lo);
      for (let row = this.nextRow(top, lo); row < this.p && out.length < limit; row = this.nextRow(top, row + 1)) {
        skip = this.emitRow(root, top, row, skip, limit, out);
        if (++this.work >= WORK_PER_STEP) { this.work = 0; yield; }
      }
    }
    for (const [i, root] of [10, 11].entries()) {
      for (const [j, sh] of this.polarLetters().entries()) {
        if (out.length >= limit || !(this.polar[i]! & (1 << j))) continue;
        if (skip > 0) skip--;
        else out.push(formatZoneId(this.k, root, 0, sh));
      }
    }
    return out;
  }

  /** Every zone of the level: positions map straight to ids. */
  private pageOfWorld(offset: number, limit: number): string[] {
    const out: string[] = [];
    const perRoot = this.p * this.p * this.perCell - (this.odd ? 1 : 0);
    const letters = this.polarLetters();
    const end = Math.min(offset + limit, 10 * perRoot + 2 * letters.length);
    for (let i = offset; i < end; i++) {
      if (i >= 10 * perRoot) {
        const j = i - 10 * perRoot;
        out.push(formatZoneId(this.k, 10 + Math.floor(j / letters.length), 0, letters[j % letters.length]!));
        continue;
      }
      const root = Math.floor(i / perRoot);
      // At odd levels cell 0 (a pentagon) has six zones, every other cell seven.
      const pos = (i % perRoot) + (this.odd ? 1 : 0);
      const ix = Math.floor(pos / this.perCell);
      const sh = this.odd ? (ix === 0 ? pos : (pos % 7) + 1) : 0;
      out.push(formatZoneId(this.k, root, ix, sh));
    }
    return out;
  }

  private polarLetters(): number[] {
    return this.odd ? [1, 2, 3, 4, 5, 6] : [0];
  }

  protected node(root: number, r0: number, r1: number, c0: number, c1: number): Node {
    const cover = this.classify(root, r0, r1, c0, c1);
    const n = cover === IN ? (r1 - r0) * (c1 - c0) * this.perCell : 0;
    return { root, r0, r1, c0, c1, cover, n, done: cover !== SOME };
  }

  /** Rows r0..r1-1, columns c0..c1-1 of a root rhombus. */
  private classify(root: number, r0: number, r1: number, c0: number, c1: number): Cover {
    this.work++;
    const p = this.p;
    const cx = root >> 1, cy = cx + (root & 1);
    const a = (c1 - 1 - c0) / (2 * p), b = (r1 - 1 - r0) / (2 * p);
    // Farthest cell centre from the rectangle's centre: a corner, in the equilateral metric.
    const edge = this.snapCells;
    const reach = Math.sqrt(a * a + a * b + b * b) + (r0 < edge || c0 < edge || r1 > p - edge || c1 > p - edge ? SNAP : 0);
    this.proj.inverse(cx + (c0 + c1 - 1) / (2 * p), cy + (r0 + r1 - 1) / (2 * p), false, this.geo);
    const c = this.cover.classify(this.geo.lat * DEG, this.geo.lon * DEG, SCALE_MAX * (reach + this.centroidReach), SCALE_MAX * (reach + this.outlineReach));
    // Cell 0 holds a pentagon (one zone fewer at odd levels): its rectangles are never taken wholesale.
    return c === IN && r0 === 0 && c0 === 0 ? SOME : c;
  }

  protected *cellBits(root: number, row: number, col: number): Stepped<number> {
    const ix = row * this.p + col;
    if (!this.odd) return (yield* this.zoneIn(root, ix, 0)) ? 1 : 0;
    let bits = 0;
    for (let sh = 1; sh <= (ix === 0 ? 6 : 7); sh++) if (yield* this.zoneIn(root, ix, sh)) bits |= 1 << (sh - 1);
    return bits;
  }

  /** Zones in rows above `row` (an expanded tree). */
  private rowsAbove(node: Node, row: number): number {
    if (node.r1 <= row) return node.n;
    if (node.r0 >= row || node.n === 0) return 0;
    if (node.cover === IN) return (row - node.r0) * (node.c1 - node.c0) * this.perCell;
    let n = 0;
    for (const kid of node.kids!) n += this.rowsAbove(kid, row);
    return n;
  }

  /** First row at or after `row` holding a zone, if before `best`; else `best`. */
  private nextRow(node: Node, row: number, best = this.p): number {
    if (node.n === 0 || node.r1 <= row || node.r0 >= best) return best;
    if (node.cover === IN || node.bits !== undefined) return Math.max(row, node.r0);
    for (const kid of node.kids!) best = this.nextRow(kid, row, best);
    return best;
  }

  /** Appends the zones of one row, in column and letter order, after skipping `skip`; returns what is left to skip. */
  private emitRow(root: number, node: Node, row: number, skip: number, limit: number, out: string[]): number {
    if (node.n === 0 || row < node.r0 || row >= node.r1 || out.length >= limit) return skip;
    if (node.cover === IN) {
      const n = (node.c1 - node.c0) * this.perCell;
      if (skip >= n) return skip - n;
      const first = this.odd ? 1 : 0;
      for (let i = skip; i < n && out.length < limit; i++) {
        out.push(formatZoneId(this.k, root, row * this.p + node.c0 + Math.floor(i / this.perCell), first + (i % this.perCell)));
      }
      return 0;
    }
    if (node.bits !== undefined) {
      for (let s = 0; s < 7 && out.length < limit; s++) {
        if (!(node.bits & (1 << s))) continue;
        if (skip > 0) skip--;
        else out.push(formatZoneId(this.k, root, row * this.p + node.c0, this.odd ? s + 1 : 0));
      }
      return skip;
    }
    for (const kid of node.kids!) skip = this.emitRow(root, kid, row, skip, limit, out);
    return skip;
  }

  /** One zone: caps around its own centroid first, the exact extent test when they cannot tell. */
  private *zoneIn(root: number, ix: number, sh: number): Stepped<boolean> {
    const z = this.zone;
    z.k = this.k; z.root = root; z.ix = ix; z.sh = sh;
    this.work++;
    // Pentagons, their vertex children and the polar zones: always exact (a few per level).
    if (ix !== 0 && root < 10) {
      zoneCentroid(z, this.pt);
      this.proj.inverse(this.pt.x, this.pt.y, sh > 0, this.geo);
      const c = this.cover.classifyZone(this.geo.lat * DEG, this.geo.lon * DEG, this.zoneInner, this.zoneOuter);
      if (c !== SOME) return c === IN;
    }
    this.work += EXACT_WORK;
    const hit = this.cover.meetsExtent(extentRadians(z, this.proj));
    if (this.work >= WORK_PER_STEP) { this.work = 0; yield; }
    return hit;
  }
}
