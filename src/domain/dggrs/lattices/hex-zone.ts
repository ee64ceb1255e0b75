/**
 * The zone record of the hexagonal lattices of the 5x6 net (DGGAL's RI7H and RI3H): both name a zone by
 * (k, root, ix, sh) and spell its index in the same hex, so they share the record and what only reads it.
 */

export interface HexZone {
  /** Level div 2: the even level the rhombus index belongs to. */
  k: number;
  /** 0..9 a rhombus of the net, 10 and 11 the polar pentagons. */
  root: number;
  /** row * side + col within the root rhombus. */
  ix: number;
  /** Sub-hex letter: 0 ('A') at even levels, from 1 ('B') on at odd levels. */
  sh: number;
}

export const hexZoneLevel = (z: HexZone): number => 2 * z.k + (z.sh > 0 ? 1 : 0);

export const sameHexZone = (a: HexZone | null, b: HexZone | null): boolean =>
  a !== null && b !== null && a.k === b.k && a.root === b.root && a.ix === b.ix && a.sh === b.sh;

const HEX_DIGITS = '0123456789ABCDEF';
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) => HEX_DIGITS[i >> 4]! + HEX_DIGITS[i & 15]!);

/**
 * Uppercase hex without leading zeros, as both lattices' ids spell the index. Indices reach 2^51, beyond
 * 32-bit integer ops, so the low 24 bits go by bytes and the rest by division.
 */
export function indexHex(ix: number): string {
  let hi = Math.floor(ix / 16777216);
  let lo = ix - hi * 16777216;
  let s = '';
  if (hi) {
    while (hi > 0) { s = HEX_DIGITS[hi & 15]! + s; hi = Math.floor(hi / 16); }
    return s + HEX_BYTE[(lo >>> 16) & 255]! + HEX_BYTE[(lo >>> 8) & 255]! + HEX_BYTE[lo & 255]!;
  }
  if (lo === 0) return '0';
  while (lo > 0) { s = HEX_DIGITS[lo & 15]! + s; lo >>>= 4; }
  return s;
}
