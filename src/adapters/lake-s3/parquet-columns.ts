/**
 * Parquet schema and values as the lake ports see them: column types in DuckDB's spelling (so
 * queryables, `svc_data_type` and filters read the same as on the DuckDB lake), hyparquet's
 * decoding options, and decoded values turned into the port's `LakeValue`s exactly as the DuckDB
 * adapter turns DuckDB's (timestamps as ISO strings at millisecond precision, big integers as
 * numbers when safe, NaN/Infinity as null, WKB and blobs as bytes).
 *
 * Internally timestamps are kept as microseconds since the epoch (numbers: exact to year 2255)
 * and dates as days, so filters compare at DuckDB's precision.
 */
import { gunzipSync, brotliDecompressSync, zstdDecompressSync } from 'node:zlib';
import type { Compressors, ParquetParsers, SchemaTree } from 'hyparquet';
import type { LakeValue } from '../../ports/lake-reader.js';

/** How to read one column's decoded values. */
export type Codec =
  | { kind: 'integer' | 'float' | 'string' | 'boolean' | 'blob' | 'timestamp' | 'date' | 'time' | 'uuid' | 'other' }
  | { kind: 'decimal'; scale: number }
  | { kind: 'list'; element: Codec }
  | { kind: 'struct'; fields: { name: string; codec: Codec }[] };

export interface ColumnSchema {
  name: string;
  /** DuckDB's name for the type (e.g. BIGINT, TIMESTAMP WITH TIME ZONE, VARCHAR[], STRUCT("xmin" DOUBLE, ...)). */
  type: string;
  codec: Codec;
}

const INT_NAMES: Record<string, string> = {
  INT_8: 'TINYINT',
  INT_16: 'SMALLINT',
  INT_32: 'INTEGER',
  INT_64: 'BIGINT',
  UINT_8: 'UTINYINT',
  UINT_16: 'USMALLINT',
  UINT_32: 'UINTEGER',
  UINT_64: 'UBIGINT',
};

const quoteField = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** One schema node as DuckDB's parquet reader types it. */
export function columnSchema(node: SchemaTree): ColumnSchema {
  const { type, codec } = typeOf(node);
  return { name: node.element.name, type, codec };
}

function typeOf(node: SchemaTree): { type: string; codec: Codec } {
  const e = node.element;
  const lt = e.logical_type;
  if (node.children.length > 0) {
    if (e.converted_type === 'LIST' || lt?.type === 'LIST') {
      const repeated = node.children[0]!;
      const elem = repeated.children.length === 1 ? repeated.children[0]! : repeated;
      const inner = typeOf(elem);
      return { type: `${inner.type}[]`, codec: { kind: 'list', element: inner.codec } };
    }
    if (e.converted_type === 'MAP' || e.converted_type === 'MAP_KEY_VALUE' || lt?.type === 'MAP') {
      const kv = node.children[0]!;
      const [k, v] = kv.children.map(typeOf);
      return { type: `MAP(${k?.type ?? 'VARCHAR'}, ${v?.type ?? 'VARCHAR'})`, codec: { kind: 'other' } };
    }
    const fields = node.children.map((c) => ({ name: c.element.name, ...typeOf(c) }));
    return { type: `STRUCT(${fields.map((f) => `${quoteField(f.name)} ${f.type}`).join(', ')})`, codec: { kind: 'struct', fields: fields.map((f) => ({ name: f.name, codec: f.codec })) } };
  }
  if (e.repetition_type === 'REPEATED') {
    // A legacy two-level list: a repeated primitive is a list of it.
    const inner = typeOf({ ...node, element: { ...e, repetition_type: 'OPTIONAL' } });
    return { type: `${inner.type}[]`, codec: { kind: 'list', element: inner.codec } };
  }
  switch (lt?.type) {
    case 'STRING':
    case 'JSON':
    case 'ENUM':
      return { type: 'VARCHAR', codec: { kind: 'string' } };
    case 'UUID':
      return { type: 'UUID', codec: { kind: 'uuid' } };
    case 'DECIMAL':
      return { type: `DECIMAL(${lt.precision},${lt.scale})`, codec: { kind: 'decimal', scale: lt.scale } };
    case 'DATE':
      return { type: 'DATE', codec: { kind: 'date' } };
    case 'TIME':
      return { type: lt.isAdjustedToUTC ? 'TIME WITH TIME ZONE' : 'TIME', codec: { kind: 'time' } };
    case 'TIMESTAMP':
      return { type: lt.isAdjustedToUTC ? 'TIMESTAMP WITH TIME ZONE' : lt.unit === 'NANOS' ? 'TIMESTAMP_NS' : 'TIMESTAMP', codec: { kind: 'timestamp' } };
    case 'INTEGER': {
      const bits = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT' }[lt.bitWidth as 8 | 16 | 32 | 64] ?? 'BIGINT';
      return { type: lt.isSigned ? bits : `U${bits}`, codec: { kind: 'integer' } };
    }
    case 'FLOAT16':
      return { type: 'FLOAT', codec: { kind: 'float' } };
    case 'GEOMETRY':
    case 'GEOGRAPHY':
      return { type: 'GEOMETRY', codec: { kind: 'blob' } };
  }
  const ct = e.converted_type;
  if (ct && INT_NAMES[ct]) return { type: INT_NAMES[ct], codec: { kind: 'integer' } };
  switch (ct) {
    case 'UTF8':
    case 'JSON':
    case 'ENUM':
      return { type: 'VARCHAR', codec: { kind: 'string' } };
    case 'DECIMAL':
      return { type: `DECIMAL(${e.precision ?? 18},${e.scale ?? 0})`, codec: { kind: 'decimal', scale: e.scale ?? 0 } };
    case 'DATE':
      return { type: 'DATE', codec: { kind: 'date' } };
    case 'TIMESTAMP_MILLIS':
    case 'TIMESTAMP_MICROS':
      return { type: 'TIMESTAMP', codec: { kind: 'timestamp' } };
    case 'TIME_MILLIS':
    case 'TIME_MICROS':
      return { type: 'TIME', codec: { kind: 'time' } };
    case 'INTERVAL':
      return { type: 'INTERVAL', codec: { kind: 'other' } };
  }
  return PHYSICAL.get(e.type) ?? { type: 'BLOB', codec: { kind: 'blob' } };
}

/** DuckDB's type and the decoding of each physical type that has no logical or converted type; any other is a BLOB. */
const PHYSICAL: ReadonlyMap<string | undefined, { type: string; codec: Codec }> = new Map([
  ['BOOLEAN', { type: 'BOOLEAN', codec: { kind: 'boolean' } }],
  ['INT32', { type: 'INTEGER', codec: { kind: 'integer' } }],
  ['INT64', { type: 'BIGINT', codec: { kind: 'integer' } }],
  ['INT96', { type: 'TIMESTAMP', codec: { kind: 'timestamp' } }],
  ['FLOAT', { type: 'FLOAT', codec: { kind: 'float' } }],
  ['DOUBLE', { type: 'DOUBLE', codec: { kind: 'float' } }],
]);

const text = new TextDecoder();

/** Timestamps as microseconds, dates as days, JSON as its text, geometry as WKB bytes. */
export const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms) * 1000,
  timestampFromMicroseconds: (us: bigint) => Number(us),
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1000n),
  dateFromDays: (days: number) => days,
  jsonFromBytes: (bytes: Uint8Array) => bytes && text.decode(bytes),
  geometryFromBytes: (bytes: Uint8Array) => bytes,
  geographyFromBytes: (bytes: Uint8Array) => bytes,
};

/** Codecs beyond hyparquet's built-in snappy, from node:zlib. LZ4 has none here: such files are refused with the codec's name. */
export const COMPRESSORS: Compressors = {
  GZIP: (input) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
  ZSTD: (input) => new Uint8Array(zstdDecompressSync(input)),
};

/** Read options shared by every hyparquet call: raw WKB, unannotated byte arrays as blobs. */
export const READ_OPTIONS = { parsers: PARSERS, compressors: COMPRESSORS, utf8: false, geoparquet: false } as const;

/** A decoded value in the filter's terms: numbers as doubles, timestamps and dates as microseconds. */
export function evalValue(v: unknown, codec: Codec): unknown {
  if (v === null || v === undefined) return null;
  switch (codec.kind) {
    case 'integer':
    case 'float':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'decimal':
      return decimal(v as number, codec.scale);
    case 'date':
      return (v as number) * 86_400_000_000;
    case 'list':
      return Array.isArray(v) ? v.map((x) => evalValue(x, codec.element)) : null;
    default:
      return v;
  }
}

/** hyparquet scales decimals by multiplying with 10^-scale; DuckDB divides the unscaled integer: same double then. */
function decimal(v: number | bigint, scale: number): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return scale === 0 ? n : Math.round(n * 10 ** scale) / 10 ** scale;
}

const iso = (ms: number): string => {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : String(ms);
};

function dateText(days: number): string {
  const d = new Date(days * 86_400_000);
  if (!Number.isFinite(d.getTime())) return String(days);
  const y = d.getUTCFullYear();
  const year = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : `${Math.abs(y < 1 ? 1 - y : y)}`;
  return `${year}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}${y < 1 ? ' (BC)' : ''}`;
}

function timeText(us: bigint | number): string {
  const total = typeof us === 'bigint' ? us : BigInt(Math.trunc(us * 1000));
  const micros = Number(total % 1_000_000n);
  const s = Number(total / 1_000_000n);
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}${micros ? `.${String(micros).padStart(6, '0')}` : ''}`;
}

/** The port's value, as the DuckDB adapter writes it (lake-values.ts there). */
export function toLakeValue(v: unknown, codec: Codec): LakeValue {
  if (v === null || v === undefined) return null;
  switch (codec.kind) {
    case 'timestamp':
      return iso(Math.trunc((v as number) / 1000));
    case 'date':
      return dateText(v as number);
    case 'decimal':
      return decimal(v as number, codec.scale);
    case 'time':
      return timeText(v as bigint);
    case 'list':
      return Array.isArray(v) ? v.map((x) => toLakeValue(x, codec.element)) : null;
    case 'struct': {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(codec.fields.map((f) => [f.name, toLakeValue(o[f.name], f.codec)]));
    }
  }
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (v instanceof Uint8Array) return v;
  return String(v);
}
