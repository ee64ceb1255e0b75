/**
 * DGGAL's 3H sub-zone order (I3HSubZones): sub-zones lie on scanlines of tightly packed hexagons
 * through the parent, left to right (even sub-zone level) or bottom to top (odd), starting on a vertex
 * (even relative depth) or an edge (odd). Four generators cover odd/even parent and depth; pentagons,
 * edge hexagons (along a rhombus seam) and the polar pentagons bend their scanlines across the
 * interruptions. Every centroid is produced as DGGAL produces it, then located at the sub-zone level;
 * the order is only useful if it is DGGAL's, so the movers and their quirks are reproduced as they are.
 */
import { i3hAt, i3hCentroid, i3hEdgeCount, i3hVertices, POW3, type I3HZone } from './i3h-zone.js';
import { hexZoneLevel } from '../hex-zone.js';
import { moveVertex3 } from './i3h-net-moves.js';
import { crossInterruption, moveVertex, type Pt } from '../rhombic-5x6-net.js';

/** Receives each sub-zone centroid in order; returns false to stop. */
type Emit = (x: number, y: number) => boolean;

const mv = (c: Pt, dx: number, dy: number): Pt => {
  const o = { x: 0, y: 0 };
  moveVertex(c.x, c.y, dx, dy, o);
  return o;
};
const mv3 = (c: Pt, dx: number, dy: number): Pt => moveVertex3(c.x, c.y, dx, dy);
const cross = (c: Pt, south: boolean, left: boolean): Pt => {
  const o = { x: 0, y: 0 };
  crossInterruption(c.x, c.y, south, left, o);
  return o;
};

interface Shape {
  first: Pt;
  depth: number;
  /** Spacing of the sub-zone level's cells. */
  u: number;
  nv: number;
  polar: boolean;
  south: boolean;
  edgeHex: boolean;
}

/** The vertex (or point on an edge) where the first scanline starts (getI3HFirstSubZoneCentroid). */
function firstCentroid(z: I3HZone, depth: number): Pt {
  const v = i3hVertices(z);
  const nv = v.length;
  const south = (z.root & 1) === 1;
  let k: number;
  if (z.sh > 0) {
    if (depth & 1) {
      // The top-most vertex, the right-most of a tie.
      k = -1;
      for (let i = 0; i < nv; i++) {
        if (k === -1 || v[i]!.y < v[k]!.y || (Math.abs(v[i]!.y - v[k]!.y) < 1e-11 && v[i]!.x > v[k]!.x)) k = i;
      }
      if (z.root === 10 && z.sh === 1) k = 0;
      else if (nv === 5) k = south ? (z.root === 11 && z.sh === 1 ? 1 : 4) : 3;
    } else {
      // The top-most vertex, the left-most of a tie.
      k = -1;
      for (let i = 0; i < nv; i++) {
        if (k === -1 || v[i]!.y < v[k]!.y || (Math.abs(v[i]!.y - v[k]!.y) < 1e-11 && v[i]!.x < v[k]!.x)) k = i;
      }
      if (z.root === 10 && z.sh === 1) k = 4;
      else if (nv === 5) k = z.root === 11 && z.sh === 1 ? 0 : 3;
    }
  } else if (depth & 1) {
    k = -1;
    for (let i = 0; i < nv; i++) if (k === -1 || v[i]!.x < v[k]!.x) k = i;
    if (z.root === 10 && z.sh === 0) k = 0;
    else if (nv === 5 && south) k = z.root === 11 && z.sh === 0 ? 4 : 2;
  } else if (nv === 5 && (z.root < 10 || z.sh !== 0) && !south) k = 4;
  else {
    k = z.root === 10 && z.sh === 0 ? 0 : nv === 6 ? 5 : 4;
    if (nv === 6 && isEdgeCell(z) && south) k = 4;
  }
  const c = { x: v[k]!.x, y: v[k]!.y };
  if (c.x > 5 && c.y > 5) { c.x -= 5; c.y -= 5; }
  else if (c.x < 0 && c.y < 1) { c.x += 5; c.y += 5; }
  return c;
}

/** Along a seam of its rhombus (the first row of a north rhombus, the first column of a south one). */
function isEdgeCell(z: I3HZone): boolean {
  const p = POW3[z.k]!;
  return z.ix !== 0 && (z.root & 1 ? z.ix % p === 0 : Math.floor(z.ix / p) === 0);
}

/** Odd parent, odd depth: left-to-right scanlines from an edge (DGGAL's cases 1, 5, 6, 13, 14, 21, 22). */
function oddParentOddDepth(s: Shape, emit: Emit): void {
  const { first, u, polar, south, edgeHex } = s;
  const np = s.nv === 5 && !south, sp = s.nv === 5 && south;
  const half = POW3[(s.depth - 1) >> 1]!;
  const maxCols = 2 * half + 1;
  const minCols = maxCols - ((maxCols - 1) >> 1);
  for (let r = 0, nCols = minCols; r <= half; r++, nCols++) {
    let rc: Pt;
    if (polar) rc = mv(first, (sp ? -r : r) * u, (sp ? -r : r) * u);
    else if (np || (edgeHex && !south)) rc = mv(first, 0, r * u);
    else rc = mv(first, -r * u, 0);
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (polar) {
        const a = Math.min(col, r);
        let b = col - a;
        const t = mv3(rc, 0, (sp ? a : -a) * u);
        if (b) {
          const maxB = nCols - 1 - 2 * r;
          let cc = 0;
          if (b > maxB) { cc = b - maxB; b = maxB; }
          let i2 = cross(t, sp, np || r >= half);
          c = (cc ? mv : mv3)(i2, (sp ? b : -b) * u, (sp ? b : -b) * u);
          if (cc) {
            i2 = cross(c, sp, np || r >= half);
            c = mv3(i2, sp ? (r >= half ? 0 : cc * u) : -cc * u, sp && r >= half ? -cc * u : 0);
          }
        } else c = t;
      } else if (edgeHex || np) {
        const a = Math.min(col, half), b = col - a;
        const t = (b ? mv : mv3)(rc, a * u, south ? a * u : 0);
        c = b ? mv3(cross(t, south, false), b * u, south ? 0 : b * u) : t;
      } else c = mv(rc, col * u, col * u);
      if (!emit(c.x, c.y)) return;
    }
  }
  for (let r = 1, nCols = maxCols - 1; r <= half; r++, nCols--) {
    let n = -1;
    if (np || polar) nCols--;
    else if (sp) n = Math.trunc((nCols - r) / 2);
    let rc: Pt;
    if (polar) rc = mv(first, sp ? -1 - r * u : 1 + r * u, sp ? -1 - r * u : 1 + r * u);
    else if (np || (edgeHex && !south)) rc = mv(first, r * u, (r + half) * u);
    else rc = mv(first, -half * u, r * u);
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (np || edgeHex || polar) {
        const a = Math.min(col, half - r), b = col - a;
        const ax = (polar && sp ? -a : a) * u, ay = south && !polar ? a * u : 0;
        if (b) {
          const t = polar || edgeHex ? cross(mv(rc, ax, ay), south, sp && polar) : mv3(rc, ax, ay);
          c = mv(t, polar ? 0 : b * u, south ? (polar ? -b * u : 0) : b * u);
        } else c = mv3(rc, ax, ay);
      } else c = mv(rc, col * u, col * u);
      if (!emit(c.x, c.y)) return;
      // South pentagons skip the scanline's missing middle.
      if (col === n) col = nCols - 1 - n;
    }
  }
}

/** Even parent, odd depth: bottom-to-top scanlines from an edge (DGGAL's cases 2, 7, 8, 15, 16, 23, 24). */
function evenParentOddDepth(s: Shape, emit: Emit): void {
  const { first, u, polar, south, edgeHex } = s;
  const np = s.nv === 5 && !south, sp = s.nv === 5 && south;
  const sg = sp ? -1 : 1;
  const half = POW3[(s.depth - 1) >> 1]!;
  const maxCols = 2 * half + 1;
  const minCols = maxCols - ((maxCols - 1) >> 1);
  const h2 = half >> 1;
  for (let r = 0, nCols = minCols; r <= half; r++, nCols++) {
    let rc: Pt;
    if (polar) {
      if (r > h2) {
        const a = h2, b = r - (a + 1);
        const t = mv(first, ((a * 2 + 1) * sg * u) / 3, ((a * 1 + 1) * sg * u) / 3);
        rc = mv3(cross(t, sp, sp), ((1 + b * 1) * sg * u) / 3, ((1 + b * 2) * sg * u) / 3);
      } else rc = mv(first, (r * (sp ? -2 : 2) * u) / 3, (r * (sp ? -1 : 1) * u) / 3);
    } else if (south && (edgeHex || sp) && r > h2) {
      rc = mv3(seamEntry(first), ((r - h2 - 1) * 2 + 1) * u / 3, (((half + 1) >> 1) + (r - h2 - 1)) * u / 3);
    } else rc = mv(first, (r * u) / 3, (r * 2 * u) / 3);
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (polar) {
        let start: Pt;
        let colRem = col;
        let n: number;
        const crossingLeft = sp ? r >= half : r < half;
        if (r > h2) {
          n = (r - h2) * 2 - 1;
          const a = Math.min(col, n);
          colRem = col - a;
          start = (colRem ? mv : mv3)(rc, (a * sg * u) / 3, (-1 * a * sg * u) / 3);
          if (colRem) {
            n = ((half - r) >> 1) + (half - r);
            start = cross(start, sp, crossingLeft);
          }
        } else {
          start = rc;
          n = (half + r) >> 1;
        }
        if (colRem) {
          let a = Math.min(colRem, n);
          let b = colRem - a;
          const t = (b ? mv : mv3)(start, (-a * sg * u) / 3, (-2 * a * sg * u) / 3);
          if (b) {
            const oddRow = (r & 1) === 1;
            if (!oddRow) {
              b--;
              t.x -= (sg * u) / 3;
              t.y -= (sg * u) / 3;
            }
            let i2 = cross(t, sp, crossingLeft);
            if (!oddRow) {
              i2.x -= (sg * u) / 3;
              i2.y -= (sg * u) / 3;
            }
            if (b > n) {
              a = Math.min(b, n);
              b -= a;
              const t2 = (a ? mv : mv3)(i2, (a * sg * -2 * u) / 3, (-a * sg * u) / 3);
              i2 = a ? cross(t2, sp, crossingLeft) : t2;
              c = mv3(i2, (-b * sg * u) / 3, (b * sg * u) / 3);
            } else c = mv3(i2, (b * -2 * sg * u) / 3, (-b * sg * u) / 3);
          } else c = t;
        } else c = start;
      } else if (south && (edgeHex || sp) && r > h2) {
        const n = (r - h2) * 2 - 1;
        const a = Math.min(col, n), b = col - a;
        if (b) {
          const i2 = !sp || r < half ? cross(mv(rc, (-a * u) / 3, (-2 * a * u) / 3), true, true) : mv3(rc, (-a * u) / 3, (-2 * a * u) / 3);
          c = mv3(i2, (b * u) / 3, (-b * u) / 3);
        } else c = mv3(rc, (-a * u) / 3, (-2 * a * u) / 3);
      } else if (np && r > h2) {
        const n = 2 * half - r;
        const a = Math.min(col, n), b = col - a;
        const t = (b ? mv : mv3)(rc, (a * u) / 3, (-a * u) / 3);
        c = b ? mv3(cross(t, false, false), (b * 2 * u) / 3, (b * u) / 3) : t;
      } else c = mv3(rc, (col * u) / 3, (-col * u) / 3);
      if (!emit(c.x, c.y)) return;
    }
  }
  for (let r = 1, nCols = maxCols - 1; r <= half; r++, nCols--) {
    const skip = s.nv === 5 ? r : 0;
    let crosses = false;
    let rc: Pt;
    if (polar) {
      const a = h2, b = half - (a + 1), aa = Math.min(r, h2);
      const t = mv(first, ((a * 2 + 1) * sg * u) / 3, ((a + 1) * sg * u) / 3);
      rc = mv3(cross(t, sp, sp), ((1 + b + aa * 2) * sg * u) / 3, ((1 + b * 2 + aa) * sg * u) / 3);
      if (r > h2) {
        const bb = r - (aa + 1);
        rc.x += (sg * u) / 3;
        rc.y += (sg * u) / 3;
        rc = mv3(cross(rc, sp, sp), ((1 + bb) * sg * u) / 3, ((1 + bb * 2) * sg * u) / 3);
      }
    } else if (south && (edgeHex || sp)) {
      const b = half - h2 - 1;
      rc = mv3(seamEntry(first), u / 3 + (b * 2 * u) / 3 + (r * u) / 3, (((half + 1) / 2.0) * u) / 3 + (b * u) / 3 - (r * u) / 3);
    } else if (!south && edgeHex && r > h2) {
      const i = r - h2 - 1;
      const iix = first.x + (half * 2 * u) / 3, iiy = first.y + (half * 2 * u) / 3;
      const iy = Math.trunc(iiy - 1e-11);
      rc = mv({ x: iy + 2 - (iiy - iy), y: iix }, (-(half - 1) / 2.0 * u) / 3 + (i * u) / 3, u / 3 + (i * 2 * u) / 3);
      crosses = true;
    } else {
      const dx = (half * u) / 3 + (r * 2 * u) / 3;
      const dy = (half * 2 * u) / 3 + (r * u) / 3;
      rc = mv(first, dx, dy);
    }
    for (let col = 0; col < nCols - skip; col++) {
      let c: Pt;
      if (polar) {
        let a: number, b = col;
        let t: Pt;
        let n = half - 2 * r;
        if (r <= h2) {
          a = Math.min(col, n);
          b = col - a;
          t = (b ? mv : mv3)(rc, (sp ? -1 : 1) * a * u / 3, ((sp ? -1 : 1) * -a * u) / 3);
          if (b) {
            t = cross(t, sp, sp);
            n = r;
          }
        } else {
          n = half - r;
          t = rc;
        }
        if (b) {
          if (b > n) {
            a = Math.min(b, n);
            b -= a;
            let i2 = mv3(t, ((sp ? -1 : 1) * a * 2 * u) / 3, ((sp ? -1 : 1) * a * u) / 3);
            if (b > n) {
              a = Math.min(b, n);
              b -= a;
              i2 = cross(mv(i2, ((sp ? -1 : 1) * a * u) / 3, ((sp ? -1 : 1) * a * 2 * u) / 3), sp, sp);
              c = mv3(i2, ((sp ? -1 : 1) * -b * u) / 3, ((sp ? -1 : 1) * b * u) / 3);
            } else c = mv3(i2, ((sp ? -1 : 1) * b * u) / 3, ((sp ? -1 : 1) * b * 2 * u) / 3);
          } else c = mv3(t, ((sp ? -1 : 1) * b * 2 * u) / 3, ((sp ? -1 : 1) * b * u) / 3);
        } else c = t;
      } else if (crosses) c = mv(rc, (col * 2 * u) / 3, (col * u) / 3);
      else if (south && (edgeHex || sp)) {
        const n = sp ? half - r : nCols - (half - 2 * r) - 1;
        const a = Math.min(col, n), b = Math.max(0, col - n);
        if (b) {
          const i2 = sp ? mv3(rc, (-a * u) / 3, (-2 * a * u) / 3) : cross(mv(rc, (-a * u) / 3, (-2 * a * u) / 3), true, true);
          c = mv3(i2, (b * u) / 3, (-b * u) / 3);
        } else c = mv3(rc, (-a * u) / 3, (-2 * a * u) / 3);
      } else if (np) {
        const n = half - r;
        const a = Math.min(col, n), b = col - a;
        const t = mv3(rc, (a * u) / 3, (-a * u) / 3);
        c = b ? mv3(t, (b * 2 * u) / 3, (b * u) / 3) : t;
      } else c = mv3(rc, (col * u) / 3, (-col * u) / 3);
      if (!emit(c.x, c.y)) return;
    }
  }
}

/** Where a scanline from the first centroid enters the next south rhombus (the seam crossing point). */
function seamEntry(first: Pt): Pt {
  const ix = Math.trunc(first.x - 1e-11);
  const iy = Math.trunc(first.y - 1e-11);
  const i0x = first.x + (iy + 1 - first.y);
  return { x: iy + 1 - 1, y: iy + 1 + (ix + 1 - i0x) };
}

/** Even parent, even depth: left-to-right scanlines from a vertex (DGGAL's cases 3, 9, 10, 17, 18, 25, 26). */
function evenParentEvenDepth(s: Shape, emit: Emit): void {
  const { first, u, polar, south, edgeHex, nv } = s;
  const sp = nv === 5 && south;
  const cap = POW3[(s.depth - 2) >> 1]!;
  const mid = 2 * cap + 1;
  const endCapSkip = nv === 5 ? (cap + 1) >> 1 : 0;
  const odd = edgeHex || nv === 5;
  let nCols = 1;
  for (let r = 0; r < cap; r++, nCols += 3) {
    let rc: Pt;
    if (polar && south) {
      if (r > cap >> 1) rc = mv(cross(mv(first, -cap * u, -(cap - r) * u), true, true), 0, -(2 * (r - (cap >> 1)) - 1) * u);
      else rc = mv3(first, -2 * r * u, -r * u);
    } else if (odd && !south) {
      if (polar) {
        if (r > cap >> 1) rc = mv(cross(mv(first, cap * u, (cap - r) * u), false, false), 0, (2 * (r - (cap >> 1)) - 1) * u);
        else rc = mv(first, 2 * r * u, r * u);
      } else rc = mv(first, -r * u, r * u);
    } else rc = mv(first, r * -2 * u, r * -1 * u);
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (odd && !south) {
        if (r > cap >> 1) {
          const n = polar ? 2 * r - cap : cap + r;
          const a = Math.min(col, n);
          let b = col - a;
          const t = polar ? (b ? mv : mv3)(rc, 0, -a * u) : (b ? mv : mv3)(rc, a * u, 0);
          if (b) {
            let i2 = cross(t, false, polar);
            if (polar) {
              b = Math.min(b, 2 * cap - r);
              const cc = col - (a + b);
              const t2 = (cc ? mv : mv3)(i2, -b * u, -b * u);
              if (cc) {
                i2 = cross(t2, false, true);
                c = mv3(i2, -cc * u, 0);
              } else c = t2;
            } else c = mv3(i2, b * u, b * u);
          } else c = t;
        } else if (polar) c = mv(rc, -col * u, -col * u);
        else c = mv(rc, col * u, 0);
      } else if (odd && south) {
        if (r > cap >> 1) {
          const n = polar ? 2 * r - cap : cap + r;
          const a = Math.min(col, n);
          let b = col - a;
          const t = polar ? (b ? mv : mv3)(rc, 0, a * u) : (b ? mv : mv3)(rc, a * u, a * u);
          if (b) {
            let i2 = cross(t, true, false);
            if (polar) {
              b = Math.min(b, 2 * cap - r);
              const cc = col - (a + b);
              const t2 = (cc ? mv : mv3)(i2, b * u, b * u);
              if (cc) {
                i2 = cross(t2, true, false);
                c = mv3(i2, cc * u, 0);
              } else c = t2;
            } else c = mv3(nv === 5 ? t : i2, b * u, nv === 5 ? b * u : 0);
          } else c = t;
        } else c = mv(rc, col * u, col * u);
      } else c = mv(rc, col * u, col * u);
      if (!emit(c.x, c.y)) return;
    }
  }
  for (let r = 0; r < mid; r++, nCols += nCols & 1 ? 1 : -1) {
    const colSkip = nv === 5 && r > mid >> 1 ? r - (mid >> 1) : 0;
    let rc: Pt;
    if (polar && south) {
      const a = Math.min(r, cap), b = r - a;
      const t2 = mv(cross(mv(first, -cap * u, 0), true, true), -a * u, -((a >> 1) + cap) * u);
      rc = b ? mv(cross(t2, true, true), -(b >> 1) * u, -b * u) : t2;
    } else if (odd && !south) {
      if (polar) {
        const a = Math.min(r, cap), b = r - a;
        const t2 = mv(cross(mv(first, cap * u, 0), false, false), a * u, ((a >> 1) + cap) * u);
        rc = b ? mv(cross(t2, false, false), (b >> 1) * u, b * u) : t2;
      } else rc = mv(first, cap * -u + ((r + 1) >> 1) * u, cap * u + r * u);
    } else rc = mv(first, cap * -2 * u + (r >> 1) * -u, cap * -1 * u + (r >> 1) * u + (r & 1) * u);
    for (let col = 0; col < nCols - colSkip; col++) {
      let c: Pt;
      if (colSkip && sp) {
        const jumpCol = (nCols - colSkip) >> 1;
        if (col <= jumpCol) c = polar ? mv(rc, -col * u, 0) : mv(rc, col * u, col * u);
        else if (polar) c = mv(cross(mv(rc, -jumpCol * u, 0), true, true), 0, -(col - jumpCol) * u);
        else {
          const startShift = colSkip + jumpCol + 1;
          const extra = col - jumpCol - 1;
          c = mv(mv(rc, startShift * u, startShift * u), extra * u, extra * u);
        }
      } else if (odd && !south) {
        const n = polar ? cap + (r >> 1) : nCols - 1 - cap - (r >> 1);
        const a = Math.min(col, n);
        let b = col - a;
        const mover = !b || (nv === 5 && r > mid >> 1) ? mv3 : mv;
        const t = polar && r <= cap ? mover(rc, 0, -a * u) : mover(rc, a * u, 0);
        if (b) {
          if (nv === 5 && r > mid >> 1) c = mv(t, polar ? 0 : b * u, b * u);
          else {
            let i2 = cross(t, false, polar);
            if (polar) {
              b = Math.min(b, cap - r);
              const cc = col - (a + b);
              const t2 = mv(i2, -b * u, -b * u);
              if (cc) {
                i2 = cross(t2, false, true);
                c = mv3(i2, -cc * u, 0);
              } else c = t2;
            } else c = mv(i2, b * u, b * u);
          }
        } else c = t;
      } else if (odd && south) {
        const n = polar ? cap + (r >> 1) : nCols - 1 - cap - (r >> 1);
        const a = Math.min(col, n);
        let b = col - a;
        const ax = polar && r <= cap ? 0 : a * u;
        if (b) {
          if (nv === 5 && r <= mid >> 1 && !polar) c = mv(mv3(rc, ax, a * u), b * u, b * u);
          else {
            let i2 = cross(mv3(rc, ax, a * u), true, polar && r >= mid >> 1);
            if (polar) {
              b = Math.min(b, cap - r);
              const cc = col - (a + b);
              const t2 = mv(i2, b * u, b * u);
              if (cc) {
                i2 = cross(t2, true, r >= mid >> 1);
                c = r >= mid >> 1 ? mv3(i2, 0, -cc * u) : mv3(i2, cc * u, 0);
              } else c = t2;
            } else c = mv(i2, b * u, nv === 5 ? b * u : 0);
          }
        } else c = mv3(rc, ax, a * u);
      } else c = mv(rc, col * u, col * u);
      if (!emit(c.x, c.y)) return;
    }
  }
  nCols -= 2;
  for (let r = 0; r < cap - endCapSkip; r++, nCols -= 3) {
    const n = odd && r < cap >> 1 ? cap - 2 * (r + 1) : 0;
    let rc: Pt;
    if (polar) {
      rc = south
        ? mv({ x: 2 + cap * u, y: 4 - cap * u }, -(r + 1) * 2 * u, -(r + 1) * u)
        : mv({ x: 3 - cap * u, y: 2 + cap * u }, (r + 1) * 2 * u, (r + 1) * u);
    } else if (odd && !south) {
      if (r < cap >> 1) {
        const a = Math.min(r + 1, cap >> 1), b = r + 1 - a;
        const t = mv(first, cap * -u + (mid >> 1) * u + a * 2 * u, cap * u + (mid - 1) * u + a * u);
        rc = b ? mv(cross(t, false, false), b * 2 * u, b * u) : t;
      } else {
        const ay = 3 * cap - 1 - r;
        const b = 1 + 2 * (r - (cap >> 1));
        rc = mv3(cross(mv(first, cap * u, cap * u), false, false), -ay * u, b * u);
      }
    } else if (odd && south && r >= cap >> 1) {
      const ay = 2 * cap + r + 1;
      const b = 1 + 2 * (r - (cap >> 1));
      rc = mv3(cross(mv(first, 0, cap * u), true, false), b * u, ay * u);
    } else {
      rc = mv3(first, cap * -2 * u + ((mid - 1) >> 1) * -u + (r + 1) * u, cap * -1 * u + ((mid - 1) >> 1) * u + (r + 1) * 2 * u);
    }
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (odd && !south) {
        const a = Math.min(col, n);
        let b = col - a;
        if (a) {
          if (b) {
            let i2: Pt;
            if (nv === 5) {
              b -= (nCols >> 1) - (n >> 1) + r + (r >> 1) + 1;
              i2 = polar ? cross(mv(rc, a * u, 0), false, false) : mv3(rc, a * u, 0);
            } else i2 = cross(mv(rc, a * u, 0), false, false);
            c = polar ? mv3(i2, 0, b * u) : mv3(i2, b * u, b * u);
          } else c = mv3(rc, a * u, 0);
        } else c = mv3(rc, b * u, b * u);
      } else if (odd && south) {
        const a = Math.min(col, n);
        let b = col - a;
        if (a) {
          const t = polar ? mv(rc, -a * u, 0) : (b ? mv : mv3)(rc, a * u, a * u);
          if (b) {
            const i2 = cross(t, true, polar);
            if (nv === 5) {
              b -= (nCols >> 1) - (n >> 1) + r + (r >> 1) + 1;
              c = polar ? mv3(i2, 0, -b * u) : mv3(i2, b * u, b * u);
            } else c = mv3(i2, b * u, 0);
          } else c = t;
        } else c = mv3(rc, b * u, 0);
      } else c = mv(rc, col * u, col * u);
      if (!emit(c.x, c.y)) return;
      if (nv === 5 && col === n) col = nCols - n - 1;
    }
  }
}

/** Odd parent, even depth: bottom-to-top scanlines from a vertex (DGGAL's cases 4, 11, 12, 19, 20, 27, 28). */
function oddParentEvenDepth(s: Shape, emit: Emit): void {
  const { first, u, polar, south, edgeHex, nv } = s;
  const np = nv === 5 && !south, sp = nv === 5 && south;
  const sg = sp ? -1 : 1;
  const cap = POW3[(s.depth - 2) >> 1]!;
  const mid = 2 * cap + 1;
  const endCapSkip = nv === 5 ? (cap + 1) >> 1 : 0;
  let nCols = 1;
  for (let r = 0; r < cap; r++, nCols += 3) {
    const rc = polar ? mv(first, sg * r * u, sg * r * u) : mv(first, 0, r * u);
    for (let col = 0; col < nCols; col++) {
      let c: Pt;
      if (polar) {
        const n = (r >> 1) + r;
        const a = Math.min(col, n);
        let b = col - a;
        let t = mv(rc, (sg * -a * u) / 3, (sg * -2 * a * u) / 3);
        if (b) {
          if (r & 1) {
            b--;
            t = mv(t, (sg * -u) / 3, (sg * -u) / 3);
          }
          c = mv(cross(t, sp, !sp), (sg * (-b * 2 - (r & 1)) * u) / 3, (sg * (-b - (r & 1)) * u) / 3);
        } else c = t;
      } else c = mv(rc, (col * u) / 3, (-col * u) / 3);
      if (!emit(c.x, c.y)) return;
    }
  }
  for (let r = 0; r < mid; r++, nCols += nCols & 1 ? 1 : -1) {
    const skip = nv === 5 && r > cap ? r - cap : 0;
    let rc: Pt;
    if (polar) {
      const i2 = cross(mv(first, sg * cap * u, sg * cap * u), sp, sp);
      if (r) {
        const a = r >> 1, b = r & 1;
        rc = mv(i2, sg * a * u + (sg * b * 2 * u) / 3, sg * a * u + (sg * b * u) / 3);
      } else rc = i2;
    } else if (sp && r > cap) {
      const a = Math.trunc(r / 2), b = r & 1;
      rc = mv(mv(first, cap * u, cap * u), a * u + (b * u) / 3, cap * u - (b * u) / 3);
    } else if ((edgeHex || sp) && south && r) {
      const n = r + (r >> 1);
      const t = mv(first, ((cap + r) * 2 * u) / 3 - ((2 * cap - r) * u) / 3, ((cap + r) * u) / 3 + ((2 * cap - r) * u) / 3);
      const i2 = nv === 5 && r > cap ? t : cross(t, true, false);
      rc = mv(i2, (n * u) / 3, (n * 2 * u) / 3);
    } else rc = mv(first, (r >> 1) * u + ((r & 1) * 2 * u) / 3, (cap + (r >> 1)) * u + ((r & 1) * u) / 3);
    for (let col = 0; col < nCols - skip; col++) {
      let c: Pt;
      if (polar) {
        const r2 = r > cap ? 2 * cap - r : r;
        const n = r2 + (r2 >> 1);
        let a = Math.min(col, n);
        let b = col - a;
        let t = a ? mv(rc, (sg * a * u) / 3, (sg * -a * u) / 3) : rc;
        if (b) {
          const maxB = r < cap ? cap - r + ((cap - r) >> 1) : r - cap;
          let cc = 0;
          const crossingLeft = sp ? r >= cap : r < cap;
          if (b > maxB) { cc = b - maxB; b = maxB; }
          let i2 = cross(t, sp, crossingLeft);
          c = r >= cap ? mv(i2, (sg * b * 2 * u) / 3, (sg * b * u) / 3) : mv(i2, (sg * -b * u) / 3, (sg * -b * 2 * u) / 3);
          if (r < cap) {
            if (cc) {
              const oddR = r & 1;
              if (!oddR) {
                cc--;
                c = mv(c, (sg * -u) / 3, (sg * -u) / 3);
              }
              i2 = cross(c, sp, np);
              if (cc > maxB) {
                a = Math.min(cc, maxB);
                b = cc - a;
                t = mv(i2, (sg * (-a * 2 - (1 - oddR)) * u) / 3, (sg * (-a - (1 - oddR)) * u) / 3);
                i2 = cross(t, sp, np);
                c = mv(i2, (sg * -b * u) / 3, (sg * b * u) / 3);
              } else c = mv(i2, (sg * (-cc * 2 - (1 - oddR)) * u) / 3, (sg * (-cc - (1 - oddR)) * u) / 3);
            }
          } else {
            i2 = c;
            if (cc > maxB) {
              a = Math.min(cc, maxB);
              b = cc - a;
              t = mv(i2, (sg * a * u) / 3, (sg * a * 2 * u) / 3);
              i2 = cross(t, sp, crossingLeft);
              c = mv(i2, (sg * -b * u) / 3, (sg * b * u) / 3);
            } else c = mv(i2, (sg * cc * u) / 3, (sg * cc * 2 * u) / 3);
          }
        } else c = t;
      } else if (np || (edgeHex && !south)) {
        const n = np && r > cap ? cap + Math.trunc(cap / 2) - Math.trunc((r - cap) / 2) : 3 * cap - r - ((r + 1) >> 1);
        const a = Math.min(col, n), b = col - a;
        const t = mv(rc, (a * u) / 3, (-a * u) / 3);
        if (b) {
          const i2 = np && r > cap ? t : cross(t, false, false);
          c = mv(i2, (b * 2 * u) / 3, (b * u) / 3);
        } else c = t;
      } else if ((edgeHex || sp) && south && r) {
        const n = sp && r > cap ? cap + Math.trunc(cap / 2) - Math.trunc((r - cap) / 2) : r + (r >> 1);
        const a = Math.min(col, n), b = col - a;
        const t = mv(rc, (-a * u) / 3, (-a * 2 * u) / 3);
        if (b) {
          const i2 = sp && r >= cap ? t : cross(t, true, true);
          c = mv(i2, (b * u) / 3, (-b * u) / 3);
        } else c = t;
      } else c = mv(rc, (col * u) / 3, (-col * u) / 3);
      if (!emit(c.x, c.y)) return;
    }
  }
  nCols -= 2;
  for (let r = 0; r < cap - endCapSkip; r++, nCols -= 3) {
    const n = nv === 5 ? (r >= cap >> 1 ? 0 : cap - 2 * (r + 1)) : -1;
    let rc: Pt;
    if (polar) {
      const r2 = mid - 1, a = r2 >> 1, b = r2 & 1;
      let i2 = cross(mv(first, sg * cap * u, sg * cap * u), sp, sp);
      i2 = cross(mv(i2, sg * a * u + (sg * b * 2 * u) / 3, sg * a * u + (sg * b * u) / 3), sp, sp);
      rc = mv(i2, sg * (r + 1) * u, sg * (r + 1) * u);
    } else if (sp) rc = mv(mv(first, cap * u, cap * u), (mid >> 1) * u, (cap - r - 1) * u);
    else if (edgeHex && !south) rc = mv(cross(mv(first, (3 * cap * u) / 3, (3 * cap * 2 * u) / 3), false, false), (r + 1) * u, (r + 1) * u);
    else if (edgeHex && south) {
      rc = mv(cross(mv(first, (3 * cap * 2 * u) / 3, (3 * cap * u) / 3), true, false), (3 * cap * u) / 3, (3 * cap * 2 * u) / 3 - (r + 1) * u);
    } else rc = mv(first, (((mid + 1) >> 1) + r) * u, (cap + ((mid - 1) >> 1)) * u);
    for (let col = 0; col < nCols; col++) {
      let a = 0, b = 0;
      if (nv === 5) {
        a = Math.min(col, n);
        b = col - a;
        if (b) b -= (nCols >> 1) - (n >> 1) + r + (r >> 1) + 1;
      }
      let c: Pt;
      if (polar) c = mv(mv(rc, (sg * a * 2 * u) / 3, (sg * a * u) / 3), (sg * b * u) / 3, (sg * b * 2 * u) / 3);
      else if (np) c = mv(mv(rc, (a * u) / 3, (-a * u) / 3), (b * 2 * u) / 3, (b * u) / 3);
      else if (sp) c = mv(mv(rc, (-a * u) / 3, (-2 * a * u) / 3), (b * u) / 3, (-b * u) / 3);
      else if (edgeHex && !south) c = mv(rc, (col * 2 * u) / 3, (col * u) / 3);
      else if (edgeHex && south) c = mv(rc, (-col * u) / 3, (-2 * col * u) / 3);
      else c = mv(rc, (col * u) / 3, (-col * u) / 3);
      if (!emit(c.x, c.y)) return;
      if (nv === 5 && col === n) col = nCols - n - 1;
    }
  }
}

/** Calls `emit` with each sub-zone centroid (5x6) `depth` levels below, in DGGAL's order, until it returns false. */
export function iterateI3HSubZoneCentroids(z: I3HZone, depth: number, emit: Emit): void {
  if (depth === 0) {
    const c = i3hCentroid(z);
    emit(c.x, c.y);
    return;
  }
  const nv = i3hEdgeCount(z);
  const south = (z.root & 1) === 1;
  const shape: Shape = {
    first: firstCentroid(z, depth),
    depth,
    u: 1.0 / POW3[(hexZoneLevel(z) + depth) >> 1]!,
    nv,
    polar: z.root > 9,
    south,
    // Edge hexagons are letters A and B along a rhombus seam.
    edgeHex: nv === 6 && z.sh <= 1 && isEdgeCell(z),
  };
  if (z.sh > 0) (depth & 1 ? oddParentOddDepth : oddParentEvenDepth)(shape, emit);
  else (depth & 1 ? evenParentOddDepth : evenParentEvenDepth)(shape, emit);
}

/**
 * Sub-zones as zone records in order, from position `from` on, until `visit` returns false. Centroids
 * before `from` are walked but not located.
 */
export function i3hSubZones(z: I3HZone, depth: number, visit: (s: I3HZone) => boolean | void, from = 0): void {
  const level = hexZoneLevel(z) + depth;
  let i = 0;
  iterateI3HSubZoneCentroids(z, depth, (x, y) => {
    if (i++ < from) return true;
    const s = i3hAt(level, x, y);
    return s ? visit(s) !== false : true;
  });
}
