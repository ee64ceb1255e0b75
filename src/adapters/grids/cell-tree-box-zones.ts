import { BoxCover, IN, OUT, SOME, type Cover } from '../../domain/dggrs/core/box-cover.js';
import { BreadthFirstCount, type CountedNode } from '../../domain/dggrs/core/cell-rect-tree.js';
import type { BBox, Page, Stepped, ZoneSelection } from '../../domain/dggrs/dggrs.js';
import { DEG } from './lon-lat.js';

/**
 * A grid's index hierarchy as the zone lists of a box walk it: every cell of a level lies under exactly
 * one cell of each coarser level, and the list order of a level is the depth-first order of the hierarchy
 * (the descendants of a coarse cell form one run of the list). Cells need not nest geometrically: a cap
 * around a cell bounds where its descendants lie.
 */
export interface CellTree<C> {
  /** Level-0 cells in list order. */
  readonly roots: readonly C[];
  /** Work units between two pauses (one unit is classifying one cell by its cap). */
  readonly workPerStep: number;
  /** Work units one extent costs. */
  readonly extentWork: number;
  cellCount(level: number): number;
  /** Cells of `level + 1` under `cell` (of `level`), in list order. */
  children(cell: C, level: number): C[];
  /** Number of cells of `level` under `cell` (of `cellLevel`). */
  descendantCount(cell: C, cellLevel: number, level: number): number;
  /** The cell of `level` at position `pos` of the run under `cell`, when the grid finds it directly. */
  descendantAt?(cell: C, pos: number, level: number): C;
  /** [lat, lon, radius] in radians: a cap holding the outline of every descendant of the cell, at any level. */
  cap(cell: C, level: number): [number, number, number];
  /** A cell's extent in degrees, [w, s, e, n] (w > e across the antimeridian), as zone info gives it. */
  extent(cell: C): BBox;
  id(cell: C): string;
}

/** A cell and what is known of its descendants at the listed level (the cell itself when it is there). */
interface Node<C> extends CountedNode<Node<C>> {
  cell: C;
  level: number;
  cover: Cover;
}

/**
 * Cells of one level whose extent meets a box, in the tree's list order. Runs the caps decide are counted
 * with descendantCount and paged without visiting the rest; only the coarse cells a box edge runs through
 * are opened, breadth first, so large runs are summed before edges are followed down (a count over its
 * bound stops early). The tree counting builds then serves every page.
 */
export class CellTreeBoxZones<C> extends BreadthFirstCount<Node<C>> implements ZoneSelection {
  readonly edgeZones: number;
  private work = 0;
  private roots: Node<C>[] | undefined;

  constructor(private readonly tree: CellTree<C>, private readonly level: number, private readonly cover: BoxCover) {
    super();
    this.edgeZones = Math.ceil(cover.edgeLength() / Math.sqrt((4 * Math.PI) / tree.cellCount(level)));
  }

  *count(stopAbove = Infinity): Stepped<number> {
    if (this.cover.empty) return 0;
    if (this.cover.whole) return this.tree.cellCount(this.level);
    if (!this.roots) {
      this.roots = [];
      for (const cell of this.tree.roots) this.roots.push(yield* this.node(cell, 0));
    }
    return yield* this.countInRounds(this.roots, stopAbove);
  }

  protected *open(node: Node<C>): Stepped<void> {
    node.kids = [];
    for (const child of this.tree.children(node.cell, node.level)) node.kids.push(yield* this.node(child, node.level + 1));
  }

  *page({ offset, limit }: Page): Stepped<string[]> {
    const out: string[] = [];
    if (this.cover.empty || limit <= 0) return out;
    if (!this.cover.whole) yield* this.count();
    const walk = { skip: offset, out, limit };
    const roots = this.roots ?? this.tree.roots.map((cell): Node<C> => ({ cell, level: 0, cover: IN, n: this.tree.descendantCount(cell, 0, this.level), done: true }));
    for (const node of roots) yield* this.visit(node, walk);
    return out;
  }

  private *visit(node: Node<C>, walk: Walk): Stepped<void> {
    if (walk.out.length >= walk.limit) return;
    if (walk.skip >= node.n) {
      walk.skip -= node.n;
      return;
    }
    if (node.level === this.level) walk.out.push(this.tree.id(node.cell));
    else if (node.cover === IN) yield* descendantRun(this.tree, node.cell, node.level, this.level, walk, this);
    else for (const kid of node.kids!) yield* this.visit(kid, walk);
  }

  /** Counts one unit of work and says when a pause is due. */
  tick(): boolean {
    if (++this.work < this.tree.workPerStep) return false;
    this.work = 0;
    return true;
  }

  /** A cell classified: at the listed level by its extent, above it by the cap of its descendants. */
  private *node(cell: C, level: number): Stepped<Node<C>> {
    let cover: Cover;
    let n = 0;
    if (level === this.level) {
      const [w, s, e, north] = this.tree.extent(cell);
      this.work += this.tree.extentWork - 1;
      cover = this.cover.meetsExtent([s * DEG, w * DEG, north * DEG, e * DEG]) ? IN : OUT;
      n = cover === IN ? 1 : 0;
    } else {
      const [lat, lon, reach] = this.tree.cap(cell, level);
      cover = this.cover.classify(lat, lon, reach, reach);
      if (cover === IN) n = this.tree.descendantCount(cell, level, this.level);
    }
    const node: Node<C> = { cell, level, cover, n, done: cover !== SOME };
    if (node.done) this.settled += n;
    else this.pending.push(node);
    if (this.tick()) yield;
    return node;
  }
}

/** Where a walk over a run stands: positions still to skip, and the cells taken so far. */
export interface Walk {
  skip: number;
  out: string[];
  limit: number;
}

/**
 * Appends to `walk.out` the cells of `level` under `cell` (of `cellLevel`) from position `walk.skip` of its
 * run on, until `walk.limit` cells are out, opening only the branches that hold them.
 */
export function* descendantRun<C>(tree: CellTree<C>, cell: C, cellLevel: number, level: number, walk: Walk, pacer: { tick(): boolean }): Stepped<void> {
  if (tree.descendantAt) {
    const n = tree.descendantCount(cell, cellLevel, level);
    for (let pos = walk.skip; pos < n && walk.out.length < walk.limit; pos++) {
      walk.out.push(tree.id(tree.descendantAt(cell, pos, level)));
      if (pacer.tick()) yield;
    }
    walk.skip = Math.max(0, walk.skip - n);
    return;
  }
  if (cellLevel === level) {
    if (walk.skip > 0) walk.skip--;
    else walk.out.push(tree.id(cell));
    if (pacer.tick()) yield;
    return;
  }
  for (const child of tree.children(cell, cellLevel)) {
    if (walk.out.length >= walk.limit) return;
    const n = tree.descendantCount(child, cellLevel + 1, level);
    if (walk.skip >= n) walk.skip -= n;
    else yield* descendantRun(tree, child, cellLevel + 1, level, walk, pacer);
  }
}
