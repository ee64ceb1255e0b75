/**
 * Cells to and from the wire. Writes are RowBinary, so every double reaches the server bit for bit
 * (NaN min/max of cells without values included; 18.16 parses text floats with its fast, not
 * always exactly rounded, reader). Reads are TabSeparated: ClickHouse prints doubles in their
 * shortest round-trip form, so `Number` gives back the same double, and each line is checked
 * against the grammar of a row, so an error text appended mid-stream is never taken for a row.
 */
import type { FieldMoments, PyramidCell } from '../../ports/zone-pyramid-store.js';

const encoder = new TextEncoder();

/** RowBinary of cells in the column order of `insertCells`: part, coarse, level, key, period, count, then per field valid, sum, m2, min, max. */
export function encodeCells(part: string, cells: readonly PyramidCell[], fieldCount: number): Buffer {
  const partBytes = encoder.encode(part);
  const head = varUInt(partBytes.length);
  const rowBytes = head.length + partBytes.length + 8 + 1 + 8 + 8 + 8 + fieldCount * 40;
  const out = Buffer.allocUnsafe(rowBytes * cells.length);
  let o = 0;
  for (const c of cells) {
    if (c.fields.length !== fieldCount) throw new Error(`a cell with ${c.fields.length} fields where the generation has ${fieldCount}`);
    if (!Number.isInteger(c.level) || c.level < 0 || c.level > 255) throw new Error(`cell level ${c.level} is not 0..255`);
    head.copy(out, o);
    o += head.length;
    out.set(partBytes, o);
    o += partBytes.length;
    o = writeInt64(out, c.coarse, o, 'coarse');
    o = out.writeUInt8(c.level, o);
    o = writeInt64(out, c.key, o, 'key');
    o = writeInt64(out, c.period, o, 'period');
    o = writeInt64(out, c.count, o, 'count', true);
    for (const f of c.fields) {
      o = writeInt64(out, f.valid, o, 'valid', true);
      o = out.writeDoubleLE(f.sum, o);
      o = out.writeDoubleLE(f.m2, o);
      o = out.writeDoubleLE(f.min, o);
      o = out.writeDoubleLE(f.max, o);
    }
  }
  return out;
}

/** A safe integer as a little-endian two's-complement 64-bit integer (two 32-bit halves: no BigInt per value). */
function writeInt64(out: Buffer, n: number, o: number, what: string, unsigned = false): number {
  if (!Number.isSafeInteger(n) || (unsigned && n < 0)) throw new Error(`cell ${what} ${n} is not a safe${unsigned ? ' non-negative' : ''} integer`);
  const high = Math.floor(n / 2 ** 32);
  out.writeUInt32LE(n - high * 2 ** 32, o);
  out.writeInt32LE(high, o + 4);
  return o + 8;
}

function varUInt(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

const INTEGER = /^-?\d{1,19}$/;
const FLOAT = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** A TabSeparated integer column; undefined when the text is not one. */
export function parseInteger(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A TabSeparated Float64 column as ClickHouse prints it (`nan`, `inf`, `-inf` included); undefined when the text is not one. */
export function parseFloat64(text: string): number | undefined {
  switch (text) {
    case 'nan':
    case '-nan':
      return NaN;
    case 'inf':
    case '+inf':
      return Infinity;
    case '-inf':
      return -Infinity;
  }
  return FLOAT.test(text) ? Number(text) : undefined;
}

/** One line of `selectCells`' answer; undefined when it is not a row of `fieldCount` fields. */
export function parseCellLine(line: string, fieldCount: number): PyramidCell | undefined {
  const cols = line.split('\t');
  if (cols.length !== 5 + 5 * fieldCount) return undefined;
  const coarse = parseInteger(cols[0]!);
  const level = parseInteger(cols[1]!);
  const key = parseInteger(cols[2]!);
  const period = parseInteger(cols[3]!);
  const count = parseInteger(cols[4]!);
  if (coarse === undefined || level === undefined || key === undefined || period === undefined || count === undefined) return undefined;
  const fields: FieldMoments[] = [];
  for (let i = 0, c = 5; i < fieldCount; i++, c += 5) {
    const valid = parseInteger(cols[c]!);
    const sum = parseFloat64(cols[c + 1]!);
    const m2 = parseFloat64(cols[c + 2]!);
    const min = parseFloat64(cols[c + 3]!);
    const max = parseFloat64(cols[c + 4]!);
    if (valid === undefined || sum === undefined || m2 === undefined || min === undefined || max === undefined) return undefined;
    fields.push({ valid, sum, m2, min, max });
  }
  return { level, key, coarse, period, count, fields };
}
