/**
 * The tree of cell rectangles the 5x6-net lattices (7H, 3H, 9R/4R) list a box's zones with: a root
 * rhombus's cells inside the box's rectangle, split into quarters until the caps (box-cover.ts) decide
 * each part, single cells left undecided getting the exact test. Also the breadth-first count such trees
 * (and the cell trees of the H3 and A5 adapters) are built by.
 */
import type { Cover } from './box-cover.js';
import type { Stepped } from '../dggrs.js';

/** Work units between two pauses: a cap test costs about one unit, an exact extent some tens. */
export const WORK_PER_STEP = 1000;

/** A node of a tree of zone runs: `n` its zone count once `done`; an undecided node is opened into `kids`. */
export interface CountedNode<N> {
  n: number;
  done: boolean;
  kids?: N[];
}

/** Fills in the counts of a finished tree, bottom up. */
export function totalCounts<N extends CountedNode<N>>(node: N): number {
  if (!node.done) {
    node.n = 0;
    for (const kid of node.kids!) node.n += totalCounts(kid);
    node.done = true;
  }
  return node.n;
}

/**
 * A box's zones counted over a tree, breadth first: each round opens every node the last one left
 * undecided, so large runs are summed before edges are followed down, and a count over its bound stops
 * early with the rest kept for the next call.
 */
export abstract class BreadthFirstCount<N extends CountedNode<N>> {
  /** Undecided nodes not opened yet, and the zones of the nodes settled so far. */
  protected pending: N[] = [];
  protected settled = 0;
  /** Every node decided and the tree's counts filled in. */
  protected complete = false;

  /** Decides what it can below an undecided node: what is decided adds to `settled`, the rest goes to `pending`. */
  protected abstract open(node: N): Stepped<void>;

  /** Opens pending nodes until none is left, then fills in the counts under `roots`; returns the count so far. */
  protected *countInRounds(roots: readonly N[], stopAbove: number): Stepped<number> {
    while (!this.complete) {
      if (this.settled > stopAbove) return this.settled;
      const round = this.pending;
      this.pending = [];
      for (let i = 0; i < round.length; i++) {
        if (this.settled > stopAbove) {
          this.pending = round.slice(i).concat(this.pending);
          return this.settled;
        }
        yield* this.open(round[i]!);
      }
      if (this.pending.length === 0) {
        for (const node of roots) totalCounts(node);
        this.complete = true;
      }
    }
    return this.settled;
  }
}

/**
 * Rows r0..r1-1, columns c0..c1-1 of root rhombus `root`, with what the caps say of it: `n` is its zone
 * count once `done`; undecided rectangles are opened into `kids`, undecided cells into a bit per zone.
 */
export interface CellRectNode extends CountedNode<CellRectNode> {
  root: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  cover: Cover;
  /** Undecided cells: bit s set when the cell's s-th zone is in. */
  bits?: number;
}

/**
 * Splits rows r0..r1-1, columns c0..c1-1 into quarters (top-left, top-right, bottom-left, bottom-right; a
 * side of one cell is not split, leaving two or one), appending `make`'s node for each to `out`.
 */
export function splitIntoQuarters<N>(
  root: number, r0: number, r1: number, c0: number, c1: number,
  make: (root: number, r0: number, r1: number, c0: number, c1: number) => N, out: N[],
): void {
  const rm = r1 - r0 > 1 ? Math.floor((r0 + r1) / 2) : r1;
  const cm = c1 - c0 > 1 ? Math.floor((c0 + c1) / 2) : c1;
  out.push(make(root, r0, rm, c0, cm));
  if (cm < c1) out.push(make(root, r0, rm, cm, c1));
  if (rm < r1) out.push(make(root, rm, r1, c0, cm));
  if (rm < r1 && cm < c1) out.push(make(root, rm, r1, cm, c1));
}

/**
 * A box's zones of one level as a tree of cell rectangles under construction: the lattice classifies a
 * rectangle (`node`) and tests an undecided cell's zones (`cellBits`); opening a node and keeping count of
 * the zones settled so far is the same for every lattice.
 */
export abstract class CellRectTreeSelection extends BreadthFirstCount<CellRectNode> {
  protected work = 0;
  /** The node of a quarter, made once per selection for splitIntoQuarters. */
  private readonly makeNode = (root: number, r0: number, r1: number, c0: number, c1: number): CellRectNode => this.node(root, r0, r1, c0, c1);

  /** Rows r0..r1-1, columns c0..c1-1 of a root rhombus, classified. */
  protected abstract node(root: number, r0: number, r1: number, c0: number, c1: number): CellRectNode;
  /** The zones in of the cell at row, col of a root rhombus, a bit each. */
  protected abstract cellBits(root: number, row: number, col: number): Stepped<number>;

  /**
   * Opens an undecided rectangle: a cell gets its zones tested, a larger rectangle its quarters
   * classified; what is decided adds to `settled`, the rest waits in `pending`.
   */
  protected *open(node: CellRectNode): Stepped<void> {
    const { root, r0, r1, c0, c1 } = node;
    if (r1 - r0 === 1 && c1 - c0 === 1) {
      const bits = yield* this.cellBits(root, r0, c0);
      node.bits = bits;
      node.n = popcount(bits);
      node.done = true;
      this.settled += node.n;
      return;
    }
    node.kids = [];
    splitIntoQuarters(root, r0, r1, c0, c1, this.makeNode, node.kids);
    for (const kid of node.kids) {
      if (kid.done) this.settled += kid.n;
      else this.pending.push(kid);
    }
    if (this.work >= WORK_PER_STEP) { this.work = 0; yield; }
  }
}

/** Number of bits set: the zones in of an undecided cell. */
export function popcount(bits: number): number {
  let n = 0;
  for (let b = bits; b; b &= b - 1) n++;
  return n;
}
