/**
 * The zones of one rhombic (9R/4R) level that DGGAL's listZones lists for lat/lon boxes, as disjoint
 * rectangles of squares (global rows and columns of the 5x6 net) for CellRectSelection to count and page
 * in id order (row, then column). DGGAL takes the squares of the 5x6 rectangle found by sampling the box
 * through the projection (extent5x6FromWGS84) and keeps those whose refined extent meets the box; a box
 * that is a single point lists the zone there.
 *
 * Each root rhombus's squares inside the rectangles are split into quarters until spherical caps decide
 * them (box-cover.ts): a block wholly in is one rectangle, a block wholly out is dropped, and only single
 * squares that stay undecided get DGGAL's exact test.
 */
import { BoxCover, IN, OUT, SOME, extentsIntersect, type Cover, type RadExtent } from '../../core/box-cover.js';
import { splitIntoQuarters, WORK_PER_STEP } from '../../core/cell-rect-tree.js';
import type { CellRect } from '../square-cells/cell-rect-selection.js';
import type { BBox, Stepped } from '../../dggrs.js';
import { extent5x6 } from '../3h/i3h-box-zones.js';
import { SCALE_MAX } from '../7h/i7h-box-zones.js';
import { rhombicExtentRadians, rhombicForward, type RhombicProjection } from './rhombic-outline.js';
import { rhombicAt, type RhombicLattice } from './rhombic-zone.js';

const DEG = Math.PI / 180;
const EXACT_WORK = 40;

/** One box with DGGAL's square rectangle for it (global rows and columns, both ends included, as DGGAL clamps them). */
interface BoxCells {
  extent: RadExtent;
  cover: BoxCover;
  point: boolean;
  row0: number;
  row1: number;
  col0: number;
  col1: number;
}

function boxCells(lat: RhombicLattice, level: number, [w, s, e, n]: BBox, proj: RhombicProjection): BoxCells {
  const extent: RadExtent = [s * DEG, w * DEG, n * DEG, e * DEG];
  const cover = new BoxCover([[w, s, e, n]]);
  if (Math.abs(extent[2] - extent[0]) < 1e-11 && Math.abs(extent[3] - extent[1]) < 1e-11) {
    const xy = new Float64Array(2);
    rhombicForward(proj, s, w, xy);
    const z = rhombicAt(lat, level, xy[0]!, xy[1]!);
    return { extent, cover, point: true, row0: z.row, row1: z.row, col0: z.col, col1: z.col };
  }
  const r = extent5x6(extent, proj);
  const p = lat.pow[level]!;
  const cell = (v: number, cells: number): number => Math.min(Math.max(0, Math.trunc(v * p)), cells - 1);
  return { extent, cover, point: false, row0: cell(r.tly, 6 * p), row1: cell(r.bry, 6 * p), col0: cell(r.tlx, 5 * p), col1: cell(r.brx, 5 * p) };
}

const rect = (_root: number, r0: number, r1: number, c0: number, c1: number): CellRect => ({ r0, r1, c0, c1 });

/** The squares of `level` DGGAL lists for the boxes, as disjoint rectangles [r0, r1) x [c0, c1). */
export function* rhombicBoxRects(lat: RhombicLattice, level: number, bboxes: readonly BBox[], proj: RhombicProjection): Stepped<CellRect[]> {
  const p = lat.pow[level]!;
  const out: CellRect[] = [];
  if (new BoxCover(bboxes).whole) {
    for (let root = 0; root < 10; root++) {
      const r0 = ((root + 1) >> 1) * p, c0 = (root >> 1) * p;
      out.push({ r0, r1: r0 + p, c0, c1: c0 + p });
    }
    return out;
  }
  const boxes = bboxes.map((b) => boxCells(lat, level, b, proj));
  const geo = { lat: 0, lon: 0 };
  let work = 0;

  /** Global rows r0..r1-1, columns c0..c1-1 (inside one root rhombus) against every box. */
  const classify = (r0: number, r1: number, c0: number, c1: number): Cover => {
    work++;
    // Every zone lies within the block: its corners are the farthest any centroid or outline point reaches.
    const a = (c1 - c0) / (2 * p), b = (r1 - r0) / (2 * p);
    const reach = Math.sqrt(a * a + a * b + b * b);
    proj.inverse((c0 + c1) / (2 * p), (r0 + r1) / (2 * p), false, geo);
    let result: Cover = OUT;
    for (const box of boxes) {
      if (r1 <= box.row0 || r0 > box.row1 || c1 <= box.col0 || c0 > box.col1) continue;
      if (box.point) {
        result = SOME;
        continue;
      }
      const inside = r0 >= box.row0 && r1 - 1 <= box.row1 && c0 >= box.col0 && c1 - 1 <= box.col1;
      const c = box.cover.classify(geo.lat * DEG, geo.lon * DEG, SCALE_MAX * reach, SCALE_MAX * (reach + 0.5 / p));
      if (c === IN && inside) return IN;
      if (c !== OUT) result = SOME;
    }
    return result;
  };

  /** DGGAL's test for one square: in a box's rectangle, and its refined extent meets that box (a point box: the square there). */
  const squareIn = (row: number, col: number): boolean => {
    work += EXACT_WORK;
    let extent: RadExtent | undefined;
    for (const box of boxes) {
      if (row < box.row0 || row > box.row1 || col < box.col0 || col > box.col1) continue;
      if (box.point) return true;
      extent ??= rhombicExtentRadians(lat, { level, row, col }, proj);
      if (extentsIntersect(extent, box.extent)) return true;
    }
    return false;
  };

  const pending: CellRect[] = [];
  for (let root = 0; root < 10; root++) {
    // The root's squares within any box's rectangle.
    const rr0 = ((root + 1) >> 1) * p, cc0 = (root >> 1) * p;
    let r0 = rr0 + p, r1 = rr0, c0 = cc0 + p, c1 = cc0;
    for (const b of boxes) {
      const br0 = Math.max(rr0, b.row0), br1 = Math.min(rr0 + p, b.row1 + 1);
      const bc0 = Math.max(cc0, b.col0), bc1 = Math.min(cc0 + p, b.col1 + 1);
      if (br0 >= br1 || bc0 >= bc1) continue;
      r0 = Math.min(r0, br0); r1 = Math.max(r1, br1); c0 = Math.min(c0, bc0); c1 = Math.max(c1, bc1);
    }
    if (r0 < r1 && c0 < c1) pending.push({ r0, r1, c0, c1 });
  }
  while (pending.length) {
    const block = pending.pop()!;
    const { r0, r1, c0, c1 } = block;
    const cover = classify(r0, r1, c0, c1);
    if (cover === IN) out.push(block);
    else if (cover === SOME && r1 - r0 === 1 && c1 - c0 === 1) {
      if (squareIn(r0, c0)) out.push(block);
    } else if (cover === SOME) splitIntoQuarters(0, r0, r1, c0, c1, rect, pending);
    if (work >= WORK_PER_STEP) { work = 0; yield; }
  }
  return out;
}
