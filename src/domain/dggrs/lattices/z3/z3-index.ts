/**
 * DGGRID's Z3 ids of aperture-3 hexagons (its `hier_indexing_system_type Z3`), read from DGGRID 9.0's
 * DgZ3StringRF / DgZ3System and checked against its answers (test/unit/dggrs/isea3h-z3-oracle.test.ts).
 *
 * DGGRID numbers a level's cells by quad and (i, j). Quads 1-10 are the ten rhombi of the 5x6 net and
 * hold i, j in 0 .. 3^e - 1, e = ceil(level / 2); quads 0 and 11 are the polar pentagons (only (0, 0)).
 * An even level 2k is the class I lattice of the rhombus (e = k); an odd level 2k+1 (class II) is the
 * index-3 sub-lattice (i + j divisible by 3) of the class I lattice one level down (e = k + 1).
 * The id is the quad as two digits, then i and j written in base 3 (e digits each, most significant
 * first) and interleaved through a 3x3 table into two digits per pair; an odd level drops the last digit,
 * always 0 there. So every level adds one digit 0-2, and dropping it gives the index parent.
 *
 * On our 3H lattice (i3h-zone.ts) root r is quad 1 + r/2 (even r, the northern rhombi) or 6 + (r-1)/2
 * (odd r), roots 10 and 11 are quads 0 and 11, and a zone of cell (row y, column x) is
 * (i, j) = (y, x) at even levels, (3y, 3x) for B, (3y + 1, 3x + 2) for C and (3y + 2, 3x + 1) for D.
 *
 * The 64-bit form: the quad in the top 4 bits, then 2 bits per level from bit 59 down, 3 (never a digit)
 * filling the levels beyond the zone's: at most 30 levels.
 */
import { POW3, type I3HZone } from '../3h/i3h-zone.js';

export const Z3_MAX_LEVEL = 30;

/** Quad of each of our roots 0..11. */
const ROOT_QUAD: readonly number[] = [1, 6, 2, 7, 3, 8, 4, 9, 5, 10, 0, 11];
/** Our root of each quad 0..11. */
const QUAD_ROOT: readonly number[] = ROOT_QUAD.map((_, q) => ROOT_QUAD.indexOf(q));

/** DGGRID's z3digits table: the two digits of a (base-3 digit of i, base-3 digit of j) pair. */
const PAIR_DIGITS: readonly (readonly string[])[] = [
  ['00', '22', '21'],
  ['01', '02', '20'],
  ['12', '10', '11'],
];
/** The inverse table: (10 * first + second digit) -> [digit of i, digit of j]. */
const DIGITS_PAIR = new Map<number, readonly [number, number]>();
for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) DIGITS_PAIR.set(Number(PAIR_DIGITS[a]![b]), [a, b]);

const Z3_ID = /^(0[0-9]|1[01])([012]*)$/;

/** Level of a well-formed Z3 id (its digits after the two-digit quad). */
export const z3Level = (id: string): number => id.length - 2;

/** The Z3 id of one of our 3H zones. */
export function z3Id(z: I3HZone): string {
  const odd = z.sh > 0;
  const level = 2 * z.k + (odd ? 1 : 0);
  const quad = ROOT_QUAD[z.root]!;
  const head = quad < 10 ? `0${quad}` : String(quad);
  if (level === 0) return head;
  let i = 0, j = 0;
  if (z.root < 10) {
    const p = POW3[z.k]!;
    const y = Math.floor(z.ix / p), x = z.ix - y * p;
    if (!odd) { i = y; j = x; }
    else if (z.sh === 1) { i = 3 * y; j = 3 * x; }
    else if (z.sh === 2) { i = 3 * y + 1; j = 3 * x + 2; }
    else { i = 3 * y + 2; j = 3 * x + 1; }
  }
  const e = odd ? z.k + 1 : z.k;
  let s = head;
  for (let d = e - 1; d >= 0; d--) {
    const pd = POW3[d]!;
    s += PAIR_DIGITS[Math.floor(i / pd) % 3]![Math.floor(j / pd) % 3];
  }
  return odd ? s.slice(0, -1) : s;
}

/** Our 3H zone of a Z3 id, or null for a string that names no cell (or one beyond level 30). */
export function z3ToZone(id: string): I3HZone | null {
  const m = Z3_ID.exec(id);
  if (!m) return null;
  const quad = Number(m[1]);
  let digits = m[2]!;
  const level = digits.length;
  if (level > Z3_MAX_LEVEL) return null;
  const odd = (level & 1) === 1;
  const k = level >> 1;
  const root = QUAD_ROOT[quad]!;
  if (quad === 0 || quad === 11) return /^0*$/.test(digits) ? { k, root, ix: 0, sh: odd ? 1 : 0 } : null;
  if (odd) digits += '0';
  let i = 0, j = 0;
  for (let d = 0; d < digits.length; d += 2) {
    const [a, b] = DIGITS_PAIR.get(10 * (digits.charCodeAt(d) - 48) + digits.charCodeAt(d + 1) - 48)!;
    i = 3 * i + a;
    j = 3 * j + b;
  }
  const p = POW3[k]!;
  if (!odd) return { k, root, ix: i * p + j, sh: 0 };
  // The last pair is 00, 20 or 10: (i, j) mod 3 is (0, 0), (1, 2) or (2, 1).
  const y = Math.floor(i / 3), x = Math.floor(j / 3);
  return { k, root, ix: y * p + x, sh: i % 3 === 0 ? 1 : i % 3 === 1 ? 2 : 3 };
}

/** The index parent: the id without its last digit (none at level 0). */
export const z3IndexParent = (id: string): string | null => (id.length > 2 ? id.slice(0, -1) : null);

/** The index children (the ids whose index parent this is), digit order: one at a polar pentagon, else three. */
export function z3IndexChildren(id: string): string[] {
  const quad = Number(id.slice(0, 2));
  return quad === 0 || quad === 11 ? [id + '0'] : [id + '0', id + '1', id + '2'];
}

/** DGGRID's 64-bit Z3 index of a well-formed id. */
export function z3ToInt64(id: string): bigint {
  let v = BigInt(Number(id.slice(0, 2)));
  for (let r = 1; r <= Z3_MAX_LEVEL; r++) v = (v << 2n) | BigInt(r + 1 < id.length ? id.charCodeAt(r + 1) - 48 : 3);
  return v;
}

/** The id of a 64-bit Z3 index (its levels end at the first 3), or null when it is not well formed. */
export function z3FromInt64(v: bigint): string | null {
  if (v < 0n || v >= 1n << 64n) return null;
  const quad = Number(v >> 60n);
  if (quad > 11) return null;
  let s = quad < 10 ? `0${quad}` : String(quad);
  let r = 1;
  for (; r <= Z3_MAX_LEVEL; r++) {
    const d = Number((v >> BigInt(2 * (Z3_MAX_LEVEL - r))) & 3n);
    if (d === 3) break;
    s += String(d);
  }
  for (; r <= Z3_MAX_LEVEL; r++) if (Number((v >> BigInt(2 * (Z3_MAX_LEVEL - r))) & 3n) !== 3) return null;
  return z3ToZone(s) ? s : null;
}
