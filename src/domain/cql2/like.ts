/**
 * CQL2 `LIKE`, matched without backtracking, with the meaning DuckDB gives `LIKE ... ESCAPE '\'`:
 * `%` any run of characters, `_` exactly one character (a Unicode code point), `\` makes the next
 * character literal, anything else matches itself, case-sensitively. A pattern that ends in a
 * lone `\` matches nothing (DuckDB raises an error when its matcher reaches that escape and
 * never matches it otherwise); the parsers refuse such patterns up front (limits.ts).
 *
 * A regular expression turned from `%` into `.*` backtracks: its cost doubles with each `%`.
 * Here the pattern is split at its `%` into segments; the first is matched at the start, the
 * last at the end, and each one between at its leftmost place after the previous one (the
 * leftmost place leaves the most room for the rest, so it is never wrong). The searches cover
 * the value once from left to right, a bit-parallel step per character: at most
 * (value length) x (pattern length / 32) word operations.
 *
 * CASEI and ACCENTI fold the literal text of a pattern, never its wildcards: the pattern is cut
 * into pieces first, then each literal piece is folded. DuckDB does the same with the regular
 * expression `likeRegex` builds, folded whole in SQL (its metacharacters are all unaffected).
 */
import type { Expr } from './ast.js';

export type LikePiece = { kind: 'text'; text: string } | { kind: 'one' } | { kind: 'any' };

/** The pattern as literal text, `_` and `%` pieces (runs of `%` as one); undefined when it ends in a lone `\`. */
export function likePieces(pattern: string): LikePiece[] | undefined {
  const pieces: LikePiece[] = [];
  let text = '';
  const flush = (): void => {
    if (text) pieces.push({ kind: 'text', text });
    text = '';
  };
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      if (++i === chars.length) return undefined;
      text += chars[i];
    } else if (c === '%' || c === '_') {
      flush();
      if (c === '_') pieces.push({ kind: 'one' });
      else if (pieces.at(-1)?.kind !== 'any') pieces.push({ kind: 'any' });
    } else text += c;
  }
  flush();
  return pieces;
}

/** `%` wildcards (unescaped) in a pattern, each counted: what the bound in limits.ts counts. */
export function likeWildcards(pattern: string): number {
  let n = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === '%') n++;
  }
  return n;
}

/** A pattern as the parsers build it: a string literal inside any number of CASEI/ACCENTI (folds innermost first). */
export function likeLiteral(pattern: Expr): { text: string; folds: ('casei' | 'accenti')[] } | undefined {
  const folds: ('casei' | 'accenti')[] = [];
  let e = pattern;
  while (e.kind === 'casei' || e.kind === 'accenti') {
    folds.unshift(e.kind);
    e = e.arg;
  }
  return e.kind === 'string' ? { text: e.value, folds } : undefined;
}

/** The folds CASEI and ACCENTI, as an engine applies them to strings. */
export type LikeFolds = Record<'casei' | 'accenti', (text: string) => string>;

/**
 * The test of a LIKE whose pattern is a literal (inside any CASEI/ACCENTI), the literal's text
 * folded by the engine's `folds` and its wildcards not; undefined for any other pattern.
 */
export function literalLikeMatcher(pattern: Expr, folds: LikeFolds): ((value: string) => boolean) | undefined {
  const literal = likeLiteral(pattern);
  return literal && likeMatcher(literal.text, (text) => literal.folds.reduce((s, fold) => folds[fold](s), text));
}

/** A run of the pattern between two `%`: code points, -1 for `_`; `masks` for the bit-parallel search. */
interface Segment {
  units: Int32Array;
  /** Per code point of the segment: bit i set where unit i is that code point or `_` (32 bits a word). */
  masks: Map<number, Uint32Array>;
  /** The same for any other code point: the `_` positions. */
  other: Uint32Array;
}

function segment(units: number[]): Segment {
  const words = Math.max(1, Math.ceil(units.length / 32));
  const other = new Uint32Array(words);
  units.forEach((u, i) => u < 0 && (other[i >> 5]! |= 1 << (i & 31)));
  const masks = new Map<number, Uint32Array>();
  units.forEach((u, i) => {
    if (u < 0) return;
    let m = masks.get(u);
    if (!m) masks.set(u, (m = other.slice()));
    m[i >> 5]! |= 1 << (i & 31);
  });
  return { units: Int32Array.from(units), masks, other };
}

/** Tests a value against `pattern`; `fold` is applied to the pattern's literal text (CASEI, ACCENTI). */
export function likeMatcher(pattern: string, fold: (text: string) => string = (t) => t): (value: string) => boolean {
  const pieces = likePieces(pattern);
  if (!pieces) return () => false;
  const runs: number[][] = [[]];
  for (const p of pieces) {
    if (p.kind === 'any') runs.push([]);
    else if (p.kind === 'one') runs.at(-1)!.push(-1);
    else runs.at(-1)!.push(...codePoints(fold(p.text)));
  }
  const segments = runs.map(segment);
  return (value) => matchSegments(segments, codePoints(value));
}

/** Code points of a string (a lone surrogate counts as one, as for...of counts it). */
function codePoints(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i)!;
    out.push(c);
    if (c > 0xffff) i++;
  }
  return out;
}

function matchesAt(units: Int32Array, value: number[], at: number): boolean {
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (u >= 0 && u !== value[at + i]) return false;
  }
  return true;
}

/**
 * Where the segment first occurs in value[from, to), or -1: shift-and, one pass over the value
 * with the segment's positions as bits, so (segment length / 32) word operations per character
 * whatever the text (a naive search costs the segment's length per character on repetitive text).
 */
function leftmost(s: Segment, value: number[], from: number, to: number): number {
  const k = s.units.length;
  if (k === 0) return from;
  const words = s.other.length;
  const state = new Uint32Array(words);
  const top = (k - 1) >> 5, bit = 1 << ((k - 1) & 31);
  for (let p = from; p < to; p++) {
    const mask = s.masks.get(value[p]!) ?? s.other;
    let carry = 1; // a match may start at every position
    for (let w = 0; w < words; w++) {
      const d = state[w]!;
      state[w] = ((d << 1) | carry) & mask[w]!;
      carry = d >>> 31;
    }
    if (state[top]! & bit) return p - k + 1;
  }
  return -1;
}

/** Segments between `%`s: the first anchored at the start, the last at the end, the others leftmost in between. */
function matchSegments(segments: Segment[], value: number[]): boolean {
  const first = segments[0]!.units;
  if (segments.length === 1) return first.length === value.length && matchesAt(first, value, 0);
  const last = segments.at(-1)!.units;
  const end = value.length - last.length;
  if (end < first.length || !matchesAt(first, value, 0)) return false;
  let at = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const found = leftmost(segments[i]!, value, at, end);
    if (found < 0) return false;
    at = found + segments[i]!.units.length;
  }
  return matchesAt(last, value, end);
}

/**
 * The pattern as an RE2 regular expression for a full match (DuckDB's `regexp_full_match`,
 * linear time) selecting the values `likeMatcher` selects; undefined when it ends in a lone `\`.
 * Literal ASCII other than letters and digits is written `\xhh`, every other character as
 * itself, and the syntax around it has no capital letters: so lowercasing the whole expression
 * or stripping its accents (CASEI, ACCENTI in SQL) folds exactly its literal text.
 */
export function likeRegex(pattern: string): string | undefined {
  const pieces = likePieces(pattern);
  if (!pieces) return undefined;
  const literal = (text: string): string =>
    Array.from(text, (c) => (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9]/.test(c) ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
  return `(?s)${pieces.map((p) => (p.kind === 'any' ? '.*' : p.kind === 'one' ? '.' : literal(p.text))).join('')}`;
}
