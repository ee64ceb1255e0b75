/**
 * The one way a value enters a ClickHouse statement. ClickHouse 18.16 has no server-side query
 * parameters, so every statement is text: identifiers come only from the config and this module's
 * allow-list, values only through `sqlString` and `sqlNumber`. Nothing else in the adapter writes
 * a quote.
 */

/** Identifiers the adapter writes: database, tables and columns, all from config or built here. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,190}$/;

/** An identifier, back-quoted; anything outside the allow-list is refused, never escaped. */
export function sqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a ClickHouse identifier this service writes: ${JSON.stringify(name.slice(0, 80))}`);
  return `\`${name}\``;
}

const HEX = '0123456789ABCDEF';
const encoder = new TextEncoder();

/**
 * A string literal holding exactly the UTF-8 bytes of `value`. Printable ASCII other than the quote
 * and the backslash is written as itself; every other byte (controls, NUL, DEL, each byte of a
 * multi-byte character) as `\xHH`, which ClickHouse reads as that byte whatever follows, so the
 * literal is plain ASCII and its end is always the last quote. A string that is not well-formed
 * UTF-16 (a lone surrogate) has no UTF-8 form and is refused rather than altered.
 */
export function sqlString(value: string): string {
  if (typeof value !== 'string') throw new TypeError('sqlString takes a string');
  if (!value.isWellFormed()) throw new Error('a string with a lone surrogate has no UTF-8 form');
  let out = "'";
  for (const byte of encoder.encode(value)) {
    if (byte === 0x27) out += "\\'";
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\x${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return `${out}'`;
}

/**
 * A numeric literal: integers as integers (safe integers only, so the digits are the value),
 * other finite numbers in JavaScript's shortest round-trip form (ClickHouse reads `1e-7`, `-2.5`).
 * NaN and the infinities are refused: no statement compares with them (cell values travel as
 * RowBinary doubles, not as text).
 */
export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number: ${String(value)}`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new Error(`an integer beyond 2^53 loses digits: ${value}`);
  // -0 is 0 to every comparison the adapter makes; String(-0) is "0".
  return String(value);
}

/** A literal of either kind: the one entry point for values in statements. */
export function sqlLiteral(value: string | number): string {
  return typeof value === 'string' ? sqlString(value) : sqlNumber(value);
}

/** `(a, b, c)` of literals, for IN lists; an empty list is refused (IN () is a syntax error). */
export function sqlList(values: readonly (string | number)[]): string {
  if (values.length === 0) throw new Error('an empty IN list');
  return `(${values.map(sqlLiteral).join(', ')})`;
}

/** `[a, b, c]`, an array literal of one kind of value; an empty one is refused (its type is unknown). */
export function sqlArray(values: readonly (string | number)[]): string {
  if (values.length === 0) throw new Error('an empty array literal');
  return `[${values.map(sqlLiteral).join(', ')}]`;
}
