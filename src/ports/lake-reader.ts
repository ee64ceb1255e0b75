import type { Collection, Extent, FieldMeta } from '../domain/collection.js';
import type { Expr } from '../domain/cql2/index.js';
import type { TimeInterval } from '../domain/time-interval.js';
import type { KeyedZoneStats } from '../domain/aggregation/zone-points.js';
import type { ReportedCache } from './metrics.js';
import type { SourceVersion } from './source-version.js';

export type { Collection, FieldMeta } from '../domain/collection.js';

/**
 * Reads the rows of a parquet lake: `<lake root>/<collection id>/data/**\/*.parquet`.
 * Scan order is the files sorted by their path (code-point order), then the rows of each file
 * in stored order; item ids and `offset` count in that order.
 */
export interface LakeReader {
  /** Files, row counts and columns; throws LakeNotFoundError when the collection has no parquet files. */
  describe(collection: Collection): Promise<LakeDataset>;
  /** Field metadata from the parquet schema (the queryables). */
  fields(collection: Collection): Promise<Record<string, FieldMeta>>;
  /**
   * One page of rows of the filtered set, plus how many rows match in all. Throws
   * LakeQueryError when the filter needs more exact per-row geometry tests than the adapter's
   * bound allows (the hint names it).
   */
  page(collection: Collection, request: LakePageRequest): Promise<LakePage>;
  /** The same page written as a parquet file; `geo` adds GeoParquet metadata for the geometry column. */
  pageAsParquet(collection: Collection, request: LakePageRequest, geo: boolean): Promise<Uint8Array>;
  /**
   * Streams the filtered rows in chunks (columnar), in scan order, so a caller can aggregate
   * without holding the set in memory. Geometry arrives as WKB.
   */
  scan(collection: Collection, request: LakeScanRequest, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void>;
  /** Releases the engine and its scratch files; the reader may start again afterwards. */
  close(): Promise<void>;
  /**
   * Lakes on this machine's file system: what is missing of the collection's place, the lake
   * root or the collection's folder `<root>/<id>`; undefined when both exist (a folder without
   * files yet is there). Lakes elsewhere (an object store) do not check.
   */
  missingSource?(collection: Collection): Promise<'root' | 'folder' | undefined>;
  /**
   * The extent of the collection's rows as cheaply as the files give it: the union of their
   * GeoParquet bboxes (or of the bbox covering columns), and the datetime column's first and last
   * instants. Parts the files do not give are absent; undefined when the collection has no files.
   */
  extent?(collection: Collection, work?: LakeWork): Promise<Extent | undefined>;
  /** The caches the reader keeps, reported in the metrics. */
  caches?(): ReportedCache[];
  /**
   * The version of the collection's files as their listing gives it (names, sizes and
   * modification times on disk; keys and ETags in an object store), without reading them. Files
   * the reader would not scan do not count.
   */
  version?(collection: Collection): Promise<SourceVersion>;

  /*
   * Optional fast paths for zone aggregation. A reader that offers them answers exactly as
   * `scan` would (same rows, same order); a caller falls back to `scan` where they are absent.
   */

  /**
   * The rows `scan` would stream, as plain columns: each row's representative point (the point,
   * or the centroid of a line or polygon; NaN where the row has none) and each field as a number
   * (NaN where `scan` would give anything but a number), in batches, in scan order.
   */
  scanPoints?(collection: Collection, request: LakePointScanRequest, onBatch: (batch: PointBatch) => void | Promise<void>): Promise<void>;
  /** Levels of grid `dggrsId` whose zone-key columns (written by `npm run ingest`) every file of the collection holds. */
  zoneKeyLevels?(collection: Collection, dggrsId: string): Promise<number[]>;
  /**
   * Per-zone statistics of the filtered rows (the rows `scan` would stream), grouped by the stored
   * zone-key column of `level`, computed by the engine. Only for levels `zoneKeyLevels` lists.
   * Undefined when the engine cannot settle every row alone (the caller bins the rows itself).
   */
  zoneKeyStats?(collection: Collection, request: ZoneKeyStatsRequest): Promise<KeyedZoneStats | undefined>;
}

/** Which rows take part; every part is optional and they combine with AND. */
export interface RowFilter {
  /**
   * [west, south, east, north] CRS84; west > east crosses the antimeridian. For `page`: rows
   * whose geometry intersects the box, exactly (as CQL2 S_INTERSECTS); for `scan`, see there.
   */
  bbox?: [number, number, number, number];
  /** On the collection's datetime column. */
  datetime?: TimeInterval;
  /** CQL2 over the parquet columns. */
  filter?: Expr;
}

/**
 * Who asks, for how long: every request of the reader may carry these. When `signal` aborts, the
 * reader stops the work (the running query, the store's reads, the loops between them) and
 * rejects with `signal.reason`, soon after; the reader stays usable.
 */
export interface LakeWork {
  signal?: AbortSignal;
  /**
   * The class of work the request is counted under when the engine is shared (e.g. `items`,
   * `zone-data`, `zone-filter`): classes take turns, so one class's requests cannot hold every
   * query slot while another's wait. Requests without one share a default class.
   */
  workClass?: string;
}

export interface LakePageRequest extends RowFilter, LakeWork {
  offset: number;
  limit: number;
  /** Columns to return, in this order; every one exists (the use case checked). */
  columns: string[];
}

/** For `scan`, `bbox` is an envelope prefilter only (exact for points): callers that bin rows by a point decide the rest. */
export interface LakeScanRequest extends RowFilter, LakeWork {
  columns: string[];
}

export interface LakePointScanRequest extends RowFilter, LakeWork {
  /** Numeric columns, in the order `PointBatch.values` holds them. */
  fields: string[];
  /** Also give each row's instant of the collection's datetime column (`PointBatch.time`). */
  time?: boolean;
}

export interface PointBatch {
  size: number;
  /** Longitude and latitude of each row's representative point (NaN: the row has no place). */
  x: Float64Array;
  y: Float64Array;
  /** One array per requested field. The caller may keep or transfer every array. */
  values: Float64Array[];
  /** With `time` asked: each row's instant of the datetime column, epoch ms (NaN: null, or no datetime column). */
  time?: Float64Array;
}

export interface ZoneKeyStatsRequest extends RowFilter, LakeWork {
  dggrsId: string;
  level: number;
  /** Fields to get count, valid, min, max, mean and stdDev of. */
  fields: string[];
  /** Fields to get the (exact) median of as well. */
  medians: string[];
}

export interface LakeFileInfo {
  /** Path relative to the lake root, `/`-separated. */
  file: string;
  rows: number;
}

export interface LakeColumn {
  name: string;
  /** The engine's type name (DuckDB's, e.g. DOUBLE, TIMESTAMP, GEOMETRY). */
  type: string;
  field: FieldMeta;
  /** Offered as a field (queryable); false for e.g. the GeoParquet bbox covering struct, which rows omit by default. */
  queryable: boolean;
}

export interface LakeDataset {
  collectionId: string;
  /** The glob read, relative to the lake root (`<id>/data/**\/*.parquet`). */
  source: string;
  files: LakeFileInfo[];
  columns: LakeColumn[];
  totalRows: number;
  geometryColumn?: string;
  datetimeColumn?: string;
}

/** A value as read: WKB geometry and blobs as bytes, timestamps as ISO strings, big integers as numbers when safe. */
export type LakeValue = null | boolean | number | string | Uint8Array | LakeValue[] | { [key: string]: LakeValue };

export interface LakeRow {
  /** 0-based index within the filtered set, in scan order. */
  index: number;
  values: Record<string, LakeValue>;
}

export interface LakePage {
  numberMatched: number;
  rows: LakeRow[];
}

export interface LakeChunk {
  size: number;
  /** One array per requested column, each `size` long. */
  columns: Record<string, LakeValue[]>;
}

/** The collection has no parquet files under its prefix. */
export class LakeNotFoundError extends Error {
  override readonly name = 'LakeNotFoundError';
}

/** What `work` gives, or undefined when the collection has no files yet (every lake reads that as no queryables). */
export function unlessNoFiles<T>(work: Promise<T>): Promise<T | undefined> {
  return work.catch((e: unknown) => {
    if (e instanceof LakeNotFoundError) return undefined;
    throw e;
  });
}

/** A request the lake cannot answer as asked (unknown column, unusable filter); `hint` says how to fix it. */
export class LakeQueryError extends Error {
  override readonly name = 'LakeQueryError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * A row filter as one CQL2 tree (bbox as S_INTERSECTS on the geometry column, datetime as bounds on
 * the datetime column, AND the filter), so every lake binds and checks all three the same way.
 */
export function rowFilterExpr(dataset: Pick<LakeDataset, 'geometryColumn' | 'datetimeColumn'>, f: RowFilter): Expr | undefined {
  const parts: Expr[] = [];
  if (f.bbox) {
    const g = dataset.geometryColumn;
    if (!g) throw new LakeQueryError('Invalid parameter', 'bbox needs a geometry column, and this collection has none.');
    parts.push({ kind: 'spatial', op: 's_intersects', left: { kind: 'property', name: g }, right: { kind: 'bbox', bbox: [...f.bbox] } });
  }
  if (f.datetime) {
    const col = dataset.datetimeColumn;
    if (!col) throw new LakeQueryError('Invalid parameter', 'datetime needs a datetime column, and this collection has none.');
    const ts = (ms: number): Expr => ({ kind: 'timestamp', value: new Date(ms).toISOString().replace('.000Z', 'Z') });
    if (f.datetime.start !== null) parts.push({ kind: 'comparison', op: '>=', left: { kind: 'property', name: col }, right: ts(f.datetime.start) });
    if (f.datetime.end !== null) parts.push({ kind: 'comparison', op: '<=', left: { kind: 'property', name: col }, right: ts(f.datetime.end) });
  }
  if (f.filter) parts.push(f.filter);
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0]! : { kind: 'and', args: parts };
}
