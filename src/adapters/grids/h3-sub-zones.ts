import * as h3 from 'h3-js';
import { pointInRing } from '../../domain/aggregation/planar.js';
import { DESCENDANT_REACH, h3CellCircle } from './h3-box-zones.js';
import { DEG, unitVector, type Vec3 } from './lon-lat.js';

/**
 * The sub-zones of an H3 cell as OGC API - DGGS means them: the cells of the target resolution whose
 * centres lie in the cell's polygon, not h3's cellToChildren, whose union drifts away from the parent
 * from depth 2 on. A centre exactly on the parent's edge (at depth 2 and deeper many are, the lattices
 * being commensurate) belongs where h3's latLngToCell puts it, so the sub-zones of all the cells of a
 * resolution share out every finer resolution, each cell once. Order: ascending H3 index.
 *
 * Found without testing every candidate: the descendants of the parent's disk of radius 2 (which holds
 * every cell whose centre can reach the parent), walked down the hierarchy in index order. A cell whose
 * descendants' cap lies clear inside the parent's polygon is taken whole (counted with cellToChildrenSize,
 * paged with childPosToCell), one clear outside is dropped, only cells along the edge are opened, and
 * cells of the target resolution along the edge are put to latLngToCell.
 */

const IN = 1, OUT = 0, SOME = 2;
type Cover = typeof IN | typeof OUT | typeof SOME;

interface Node {
  cell: string;
  res: number;
  cover: Cover;
  /** Sub-zones under this cell. */
  n: number;
  kids?: Node[];
}

/** Relative margin on the decisions by caps: far above rounding, far below any cell. */
const MARGIN = 1e-9;

export class H3SubZones {
  readonly count: number;
  private readonly roots: Node[];
  /** The parent's polygon in the gnomonic plane around its centre, where its great-circle edges are straight. */
  private readonly centre: Vec3;
  private readonly e1: Vec3;
  private readonly e2: Vec3;
  private readonly polygon: [number, number][];
  private readonly radius: number;

  constructor(private readonly parent: string, private readonly res: number) {
    const parentRes = h3.getResolution(parent);
    const [clat, clon] = h3.cellToLatLng(parent);
    this.centre = unitVector(clon, clat);
    // Any unit vector not along the centre gives the plane's axes.
    const ref: Vec3 = Math.abs(this.centre[2]) < 0.9 ? [0, 0, 1] : [1, 0, 0];
    this.e1 = normalise(cross(ref, this.centre));
    this.e2 = cross(this.centre, this.e1);
    this.polygon = h3.cellToBoundary(parent).map(([lat, lon]) => this.project(unitVector(lon, lat)));
    this.radius = h3CellCircle(parent)[2];
    if (res === parentRes) {
      this.roots = [{ cell: parent, res, cover: IN, n: 1 }];
    } else if (res === parentRes + 1) {
      // A child's centre lies well inside its parent (three quarters of the way from the centre to an
      // edge at most), so at depth 1 the sub-zones are exactly h3's children (the unit tests check them
      // against an independent point-in-polygon test).
      this.roots = h3.cellToChildren(parent, res).map((cell) => ({ cell, res, cover: IN, n: 1 }));
    } else {
      this.roots = h3.gridDisk(parent, 2).sort().map((cell) => this.node(cell, parentRes));
    }
    this.count = this.roots.reduce((s, r) => s + r.n, 0);
  }

  /** Sub-zones at positions offset .. offset + limit - 1. */
  page(offset: number, limit: number): string[] {
    const out: string[] = [];
    let skip = offset;
    const visit = (node: Node): void => {
      if (out.length >= limit) return;
      if (skip >= node.n) {
        skip -= node.n;
        return;
      }
      if (node.kids) {
        for (const kid of node.kids) visit(kid);
        return;
      }
      // IN: the run of the cell's descendants, or the cell itself at the target resolution.
      const end = Math.min(node.n, skip + limit - out.length);
      if (node.res === this.res) out.push(node.cell);
      // Most of a run: listing it whole is cheaper than finding each cell by position.
      else if (2 * (end - skip) >= node.n) out.push(...h3.cellToChildren(node.cell, this.res).slice(skip, end));
      else for (let pos = skip; pos < end; pos++) out.push(h3.childPosToCell(pos, node.cell, this.res));
      skip = 0;
    };
    for (const root of this.roots) visit(root);
    return out;
  }

  private node(cell: string, res: number): Node {
    if (res === this.res) {
      const [lat, lon] = h3.cellToLatLng(cell);
      const n = h3.latLngToCell(lat, lon, h3.getResolution(this.parent)) === this.parent ? 1 : 0;
      return { cell, res, cover: n ? IN : OUT, n };
    }
    const cover = this.classify(cell);
    if (cover === OUT) return { cell, res, cover, n: 0 };
    if (cover === IN) return { cell, res, cover, n: h3.cellToChildrenSize(cell, this.res) };
    const kids = h3.cellToChildren(cell, res + 1).map((c) => this.node(c, res + 1));
    return { cell, res, cover, n: kids.reduce((s, k) => s + k.n, 0), kids };
  }

  /** IN when every descendant's centre lies clear inside the parent's polygon, OUT when all lie clear outside. */
  private classify(cell: string): Cover {
    const [lat, lon, circumradius] = h3CellCircle(cell);
    const reach = DESCENDANT_REACH * circumradius;
    const p = unitVector(lon / DEG, lat / DEG);
    const cosTheta = dot(p, this.centre);
    const theta = Math.acos(Math.min(1, Math.max(-1, cosTheta)));
    if (theta - reach > this.radius * (1 + MARGIN)) return OUT;
    // A cap that reaches a quarter turn from the centre cannot be projected: open it.
    if (theta + reach >= Math.PI / 2 - 0.01) return SOME;
    // The gnomonic projection stretches lengths by at most 1 / cos^2 of the distance from its centre.
    const stretch = 1 / Math.cos(theta + reach) ** 2;
    const [x, y] = this.project(p);
    const clear = reach * stretch + MARGIN * this.radius;
    if (distanceToRing(x, y, this.polygon) <= clear) return SOME;
    return pointInRing(x, y, this.polygon) ? IN : OUT;
  }

  private project(v: Vec3): [number, number] {
    const d = dot(v, this.centre);
    return [dot(v, this.e1) / d, dot(v, this.e2) / d];
  }
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalise(v: Vec3): Vec3 {
  const l = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / l, v[1] / l, v[2] / l];
}

/** Distance from (x, y) to the closed ring's edges in the plane. */
function distanceToRing(x: number, y: number, ring: readonly [number, number][]): number {
  let best = Infinity;
  for (let i = 0; i < ring.length; i++) {
    const [ax, ay] = ring[i]!;
    const [bx, by] = ring[(i + 1) % ring.length]!;
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2));
    best = Math.min(best, Math.hypot(ax + t * dx - x, ay + t * dy - y));
  }
  return best;
}
