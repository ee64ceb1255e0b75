/**
 * The lattice and index shared by DGGAL's rhombic grids (RI9R and RI4R): every level cuts each of the ten
 * unit rhombi of the 5x6 net into p x p squares (p = 3^level for aperture 9, 2^level for aperture 4), a
 * zone is one square, named by its global row and column in the 5x6 net (rows 0..6p-1, columns 0..5p-1;
 * only the squares of the ten rhombi exist). The text id is {level letter}{root rhombus}-{hex index of the
 * square in its rhombus, row-major}; the 64-bit id is level << 59 | row << 30 | col (an OGC 2D TMS key).
 */

export interface RhombicZone {
  level: number;
  row: number;
  col: number;
}

/** What differs between the rhombic apertures: the squares per rhombus side gained per level. */
export interface RhombicLattice {
  readonly aperture: 4 | 9;
  /** 3 for aperture 9, 2 for aperture 4. */
  readonly side: number;
  /** DGGAL's deepest level with a 64-bit id (16 for 9R, 25 for 4R). */
  readonly maxLevel: number;
  /** side^level, squares along a rhombus side, for levels 0..maxLevel. */
  readonly pow: readonly number[];
}

function lattice(aperture: 4 | 9, maxLevel: number): RhombicLattice {
  const side = aperture === 9 ? 3 : 2;
  return { aperture, side, maxLevel, pow: Array.from({ length: maxLevel + 1 }, (_, l) => side ** l) };
}

export const LATTICE_9R: RhombicLattice = lattice(9, 16);
export const LATTICE_4R: RhombicLattice = lattice(4, 25);

const ID_PATTERN = /^([A-Z])([0-9])-([0-9A-F]{1,13})$/;
const LEVEL_CHAR = 65;

/** Root rhombus of a valid square: its row and column of rhombi differ by 0 (even root) or 1 (odd root). */
export function rootOf(lat: RhombicLattice, z: RhombicZone): number {
  const p = lat.pow[z.level]!;
  return Math.floor(z.row / p) + Math.floor(z.col / p);
}

/** DGGAL's text id of a square (DGGAL writes it for any row and column, valid or not). */
export function rhombicId(lat: RhombicLattice, z: RhombicZone): string {
  const p = lat.pow[z.level]!;
  const rowOP = Math.floor(z.row / p), colOP = Math.floor(z.col / p);
  const ix = (z.row - rowOP * p) * p + (z.col - colOP * p);
  return `${String.fromCharCode(LEVEL_CHAR + z.level)}${rowOP + colOP}-${ix.toString(16).toUpperCase()}`;
}

/** Row and column of the square `ix` of root rhombus `root` (DGGAL's iLRCFromLRtI). */
export function squareOf(lat: RhombicLattice, level: number, root: number, ix: number): RhombicZone {
  const p = lat.pow[level]!;
  const iy = Math.floor(ix / p);
  return { level, row: ((root + 1) >> 1) * p + iy, col: (root >> 1) * p + (ix - iy * p) };
}

/** The zone a canonical text id names, or null (ids are accepted only as DGGAL writes them). */
export function parseRhombicId(lat: RhombicLattice, id: string): RhombicZone | null {
  const m = ID_PATTERN.exec(id);
  if (!m) return null;
  const level = m[1]!.charCodeAt(0) - LEVEL_CHAR;
  if (level > lat.maxLevel) return null;
  const p = lat.pow[level]!;
  const ix = parseInt(m[3]!, 16);
  if (ix >= p * p) return null;
  const z = squareOf(lat, level, Number(m[2]), ix);
  return rhombicId(lat, z) === id ? z : null;
}

export function rhombicToUint64(z: RhombicZone): bigint {
  return (BigInt(z.level) << 59n) | (BigInt(z.row) << 30n) | BigInt(z.col);
}

export function rhombicFromUint64(v: bigint): RhombicZone {
  return { level: Number(v >> 59n), row: Number((v >> 30n) & 0x1fffffffn), col: Number(v & 0x3fffffffn) };
}

/**
 * The square holding 5x6 point (x, y) (DGGAL's fromCRSExtent on a point: truncation, clamped to the net),
 * written to `out` when given (allocation-free for bulk location).
 */
export function rhombicAt(lat: RhombicLattice, level: number, x: number, y: number, out: RhombicZone = { level, row: 0, col: 0 }): RhombicZone {
  const p = lat.pow[level]!;
  out.level = level;
  out.row = Math.min(Math.max(0, Math.trunc(y * p)), 6 * p - 1);
  out.col = Math.min(Math.max(0, Math.trunc(x * p)), 5 * p - 1);
  return out;
}

/** 5x6 extent of a square, computed as DGGAL does (z = 1 / p, then multiplied) for the same last bits. */
export function rhombicExtent5x6(lat: RhombicLattice, z: RhombicZone): { tlx: number; tly: number; brx: number; bry: number } {
  const s = 1.0 / lat.pow[z.level]!;
  const tlx = z.col * s, tly = z.row * s;
  return { tlx, tly, brx: tlx + s, bry: tly + s };
}

export function rhombicCentroid5x6(lat: RhombicLattice, z: RhombicZone): { x: number; y: number } {
  const s = 1.0 / lat.pow[z.level]!;
  return { x: (z.col + 0.5) * s, y: (z.row + 0.5) * s };
}

/** Corners in DGGAL's order: top-left, bottom-left, bottom-right, top-right (in 5x6 terms). */
export function rhombicCorners5x6(lat: RhombicLattice, z: RhombicZone): { x: number; y: number }[] {
  const e = rhombicExtent5x6(lat, z);
  return [{ x: e.tlx, y: e.tly }, { x: e.tlx, y: e.bry }, { x: e.brx, y: e.bry }, { x: e.brx, y: e.tly }];
}

export function rhombicParent(lat: RhombicLattice, z: RhombicZone): RhombicZone | null {
  if (z.level === 0) return null;
  return { level: z.level - 1, row: Math.floor(z.row / lat.side), col: Math.floor(z.col / lat.side) };
}

/** Children row-major (DGGAL's order; a square has no centroid child, the first is its top-left one). */
export function rhombicChildren(lat: RhombicLattice, z: RhombicZone): RhombicZone[] {
  return Array.from({ length: lat.side * lat.side }, (_, i) => rhombicSubSquare(lat, z, 1, i));
}

/** Sub-zone `i`, `depth` levels down, of DGGAL's sub-zone order (row-major in the parent's square). */
export function rhombicSubSquare(lat: RhombicLattice, z: RhombicZone, depth: number, i: number): RhombicZone {
  const s = lat.side ** depth;
  const y = Math.floor(i / s);
  return { level: z.level + depth, row: z.row * s + y, col: z.col * s + (i - y * s) };
}

/**
 * The four edge neighbours in DGGAL's directions (top, left, right, bottom in 5x6 terms), crossing the
 * net's interruptions and its wrap as DGGAL's getNeighbors does (C division truncates towards zero).
 */
export function rhombicNeighbours(lat: RhombicLattice, z: RhombicZone): RhombicZone[] {
  const { level: l, row, col } = z;
  const p = lat.pow[l]!;
  const numRows = 6 * p, numCols = 5 * p;
  const colOP = Math.trunc(col / p), rowOP = Math.trunc(row / p);
  const topDelta = Math.trunc((row - 1) / p) - colOP;
  const leftDelta = rowOP - Math.trunc((col - 1) / p);
  const bottomDelta = Math.trunc((row + 1) / p) - colOP;
  const rightDelta = rowOP - Math.trunc((col + 1) / p);
  const at = (r: number, c: number): RhombicZone => ({ level: l, row: r, col: c });
  const out: RhombicZone[] = [];

  // Top: across the top interruption to the left.
  if (row === 0 || (topDelta && topDelta !== 1)) {
    out.push(at((rowOP ? rowOP - 1 : 4) * p + p - 1 - (col - colOP * p), (rowOP ? colOP - 1 : 4) * p + p - 1));
  } else out.push(at(row - 1, col));

  // Left: across the bottom interruption to the left, or round the net's wrap.
  if (col === 0 || (leftDelta && leftDelta !== 1)) {
    if ((leftDelta && leftDelta !== 1) || (col === 0 && rowOP > colOP)) {
      out.push(at((colOP ? rowOP - 1 : 5) * p + p - 1, (colOP ? colOP - 1 : 4) * p + p - 1 - (row - rowOP * p)));
    } else out.push(at(row + 5 * p, col - 1 + 5 * p));
  } else out.push(at(row, col - 1));

  // Right: across the top interruption to the right, or round the wrap.
  if (col === numCols - 1 || (rightDelta && rightDelta !== 1)) {
    if ((rightDelta && rightDelta !== 1) || (col === numCols - 1 && rowOP === colOP)) {
      out.push(at((colOP < 4 ? rowOP + 1 : 0) * p, (colOP < 4 ? colOP + 1 : 0) * p + p - 1 - (row - rowOP * p)));
    } else out.push(at(row - 5 * p, col + 1 - 5 * p));
  } else out.push(at(row, col + 1));

  // Bottom: across the bottom interruption to the right.
  if (row === numRows - 1 || (bottomDelta && bottomDelta !== 1)) {
    out.push(at((rowOP < 5 ? rowOP + 1 : 1) * p + p - 1 - (col - colOP * p), (rowOP < 5 ? colOP + 1 : 0) * p));
  } else out.push(at(row + 1, col));
  return out;
}

/** Zones per level: ten rhombi of p x p squares. */
export function rhombicZoneCount(lat: RhombicLattice, level: number): number {
  return 10 * lat.pow[level]! * lat.pow[level]!;
}
