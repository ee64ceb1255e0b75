/**
 * The aperture-3 hexagonal lattice on the 5x6 net, as DGGAL's RI3H defines it (shared by IVEA3H and
 * ISEA3H: the same zones in 5x6 space, only the projection differs).
 *
 * Levels 2k and 2k+1 hang off the ISEA9R cells of level k: p = 3^k cells per rhombus side, cell
 * (row, col) with top-left corner (col/p, row/p) in the net. An even-level zone (sub-hex A) is the
 * hexagon centred on that corner; an odd level is turned 30 degrees and has three zones per cell: B on
 * the corner, C and D at a third of the cell's diagonal (right-up and left-down of it). Roots 10 and 11
 * are the polar pentagons; every rhombus index 0 is a pentagon at letters A and B.
 *
 * A zone is (k, root, ix, sh): ix = row * p + col within the root rhombus. Ids are
 * `{'A' + k}{root hex}-{ix hex}-{'A' + sh}` and the 64-bit id is k << 57 | root << 53 | ix << 2 | sh.
 * Rules follow DGGAL's I3HZone one for one, including its seam special cases: the ids are only useful if
 * they agree.
 */
import { canonicalize, centroidIntoNet, moveVertex, moveVertex2, NORTH_DIAGONAL, SOUTH_DIAGONAL, type Pt } from '../rhombic-5x6-net.js';
import { hexZoneLevel, HexZoneIds, ID_PARTS, sameHexZone, type HexZone } from '../hex-zone.js';

/** k is the ISEA9R level; sh is 0 ('A') at even levels and 1..3 (B, C, D) at odd levels. */
export type I3HZone = HexZone;

export const I3H_MAX_LEVEL = 33;

/** 3^0 .. 3^33, all exact doubles. */
export const POW3: readonly number[] = Array.from({ length: 34 }, (_, i) => 3 ** i);

/** Pentagons: rhombus index 0 at letters A and B (the polar roots included). */
export const i3hEdgeCount = (z: I3HZone): number => (z.ix === 0 && z.sh <= 1 ? 5 : 6);

/** A hexagon of letter A or B along the rhombus edge where the neighbouring rhombus is turned. */
export function isEdgeHex(z: I3HZone): boolean {
  if (i3hEdgeCount(z) !== 6 || !z.ix) return false;
  const p = POW3[z.k]!;
  return z.root & 1 ? z.ix % p === 0 : Math.floor(z.ix / p) === 0;
}

// ------------------------------------------------------------------------------------------------
// Identifiers


export function i3hId(z: I3HZone): string {
  return IDS.format(z.k, z.root, z.ix, z.sh);
}

/** The level letter is k; the sub-hex takes 2 bits of the 64-bit id: k << 57 | root << 53 | ix << 2 | sh. */
const IDS = new HexZoneIds(17, 4, /^([A-Q])([0-9AB])-(0|[1-9A-F][0-9A-F]{0,13})-([A-D])$/, 2n);

/** Strict parse: only the canonical spelling of an existing zone (what DGGAL prints back). */
export function parseI3HId(id: string): I3HZone | null {
  if (!IDS.split(id)) return null;
  const { letter: k, root, ix, sh } = ID_PARTS;
  const p = POW3[k]!;
  // The polar zones are pentagons: letter A, or B at odd levels.
  if (ix >= p * p || (root >= 10 && (ix !== 0 || sh > 1))) return null;
  return { k, root, ix, sh };
}

export const i3hToInt64 = (z: I3HZone): bigint => IDS.toInt64(z);

export function i3hFromInt64(v: bigint): I3HZone | null {
  const z = IDS.fromInt64(v);
  return z && parseI3HId(i3hId(z)) ? z : null;
}

/** Row and column of a zone's cell in the ISEA9R grid of its level (the whole 5p x 6p net). */
function cellOf(z: I3HZone): { row: number; col: number; p: number } {
  const p = POW3[z.k]!;
  if (z.root === 10) return { row: 0, col: p - 1, p };
  if (z.root === 11) return { row: 6 * p - 1, col: 4 * p, p };
  const y = Math.floor(z.ix / p);
  return { row: ((z.root + 1) >> 1) * p + y, col: (z.root >> 1) * p + (z.ix - y * p), p };
}

/** The zone of an ISEA9R cell and letter (DGGAL's fromI9R); null outside the net. */
function fromCell(k: number, row: number, col: number, sh: number, pole: number): I3HZone | null {
  const p = POW3[k]!;
  const rowOP = Math.floor(row / p), colOP = Math.floor(col / p);
  const root = pole || rowOP + colOP;
  const y = row - rowOP * p, x = col - colOP * p;
  if (sh < 0 || sh > 3 || root > 11 || (root < 10 && (rowOP < colOP || rowOP - colOP > 1 || y >= p || x >= p))) return null;
  return { k, root, ix: pole ? 0 : y * p + x, sh };
}

// ------------------------------------------------------------------------------------------------
// Zone from a 5x6 point

const CARRY_RIGHT = 0, CARRY_BELOW = 1, CARRY_DIAGONAL = 2;
/** Result registers of `carry`. */
const CARRIED = { root: 0, rix: 0 };

/**
 * The zone of the cell right of (x, y) (+1), below it (+p) or diagonal (+p+1) in a root rhombus,
 * carried across the rhombus edge when the cell is on the last column or row (with the seams' turn).
 */
function carry(to: number, root: number, rix: number, x: number, y: number, p: number, south: boolean): void {
  const rightSR = x === p - 1, bottomSR = y === p - 1;
  if (to === CARRY_RIGHT) {
    if (rightSR) {
      if (!south) { root = (root + 2) % 10; rix = p - y; }
      else { root = (root + 1) % 10; rix = p * y; }
    } else rix++;
  } else if (to === CARRY_BELOW) {
    if (bottomSR) {
      if (south) { root = (root + 2) % 10; rix = (p - x) * p; }
      else { rix = x; root++; }
    } else rix += p;
  } else if (bottomSR && rightSR) { root = (root + 2) % 10; rix = 0; }
  else if (bottomSR) {
    if (south) { root = (root + 2) % 10; rix = (p - 1 - x) * p; }
    else { root++; rix = x + 1; }
  } else if (rightSR) {
    if (!south) { root = (root + 2) % 10; rix = p - 1 - y; }
    else { root = (root + 1) % 10; rix = p * (y + 1); }
  } else rix += p + 1;
  CARRIED.root = root;
  CARRIED.rix = rix;
}

/** The point `i3hAt` looks up, on the net. */
const IN_NET: Pt = { x: 0, y: 0 };

/**
 * Zone of `level` containing the 5x6 point (DGGAL's I3HZone::fromCentroid), or null outside the net.
 * Even levels split each cell's area between the hexagons on its four corners; odd levels between the
 * B, C and D zones of the cell and of its neighbours, with carries across rhombus edges.
 */
export function i3hAt(level: number, px: number, py: number): I3HZone | null {
  if (!Number.isFinite(px) || !Number.isFinite(py)) return null;
  const k = level >> 1;
  const p = POW3[k]!;
  const d = 1.0 / p;
  const diagonal = centroidIntoNet(px, py, d, false, IN_NET);
  let northPole = diagonal === NORTH_DIAGONAL, southPole = diagonal === SOUTH_DIAGONAL;
  let cX = IN_NET.x, cY = IN_NET.y;

  let cx = Math.min(4, Math.trunc(cX + 1e-11)), cy = Math.min(5, Math.trunc(cY + 1e-11));
  let root = cx + cy;
  const lOffset = 1e-6 * d;
  let x = Math.trunc((cX - cx) * p + lOffset);
  let y = Math.trunc((cY - cy) * p + lOffset);

  // A point on the far edge of its rhombus belongs to the next rhombus (across the seam when it is one).
  if (y === p) {
    const crossing = cy > cx;
    if (crossing) {
      if (x === 0) southPole = true;
      cY = cy + (cx + 1) - cX;
      cX = cx + 1;
      x = Math.trunc((cX - cx) * p + lOffset);
      y = Math.trunc((cY - cy) * p + lOffset);
    }
    cy++;
    root++;
    if (root === 10) { cx -= 5; cy -= 5; root = 0; }
    if (!crossing) y -= p;
    cX = cx + x / p;
    cY = cy + y / p;
  }
  if (x === p) {
    const crossing = cy === cx;
    if (crossing) {
      if (y === 0) northPole = true;
      cX = cx + (cy + 1) - cY;
      cY = cy;
      x = Math.trunc((cX - cx) * p + lOffset);
      y = Math.trunc((cY - cy) * p + lOffset);
      cy++;
      root++;
    }
    cx++;
    root++;
    if (root === 10) { cx -= 5; cy -= 5; root = 0; }
    if (!crossing) x -= p;
    cX = cx + x / p;
    cY = cy + y / p;
  }
  if (cy - cx > 1 && !y) {
    cx++;
    y = p - x;
    x = 0;
    root++;
    cY = cy + y / p;
    cX = cx;
  } else if (cy < cx && !x) {
    cy++;
    x = p - y;
    y = 0;
    root++;
    cX = cx + x / p;
    cY = cy;
  }

  let rix = y * p + x;
  const xd = (cX - cx) * p - x;
  const yd = (cY - cy) * p - y;
  let sh: number;
  if (northPole) { sh = level & 1 ? 1 : 0; root = 10; rix = 0; }
  else if (southPole) { sh = level & 1 ? 1 : 0; root = 11; rix = 0; }
  else {
    const rightSR = x === p - 1, topSR = y === 0, leftSR = x === 0, bottomSR = y === p - 1;
    const npSubRhombus = rightSR && topSR && !(root & 1);
    const spSubRhombus = bottomSR && leftSR && (root & 1) === 1;
    if (cy < cx || xd < -1 || yd < -1 || x >= p || y >= p || rix >= p * p) return null;

    const south = (root & 1) === 1;
    if (level & 1) {
      const leftThird = 3 * xd < 1, topThird = 3 * yd < 1;
      if (leftThird && topThird) sh = 1;
      else {
        const rightThird = 3 * xd > 2, bottomThird = 3 * yd > 2;
        if (rightThird && bottomThird) { carry(CARRY_DIAGONAL, root, rix, x, y, p, south); root = CARRIED.root; rix = CARRIED.rix; sh = 1; }
        else if (bottomThird) {
          if (3 * (yd - xd) > 2) {
            if (spSubRhombus) { root = 11; rix = 0; }
            else { carry(CARRY_BELOW, root, rix, x, y, p, south); root = CARRIED.root; rix = CARRIED.rix; }
            sh = 1;
          } else sh = 3;
        } else if (rightThird) {
          if (3 * (xd - yd) > 2) {
            if (npSubRhombus) { root = 10; rix = 0; }
            else { carry(CARRY_RIGHT, root, rix, x, y, p, south); root = CARRIED.root; rix = CARRIED.rix; }
            sh = 1;
          } else sh = 2;
        } else sh = xd > yd ? 2 : 3;
      }
    } else {
      let topRight = false, bottomLeft = false, bottomRight = false;
      if (xd - 1 > -yd) {
        if (xd > yd * 2) topRight = true;
        else if (2 * xd < yd) bottomLeft = true;
        else bottomRight = true;
      } else if (2 * xd > yd + 1) topRight = true;
      else if (xd + 1 < 2 * yd) bottomLeft = true;
      sh = 0;
      let to = -1;
      if (topRight) {
        if (npSubRhombus) { root = 10; rix = 0; } else to = CARRY_RIGHT;
      } else if (bottomLeft) {
        if (spSubRhombus) { root = 11; rix = 0; } else to = CARRY_BELOW;
      } else if (bottomRight) to = CARRY_DIAGONAL;
      if (to >= 0) { carry(to, root, rix, x, y, p, south); root = CARRIED.root; rix = CARRIED.rix; }
    }
  }
  if (root >= 10 && rix) return null;
  return { k, root, ix: rix, sh };
}

// ------------------------------------------------------------------------------------------------
// Geometry in 5x6

/** Centroid in 5x6 (not canonical for polar zones: (1, 0) and (4, 6)). */
export function i3hCentroid(z: I3HZone): Pt {
  if (z.root === 10) return { x: 1, y: 0 };
  if (z.root === 11) return { x: 4, y: 6 };
  const { row, col, p } = cellOf(z);
  const d = 1.0 / p;
  const x = col * d, y = row * d;
  if (z.sh === 2) return { x: x + (2 * d) / 3, y: y + d / 3 };
  if (z.sh === 3) return { x: x + d / 3, y: y + (2 * d) / 3 };
  return { x, y };
}

/** Adds tl + (dx, dy) as DGGAL's move5x6Vertex moves it. */
function pushMoved(out: Pt[], tlx: number, tly: number, dx: number, dy: number): void {
  const v = { x: 0, y: 0 };
  moveVertex(tlx, tly, dx, dy, v);
  out.push(v);
}

/** A polar pentagon's corners: one moved point repeated one rhombus apart, by `steps`. */
function pushPolar(out: Pt[], tlx: number, tly: number, dx: number, dy: number, steps: readonly number[]): void {
  const v = { x: 0, y: 0 };
  moveVertex(tlx, tly, dx, dy, v);
  for (const s of steps) out.push({ x: v.x + s, y: v.y + s });
}

const NORTH_EVEN = [1, 2, 3, 4, 5], SOUTH_EVEN = [0, -1, -2, -3, 1], SOUTH_ODD = [0, -1, -2, -3, -4];

/** Corners in 5x6, not canonicalised (DGGAL's getVertices). */
export function i3hVertices(z: I3HZone): Pt[] {
  const { row, col, p } = cellOf(z);
  const d = 1.0 / p;
  const x = col * d, y = row * d;
  const south = (z.root & 1) === 1;
  const out: Pt[] = [];
  switch (z.sh) {
    case 0:
      if (z.root === 10) pushPolar(out, x, y, d / 3, -d / 3, NORTH_EVEN);
      else if (z.root === 11) pushPolar(out, x, y, -d / 3, d / 3, SOUTH_EVEN);
      else {
        pushMoved(out, x, y, (2 * d) / 3, d / 3);
        pushMoved(out, x, y, d / 3, (2 * d) / 3);
        if (!south || z.ix) pushMoved(out, x, y, -d / 3, d / 3);
        pushMoved(out, x, y, (-2 * d) / 3, -d / 3);
        if (south || z.ix) pushMoved(out, x, y, -d / 3, (-2 * d) / 3);
        pushMoved(out, x, y, d / 3, -d / 3);
      }
      break;
    case 1:
      if (z.root === 10) pushPolar(out, x, y, (2 * d) / 3, 0, NORTH_EVEN);
      else if (z.root === 11) pushPolar(out, x, y, d / 3, d, SOUTH_ODD);
      else {
        if (south || z.ix) pushMoved(out, x, y, d / 3, 0);
        pushMoved(out, x, y, d / 3, d / 3);
        pushMoved(out, x, y, 0, d / 3);
        if (!south || z.ix) pushMoved(out, x, y, -d / 3, 0);
        pushMoved(out, x, y, -d / 3, -d / 3);
        pushMoved(out, x, y, 0, -d / 3);
      }
      break;
    case 2:
      pushMoved(out, x, y, d / 3, 0); pushMoved(out, x, y, (2 * d) / 3, 0); pushMoved(out, x, y, d, d / 3);
      pushMoved(out, x, y, d, (2 * d) / 3); pushMoved(out, x, y, (2 * d) / 3, (2 * d) / 3); pushMoved(out, x, y, d / 3, d / 3);
      break;
    default:
      pushMoved(out, x, y, 0, d / 3); pushMoved(out, x, y, d / 3, d / 3); pushMoved(out, x, y, (2 * d) / 3, (2 * d) / 3);
      pushMoved(out, x, y, (2 * d) / 3, d); pushMoved(out, x, y, d / 3, d); pushMoved(out, x, y, 0, (2 * d) / 3);
  }
  return out;
}

export function i3hCanonicalVertices(z: I3HZone): Pt[] {
  return i3hVertices(z).map((v) => {
    const o = { x: 0, y: 0 };
    canonicalize(v.x, v.y, o);
    return o;
  });
}

// ------------------------------------------------------------------------------------------------
// Hierarchy

/** The zone at the same cell one level up or down the odd/even pair, or the coarser cell's zone. */
export function i3hParent0(z: I3HZone): I3HZone | null {
  if (!z.k && !z.sh) return null;
  if (z.sh) return { k: z.k, root: z.root, ix: z.ix, sh: 0 };
  if (z.root > 9) return { k: z.k - 1, root: z.root, ix: 0, sh: 1 };
  const { row, col, p } = cellOf(z);
  const r = Math.floor(z.ix / p), c = z.ix % p;
  const sh = c % 3 > 1 ? 2 : r % 3 > 1 ? 3 : 1;
  return fromCell(z.k - 1, Math.floor(row / 3), Math.floor(col / 3), sh, 0);
}

export function i3hIsCentroidChild(z: I3HZone): boolean {
  if (z.sh) return z.sh === 1;
  if (z.root >= 10) return true;
  const p = POW3[z.k]!;
  const r = Math.floor(z.ix / p), c = z.ix % p;
  return (r % 3 === 0 && c % 3 === 0) || (r + c) % 3 === 0;
}

export function i3hCentroidChild(z: I3HZone): I3HZone | null {
  if (!z.sh) return { k: z.k, root: z.root, ix: z.ix, sh: 1 };
  if (z.k >= 16) return null;
  if (z.root > 9) return { k: z.k + 1, root: z.root, ix: 0, sh: 0 };
  const { row, col } = cellOf(z);
  const r = row * 3 + (z.sh === 3 ? 2 : z.sh === 2 ? 1 : 0);
  const c = col * 3 + (z.sh === 2 ? 2 : z.sh === 3 ? 1 : 0);
  return fromCell(z.k + 1, r, c, 0, 0);
}

/** Children, centroid child first: the zones of the next level on this zone's corners. */
export function i3hChildren(z: I3HZone): I3HZone[] {
  const cc = i3hCentroidChild(z);
  if (!cc) return [];
  const out: I3HZone[] = [cc];
  if (z.root > 9) {
    const p = POW3[z.k]!;
    for (let i = 1; i < 6; i++) {
      if (!z.sh) out.push(z.root === 10 ? { k: z.k, root: (i - 1) * 2, ix: p - 1, sh: 2 } : { k: z.k, root: (i - 1) * 2 + 1, ix: p * (p - 1), sh: 3 });
      else out.push(z.root === 10 ? { k: z.k + 1, root: (i - 1) * 2, ix: 3 * p - 1, sh: 0 } : { k: z.k + 1, root: (i - 1) * 2 + 1, ix: 3 * p * (3 * p - 1), sh: 0 });
    }
    return out;
  }
  const next = 2 * z.k + 1 + (z.sh > 0 ? 1 : 0);
  for (const v of i3hVertices(z)) {
    const c = i3hAt(next, v.x, v.y);
    if (c) out.push(c);
  }
  return out;
}

const TOP = 0, BOTTOM = 1, LEFT = 2, RIGHT = 3, TOP_LEFT = 4, TOP_RIGHT = 5, BOTTOM_LEFT = 6, BOTTOM_RIGHT = 7;

/** The neighbour in one of DGGAL's eight named directions, or null where that direction has none. */
function neighbourAt(z: I3HZone, which: number): I3HZone | null {
  const c = i3hCentroid(z);
  const cx = Math.floor(c.x + 1e-11), cy = Math.floor(c.y + 1e-11);
  const south = c.y - c.x - 1e-11 > 1;
  const north = c.x - c.y - 1e-11 > 0;
  const northPole = north && Math.abs(c.x - c.y - 1.0) < 1e-11;
  const southPole = south && Math.abs(c.y - c.x - 2.0) < 1e-11;
  const d = 1.0 / POW3[z.k]!;
  let x = 0, y = 0, crossEarly = true;
  if (z.sh === 0) {
    switch (which) {
      case TOP:
        if (south && c.x - cx < 1e-11) {
          crossEarly = false;
          if (southPole) { x = -3; y = -3 - d; } else y = -d;
        }
        break;
      case BOTTOM:
        if (north && c.y - cy < 1e-11) {
          crossEarly = false;
          if (northPole) { x = 2 - d; y = 2; } else x = -d;
        }
        break;
      case LEFT: x = -d; y = -d; break;
      case RIGHT: x = d; y = d; break;
      case TOP_LEFT:
        if (northPole) { crossEarly = false; x = 3 - d; y = 3; }
        else if (southPole) { crossEarly = false; y = -d; }
        else y = -d;
        break;
      case BOTTOM_LEFT:
        if (southPole) { crossEarly = false; x = -2; y = -2 - d; } else x = -d;
        break;
      case TOP_RIGHT:
        if (northPole) { crossEarly = false; x = 4 - d; y = 4; }
        else if (southPole) { crossEarly = false; x = -4; y = -d - 4; }
        else x = d;
        break;
      default: // BOTTOM_RIGHT
        if (southPole) { crossEarly = false; x = -1; y = -1 - d; } else y = d;
    }
  } else {
    const do3 = d / 3;
    switch (which) {
      case TOP:
        if (southPole) { x = do3 - 5; y = -do3 - 5; crossEarly = false; }
        else if (!northPole) { x = do3; y = -do3; }
        break;
      case BOTTOM:
        if (northPole) { x = 1 - do3; y = 1 + do3; crossEarly = false; }
        else if (!southPole) { x = -do3; y = do3; }
        break;
      case TOP_LEFT:
        if (northPole) { x = 2 - do3; y = 2 + do3; crossEarly = false; }
        else if (southPole) { x = do3; y = -do3; }
        else { x = -do3; y = -2 * do3; }
        break;
      case BOTTOM_LEFT:
        if (northPole) { x = 4 - do3; y = 4 + do3; crossEarly = false; }
        else if (southPole) { x = do3 - 2; y = -do3 - 2; }
        else { x = -2 * do3; y = -do3; }
        break;
      case TOP_RIGHT:
        if (northPole) { x = 3 - do3; y = 3 + do3; crossEarly = false; }
        else if (southPole) { x = do3 - 4; y = -do3 - 4; }
        else { x = 2 * do3; y = do3; }
        break;
      case BOTTOM_RIGHT:
        if (northPole) { x = 5 - do3; y = 5 + do3; crossEarly = false; }
        else if (southPole) { x = do3 - 1; y = -do3 - 1; }
        else { x = do3; y = 2 * do3; }
        break;
      case RIGHT:
        // A second bottom (north) or top (south) neighbour along an interruption.
        if (north && !northPole && c.y - cy < 1e-11) { crossEarly = false; y = do3; x = -do3; }
        else if (south && !southPole && c.x - cx < 1e-11) { crossEarly = false; x = do3; y = -do3; }
        break;
      default: // LEFT
        break;
    }
  }
  if (!x && !y) return null;
  const v = { x: 0, y: 0 };
  moveVertex2(c.x, c.y, x, y, crossEarly, v);
  const n = i3hAt(hexZoneLevel(z), v.x, v.y);
  return n && !sameHexZone(n, z) ? n : null;
}

/** Neighbours in DGGAL's order (its eight directions, a direction met twice listed once). */
export function i3hNeighbours(z: I3HZone): I3HZone[] {
  const out: I3HZone[] = [];
  const dirs: number[] = [];
  for (let n = 0; n < 8; n++) {
    const nb = neighbourAt(z, n);
    if (!nb) continue;
    let which = n;
    const k = out.length;
    if (k) {
      if (n === TOP_RIGHT && dirs[k - 1] === TOP_LEFT && sameHexZone(out[k - 1]!, nb)) { dirs[k - 1] = TOP; continue; }
      if (n === BOTTOM_RIGHT && dirs[k - 1] === BOTTOM_LEFT && sameHexZone(out[k - 1]!, nb)) { dirs[k - 1] = BOTTOM; continue; }
      if (n === TOP_RIGHT && dirs[k - 1] !== TOP_LEFT) which = TOP;
      else if (n === BOTTOM_RIGHT && dirs[k - 1] !== BOTTOM_LEFT) which = BOTTOM;
    }
    dirs.push(which);
    out.push(nb);
  }
  return out;
}

/**
 * Parents, DGGAL's order: the zone of the same cell (or the coarser cell) first, then for a vertex
 * child the two other zones whose corner it sits on. A centroid child has one parent.
 */
export function i3hParents(z: I3HZone): I3HZone[] {
  const p0 = i3hParent0(z);
  if (!p0) return [];
  if (i3hIsCentroidChild(z)) return [p0];
  const nb = (w: number): I3HZone | null => neighbourAt(p0, w);
  let a: I3HZone | null, b: I3HZone | null;
  if (z.sh > 0) {
    a = nb(RIGHT);
    b = nb(z.sh === 2 ? TOP_RIGHT : BOTTOM_RIGHT);
  } else {
    const c = i3hCentroid(z);
    const pc = i3hCentroid(p0);
    const dx = c.x - pc.x, dy = c.y - pc.y;
    const p0cx = Math.floor(pc.x + 1e-11), p0cy = Math.floor(pc.y + 1e-11);
    const onBottomCrossingLeft = pc.y - pc.x + 1e-11 > 1 && pc.x - p0cx < 1e-11;
    const onTopCrossingRight = pc.x - pc.y + 1e-11 > 0 && pc.y - p0cy < 1e-11;
    if (Math.abs(dx) < 1e-11) {
      if (dy > 0) {
        const onTopCrossingRightNeg = pc.x - pc.y - 1e-11 > 0 && pc.y - p0cy < 1e-11;
        a = nb(BOTTOM_RIGHT);
        b = nb(onBottomCrossingLeft ? BOTTOM_LEFT : onTopCrossingRightNeg ? RIGHT : BOTTOM);
      } else {
        a = nb(TOP_LEFT);
        b = nb(TOP);
      }
    } else if (Math.abs(dy) < 1e-11) {
      if (dx > 0) {
        const onBottomCrossingLeftNeg = pc.y - pc.x - 1e-11 > 1 && pc.x - p0cx < 1e-11;
        a = nb(TOP_RIGHT);
        b = nb(onTopCrossingRight ? TOP_LEFT : onBottomCrossingLeftNeg ? RIGHT : TOP);
      } else {
        a = nb(BOTTOM_LEFT);
        b = nb(BOTTOM);
      }
    } else if (dx > 0) {
      a = nb(TOP_RIGHT);
      b = nb(BOTTOM_RIGHT);
    } else {
      a = nb(TOP_LEFT);
      b = nb(BOTTOM_LEFT);
    }
  }
  return [p0, a, b].filter((x): x is I3HZone => x !== null);
}

/** Sub-zones `depth` levels below (DGGAL's count: hexagons 3^d + 3^ceil(d/2) + 1, pentagons 5/6 of it). */
export function i3hSubZoneCount(z: I3HZone, depth: number): number {
  const hex = depth > 0 ? POW3[depth]! + POW3[(depth + 1) >> 1]! + 1 : 1;
  return Math.floor((hex * i3hEdgeCount(z) + 5) / 6);
}
