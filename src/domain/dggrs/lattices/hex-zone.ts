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
function indexHex(ix: number): string {
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

/** What `HexZoneIds.split` read: the level letter (0 for 'A'), root, index and sub-hex letter. */
export const ID_PARTS = { letter: 0, root: 0, ix: 0, sh: 0 };

/**
 * A lattice's spelling of ids, `{level letter}{root hex}-{index hex}-{sub-hex letter}`, and of DGGAL's
 * 64-bit ids, k then a 4-bit root, a 51-bit index and the sub-hex in the low `shBits`. The lattice says what
 * the level letter counts and checks that a zone read from either exists.
 */
export class HexZoneIds {
  /** "{letter}{root hex}-" at [letter * 12 + root], precomputed: ids are built for every located point and listed sub-zone. */
  private readonly prefix: readonly string[];
  private readonly suffix: readonly string[];

  /** `pattern` captures the four pieces and refuses leading zeros. */
  constructor(levelLetters: number, subHexLetters: number, private readonly pattern: RegExp, private readonly shBits: bigint) {
    this.prefix = Array.from({ length: levelLetters * 12 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 12)) + '0123456789AB'[i % 12] + '-');
    this.suffix = Array.from({ length: subHexLetters }, (_, i) => '-' + String.fromCharCode(65 + i));
  }

  format(letter: number, root: number, ix: number, sh: number): string {
    return this.prefix[letter * 12 + root]! + indexHex(ix) + this.suffix[sh]!;
  }

  /** Reads the pieces of an id into ID_PARTS; false when it is not spelled so or its index is not a safe integer. */
  split(id: string): boolean {
    if (typeof id !== 'string' || id.length > 24) return false;
    const m = this.pattern.exec(id);
    if (!m) return false;
    ID_PARTS.letter = m[1]!.charCodeAt(0) - 65;
    ID_PARTS.root = parseInt(m[2]!, 16);
    ID_PARTS.ix = parseInt(m[3]!, 16);
    ID_PARTS.sh = m[4]!.charCodeAt(0) - 65;
    return Number.isSafeInteger(ID_PARTS.ix);
  }

  toInt64(z: HexZone): bigint {
    const b = this.shBits;
    return (BigInt(z.k) << (55n + b)) | (BigInt(z.root) << (51n + b)) | (BigInt(z.ix) << b) | BigInt(z.sh);
  }

  /** The fields of a 64-bit id, unchecked (null only outside 62 bits). */
  fromInt64(v: bigint): HexZone | null {
    if (v < 0n || v >= 1n << 62n) return null;
    const b = this.shBits;
    return { k: Number(v >> (55n + b)), root: Number((v >> (51n + b)) & 15n), ix: Number((v >> b) & ((1n << 51n) - 1n)), sh: Number(v & ((1n << b) - 1n)) };
  }
}
