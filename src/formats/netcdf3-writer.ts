/**
 * A writer of classic netCDF-3 files (the "NetCDF Classic and 64-bit Offset Format", OGC 10-092r3 /
 * the Unidata format specification): fixed-size dimensions, global attributes, and variables with
 * attributes, laid out as one header followed by each variable's data, big-endian, every part padded
 * to 4 bytes. No npm package writes netCDF (netcdfjs only reads), and this subset is small: no record
 * (unlimited) dimension, and the types the zone-data encoding needs (char, int, double).
 *
 * A file is CDF-1 (classic, 32-bit offsets) when every variable starts below 2 GiB, else CDF-2 (64-bit
 * offsets); in both a variable's size is a 32-bit count, so one variable holds under 4 GiB. Data is
 * written in slices of a few thousand values with turns of the event loop in between (turnDue).
 */
import { takeTurn, turnDue } from '../ports/event-loop-turns.js';

export type NcType = 'char' | 'int' | 'double';

/** A text attribute (NC_CHAR, UTF-8) or numbers of one type. */
export type NcAttribute = { name: string; text: string } | { name: string; type: 'int' | 'double'; values: readonly number[] };

export interface NcDimension {
  name: string;
  /** Fixed length, > 0 (this writer has no record dimension). */
  length: number;
}

export type NcVariable = {
  name: string;
  /** Dimension names, slowest varying first. */
  dimensions: readonly string[];
  attributes: readonly NcAttribute[];
} & (
  /** Numbers in row-major order; null is written as `fill` (double: NaN unless given). */
  | { type: 'int' | 'double'; values: ArrayLike<number | null>; fill?: number }
  /** Strings as a char array whose last dimension is the longest string's UTF-8 length; shorter ones are padded with NUL. */
  | { type: 'char'; strings: readonly string[] }
);

export interface NcFile {
  dimensions: readonly NcDimension[];
  attributes: readonly NcAttribute[];
  variables: readonly NcVariable[];
}

const NC_DIMENSION = 0x0a;
const NC_VARIABLE = 0x0b;
const NC_ATTRIBUTE = 0x0c;
const TYPE_CODE: Record<NcType, number> = { char: 2, int: 4, double: 6 };
const TYPE_SIZE: Record<NcType, number> = { char: 1, int: 4, double: 8 };
/** Values written between two looks at the event-loop clock. */
const SLICE_VALUES = 8192;
const MAX_CLASSIC_OFFSET = 2 ** 31 - 1;
/** vsize is a 32-bit count rounded up to 4 bytes. */
const MAX_VSIZE = 2 ** 32 - 4;

const pad4 = (n: number): number => (n + 3) & ~3;

/** Bytes of a netCDF-3 header, grown as it is written. */
class HeaderBytes {
  private parts: Buffer[] = [];
  length = 0;
  constructor(private readonly offsetBytes: 4 | 8) {}
  private push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  int(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.push(b);
  }
  uint(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    this.push(b);
  }
  offset(v: number): void {
    if (this.offsetBytes === 4) return this.int(v);
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(v));
    this.push(b);
  }
  /** Bytes padded with zeros to a multiple of 4. */
  padded(b: Buffer): void {
    this.push(b);
    if (b.length % 4) this.push(Buffer.alloc(4 - (b.length % 4)));
  }
  /** A name: its UTF-8 length, then its bytes (NFC, as the format asks), padded. */
  name(s: string): void {
    const b = Buffer.from(s.normalize('NFC'), 'utf8');
    this.int(b.length);
    this.padded(b);
  }
  attributes(list: readonly NcAttribute[]): void {
    if (list.length === 0) return this.absent();
    this.int(NC_ATTRIBUTE);
    this.int(list.length);
    for (const a of list) {
      this.name(a.name);
      if ('text' in a) {
        const b = Buffer.from(a.text, 'utf8');
        this.int(TYPE_CODE.char);
        this.int(b.length);
        this.padded(b);
      } else {
        this.int(TYPE_CODE[a.type]);
        this.int(a.values.length);
        const b = Buffer.alloc(a.values.length * TYPE_SIZE[a.type]);
        a.values.forEach((v, i) => (a.type === 'int' ? b.writeInt32BE(v, i * 4) : b.writeDoubleBE(v, i * 8)));
        this.padded(b);
      }
    }
  }
  /** An empty list: ZERO ZERO. */
  absent(): void {
    this.int(0);
    this.int(0);
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** The longest string's UTF-8 length (at least 1: a dimension cannot be empty). */
export function charLength(strings: readonly string[]): number {
  let n = 1;
  for (const s of strings) n = Math.max(n, Buffer.byteLength(s, 'utf8'));
  return n;
}

function dataBytes(v: NcVariable, dimensions: ReadonlyMap<string, number>): number {
  const count = v.dimensions.reduce((n, d) => n * dimensions.get(d)!, 1);
  return count * TYPE_SIZE[v.type];
}

function header(file: NcFile, version: 1 | 2, begins: readonly number[]): Buffer {
  const h = new HeaderBytes(version === 1 ? 4 : 8);
  const ids = new Map(file.dimensions.map((d, i) => [d.name, i]));
  const lengths = new Map(file.dimensions.map((d) => [d.name, d.length]));
  h.padded(Buffer.from([0x43, 0x44, 0x46, version])); // "CDF" and the version byte
  h.int(0); // numrecs: no record dimension
  if (file.dimensions.length === 0) h.absent();
  else {
    h.int(NC_DIMENSION);
    h.int(file.dimensions.length);
    for (const d of file.dimensions) {
      h.name(d.name);
      h.int(d.length);
    }
  }
  h.attributes(file.attributes);
  if (file.variables.length === 0) h.absent();
  else {
    h.int(NC_VARIABLE);
    h.int(file.variables.length);
    file.variables.forEach((v, i) => {
      h.name(v.name);
      h.int(v.dimensions.length);
      for (const d of v.dimensions) h.int(ids.get(d)!);
      h.attributes(v.attributes);
      h.int(TYPE_CODE[v.type]);
      h.uint(pad4(dataBytes(v, lengths)));
      h.offset(begins[i] ?? 0);
    });
  }
  return h.bytes();
}

/** Checks what would make an invalid file, a fault of the caller (names and sizes are the encoder's, not a client's). */
function validate(file: NcFile): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const d of file.dimensions) {
    if (!(Number.isInteger(d.length) && d.length > 0)) throw new Error(`netCDF dimension ${d.name}: length ${d.length} is not a positive integer`);
    if (lengths.has(d.name)) throw new Error(`netCDF dimension ${d.name} declared twice`);
    lengths.set(d.name, d.length);
  }
  const names = new Set<string>();
  for (const v of file.variables) {
    if (names.has(v.name)) throw new Error(`netCDF variable ${v.name} declared twice`);
    names.add(v.name);
    for (const d of v.dimensions) if (!lengths.has(d)) throw new Error(`netCDF variable ${v.name}: unknown dimension ${d}`);
    const count = v.dimensions.reduce((n, d) => n * lengths.get(d)!, 1);
    if (v.type === 'char') {
      const width = lengths.get(v.dimensions[v.dimensions.length - 1]!)!;
      if (v.strings.length * width !== count) throw new Error(`netCDF variable ${v.name}: ${v.strings.length} strings do not fill its dimensions`);
    } else if (v.values.length !== count) throw new Error(`netCDF variable ${v.name}: ${v.values.length} values for ${count} cells`);
    if (pad4(count * TYPE_SIZE[v.type]) > MAX_VSIZE) throw new Error(`netCDF variable ${v.name} is over 4 GiB`);
  }
  return lengths;
}

/** One variable's data, big-endian, padded to 4 bytes, in slices with turns of the event loop between them. */
async function* variableData(v: NcVariable, lengths: ReadonlyMap<string, number>, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const size = dataBytes(v, lengths);
  if (v.type === 'char') {
    const width = lengths.get(v.dimensions[v.dimensions.length - 1]!)!;
    for (let i = 0; i < v.strings.length; i += SLICE_VALUES) {
      const end = Math.min(v.strings.length, i + SLICE_VALUES);
      const b = Buffer.alloc((end - i) * width); // NUL padding
      for (let j = i; j < end; j++) b.write(v.strings[j]!, (j - i) * width, width, 'utf8');
      yield b;
      if (turnDue()) await takeTurn(signal);
    }
  } else {
    const fill = v.fill ?? (v.type === 'double' ? Number.NaN : -2147483647); // NC_FILL_INT
    for (let i = 0; i < v.values.length; i += SLICE_VALUES) {
      const end = Math.min(v.values.length, i + SLICE_VALUES);
      const b = Buffer.alloc((end - i) * TYPE_SIZE[v.type]);
      for (let j = i; j < end; j++) {
        const x = v.values[j];
        const value = x === null || x === undefined ? fill : x;
        if (v.type === 'double') b.writeDoubleBE(value, (j - i) * 8);
        else b.writeInt32BE(value, (j - i) * 4);
      }
      yield b;
      if (turnDue()) await takeTurn(signal);
    }
  }
  if (size % 4) yield Buffer.alloc(4 - (size % 4));
}

/**
 * The file's bytes in order: the header, then each variable's data at the offset the header gives it;
 * stops at a turn of the event loop once `signal` aborts.
 */
export async function* writeNetcdf3(file: NcFile, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const lengths = validate(file);
  const sizes = file.variables.map((v) => pad4(dataBytes(v, lengths)));
  // The header's length does not depend on the offsets it holds, only on their width.
  const layout = (version: 1 | 2): number[] => {
    let at = header(file, version, []).length;
    return sizes.map((s) => ((at += s), at - s));
  };
  let version: 1 | 2 = 1;
  let begins = layout(1);
  if (begins.some((b) => b > MAX_CLASSIC_OFFSET)) {
    version = 2;
    begins = layout(2);
  }
  yield header(file, version, begins);
  for (const v of file.variables) yield* variableData(v, lengths, signal);
}
