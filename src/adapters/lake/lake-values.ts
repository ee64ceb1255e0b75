/** DuckDB values to the port's plain values (JSON-friendly except WKB/blobs, which stay bytes). */
import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBGeometryValue,
  DuckDBListValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBArrayValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { LakeValue } from '../../ports/lake-reader.js';

const iso = (ms: number): string => {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : String(ms);
};

export function toLakeValue(v: DuckDBValue): LakeValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null; // NaN/Infinity have no JSON form
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (v instanceof DuckDBBlobValue || v instanceof DuckDBGeometryValue) return v.bytes;
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return iso(Number(v.micros / 1000n));
  if (v instanceof DuckDBTimestampMillisecondsValue) return iso(Number(v.millis));
  if (v instanceof DuckDBTimestampSecondsValue) return iso(Number(v.seconds) * 1000);
  if (v instanceof DuckDBTimestampNanosecondsValue) return iso(Number(v.nanos / 1_000_000n));
  if (v instanceof DuckDBDateValue) return v.toString();
  if (v instanceof DuckDBDecimalValue) return v.toDouble();
  if (v instanceof DuckDBListValue || v instanceof DuckDBArrayValue) return v.items.map(toLakeValue);
  if (v instanceof DuckDBStructValue) return Object.fromEntries(Object.entries(v.entries).map(([k, x]) => [k, toLakeValue(x)]));
  return String(v);
}
