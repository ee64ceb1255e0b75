/**
 * The zones of one 3H level listed for lat/lon boxes as DGGAL's RI3H listZones lists them, counted and
 * paged without listing them all. DGGAL takes the ISEA9R cells of a 5x6 rectangle found by sampling the
 * box through the projection (extent5x6FromWGS84), their zones (A, or B, C and D at odd levels) and the
 * two polar zones, and keeps a zone when both its quick corner extent and its densified extent meet the
 * box; the list is sorted by 64-bit id (root, index, letter). Hence a zone centred across a seam of the
 * net from a small box is not listed, in DGGAL's lists as in ours (test/unit/dggrs/i3h-small-boxes.test.ts).
 *
 * Here each root rhombus's cells inside the rectangle form a tree of rectangles decided by spherical caps
 * (box-cover.ts); only undecided ones are split, down to cells whose zones get DGGAL's two extent tests.
 * Pages are read row by row from the tree, which is the id order.
 */
import { BoxCover, IN, OUT, SOME, extentsIntersect, type Cover, type RadExtent } from '../../core/box-cover.js';
import { CellRectTreeSelection, WORK_PER_STEP, type CellRectNode as Node } from '../../core/cell-rect-tree.js';
import type { BBox, Page, Stepped, ZoneSelection } from '../../dggrs.js';
import { SCALE_MAX } from '../7h/i7h-box-zones.js';
import { i3hApproxExtentRadians, i3hExtentRadians } from './i3h-outline.js';
import { i3hAt, i3hId, i3hVertices, POW3, type I3HZone } from './i3h-zone.js';
import { sameHexZone } from '../hex-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;
/** DGGAL samples a box on a 33 x 33 grid of points, then ten times finer around the extreme ones. */
const ANCHORS = 33;
const EXACT_WORK = 60;

/** One box with DGGAL's cell rectangle for it (global ISEA9R rows and columns, end exclusive). */
interface BoxCells {
  extent: RadExtent;
  cover: BoxCover;
  row0: number;
  row1: number;
  col0: number;
  col1: number;
  /** A box that is a single point: DGGAL lists the one zone there. */
  point?: I3HZone;
}

/** 5x6 rectangle holding the projection of a lat/lon extent, as DGGAL samples it (extent5x6FromWGS84). */
export function extent5x6(e: RadExtent, proj: Pick<SliceAndDiceProjection, 'forward'>): { tlx: number; tly: number; brx: number; bry: number } {
  const [llLat, llLon, urLat, urLon] = e;
  if (llLat < -Math.PI / 2 + 0.0001 && llLon < -Math.PI + 0.0001 && urLat > Math.PI / 2 - 0.0001 && urLon > Math.PI - 0.0001) {
    return { tlx: 0, tly: 0, brx: 5, bry: 6 };
  }
  const maxLon = urLon + (urLon < llLon ? 2 * Math.PI : 0);
  const latInc = (urLat - llLat) / ANCHORS, lonInc = (maxLon - llLon) / ANCHORS;
  let tlx = Number.MAX_VALUE, tly = Number.MAX_VALUE, brx = -Number.MAX_VALUE, bry = -Number.MAX_VALUE;
  const xy = new Float64Array(2);
  const extremes: [number, number][] = [[0, 0], [0, 0], [0, 0], [0, 0]];
  for (let lat = llLat; lat <= urLat; lat += latInc) {
    for (let lon = llLon; lon <= maxLon; lon += lonInc) {
      proj.forward(lat * RAD, lon * RAD, xy);
      if (xy[0]! < tlx) { tlx = xy[0]!; extremes[0] = [lat, lon]; }
      if (xy[0]! > brx) { brx = xy[0]!; extremes[1] = [lat, lon]; }
      if (xy[1]! < tly) { tly = xy[1]!; extremes[2] = [lat, lon]; }
      if (xy[1]! > bry) { bry = xy[1]!; extremes[3] = [lat, lon]; }
      if (!lonInc) break;
    }
    if (!latInc) break;
  }
  if (lonInc && latInc) {
    const latInc2 = 0.1 * latInc, lonInc2 = 0.1 * lonInc;
    for (const [tLat, tLon] of extremes) {
      for (let lat = Math.max(llLat, tLat - latInc); lat <= Math.min(urLat, tLat + latInc); lat += latInc2) {
        for (let lon = Math.max(llLon, tLon - lonInc); lon <= Math.min(maxLon, tLon + lonInc); lon += lonInc2) {
          proj.forward(lat * RAD, lon * RAD, xy);
          if (xy[0]! < tlx) tlx = xy[0]!;
          if (xy[0]! > brx) brx = xy[0]!;
          if (xy[1]! < tly) tly = xy[1]!;
          if (xy[1]! > bry) bry = xy[1]!;
        }
      }
    }
  }
  return { tlx, tly, brx, bry };
}

export class I3HBoxZones extends CellRectTreeSelection implements ZoneSelection {
  readonly edgeZones: number;
  private readonly k: number;
  private readonly p: number;
  private readonly odd: boolean;
  private readonly letters: readonly number[];
  private readonly boxes: BoxCells[];
  private readonly whole: boolean;
  private readonly geo = { lat: 0, lon: 0 };
  private roots: (Node | null)[] | undefined;
  private polar: number[] = [];
  /** The zones holding the North and South Pole at this level. */
  private readonly poleZones: (I3HZone | null)[];

  constructor(private readonly level: number, bboxes: readonly BBox[], private readonly proj: SliceAndDiceProjection) {
    super();
    this.k = level >> 1;
    this.p = POW3[this.k]!;
    this.odd = (level & 1) === 1;
    this.letters = this.odd ? [1, 2, 3] : [0];
    const cover = new BoxCover(bboxes);
    this.whole = cover.whole;
    this.boxes = this.whole ? [] : bboxes.map((b) => this.boxCells(b));
    const xy = new Float64Array(2);
    this.poleZones = [90, -90].map((lat) => {
      proj.forward(lat, 0, xy);
      return i3hAt(level, xy[0]!, xy[1]!);
    });
    // Zones along the boxes' edges, the work beyond the zones listed (the zone's size as an arc).
    this.edgeZones = Math.ceil(cover.edgeLength() / Math.sqrt((4 * Math.PI) / (10 * POW3[level]!)));
  }

  private boxCells([w, s, e, n]: BBox): BoxCells {
    const extent: RadExtent = [s * DEG, w * DEG, n * DEG, e * DEG];
    const cover = new BoxCover([[w, s, e, n]]);
    if (Math.abs(extent[2] - extent[0]) < 1e-11 && Math.abs(extent[3] - extent[1]) < 1e-11) {
      const xy = new Float64Array(2);
      this.proj.forward(s, w, xy);
      const z = i3hAt(this.level, xy[0]!, xy[1]!);
      return { extent, cover, row0: 0, row1: 0, col0: 0, col1: 0, ...(z ? { point: z } : {}) };
    }
    const r = extent5x6(extent, this.proj);
    const p = this.p;
    const yCount = Math.trunc((r.bry - r.tly + 1e-11) * p) + 3;
    const xCount = Math.trunc((r.brx - r.tlx + 1e-11) * p) + 3;
    const row0 = Math.trunc(r.tly * p + 1e-11), col0 = Math.trunc(r.tlx * p + 1e-11);
    return { extent, cover, row0, row1: row0 + yCount, col0, col1: col0 + xCount };
  }

  *count(stopAbove = Infinity): Stepped<number> {
    if (this.whole) return 10 * POW3[this.level]! + 2;
    yield* this.build(stopAbove);
    return this.settled;
  }

  *page({ offset, limit }: Page): Stepped<string[]> {
    const out: string[] = [];
    if (limit <= 0) return out;
    if (this.whole) return this.pageOfWorld(offset, limit);
    yield* this.build(Infinity);
    let skip = offset;
    for (let root = 0; root < 10 && out.length < limit; root++) {
      const top = this.roots![root];
      if (!top || skip >= top.n) {
        skip -= top?.n ?? 0;
        continue;
      }
      for (let row = top.r0; row < top.r1 && out.length < limit; row++) {
        const inRow = this.rowCount(top, row);
        if (skip >= inRow) {
          skip -= inRow;
          continue;
        }
        skip = this.emitRow(root, top, row, skip, limit, out);
        if (++this.work >= WORK_PER_STEP) { this.work = 0; yield; }
      }
    }
    for (const [i, root] of [10, 11].entries()) {
      if (out.length >= limit || !this.polar[i]) continue;
      if (skip > 0) skip--;
      else out.push(i3hId({ k: this.k, root, ix: 0, sh: this.odd ? 1 : 0 }));
    }
    return out;
  }

  /** Every zone of the level: positions map straight to ids. */
  private pageOfWorld(offset: number, limit: number): string[] {
    const out: string[] = [];
    const k = this.letters.length;
    const perRoot = this.p * this.p * k;
    const end = Math.min(offset + limit, 10 * perRoot + 2);
    for (let i = offset; i < end; i++) {
      if (i >= 10 * perRoot) out.push(i3hId({ k: this.k, root: 10 + i - 10 * perRoot, ix: 0, sh: this.odd ? 1 : 0 }));
      else {
        const root = Math.floor(i / perRoot), pos = i % perRoot;
        out.push(i3hId({ k: this.k, root, ix: Math.floor(pos / k), sh: this.letters[pos % k]! }));
      }
    }
    return out;
  }

  /** Decides every rectangle of every root (once), counting the zones in; stops early above `stopAbove`. */
  private *build(stopAbove: number): Stepped<void> {
    if (this.complete) return;
    if (!this.roots) {
      this.roots = [];
      for (let root = 0; root < 10; root++) {
        // The root's cells within any box's rectangle.
        const rowOP = (root + 1) >> 1, colOP = root >> 1;
        let r0 = this.p, r1 = 0, c0 = this.p, c1 = 0;
        for (const b of this.boxes) {
          if (b.point) {
            if (b.point.root !== root) continue;
            const y = Math.floor(b.point.ix / this.p), x = b.point.ix % this.p;
            r0 = Math.min(r0, y); r1 = Math.max(r1, y + 1); c0 = Math.min(c0, x); c1 = Math.max(c1, x + 1);
            continue;
          }
          const br0 = Math.max(0, b.row0 - rowOP * this.p), br1 = Math.min(this.p, b.row1 - rowOP * this.p);
          const bc0 = Math.max(0, b.col0 - colOP * this.p), bc1 = Math.min(this.p, b.col1 - colOP * this.p);
          if (br0 >= br1 || bc0 >= bc1) continue;
          r0 = Math.min(r0, br0); r1 = Math.max(r1, br1); c0 = Math.min(c0, bc0); c1 = Math.max(c1, bc1);
        }
        const top = r0 < r1 && c0 < c1 ? this.node(root, r0, r1, c0, c1) : null;
        if (top?.done) this.settled += top.n;
        else if (top) this.pending.push(top);
        this.roots.push(top);
      }
      for (const root of [10, 11]) {
        const z: I3HZone = { k: this.k, root, ix: 0, sh: this.odd ? 1 : 0 };
        const inside = (yield* this.zoneIn(z, true)) ? 1 : 0;
        this.polar.push(inside);
        this.settled += inside;
      }
    }
    while (this.pending.length) {
      if (this.settled > stopAbove) return;
      yield* this.open(this.pending.pop()!);
    }
    for (const top of this.roots) if (top) this.sum(top);
    this.complete = true;
  }

  private sum(node: Node): number {
    if (node.kids) node.n = node.kids.reduce((a, k) => a + this.sum(k), 0);
    return node.n;
  }

  protected node(root: number, r0: number, r1: number, c0: number, c1: number): Node {
    const cover = this.classify(root, r0, r1, c0, c1);
    const n = cover === IN ? (r1 - r0) * (c1 - c0) * this.letters.length : 0;
    return { root, r0, r1, c0, c1, cover, n, done: cover !== SOME };
  }

  /** Rows r0..r1-1, columns c0..c1-1 of a root rhombus against every box (and its cell rectangle). */
  private classify(root: number, r0: number, r1: number, c0: number, c1: number): Cover {
    this.work++;
    const p = this.p;
    const rowOP = (root + 1) >> 1, colOP = root >> 1;
    // Zone centroids lie within the cells' corners; outlines reach two thirds of a cell beyond.
    const a = (c1 - c0) / (2 * p), b = (r1 - r0) / (2 * p);
    const reach = Math.sqrt(a * a + a * b + b * b);
    this.proj.inverse(colOP + (c0 + c1) / (2 * p), rowOP + (r0 + r1) / (2 * p), false, this.geo);
    const lat = this.geo.lat * DEG, lon = this.geo.lon * DEG;
    let result: Cover = OUT;
    for (const box of this.boxes) {
      if (box.point) {
        if (box.point.root === root) {
          const y = Math.floor(box.point.ix / p), x = box.point.ix % p;
          if (y >= r0 && y < r1 && x >= c0 && x < c1) result = SOME;
        }
        continue;
      }
      const gr0 = rowOP * p + r0, gr1 = rowOP * p + r1, gc0 = colOP * p + c0, gc1 = colOP * p + c1;
      if (gr1 <= box.row0 || gr0 >= box.row1 || gc1 <= box.col0 || gc0 >= box.col1) continue;
      const inside = gr0 >= box.row0 && gr1 <= box.row1 && gc0 >= box.col0 && gc1 <= box.col1;
      const c = box.cover.classify(lat, lon, SCALE_MAX * reach, SCALE_MAX * (reach + 1.5 / p));
      if (c === IN && inside) return IN;
      if (c !== OUT) result = SOME;
    }
    return result;
  }

  protected *cellBits(root: number, row: number, col: number): Stepped<number> {
    let bits = 0;
    for (const [i, sh] of this.letters.entries()) {
      if (yield* this.zoneIn({ k: this.k, root, ix: row * this.p + col, sh }, false)) bits |= 1 << i;
    }
    return bits;
  }

  /** DGGAL's test for one zone: in a box's cell rectangle (the poles always are), both extents meet the box. */
  private *zoneIn(z: I3HZone, polar: boolean): Stepped<boolean> {
    this.work += EXACT_WORK;
    if (this.work >= WORK_PER_STEP) { this.work = 0; yield; }
    let approx: RadExtent | undefined, refined: RadExtent | undefined;
    const p = this.p;
    const row = ((z.root + 1) >> 1) * p + Math.floor(z.ix / p), col = (z.root >> 1) * p + (z.ix % p);
    for (const box of this.boxes) {
      if (box.point) {
        if (box.point.root === z.root && box.point.ix === z.ix && box.point.sh === z.sh) return true;
        continue;
      }
      if (!polar && (row < box.row0 || row >= box.row1 || col < box.col0 || col >= box.col1)) continue;
      approx ??= this.approxExtent(z);
      if (!extentsIntersect(approx, box.extent)) continue;
      refined ??= i3hExtentRadians(z, this.proj);
      if (extentsIntersect(refined, box.extent)) return true;
    }
    return false;
  }

  /**
   * DGGAL's quick extent (from the corners) before its exact one. DGGAL widens it to the pole for the
   * polar pentagons only; a coarse zone holding a pole elsewhere then misses boxes near the pole (at
   * levels 1 and 2 a box north of 85 degrees lists nothing). We widen it for the zones holding a pole
   * too, which DGGAL's exact extent (reaching the pole) then keeps.
   */
  private approxExtent(z: I3HZone): RadExtent {
    const e = i3hApproxExtentRadians(z, i3hVertices(z), this.proj);
    const [north, south] = this.poleZones;
    if (north && sameHexZone(north, z)) { e[1] = -Math.PI; e[3] = Math.PI; e[2] = Math.PI / 2; }
    else if (south && sameHexZone(south, z)) { e[1] = -Math.PI; e[3] = Math.PI; e[0] = -Math.PI / 2; }
    return e;
  }

  /** Zones of `row` (a row of the root rhombus) in the tree under `node`. */
  private rowCount(node: Node, row: number): number {
    if (row < node.r0 || row >= node.r1) return 0;
    if (node.bits !== undefined) return node.n;
    if (node.kids) return node.kids.reduce((a, k) => a + this.rowCount(k, row), 0);
    return node.cover === IN ? (node.c1 - node.c0) * this.letters.length : 0;
  }

  /** Adds the zones of `row` after skipping `skip` of them; returns what is left to skip. */
  private emitRow(root: number, node: Node, row: number, skip: number, limit: number, out: string[]): number {
    if (row < node.r0 || row >= node.r1 || out.length >= limit) return skip;
    if (node.kids) {
      for (const k of node.kids) skip = this.emitRow(root, k, row, skip, limit, out);
      return skip;
    }
    if (node.bits !== undefined) {
      for (const [i, sh] of this.letters.entries()) {
        if (!(node.bits & (1 << i)) || out.length >= limit) continue;
        if (skip > 0) skip--;
        else out.push(i3hId({ k: this.k, root, ix: row * this.p + node.c0, sh }));
      }
      return skip;
    }
    if (node.cover !== IN) return skip;
    const k = this.letters.length;
    const n = (node.c1 - node.c0) * k;
    if (skip >= n) return skip - n;
    for (let j = skip; j < n && out.length < limit; j++) {
      out.push(i3hId({ k: this.k, root, ix: row * this.p + node.c0 + Math.floor(j / k), sh: this.letters[j % k]! }));
    }
    return 0;
  }
}
