/**
 * Rows as plain numbers for aggregation: each row's representative point and its numeric fields
 * read through DuckDB's column vectors as doubles, never as per-row values or objects.
 *
 * The point comes from the cheapest place that gives exactly what the row-by-row path computes
 * (`pointOfWkb` in the domain's wkb-point.ts, the WKB decoded):
 * - a lake whose every file declares only Point geometries and a DOUBLE bbox covering: the
 *   covering's xmin/ymin (a point's bbox is the point), so the geometry column is not read;
 * - otherwise 2D WKB points (21 bytes, either byte order) have their x and y sliced out in SQL as
 *   8-byte blobs, which DuckDB keeps inline in the vector (no per-row copy); only other
 *   geometries (lines, polygons, Z/M, EWKB) arrive whole, and their centroid is read from the
 *   bytes without decoding them into arrays.
 * Fields become DOUBLE in SQL with NaN wherever the row-by-row path would see anything but a
 * number (null, NaN/Infinity, integers beyond 2^53), so a batch holds no nulls.
 */
import { DuckDBBlobVector, type DuckDBDataChunk } from '@duckdb/node-api';
import { WkbPointReader } from '../../domain/aggregation/wkb-point.js';
import { q } from './duckdb-sql-text.js';
import type { Described, GeoMetadata } from './lake-schema.js';

/** Where the points come from: covering column references, or the WKB expression. */
export type PointSource = { kind: 'covering'; xmin: string; ymin: string; xmax: string; ymax: string } | { kind: 'wkb'; wkb: string };

const POINT_TYPES = /^Point( Z| M| ZM)?$/;

/**
 * The covering when every file says its geometries are points and its covering is DOUBLE
 * (`leafTypes`: per file, the physical type of each schema path), else the WKB.
 */
export function pointSource(d: Described, files: { geo?: GeoMetadata; leafTypes?: Map<string, string> }[]): PointSource {
  const g = d.dataset.geometryColumn!;
  const wkb = d.types.find((t) => t.name === g)?.type.startsWith('GEOMETRY') ? `st_aswkb(${q(g)})` : q(g);
  const cover = d.cql2[g]?.bbox;
  const pointsOnly = files.every((f) => {
    const types = f.geo?.columns?.[g]?.geometry_types ?? [];
    return types.length > 0 && types.every((t) => POINT_TYPES.test(t));
  });
  const paths = cover ? [cover.xmin, cover.ymin, cover.xmax, cover.ymax].map((p) => (typeof p === 'string' ? [p] : [...p])) : [];
  const doubles = paths.length === 4 && files.every((f) => paths.every((p) => f.leafTypes?.get(p.join('.')) === 'DOUBLE'));
  if (!cover || !pointsOnly || !doubles) return { kind: 'wkb', wkb };
  const [xmin, ymin, xmax, ymax] = paths.map((p) => p.map(q).join('.')) as [string, string, string, string];
  return { kind: 'covering', xmin, ymin, xmax, ymax };
}

/** Select items for the point (always first in the select list); `pointColumnCount` of them. */
export function pointSelect(src: PointSource): string[] {
  if (src.kind === 'covering') {
    const single = `(${src.xmin} = ${src.xmax} AND ${src.ymin} = ${src.ymax})`;
    return [`CASE WHEN ${single} THEN ${src.xmin}::DOUBLE ELSE 'NaN'::DOUBLE END AS __px`, `CASE WHEN ${single} THEN ${src.ymin}::DOUBLE ELSE 'NaN'::DOUBLE END AS __py`];
  }
  const g = src.wkb;
  const header = `array_slice(${g}, 1, 5)`;
  const little = `(octet_length(${g}) = 21 AND ${header} = '\\x01\\x01\\x00\\x00\\x00'::BLOB)`;
  const big = `(octet_length(${g}) = 21 AND ${header} = '\\x00\\x00\\x00\\x00\\x01'::BLOB)`;
  return [
    `CASE WHEN ${little} THEN 1 WHEN ${big} THEN 2 ELSE 0 END::TINYINT AS __pk`,
    `CASE WHEN ${little} OR ${big} THEN array_slice(${g}, 6, 13) END AS __pxb`,
    `CASE WHEN ${little} OR ${big} THEN array_slice(${g}, 14, 21) END AS __pyb`,
    `CASE WHEN NOT (${little} OR ${big}) THEN ${g} END AS __pg`,
  ];
}

export const pointColumnCount = (src: PointSource): number => (src.kind === 'covering' ? 2 : 4);

const INT_SMALL = /^(TINYINT|SMALLINT|INTEGER|UTINYINT|USMALLINT|UINTEGER)$/;
const INT_BIG = /^(BIGINT|HUGEINT|UBIGINT|UHUGEINT)$/;

/**
 * A numeric column as DOUBLE, NULL where the row-by-row path sees no number: NaN/Infinity (read
 * as null) and integers beyond 2^53 (read as strings). `type` is DuckDB's type name.
 */
export function numberSql(column: string, type: string): string {
  const c = q(column);
  if (INT_SMALL.test(type) || type.startsWith('DECIMAL')) return `${c}::DOUBLE`;
  if (INT_BIG.test(type)) return `CASE WHEN ${c} BETWEEN -9007199254740991 AND 9007199254740991 THEN ${c}::DOUBLE END`;
  return `CASE WHEN isfinite(${c}) THEN ${c}::DOUBLE END`;
}

/** As `numberSql`, with NaN for NULL: batches then carry no validity. */
export const numberOrNaNSql = (column: string, type: string): string => `coalesce(${numberSql(column, type)}, 'NaN'::DOUBLE)`;

const wkbPoints = new WkbPointReader();

/** Reads the points of a chunk's rows (the point columns start at column 0). */
export class PointReader {
  private readonly scratch = new Uint8Array(8);
  private readonly little = new DataView(this.scratch.buffer);

  constructor(private readonly src: PointSource) {}

  /** Writes x/y of rows `rows` (all rows when undefined) at `at` onwards; returns the count written. */
  read(chunk: DuckDBDataChunk, rows: readonly number[] | undefined, x: Float64Array, y: Float64Array, at: number): number {
    const n = rows ? rows.length : chunk.rowCount;
    if (this.src.kind === 'covering') {
      const xs = chunk.getColumnVector(0), ys = chunk.getColumnVector(1);
      for (let k = 0; k < n; k++) {
        const i = rows ? rows[k]! : k;
        x[at + k] = (xs.getItem(i) as number | null) ?? NaN;
        y[at + k] = (ys.getItem(i) as number | null) ?? NaN;
      }
      return n;
    }
    const kinds = chunk.getColumnVector(0);
    const xb = chunk.getColumnVector(1) as DuckDBBlobVector, yb = chunk.getColumnVector(2) as DuckDBBlobVector, gb = chunk.getColumnVector(3) as DuckDBBlobVector;
    for (let k = 0; k < n; k++) {
      const i = rows ? rows[k]! : k;
      const kind = kinds.getItem(i) as number;
      if (kind === 1 || kind === 2) {
        x[at + k] = this.double(xb.getItemBytes(i)!, kind === 1);
        y[at + k] = this.double(yb.getItemBytes(i)!, kind === 1);
        continue;
      }
      const bytes = gb.getItemBytes(i);
      const found = bytes !== null && wkbPoints.read(bytes);
      x[at + k] = found ? wkbPoints.point[0]! : NaN;
      y[at + k] = found ? wkbPoints.point[1]! : NaN;
    }
    return n;
  }

  /** An 8-byte slice (a view into the vector, inline) as a double; NaN coordinates mean an empty point, as for the WKB reader. */
  private double(bytes: Uint8Array, little: boolean): number {
    this.scratch.set(bytes);
    return this.little.getFloat64(0, little);
  }
}

/** Reads DOUBLE columns `first..first+count-1` of a chunk's rows into `out[k]` at `at`. */
export function readNumbers(chunk: DuckDBDataChunk, first: number, rows: readonly number[] | undefined, out: readonly Float64Array[], at: number): void {
  const n = rows ? rows.length : chunk.rowCount;
  out.forEach((into, f) => {
    const v = chunk.getColumnVector(first + f);
    for (let k = 0; k < n; k++) into[at + k] = (v.getItem(rows ? rows[k]! : k) as number | null) ?? NaN;
  });
}
