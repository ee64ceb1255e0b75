/**
 * Tokenizer for CQL2-Text (cql2.bnf). Keywords are not recognised here: an unquoted word is an
 * `ident` and the parser decides by context, so `div` or `date` can still be told apart from
 * the operator or the literal by what follows them.
 */
import { Cql2SyntaxError } from './errors.js';

export type TokenType = 'ident' | 'qident' | 'string' | 'number' | 'punct' | 'eof';

export interface Token {
  type: TokenType;
  /** Identifier or string content (unescaped), number source text, or punctuation. */
  value: string;
  /** 0-based offset of the token's first character. */
  pos: number;
}

// The whitespace production of cql2.bnf.
const WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function inRanges(cp: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

// identifierStart of cql2.bnf.
const IDENT_START: readonly (readonly [number, number])[] = [
  [0x3a, 0x3a],
  [0x5f, 0x5f],
  [0x41, 0x5a],
  [0x61, 0x7a],
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x2ff],
  [0x370, 0x37d],
  [0x37f, 0x1ffe],
  [0x200c, 0x200d],
  [0x2070, 0x218f],
  [0x2c00, 0x2fef],
  [0x3001, 0xd7ff],
  [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd],
  [0x10000, 0xeffff],
];
const IDENT_PART_EXTRA: readonly (readonly [number, number])[] = [
  [0x2e, 0x2e],
  [0x30, 0x39],
  [0x300, 0x36f],
  [0x203f, 0x2040],
];

const isIdentStart = (cp: number): boolean => inRanges(cp, IDENT_START);
const isIdentPart = (cp: number): boolean => isIdentStart(cp) || inRanges(cp, IDENT_PART_EXTRA);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

const TWO_CHAR = new Set(['<>', '<=', '>=']);
const ONE_CHAR = new Set(['(', ')', ',', '=', '<', '>', '+', '-', '*', '/', '%', '^']);

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const cp = src.codePointAt(i)!;
    const c = src[i]!;
    if (WHITESPACE.has(cp)) {
      i++;
      continue;
    }
    const start = i;
    if (c === "'") {
      // '' and \' both stand for a quote (escapeQuote of cql2.bnf); other backslashes are
      // kept, because LIKE patterns use \ as their own escape character.
      let value = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new Cql2SyntaxError('unterminated string literal', start);
        const ch = src[i]!;
        if (ch === "'" && src[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (ch === '\\' && src[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (ch === "'") {
          i++;
          break;
        } else {
          value += ch;
          i++;
        }
      }
      tokens.push({ type: 'string', value, pos: start });
      continue;
    }
    if (c === '"') {
      const end = src.indexOf('"', i + 1);
      if (end < 0) throw new Cql2SyntaxError('unterminated quoted identifier', start);
      const value = src.slice(i + 1, end);
      if (value.length === 0) throw new Cql2SyntaxError('empty quoted identifier', start);
      tokens.push({ type: 'qident', value, pos: start });
      i = end + 1;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      while (isDigit(src[i])) i++;
      if (src[i] === '.') {
        i++;
        while (isDigit(src[i])) i++;
      }
      if (src[i] === 'e' || src[i] === 'E') {
        let j = i + 1;
        if (src[j] === '+' || src[j] === '-') j++;
        if (!isDigit(src[j])) throw new Cql2SyntaxError('malformed exponent in number', i);
        while (isDigit(src[j])) j++;
        i = j;
      }
      if (i < src.length && isIdentStart(src.codePointAt(i)!)) {
        throw new Cql2SyntaxError(`unexpected character '${String.fromCodePoint(src.codePointAt(i)!)}' after number`, i);
      }
      tokens.push({ type: 'number', value: src.slice(start, i), pos: start });
      continue;
    }
    if (isIdentStart(cp)) {
      i += cp > 0xffff ? 2 : 1;
      while (i < src.length) {
        const p = src.codePointAt(i)!;
        if (!isIdentPart(p)) break;
        i += p > 0xffff ? 2 : 1;
      }
      tokens.push({ type: 'ident', value: src.slice(start, i), pos: start });
      continue;
    }
    const two = src.slice(i, i + 2);
    if (TWO_CHAR.has(two)) {
      tokens.push({ type: 'punct', value: two, pos: start });
      i += 2;
      continue;
    }
    if (ONE_CHAR.has(c)) {
      tokens.push({ type: 'punct', value: c, pos: start });
      i++;
      continue;
    }
    throw new Cql2SyntaxError(`unexpected character '${String.fromCodePoint(cp)}'`, start);
  }
  tokens.push({ type: 'eof', value: '', pos: src.length });
  return tokens;
}
