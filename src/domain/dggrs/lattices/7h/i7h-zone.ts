/**
 * The aperture-7 hexagonal lattice on the 5x6 net, as DGGAL's RI7H defines it (shared by IVEA7H and
 * ISEA7H: both grids have identical zones in 5x6 space, only the projection to the ellipsoid differs).
 *
 * A zone is (k, root, index, subHex): k = level div 2, root 0..9 a rhombus or 10/11 the polar pentagons,
 * index = row * 7^k + col in the root rhombus at the even level 2k, subHex 0 ('A') at even levels and
 * 1..7 ('B'..'H') at odd levels (B = centroid child of the even zone, C..H its vertex children).
 *
 * Seams, pentagons and letter re-mappings follow DGGAL rule for rule: zone ids are only meaningful if
 * they agree with the reference, so quirks are reproduced rather than "fixed".
 */
import {
  canonicalize, centroidIntoNet, crossesInterruption, crossInterruption, moveVertex, moveVertex2, rotateCCW, rotateCW,
  type Crossing, type Pt,
} from '../rhombic-5x6-net.js';
import { hexZoneLevel, HexZoneIds, ID_PARTS, sameHexZone, type HexZone } from '../hex-zone.js';

/** RI7H's sub-hex letters: 'A' at even levels, 'B' (centroid child) .. 'H' (vertex children) at odd. */
export type I7HZone = HexZone;

export const MAX_LEVEL = 19;

export const POW7: readonly number[] = Array.from({ length: 23 }, (_, i) => 7 ** i);

/** Pentagons: every rhombus index 0 and the polar roots, except vertex children (always hexagons). */
export const zoneEdgeCount = (z: I7HZone): number => (z.sh > 1 ? 6 : z.ix === 0 ? 5 : 6);

// ------------------------------------------------------------------------------------------------
// Identifiers


export function formatZoneId(k: number, root: number, ix: number, sh: number): string {
  return IDS.format(2 * k + (sh > 0 ? 1 : 0), root, ix, sh);
}

export const zoneId = (z: I7HZone): string => formatZoneId(z.k, z.root, z.ix, z.sh);

/** The level letter is the level; the sub-hex takes 3 bits of the 64-bit id: k << 58 | root << 54 | index << 3 | subHex. */
const IDS = new HexZoneIds(20, 8, /^([A-T])([0-9AB])-(0|[1-9A-F][0-9A-F]{0,13})-([A-H])$/, 3n);

/**
 * Strict parse: only the canonical spelling of a zone that exists (DGGAL itself accepts leading zeros,
 * lowercase and some impossible pentagon letters; we refuse those so ids round-trip).
 */
export function parseZoneId(id: string): I7HZone | null {
  if (!IDS.split(id)) return null;
  const { letter: level, root, ix, sh } = ID_PARTS;
  const k = level >> 1;
  if ((sh > 0) !== ((level & 1) === 1)) return null;
  const p = POW7[k]!;
  if (ix >= p * p) return null;
  if (root >= 10 && ix !== 0) return null;
  // Pentagons (index 0 or polar roots) have only five vertex children, C..G.
  if (ix === 0 && sh === 7) return null;
  return { k, root, ix, sh };
}

export const zoneToInt64 = (z: I7HZone): bigint => IDS.toInt64(z);

export function zoneFromInt64(v: bigint): I7HZone | null {
  const z = IDS.fromInt64(v);
  return z && parseZoneId(zoneId(z)) ? z : null;
}

// ------------------------------------------------------------------------------------------------
// Zone from a 5x6 point

/** Result registers of `locate`, so the zone-from-point hot path allocates nothing. */
export const LOC = { k: 0, root: 0, ix: 0, sh: 0 };

const scratch: Pt = { x: 0, y: 0 };

function pointLineSide(x: number, y: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  return dy * x - dx * y + (ay * dx - dy * ax);
}

const QUADS = [
  [-1, -1, -1, 0, 0, -1],
  [-1, 2, 0, 0, 1, 1],
  [2, 2, 3, 3, 1, -1],
  [-1, 3, 3, -1, -1, -1],
];
const HEXES = [
  [-1, -1, -1, 1, 7, -1],
  [-1, 2, 5, 6, 4, 1],
  [1, 7, 3, 2, 5, -1],
  [-1, 4, 1, -1, -1, -1],
];

function roundTo32(u: number): number {
  return Math.trunc((u + (u >= 0 ? 2147483648 : -2147483648)) / 4294967296);
}

/** Result registers of `carryIntoRhombus`. */
const CARRIED = { root: 0, row: 0, col: 0 };

/**
 * A lattice point (row, col) just off rhombus `root` (p cells a side) carried across a turned seam into
 * CARRIED: a north (south) rhombus's right (bottom) edge, and with `back` also its top (left) edge; false,
 * with CARRIED the point as it is, when it crosses none. The root is left unwrapped (each caller wraps it
 * as DGGAL does).
 */
function crossSeam(p: number, root: number, row: number, col: number, south: boolean, back: boolean): boolean {
  let crossed = true;
  if (col === p && row < p && !south) { col = p - row; row = 0; root += 2; }
  else if (row === p && col < p && south) { row = p - col; col = 0; root += 2; }
  else if (back && col > 0 && col < p && row < 0 && !south) {
    const ncol = p + row, nrow = p - col;
    col = ncol; row += nrow; root -= 2;
  } else if (back && row > 0 && row < p && col < 0 && south) {
    const nrow = p + col, ncol = p - row;
    row = nrow; col += ncol; root -= 2;
  } else crossed = false;
  CARRIED.root = root;
  CARRIED.row = row;
  CARRIED.col = col;
  return crossed;
}

/** A lattice point just off rhombus `root` carried straight into the rhombus before or after, into CARRIED (root unwrapped). */
function carryStraight(p: number, root: number, row: number, col: number): void {
  if (row < 0 && col < 0) { row += p; col += p; root -= 2; }
  else if (row < 0) { row += p; root -= 1; }
  else if (col < 0) { col += p; root -= 1; }
  else if (col >= p && row >= p) { row -= p; col -= p; root += 2; }
  else if (row >= p) { row -= p; root += 1; }
  else if (col >= p) { col -= p; root += 1; }
  CARRIED.root = root;
  CARRIED.row = row;
  CARRIED.col = col;
}

/**
 * Zone of `level` containing the 5x6 point (DGGAL's fromCentroid). Writes LOC and returns true, or
 * returns false for points outside the net.
 */
export function locate(level: number, px: number, py: number): boolean {
  const k = level >> 1;
  const p = POW7[k]!;
  const oop = 1.0 / p;
  let x = px, y = py;
  if (Math.abs(x - y - 1) < 1e-10) { /* on the north polar diagonal: leave as is */ }
  else if (Math.abs(y - x - 2) < 1e-10) { /* south polar diagonal */ }
  else if (y < -1e-11 && x > -1e-11) { x -= y; y = 0; }
  else if (Math.floor(x + 1e-11) > Math.floor(y + 1e-11)) {
    const cy = Math.min(5, Math.floor(y + 1e-11));
    x += cy + 1 - y;
    y = cy + 1;
  } else if (Math.floor(y + 1e-11) - Math.floor(x + 1e-11) > 1) {
    const cx = Math.min(4, Math.floor(x + 1e-11));
    y += cx + 1 - x;
    x = cx + 1;
  } else if (x < -1e-11 || y < -1e-11) {
    moveVertex2(5, 5, x, y, false, scratch);
    x = scratch.x;
    y = scratch.y;
  }
  if (x > 5 - 1e-11 && y > 5 - 1e-11 && x + y > 5.0 + 5.0 - oop - 1e-11) { x -= 5; y -= 5; }

  const cx = Math.min(4, Math.trunc(x + 1e-11));
  const cy = Math.min(5, Math.trunc(y + 1e-11));
  let root = cx + cy;
  const lx = x - cx, ly = y - cy;
  const southRhombus = (root & 1) === 1;
  const south = y - x - 1e-11 > 1;
  const north = x - y - 1e-11 > 0;
  const northPole = north && Math.abs(x - y - 1.0) < 1e-11;
  const southPole = south && Math.abs(y - x - 2.0) < 1e-11;
  LOC.k = k;

  if (level & 1) {
    if (northPole || southPole) {
      LOC.root = northPole ? 10 : 11;
      LOC.ix = 0;
      LOC.sh = 1;
      return true;
    }
    const xp = lx * p, yp = ly * p;
    let col = 0, row = 0, idx = 0, idy = 0;
    if (xp * 4294967296 >= 1) { col = Math.floor(xp); idx = Math.trunc((xp - col) * 4294967296); }
    if (yp * 4294967296 >= 1) { row = Math.floor(yp); idy = Math.trunc((yp - row) * 4294967296); }
    const u = 2 * idx - 3 * idy, v = idx + 2 * idy, w = -3 * idx + idy;
    let i = roundTo32(u), j = roundTo32(v), kk = roundTo32(w);
    const du = Math.abs(i * 4294967296 - u), dv = Math.abs(j * 4294967296 - v), dw = Math.abs(kk * 4294967296 - w);
    if (du > dv && du > dw) i = -j - kk;
    else if (dv > dw) j = -i - kk;
    else kk = -i - j;
    let quad = 0, subHex = 0;
    if (i >= -3 && i <= 2 && j >= 0 && j <= 3 && QUADS[j]![i + 3]! >= 0) {
      quad = QUADS[j]![i + 3]!;
      subHex = HEXES[j]![i + 3]!;
    }
    // Even parent of the chosen quad (DGGAL's getSubRhombus), crossing into neighbours at the last row/column.
    const lastCol = col === p - 1, lastRow = row === p - 1;
    const q0 = row * p + col;
    let q1 = 0, q2 = 0, q3 = 0;
    let r1 = root, r2 = root, r3 = root;
    if (!lastCol && !lastRow) { q1 = q0 + 1; q2 = q0 + p; q3 = q2 + 1; }
    else if (southRhombus) {
      if (lastCol) {
        q1 = row * p; r1 = (root + 1) % 10;
        if (lastRow) { q2 = p > 1 ? p : 0; q3 = 0; r3 = (root + 2) % 10; r2 = p === 1 ? 11 : r3; }
        else { q2 = q0 + p; q3 = (row + 1) * p; r3 = (root + 1) % 10; }
      } else {
        q1 = q0 + 1; q2 = col ? (p - col) * p : 0; q3 = col ? q2 - p : row * p;
        r3 = (root + 2) % 10; r2 = col ? r3 : 11;
      }
    } else if (lastCol) {
      q1 = row && p > 0 ? p - row : 0; r3 = (root + 2) % 10; r1 = row && p > 1 ? r3 : 10;
      if (lastRow) { q2 = p - 1; q3 = 0; r2 = (root + 1) % 10; }
      else { q2 = q0 + p; q3 = col - row; }
    } else { q1 = q0 + 1; q2 = col; q3 = col + 1; r2 = r3 = (root + 1) % 10; }
    const qRoot = quad === 0 ? root : quad === 1 ? r1 : quad === 2 ? r2 : r3;
    const qIx = quad === 0 ? q0 : quad === 1 ? q1 : quad === 2 ? q2 : q3;
    // Near rhombus edges the neighbouring rhombus is turned 60 degrees, so its letters rotate.
    let delta = 0;
    if (subHex >= 2) {
      if (southRhombus) {
        if (col === 0) {
          if (quad === 0 && subHex >= 5 && subHex <= 7) delta = -1;
          else if (quad === 2 && (subHex === 2 || subHex === 7)) {
            if (row === p - 1) {
              if (root > 1) delta = -((root >> 1) + 1);
              else if (root === 1 && subHex === 7) delta = -1;
            } else delta = -1;
          }
        }
      } else if (row === p - 1 && col === 0 && quad === 2 && subHex === 7) delta = -1;
      else if (row === 0) {
        if (quad === 0 && subHex >= 5 && subHex <= 7 && (col > 0 || subHex === 7)) delta = 1;
        else if (quad === 1 && subHex >= 4 && subHex <= 5) {
          if (col === p - 1) delta = root === 8 && subHex === 5 ? -3 : (root >> 1) - 2;
          else delta = 1;
        }
      }
      if (delta) subHex = 2 + ((subHex + delta + 4) % 6);
    }
    LOC.root = qRoot;
    LOC.ix = qIx;
    LOC.sh = subHex;
    return true;
  }

  if (northPole || southPole) {
    LOC.root = northPole ? 10 : 11;
    LOC.ix = 0;
    LOC.sh = 0;
    return true;
  }
  let col = Math.max(0, Math.trunc(lx * p + 0.5));
  let row = Math.max(0, Math.trunc(ly * p + 0.5));
  const dx = lx * p + 0.5 - col;
  const dy = ly * p + 0.5 - row;
  // Rounding to the nearest rhombus-lattice point is right except in the four hexagon corners.
  if (dx > 1 - dy) {
    if (dx > dy) { if (pointLineSide(dx, dy, 1.0, 0.5, 5 / 6.0, 1 / 6.0) < 0) col++; }
    else if (pointLineSide(dx, dy, 1 / 6.0, 5 / 6.0, 0.5, 1.0) < 0) row++;
  } else if (dx > dy) { if (pointLineSide(dx, dy, 5 / 6.0, 1 / 6.0, 0.5, 0.0) < 0) row--; }
  else if (pointLineSide(dx, dy, 0.0, 0.5, 1 / 6.0, 5 / 6.0) < 0) col--;

  if (north && col === p && row === 0) { LOC.root = 10; LOC.ix = 0; LOC.sh = 0; return true; }
  if (south && col === 0 && row === p) { LOC.root = 11; LOC.ix = 0; LOC.sh = 0; return true; }
  if (!crossSeam(p, root, row, col, southRhombus, false)) carryStraight(p, root, row, col);
  ({ root, row, col } = CARRIED);
  // DGGAL keeps the root unsigned here; a negative root wraps through its 4-bit field.
  if (root < 0) root = (root - 10) & 15;
  else if (root > 9) root -= 10;
  if (row < 0 || row >= p || col < 0 || col >= p) return false;
  LOC.root = root;
  LOC.ix = row * p + col;
  LOC.sh = 0;
  return true;
}

export function zoneAt(level: number, x: number, y: number): I7HZone | null {
  return locate(level, x, y) ? { k: LOC.k, root: LOC.root, ix: LOC.ix, sh: LOC.sh } : null;
}

// ------------------------------------------------------------------------------------------------
// Geometry in 5x6

function isEvenEdgeHex(k: number, root: number, ix: number): boolean {
  if (ix === 0) return false;
  const p = POW7[k]!;
  return root & 1 ? ix % p === 0 : ix < p;
}

/** Centroid in 5x6 (DGGAL's I7HZone.centroid, including its 1e-6 snap onto y = 0 / x = 5). */
export function zoneCentroid(z: I7HZone, out: Pt): void {
  const p = POW7[z.k]!;
  let oop = 1.0 / p;
  const root = z.root, rix = z.ix;
  const south = (root & 1) === 1;
  let sh = z.sh;
  let vx: number, vy: number;
  if (root === 10) {
    vx = 1; vy = 0;
    if (sh > 1) { vx += sh - 2 - (2 * oop) / 7; vy += sh - 2 + (1 * oop) / 7; }
  } else if (root === 11) {
    vx = 4; vy = 6;
    if (sh > 1) { vx -= sh - 2 - (2 * oop) / 7; vy -= sh - 2 + (1 * oop) / 7; }
  } else {
    const cx = root >> 1, cy = cx + (root & 1);
    const row = Math.floor(rix / p), col = rix % p;
    vx = cx + col * oop;
    vy = cy + row * oop;
  }
  let x = vx, y = vy;
  if (z.sh && root < 10) {
    if (rix === 0 && south && sh >= 4) sh++;
    else if (sh >= 2 && isEvenEdgeHex(z.k, root, rix)) sh = ((sh + (south ? -1 : 3)) % 6) + 2;
    oop /= 7;
    switch (sh) {
      case 2: moveVertex(vx, vy, -1 * oop, -3 * oop, out); x = out.x; y = out.y; break;
      case 3: moveVertex(vx, vy, -3 * oop, -2 * oop, out); x = out.x; y = out.y; break;
      case 4: moveVertex(vx, vy, -2 * oop, +1 * oop, out); x = out.x; y = out.y; break;
      case 5: moveVertex(vx, vy, +1 * oop, +3 * oop, out); x = out.x; y = out.y; break;
      case 6: moveVertex(vx, vy, +3 * oop, +2 * oop, out); x = out.x; y = out.y; break;
      case 7: moveVertex(vx, vy, +2 * oop, -1 * oop, out); x = out.x; y = out.y; break;
      default: break;
    }
  }
  if (Math.abs(y - 0) < 1e-6) y = 0;
  else if (Math.abs(x - 5) < 1e-6) x = 5;
  if (x > 5 - 1e-6 || y > 6 + 1e-6) { x -= 5; y -= 5; }
  if (x < 0 - 1e-6) { x += 5; y += 5; }
  out.x = x;
  out.y = y;
}

export function centroidOf(z: I7HZone): Pt {
  const c = { x: 0, y: 0 };
  zoneCentroid(z, c);
  return c;
}

/** Hexagon corner offsets around a centre, in units of 1/(7p): even-level and odd-level lattices. */
function cornerOffsets(k: number, sh: number): Pt[] {
  const oonp = 1.0 / (7 * POW7[k]!);
  if (sh === 0) {
    const A = 7 / 3.0, B = 14 / 3.0;
    return [
      { x: -oonp * A, y: -oonp * B }, { x: -oonp * B, y: -oonp * A }, { x: -oonp * A, y: +oonp * A },
      { x: +oonp * A, y: +oonp * B }, { x: +oonp * B, y: +oonp * A }, { x: +oonp * A, y: -oonp * A },
    ];
  }
  const A = 4 / 3.0, B = 5 / 3.0, C = 1 / 3.0;
  return [
    { x: -oonp * A, y: -oonp * B }, { x: -oonp * B, y: -oonp * C }, { x: -oonp * C, y: +oonp * A },
    { x: +oonp * A, y: +oonp * B }, { x: +oonp * B, y: +oonp * C }, { x: +oonp * C, y: -oonp * A },
  ];
}

function wrapCentre(c: Pt): Pt {
  const r = { x: c.x, y: c.y };
  if (r.y > 6 + 1e-9 || r.x > 5 + 1e-9) { r.x -= 5; r.y -= 5; }
  else if (r.x < 0) { r.x += 5; r.y += 5; }
  return r;
}

export interface WalkEdge {
  /** Corner at the start of the edge. */
  p: Pt;
  /** Corner at the end (possibly continued on the far side of an interruption). */
  n: Pt;
  /** Exit and glued entry points when the edge crosses an interruption. */
  i1: Pt | null;
  i2: Pt | null;
}

const crossing: Crossing = { i1: { x: 0, y: 0 }, i2: { x: 0, y: 0 }, north: false };

/**
 * Walks the outline corner to corner from a corner outside the interruption dents, turning 60 degrees
 * at each corner and across interruptions (DGGAL's addNonPolarBaseVertices and its refined variant).
 */
function walkOutline(c: Pt, nPoints: number, v: Pt[]): WalkEdge[] {
  let start = 0;
  for (let i = 0; i < 6; i++) {
    const tx = c.x + v[i]!.x, ty = c.y + v[i]!.y;
    const fx = Math.floor(tx + 1e-11);
    if (!(ty - fx > 2 || ty < fx)) { start = i; break; }
  }
  let point = { x: c.x + v[start]!.x, y: c.y + v[start]!.y };
  const prev = (start + 5) % 6;
  // DGGAL's fast-math build simplifies (c + o_i) - (c + o_prev) to o_i - o_prev.
  const dir = { x: v[start]!.x - v[prev]!.x, y: v[start]!.y - v[prev]!.y };
  const edges: WalkEdge[] = [];
  for (let i = 0; i < nPoints; i++) {
    const p = { x: point.x, y: point.y };
    rotateCCW(dir);
    let n = { x: point.x + dir.x, y: point.y + dir.y };
    if (p.x > 5 && p.y > 5) { p.x -= 5; p.y -= 5; }
    if (p.x < 0 || p.y < 0) { p.x += 5; p.y += 5; }
    if (crossesInterruption(p.x, p.y, dir.x, dir.y, crossing)) {
      const i1 = { x: crossing.i1.x, y: crossing.i1.y }, i2 = { x: crossing.i2.x, y: crossing.i2.y };
      if (point.x - p.x > 4) { i1.x += 5; i1.y += 5; i2.x += 5; i2.y += 5; }
      if (p.x - point.x > 4) { i1.x -= 5; i1.y -= 5; i2.x -= 5; i2.y -= 5; }
      if (i2.y - i1.y > 4) { i2.x -= 5; i2.y -= 5; }
      if (i1.y - i2.y > 4) { i2.x += 5; i2.y += 5; }
      const crossingLeft = crossing.north ? i2.x < i1.x : i2.x > i1.x;
      const d = { x: dir.x - (i1.x - point.x), y: dir.y - (i1.y - point.y) };
      if (crossingLeft) rotateCCW(d); else rotateCW(d);
      n = { x: i2.x + d.x, y: i2.y + d.y };
      if (crossingLeft) rotateCCW(dir); else rotateCW(dir);
      edges.push({ p: point, n, i1, i2 });
    } else edges.push({ p: point, n, i1: null, i2: null });
    point = n;
  }
  return edges;
}

function polarCorners(k: number, root: number, sh: number): Pt[] {
  const oonp = 1.0 / (7 * POW7[k]!);
  let b: Pt;
  if (sh === 0) {
    const A = 7 / 3.0;
    b = root === 10 ? { x: 1 - oonp * A, y: 0 + oonp * A } : { x: 4 + oonp * A, y: 6 - oonp * A };
  } else {
    const A = 4 / 3.0, C = 1 / 3.0;
    b = root === 10 ? { x: 1 - oonp * C, y: 0 + oonp * A } : { x: 4 + oonp * C, y: 6 - oonp * A };
  }
  const s = root === 10 ? 1 : -1;
  return [0, 1, 2, 3, 4].map((i) => ({ x: b.x + s * i, y: b.y + s * i }));
}

/**
 * Corners in 5x6 (not canonicalised) of the hexagon/pentagon with the given lattice parameters centred
 * on c (DGGAL's static getVertices, also used with a foreign centre for children/neighbour probes).
 */
export function latticeVertices(k: number, root: number, sh: number, c: Pt, nPoints: number): Pt[] {
  const cc = wrapCentre(c);
  if ((sh === 0 && (root === 10 || root === 11)) || (sh === 1 && root > 9)) return polarCorners(k, root, sh);
  return walkOutline(cc, nPoints, cornerOffsets(k, sh)).map((e) => e.p);
}

/** The outline's edges with interruption crossings (for densification). */
export function outlineEdges(z: I7HZone): WalkEdge[] {
  return walkOutline(wrapCentre(centroidOf(z)), zoneEdgeCount(z), cornerOffsets(z.k, z.sh));
}

export function zoneVertices5x6(z: I7HZone): Pt[] {
  return latticeVertices(z.k, z.root, z.sh, centroidOf(z), zoneEdgeCount(z));
}

export function canonicalVertices(z: I7HZone): Pt[] {
  return zoneVertices5x6(z).map((v) => {
    const o = { x: 0, y: 0 };
    canonicalize(v.x, v.y, o);
    return o;
  });
}

// ------------------------------------------------------------------------------------------------
// Hierarchy

const CHILD_OFFSETS: readonly (readonly [number, number])[] = [[-1, 0], [-1, -1], [0, -1], [1, 0], [1, 1], [0, 1]];

/** Even-level (root, row, col) of an odd zone's centroid child; root -1 when it falls outside. */
function oddCentroidChildRowCol(z: I7HZone): { root: number; row: number; col: number; cp: number } {
  const p = POW7[z.k]!, cp = p * 7;
  const root = z.root, ix = z.ix;
  let row: number, col: number, cRhombus: number;
  if (root === 10) {
    if (z.sh === 1) return { root: 10, row: 0, col: 0, cp };
    row = 1; col = cp - 2; cRhombus = 2 * (z.sh - 2);
  } else if (root === 11) {
    if (z.sh === 1) return { root: 11, row: 0, col: 0, cp };
    row = cp - 1; col = 2; cRhombus = 9 - 2 * (z.sh - 2);
  } else {
    let sh = z.sh;
    cRhombus = root;
    const south = (cRhombus & 1) === 1;
    row = 7 * Math.floor(ix / p);
    col = 7 * (ix % p);
    if (ix === 0 && south && sh >= 4) sh++;
    else if (sh >= 2 && isEvenEdgeHex(z.k, root, ix)) sh = ((sh + (south ? -1 : 3)) % 6) + 2;
    switch (sh) {
      case 2: row -= 3; col -= 1; break;
      case 3: row -= 2; col -= 3; break;
      case 4: row += 1; col -= 2; break;
      case 5: row += 3; col += 1; break;
      case 6: row += 2; col += 3; break;
      case 7: row -= 1; col += 2; break;
      default: break;
    }
    // A vertex child past a seam may still be off the rhombus it crossed into.
    crossSeam(cp, cRhombus, row, col, south, true);
    carryStraight(cp, CARRIED.root, CARRIED.row, CARRIED.col);
    ({ root: cRhombus, row, col } = CARRIED);
  }
  if (cRhombus < 0) cRhombus += 10;
  else if (cRhombus > 9) cRhombus -= 10;
  if (row >= 0 && col >= 0 && row < cp && col < cp) return { root: cRhombus, row, col, cp };
  return { root: -1, row, col, cp };
}

export function centroidChild(z: I7HZone): I7HZone | null {
  if (z.k === 9 && z.sh) return null;
  if (!z.sh) return { k: z.k, root: z.root, ix: z.ix, sh: 1 };
  const r = oddCentroidChildRowCol(z);
  return r.root === -1 ? null : { k: z.k + 1, root: r.root, ix: r.row * r.cp + r.col, sh: 0 };
}

export function primaryChildren(z: I7HZone): I7HZone[] {
  const { k, root, ix: rix, sh } = z;
  if (k > 9 || (k === 9 && sh)) return [];
  if (sh === 0) {
    const out: I7HZone[] = [];
    for (let s = 1; s <= (rix ? 7 : 6); s++) out.push({ k, root, ix: rix, sh: s });
    return out;
  }
  const cChild = centroidChild(z);
  if (!cChild) return [];
  const out: I7HZone[] = [cChild];
  const cp = POW7[k]! * 7;
  if (cChild.root === 10) {
    for (const r of [0, 2, 4, 6, 8]) out.push({ k: k + 1, root: r, ix: cp - 1, sh: 0 });
    return out;
  }
  if (cChild.root === 11) {
    for (const r of [9, 7, 5, 3, 1]) out.push({ k: k + 1, root: r, ix: (cp - 1) * cp, sh: 0 });
    return out;
  }
  const crow = Math.floor(cChild.ix / cp), ccol = cChild.ix % cp;
  const nPoints = sh > 1 ? 6 : rix === 0 ? 5 : 6;
  const south = (cChild.root & 1) === 1;
  const edgeHexFix = nPoints === 6 && sh === 1 && isEvenEdgeHex(k, root, rix);
  for (let i = 0; i < 6; i++) {
    const ii = edgeHexFix ? (i + (south ? 1 : 5)) % 6 : i;
    let row = crow + CHILD_OFFSETS[ii]![0];
    let col = ccol + CHILD_OFFSETS[ii]![1];
    let cRhombus = cChild.root;
    if (nPoints === 5 && ((south && i === 2) || (!south && i === 0))) continue;
    if (!crossSeam(cp, cRhombus, row, col, south, true)) carryStraight(cp, cRhombus, row, col);
    ({ root: cRhombus, row, col } = CARRIED);
    if (cRhombus < 0) cRhombus += 10;
    else if (cRhombus > 9) cRhombus -= 10;
    if (row >= 0 && col >= 0 && row < cp && col < cp) out.push({ k: k + 1, root: cRhombus, ix: row * cp + col, sh: 0 });
  }
  return out;
}

function candidateParent(k: number, root: number, row: number, col: number, addCol: number, addRow: number): I7HZone | null {
  const p = POW7[k]!;
  let south = (root & 1) === 1;
  col += addCol;
  row += addRow;
  if (!crossSeam(p, root, row, col, south, false)) carryStraight(p, root, row, col);
  ({ root, row, col } = CARRIED);
  if (root < 0) root += 10;
  else if (root > 9) root -= 10;
  south = (root & 1) === 1;
  if (!south && row === 0 && col === p) return { k, root: 10, ix: 0, sh: 0 };
  if (south && row === p && col === 0) return { k, root: 11, ix: 0, sh: 0 };
  if (row < 0 || row >= p || col < 0 || col >= p) return null;
  return { k, root, ix: row * p + col, sh: 0 };
}

/** Primary parent of an even-level zone: the odd zone one level up whose primary children include it. */
function parentOfEvenZone(child: I7HZone): I7HZone | null {
  const k = child.k - 1;
  if (child.sh || k < 0) return null;
  const c = centroidOf(child);
  const p = POW7[k]!;
  const oop = 1.0 / p;
  centroidIntoNet(c.x, c.y, oop, true, scratch);
  const x = scratch.x, y = scratch.y;
  const cx = Math.min(4, Math.trunc(x + 1e-11)), cy = Math.min(5, Math.trunc(y + 1e-11));
  const root = cx + cy;
  const lx = x - cx, ly = y - cy;
  const col = Math.max(0, Math.trunc(lx * p + 0.5));
  const row = Math.max(0, Math.trunc(ly * p + 0.5));
  const south = y - x - 1e-11 > 1;
  const north = x - y - 1e-11 > 0;
  if (north && Math.abs(x - y - 1.0) < 1e-11) return { k, root: 10, ix: 0, sh: 1 };
  if (south && Math.abs(y - x - 2.0) < 1e-11) return { k, root: 11, ix: 0, sh: 1 };
  const tries: [number, number][] = [[0, 0], [0, -1], [0, 1], [1, 0], [-1, 0], [-1, -1], [1, 1]];
  for (let i = 0; i < tries.length; i++) {
    let cand: I7HZone | null;
    if (i === 0 && north && row === 0 && col === p) cand = { k, root: 10, ix: 0, sh: 0 };
    else if (i === 0 && south && row === p && col === 0) cand = { k, root: 11, ix: 0, sh: 0 };
    else cand = candidateParent(k, root, row, col, tries[i]![0], tries[i]![1]);
    if (!cand) continue;
    for (const oddChild of primaryChildren(cand)) {
      for (const g of primaryChildren(oddChild)) if (sameHexZone(g, child)) return oddChild;
    }
  }
  return null;
}

export function primaryParent(z: I7HZone): I7HZone | null {
  if (!z.k && !z.sh) return null;
  if (z.sh) return { k: z.k, root: z.root, ix: z.ix, sh: 0 };
  return parentOfEvenZone(z);
}

/**
 * Offset from c to vertex v, taken the short way round the (5,5) period and, when c sits on an
 * interruption, from c's glued image if that is shorter (shared by children, neighbours and parents).
 */
function probeOffset(c: Pt, v: Pt, north: boolean, onSeam: boolean, orWrap: boolean): { from: Pt; dx: number; dy: number } {
  let from = c;
  let dx = v.x - c.x, dy = v.y - c.y;
  if (orWrap ? dx > 3 || dy > 3 : dx > 3 && dy > 3) { dx = v.x - 5 - c.x; dy = v.y - 5 - c.y; }
  else if (orWrap ? dx < -3 || dy < -3 : dx < -3 && dy < -3) { dx = v.x + 5 - c.x; dy = v.y + 5 - c.y; }
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && onSeam) {
    const ci = { x: 0, y: 0 };
    crossInterruption(c.x, c.y, !north, true, ci);
    let x = v.x - ci.x, y = v.y - ci.y;
    // DGGAL compares the new x with the old dy here; kept for identical results.
    if (x > 3 && dy > 3) { x = v.x - 5 - ci.x; y = v.y - 5 - ci.y; }
    else if (x < -3 && y < -3) { x = v.x + 5 - ci.x; y = v.y + 5 - ci.y; }
    if (Math.abs(x) < Math.abs(dx) && Math.abs(y) < Math.abs(dy)) { from = ci; dx = x; dy = y; }
  }
  return { from, dx, dy };
}

export function children(z: I7HZone): I7HZone[] {
  const out: (I7HZone | null)[] = primaryChildren(z);
  if (!out.length) return [];
  const c0 = out[0]!;
  const c = centroidOf(c0);
  const verts = latticeVertices(c0.k, c0.root, c0.sh, c, zoneEdgeCount(c0));
  const cLevel = hexZoneLevel(c0);
  const north = c.x - c.y - 1e-11 > 0;
  const cy = Math.trunc(c.y + 1e-11), cx = Math.trunc(c.x + 1e-11);
  const onSeam = (north && Math.abs(c.y - cy) < 1e-11) || (!north && Math.abs(c.x - cx) < 1e-11);
  const v = { x: 0, y: 0 };
  for (const vert of verts) {
    const o = probeOffset(c, vert, north, onSeam, false);
    moveVertex2(o.from.x, o.from.y, o.dx * 3, o.dy * 3, false, v);
    canonicalize(v.x, v.y, v);
    out.push(zoneAt(cLevel, v.x, v.y));
  }
  return out.filter((x): x is I7HZone => x !== null);
}

export function neighbours(z: I7HZone): I7HZone[] {
  const level = hexZoneLevel(z);
  const c = centroidOf(z);
  let cK: number, cRoot: number, cSh: number;
  if (level & 1) {
    cRoot = oddCentroidChildRowCol(z).root;
    cK = z.k + 1;
    cSh = 0;
  } else {
    cRoot = z.root;
    cK = z.k;
    cSh = 1;
  }
  const verts = latticeVertices(cK, cRoot, cSh, c, zoneEdgeCount(z));
  const cx = Math.min(4, Math.trunc(c.x + 1e-11)), cy = Math.min(5, Math.trunc(c.y + 1e-11));
  const north = c.x - c.y - 1e-11 > 0;
  const onSeam = (north && Math.abs(c.y - cy) < 1e-11) || (!north && Math.abs(c.x - cx) < 1e-11);
  const out: I7HZone[] = [];
  const v = { x: 0, y: 0 };
  for (const vert of verts) {
    const o = probeOffset(c, vert, north, onSeam, false);
    moveVertex2(o.from.x, o.from.y, o.dx * 3, o.dy * 3, false, v);
    canonicalize(v.x, v.y, v);
    const n = zoneAt(level, v.x, v.y);
    if (n) out.push(n);
  }
  return out;
}

export function parents(z: I7HZone): I7HZone[] {
  const p0 = primaryParent(z);
  if (!p0) return [];
  if (sameHexZone(centroidChild(p0), z)) return [p0];
  const c = centroidOf(z);
  const verts = latticeVertices(z.k, z.root, z.sh, c, zoneEdgeCount(z));
  const pLevel = hexZoneLevel(p0);
  const v = { x: 0, y: 0 };
  for (const vert of verts) {
    const north = c.x - c.y - 1e-11 > 0;
    const cy = Math.trunc(c.y + 1e-11), cx = Math.trunc(c.x + 1e-11);
    const onSeam = (north && Math.abs(c.y - cy) < 1e-11) || (!north && Math.abs(c.x - cx) < 1e-11);
    const o = probeOffset(c, vert, north, onSeam, true);
    moveVertex2(o.from.x, o.from.y, 0.99 * o.dx, 0.99 * o.dy, false, v);
    const q = zoneAt(pLevel, v.x, v.y);
    if (q && !sameHexZone(q, p0)) return [p0, q];
  }
  return [p0];
}
