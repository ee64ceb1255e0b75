/**
 * LakeReader on an S3-compatible object store: `s3://bucket/prefix/<collection>/data/**\/*.parquet`,
 * read with hyparquet through ranged GETs only. Same answers as the DuckDB lake (scan order,
 * paging, numberMatched, filters: see compiled-filter.ts), different costs:
 *
 * - Listing: one LIST per collection, kept `listCacheMs` (new or changed objects show after it).
 * - Footers: the tail of each file (`footerReadBytes`, one more read when the footer is longer),
 *   kept in an LRU bounded by bytes (`footerCacheBytes`), keyed by the object's ETag, size and
 *   time, so a changed object is read anew.
 * - Rows: only the row groups a request needs, and of them only the needed column chunks. An
 *   unfiltered page reads the row groups that hold it. A filtered page reads the filter's columns
 *   of every row group the statistics cannot rule out (the GeoParquet bbox covering for bbox and
 *   spatial predicates, min/max for datetime and comparisons), counts the matches, and then
 *   reads the page's columns of the row groups that hold the page. A scan streams row group by
 *   row group. Memory per request is a few row groups' needed columns (the one at work and up
 *   to READ_AHEAD read ahead, so the store's latency overlaps the work), plus the page.
 *
 * Bounds, checked before any row data is fetched (from the footers): bytes a request may read
 * (`maxRequestBytes`), rows a page request may test in JS to count its matches
 * (`maxFilterRows`; DuckDB does this work natively, here it is ours), and, while testing, exact
 * geometry tests (`maxExactGeometryTests`, as on the DuckDB lake: points against rectangles do
 * not count). Every refusal is a LakeQueryError whose hint names the bound.
 *
 * A request's `signal` aborts its reads in flight (and those read ahead) and stops testing and
 * streaming at the next row group or slice; the request rejects with the signal's reason.
 */
import { createHash } from 'node:crypto';
import { parquetMetadata, parquetRead, parquetSchema, type AsyncBuffer, type FileMetaData, type RowGroup } from 'hyparquet';
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { ReportedCache } from '../../ports/metrics.js';
import { byLakePath, consistentGeo, coveringOf, fieldMeta, geoMetadataJson, isLakeDataPath, LAKE_ID, lakeFields, queryableKind, type GeoMetadata } from '../../domain/lake/lake-columns.js';
import { envelope } from '../../domain/geometry/geojson.js';
import { decodeWkb } from '../../domain/geometry/wkb.js';
import {
  LakeNotFoundError,
  LakeQueryError,
  rowFilterExpr,
  unlessNoFiles,
  type LakeChunk,
  type LakeDataset,
  type LakePage,
  type LakePageRequest,
  type LakeReader,
  type LakeRow,
  type LakeScanRequest,
  type LakeValue,
  type LakeWork,
  type RowFilter,
} from '../../ports/lake-reader.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { ByteLru } from '../../domain/byte-lru.js';
import type { SourceVersion } from '../../ports/source-version.js';
import { compileFilter, FilterCompileError, type ColumnStats, type CompiledFilter, type FilterColumns, type RowBatch } from './compiled-filter.js';
import { columnSchema, evalValue, READ_OPTIONS, toLakeValue, type Codec, type ColumnSchema } from './parquet-columns.js';
import { writePageParquet } from './page-parquet.js';
import { ByteBudget, ByteBudgetError, parseS3Root, S3Objects, TooManyObjectsError, type ObjectInfo, type S3LakeOptions } from './s3-objects.js';

export interface S3LakeLimits {
  /** Exact geometry tests (not points against rectangles) per request. */
  maxExactGeometryTests: number;
  /** Bytes one request may read from the store (footers and column chunks). */
  maxRequestBytes: number;
  /** Rows one page request may test in JS to count its matches. */
  maxFilterRows: number;
  /** Objects under one collection prefix. */
  maxObjects: number;
  footerCacheBytes: number;
  footerReadBytes: number;
  listCacheMs: number;
}

export const S3_LAKE_DEFAULTS: S3LakeLimits = {
  maxExactGeometryTests: 100_000,
  maxRequestBytes: 256 * 1024 * 1024,
  maxFilterRows: 5_000_000,
  maxObjects: 100_000,
  footerCacheBytes: 64 * 1024 * 1024,
  footerReadBytes: 64 * 1024,
  listCacheMs: 5_000,
};

/** Rows per chunk handed to a scan's consumer (DuckDB's vector size). */
const CHUNK_ROWS = 2048;
/** Row groups read ahead of the one being tested or streamed. */
const READ_AHEAD = 4;
/** Directory levels below `data/` that are read (as the DuckDB lake's walk). */
const MAX_DEPTH = 16;

interface LakeFile {
  object: ObjectInfo;
  relative: string;
  metadata: FileMetaData;
  /** Top-level column names of this file. */
  names: Set<string>;
}

interface Described {
  dataset: LakeDataset;
  files: LakeFile[];
  columns: ColumnSchema[];
  byName: Map<string, ColumnSchema>;
  filterColumns: FilterColumns;
  geo?: GeoMetadata;
}

/** One row group of one file, in scan order. */
interface GroupRef {
  file: LakeFile;
  index: number;
  /** First row of the group within its file. */
  start: number;
  rows: number;
}

export class S3ParquetLake implements LakeReader {
  private readonly bucket: string;
  private readonly prefix: string;
  private objects?: S3Objects;
  private readonly footers: ByteLru<string, Uint8Array>;
  private readonly listings = new Map<string, { at: number; files: Promise<ObjectInfo[]> }>();
  private readonly limits: S3LakeLimits;

  constructor(
    root: string,
    private readonly options: S3LakeOptions,
    limits: Partial<S3LakeLimits> = {},
  ) {
    ({ bucket: this.bucket, prefix: this.prefix } = parseS3Root(root));
    this.limits = { ...S3_LAKE_DEFAULTS, ...limits };
    this.footers = new ByteLru(this.limits.footerCacheBytes);
  }

  private store(): S3Objects {
    this.objects ??= new S3Objects(this.bucket, this.options);
    return this.objects;
  }

  async close(): Promise<void> {
    this.objects?.close();
    this.objects = undefined;
    this.listings.clear();
  }

  /** Bytes the footer cache holds now. */
  get footerCacheBytes(): number {
    return this.footers.bytes;
  }

  caches(): ReportedCache[] {
    return [{ name: 's3_footers', stats: () => this.footers.stats() }];
  }

  async describe(collection: Collection): Promise<LakeDataset> {
    return (await this.described(collection, new ByteBudget(this.limits.maxRequestBytes))).dataset;
  }

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const d = await unlessNoFiles(this.described(collection, new ByteBudget(this.limits.maxRequestBytes)));
    return d ? lakeFields(d.columns, d.dataset.geometryColumn, d.geo) : {};
  }

  private keyPrefix(id: string): string {
    return `${this.prefix ? `${this.prefix}/` : ''}${id}/data/`;
  }

  private async list(id: string): Promise<ObjectInfo[]> {
    const now = Date.now();
    const cached = this.listings.get(id);
    if (cached && now - cached.at < this.limits.listCacheMs) return cached.files;
    const files = this.guard(() => this.store().list(this.keyPrefix(id), this.limits.maxObjects));
    this.listings.set(id, { at: now, files });
    files.catch(() => this.listings.delete(id));
    if (this.listings.size > 1024) this.listings.clear();
    return files;
  }

  /** The collection's data files in scan order, from the (cached) listing. */
  private async dataObjects(id: string, signal?: AbortSignal): Promise<{ object: ObjectInfo; below: string; relative: string }[]> {
    if (!LAKE_ID.test(id)) throw new LakeQueryError('Invalid collection id', 'Collection ids are letters, digits, "_", "." and "-".');
    const dataPrefix = this.keyPrefix(id);
    const rootPrefix = this.prefix ? `${this.prefix}/` : '';
    // The listing is shared by the requests of its time: one request leaving does not abort it.
    return (await untilAborted(this.list(id), signal))
      .map((object) => ({ object, below: object.key.slice(dataPrefix.length), relative: object.key.slice(rootPrefix.length) }))
      .filter((o) => o.object.key.startsWith(dataPrefix) && isLakeDataPath(o.below) && o.below.split('/').length <= MAX_DEPTH + 1)
      .sort(byLakePath);
  }

  /** The data files' keys and versions (ETag, size, time) from the listing, which is kept `listCacheMs`. */
  async version(collection: Collection): Promise<SourceVersion> {
    const objects = await this.dataObjects(collection.id);
    const hash = createHash('sha256');
    let modifiedMs: number | undefined;
    for (const { object } of objects) {
      hash.update(`${object.key}\0${object.version}\n`);
      if (object.modifiedMs !== undefined) modifiedMs = Math.max(modifiedMs ?? 0, object.modifiedMs);
    }
    return { id: hash.digest('base64url'), ...(modifiedMs !== undefined ? { modifiedMs } : {}) };
  }

  private async described(collection: Collection, budget: ByteBudget, signal?: AbortSignal): Promise<Described> {
    const id = collection.id;
    const objects = await this.dataObjects(id, signal);
    if (objects.length === 0) throw new LakeNotFoundError(`no parquet files for ${id}`);
    const files: LakeFile[] = await Promise.all(
      objects.map(async (o) => {
        const metadata = await this.footer(o.object, budget, signal);
        return { object: o.object, relative: o.relative, metadata, names: new Set(parquetSchema(metadata).children.map((c) => c.element.name)) };
      }),
    );
    // Columns by name over all files, in order of first appearance (DuckDB's union_by_name).
    const byName = new Map<string, ColumnSchema>();
    for (const f of files) for (const node of parquetSchema(f.metadata).children) if (!byName.has(node.element.name)) byName.set(node.element.name, columnSchema(node));
    const columns = [...byName.values()];
    const geo = consistentGeo(files.map((f) => geoOf(f.metadata)));
    const backing = collection.backing.kind === 'parquet-lake' ? collection.backing : undefined;
    const geometryColumn = [backing?.geometryColumn, geo?.primary_column].find((g): g is string => !!g && byName.has(g));
    const datetimeColumn = backing?.datetimeColumn && byName.has(backing.datetimeColumn) ? backing.datetimeColumn : undefined;
    const list = files.map((f) => ({ file: f.relative, rows: Number(f.metadata.num_rows) }));
    const dataset: LakeDataset = {
      collectionId: id,
      source: `${id}/data/**/*.parquet`,
      files: list,
      columns: columns.map((c) => {
        const field = fieldMeta(c, geometryColumn, geo);
        return { name: c.name, type: c.type, field: field ?? { title: c.name, type: 'object' as const, svc_data_type: c.type }, queryable: field !== undefined };
      }),
      totalRows: list.reduce((s, f) => s + f.rows, 0),
      ...(geometryColumn ? { geometryColumn } : {}),
      ...(datetimeColumn ? { datetimeColumn } : {}),
    };
    const covering = coveringOf(columns, geometryColumn, geo);
    const filterColumns: Record<string, FilterColumns[string]> = {};
    for (const c of columns) {
      const kind = queryableKind(c, geometryColumn);
      if (!kind) continue;
      const element = c.codec.kind === 'list' ? queryableKind({ name: '', type: c.type.slice(0, -2) }, undefined) : undefined;
      filterColumns[c.name] = { kind, ...(element ? { element } : {}), ...(kind === 'geometry' && covering ? { covering } : {}), ...(c.type === 'FLOAT' || c.type === 'DOUBLE' ? { float: true } : {}) };
    }
    return { dataset, files, columns, byName, filterColumns, ...(geo ? { geo } : {}) };
  }

  /** The file's parsed footer; its raw bytes are what the cache keeps. */
  private async footer(o: ObjectInfo, budget: ByteBudget, signal?: AbortSignal): Promise<FileMetaData> {
    const cacheKey = `${o.key}\u0000${o.version}`;
    let raw = this.footers.get(cacheKey);
    if (!raw) {
      raw = await this.guard(() => this.readFooter(o, budget, signal));
      this.footers.set(cacheKey, raw, raw.byteLength);
    }
    try {
      return parquetMetadata(raw, READ_OPTIONS);
    } catch (e) {
      throw new Error(`unreadable parquet footer in ${o.key}: ${(e as Error).message}`);
    }
  }

  private async readFooter(o: ObjectInfo, budget: ByteBudget, signal?: AbortSignal): Promise<Uint8Array> {
    if (o.size < 12) throw new Error(`${o.key} is too short to be parquet`);
    const tailStart = Math.max(0, o.size - this.limits.footerReadBytes);
    const tail = await this.store().range(o.key, tailStart, o.size, budget, signal);
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    if (view.getUint32(tail.byteLength - 4, true) !== 0x31524150) throw new Error(`${o.key} is not parquet (no PAR1 footer)`);
    const need = view.getUint32(tail.byteLength - 8, true) + 8;
    if (need > o.size - 4) throw new Error(`${o.key}: parquet footer length ${need} exceeds the file`);
    if (need <= tail.byteLength) return tail.slice(tail.byteLength - need);
    const head = await this.store().range(o.key, o.size - need, tailStart, budget, signal);
    const out = new Uint8Array(need);
    out.set(head, 0);
    out.set(tail, head.byteLength);
    return out;
  }

  /** Store failures as the port's errors where they are the request's doing. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.mapError(e);
    }
  }

  private mapError(e: unknown): unknown {
    if (e instanceof ByteBudgetError) return tooCostly(`this request would read more than ${e.budget} bytes from the object store, at most ${e.budget} per request (lake.s3.maxRequestBytes)`);
    if (e instanceof TooManyObjectsError) return tooCostly(`the collection prefix holds more than ${e.max} objects, at most ${e.max} are listed (lake.s3.maxObjects)`);
    return e;
  }

  // ---- filters and planning ----

  /** The row filter as one compiled predicate over the parquet columns. */
  private filterOf(d: Described, f: RowFilter): CompiledFilter | undefined {
    const expr = rowFilterExpr(d.dataset, f);
    if (!expr) return undefined;
    try {
      return compileFilter(expr, d.filterColumns);
    } catch (e) {
      if (e instanceof FilterCompileError) throw new LakeQueryError('Invalid filter', e.message);
      throw e;
    }
  }

  private checkColumns(d: Described, columns: string[]): void {
    const valid = d.columns.map((x) => x.name).join(', ');
    if (columns.length === 0) throw new LakeQueryError('Invalid parameter', `no columns selected; valid columns are: ${valid}`);
    for (const name of columns) if (!d.byName.has(name)) throw new LakeQueryError('Invalid parameter', `unknown column "${name.slice(0, 64)}"; valid columns are: ${valid}`);
  }

  /** Row groups in scan order, less those whose statistics rule out every row. */
  private groups(d: Described, keep?: (file: LakeFile, group: RowGroup) => boolean): GroupRef[] {
    const out: GroupRef[] = [];
    for (const file of d.files) {
      let start = 0;
      file.metadata.row_groups.forEach((g, index) => {
        const rows = Number(g.num_rows);
        if (rows > 0 && (!keep || keep(file, g))) out.push({ file, index, start, rows });
        start += rows;
      });
    }
    return out;
  }

  private pruner(d: Described, filter: CompiledFilter | undefined): ((file: LakeFile, group: RowGroup) => boolean) | undefined {
    if (!filter) return undefined;
    return (file, group) => !filter.canSkip(statsReader(d, file, group));
  }

  /** Compressed bytes of these columns in these row groups: what reading them costs. */
  private bytesOf(groups: GroupRef[], columns: Iterable<string>): number {
    const wanted = new Set(columns);
    let n = 0;
    for (const g of groups) for (const c of g.file.metadata.row_groups[g.index]!.columns) if (wanted.has(c.meta_data?.path_in_schema[0] ?? '')) n += Number(c.meta_data?.total_compressed_size ?? 0);
    return n;
  }

  private checkBytes(budget: ByteBudget, planned: number): void {
    if (budget.used + planned > budget.limit) {
      throw tooCostly(`this request would read ${budget.used + planned} bytes from the object store, at most ${budget.limit} per request (lake.s3.maxRequestBytes)`);
    }
  }

  private checkExactTests(filter: CompiledFilter): void {
    if (filter.exactTests > this.limits.maxExactGeometryTests) {
      throw new LakeQueryError(
        'Filter too costly',
        `more than ${this.limits.maxExactGeometryTests} rows need the exact geometry test, at most ${this.limits.maxExactGeometryTests} per request (the bound). Points against a bbox or rectangle are settled cheaply; narrow bbox or datetime, or add conditions on other columns.`,
      );
    }
  }

  // ---- reading ----

  private asyncBuffer(file: LakeFile, budget: ByteBudget, signal: AbortSignal | undefined): AsyncBuffer {
    const store = this.store();
    return {
      byteLength: file.object.size,
      slice: async (start: number, end?: number) => {
        const bytes = await store.range(file.object.key, start, end ?? file.object.size, budget, signal);
        return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);
      },
    };
  }

  /** Columns of rows [from, to) of one row group (group-relative), as decoded arrays; columns a file lacks read as NULL. */
  private async readGroup(g: GroupRef, columns: string[], budget: ByteBudget, signal: AbortSignal | undefined, from = 0, to = g.rows): Promise<Record<string, unknown[]>> {
    const present = columns.filter((c) => g.file.names.has(c));
    const out: Record<string, unknown[]> = {};
    for (const c of columns) out[c] = new Array<unknown>(to - from).fill(null);
    if (present.length === 0 || to <= from) return out;
    const rowStart = g.start + from;
    await this.guard(() =>
      parquetRead({
        ...READ_OPTIONS,
        file: this.asyncBuffer(g.file, budget, signal),
        metadata: g.file.metadata,
        columns: present,
        rowStart,
        rowEnd: g.start + to,
        onChunk: (chunk) => {
          const target = out[chunk.columnName];
          if (!target) return;
          const data = chunk.columnData;
          for (let k = 0; k < data.length; k++) {
            const at = chunk.rowStart + k - rowStart;
            if (at >= 0 && at < target.length) target[at] = data[k];
          }
        },
      }),
    );
    return out;
  }

  /** The filter's columns of one row group, in the filter's terms. */
  private evalBatch(d: Described, raw: Record<string, unknown[]>, columns: string[]): RowBatch {
    const batch: RowBatch = { columns: {} };
    for (const name of columns) {
      const codec = d.byName.get(name)!.codec;
      const values = raw[name]!;
      batch.columns[name] = needsEval(codec) ? values.map((v) => evalValue(v, codec)) : values;
    }
    return batch;
  }

  // ---- the port ----

  async page(collection: Collection, req: LakePageRequest): Promise<LakePage> {
    return stopping(req, async () => {
      const budget = new ByteBudget(this.limits.maxRequestBytes);
      const d = await this.described(collection, budget, req.signal);
      const filter = this.filterOf(d, req);
      this.checkColumns(d, req.columns);
      const located = filter ? await this.locateFiltered(d, filter, req, budget) : this.locate(d, req);
      const rows = await this.fetchRows(d, located.at, req, budget);
      return { numberMatched: located.numberMatched, rows };
    });
  }

  /** Unfiltered: the page's rows by arithmetic over the row counts. */
  private locate(d: Described, req: LakePageRequest): { numberMatched: number; at: { group: GroupRef; rows: number[] }[] } {
    const groups = this.groups(d);
    const numberMatched = groups.reduce((s, g) => s + g.rows, 0);
    const at: { group: GroupRef; rows: number[] }[] = [];
    let skip = req.offset;
    let want = req.limit;
    for (const g of groups) {
      if (want <= 0) break;
      if (skip >= g.rows) {
        skip -= g.rows;
        continue;
      }
      const take = Math.min(want, g.rows - skip);
      at.push({ group: g, rows: Array.from({ length: take }, (_, k) => skip + k) });
      want -= take;
      skip = 0;
    }
    return { numberMatched, at };
  }

  /**
   * Filtered: every row group the statistics leave is tested (its filter columns only), the
   * matches counted, and the positions of the page's rows kept.
   */
  private async locateFiltered(d: Described, filter: CompiledFilter, req: LakePageRequest, budget: ByteBudget): Promise<{ numberMatched: number; at: { group: GroupRef; rows: number[] }[] }> {
    const groups = this.groups(d, this.pruner(d, filter));
    const rows = groups.reduce((s, g) => s + g.rows, 0);
    if (rows > this.limits.maxFilterRows) {
      throw tooCostly(`${rows} rows would be tested to count the matches, at most ${this.limits.maxFilterRows} per request on an object-store lake (lake.s3.maxFilterRows); narrow bbox or datetime, or add conditions the row-group statistics can use`);
    }
    this.checkBytes(budget, this.bytesOf(groups, filter.columns));
    const at: { group: GroupRef; rows: number[] }[] = [];
    const end = req.offset + req.limit;
    let matched = 0;
    for await (const [g, raw] of ahead(groups, (g) => this.readGroup(g, filter.columns, budget, req.signal))) {
      req.signal?.throwIfAborted();
      const batch = this.evalBatch(d, raw, filter.columns);
      let kept: number[] | undefined;
      let exact = filter.exactTests;
      for (let i = 0; i < g.rows; i++) {
        if (filter.test(batch, i)) {
          if (matched >= req.offset && matched < end) (kept ??= []).push(i);
          matched++;
        }
        // After an exact geometry test (which can take long against a large literal), or every 1,024 rows.
        if ((i & 1023) === 0 || filter.exactTests !== exact) {
          exact = filter.exactTests;
          this.checkExactTests(filter);
          if (turnDue()) await takeTurn(req.signal);
        }
      }
      this.checkExactTests(filter);
      if (kept) at.push({ group: g, rows: kept });
    }
    return { numberMatched: matched, at };
  }

  private async fetchRows(d: Described, at: { group: GroupRef; rows: number[] }[], req: LakePageRequest, budget: ByteBudget): Promise<LakeRow[]> {
    this.checkBytes(budget, this.bytesOf(at.map((a) => a.group), req.columns));
    const out: LakeRow[] = [];
    for (const { group, rows } of at) {
      const from = rows[0]!, to = rows[rows.length - 1]! + 1;
      const raw = await this.readGroup(group, req.columns, budget, req.signal, from, to);
      for (const r of rows) {
        const values: Record<string, LakeValue> = {};
        for (const col of req.columns) values[col] = toLakeValue(raw[col]![r - from], d.byName.get(col)!.codec);
        out.push({ index: req.offset + out.length, values });
      }
    }
    return out;
  }

  async pageAsParquet(collection: Collection, req: LakePageRequest, geo: boolean): Promise<Uint8Array> {
    const d = await stopping(req, () => this.described(collection, new ByteBudget(this.limits.maxRequestBytes), req.signal));
    const page = await this.page(collection, req);
    const g = d.dataset.geometryColumn;
    const columns = req.columns.map((name) => ({ name, type: name === g ? 'BLOB' : d.byName.get(name)!.type }));
    const kv = geo && g && req.columns.includes(g) ? geoMetadataJson(g, d.geo) : undefined;
    return writePageParquet(columns, page.rows.map((r) => r.values), kv);
  }

  async scan(collection: Collection, req: LakeScanRequest, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void> {
    await stopping(req, () => this.scanRows(collection, req, onChunk));
  }

  private async scanRows(collection: Collection, req: LakeScanRequest, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void> {
    const budget = new ByteBudget(this.limits.maxRequestBytes);
    const d = await this.described(collection, budget, req.signal);
    this.checkColumns(d, req.columns);
    const filter = this.filterOf(d, { ...(req.datetime ? { datetime: req.datetime } : {}), ...(req.filter ? { filter: req.filter } : {}) });
    const g = d.dataset.geometryColumn;
    if (req.bbox && !g) throw new LakeQueryError('Invalid parameter', 'bbox needs a geometry column, and this collection has none.');
    const box = req.bbox;
    // The envelope prefilter prunes row groups by the covering's statistics, as a spatial filter does.
    const envelopeFilter = box && g ? compileFilter({ kind: 'spatial', op: 's_intersects', left: { kind: 'property', name: g }, right: { kind: 'bbox', bbox: [...box] } }, d.filterColumns) : undefined;
    const groups = this.groups(d, (file, group) => {
      const stats = statsReader(d, file, group);
      return !(filter?.canSkip(stats) || envelopeFilter?.canSkip(stats));
    });
    const read = [...new Set([...req.columns, ...(filter?.columns ?? []), ...(box && g ? [g] : [])])];
    this.checkBytes(budget, this.bytesOf(groups, read));
    const codecs = req.columns.map((c) => d.byName.get(c)!.codec);
    for await (const [group, raw] of ahead(groups, (g) => this.readGroup(g, read, budget, req.signal))) {
      req.signal?.throwIfAborted();
      const batch = filter ? this.evalBatch(d, raw, filter.columns) : undefined;
      const geoms = box && g ? raw[g]! : undefined;
      let keep: number[] = [];
      const flush = async () => {
        if (keep.length === 0) return;
        const columns: Record<string, LakeValue[]> = {};
        req.columns.forEach((c, j) => {
          const values = raw[c]!;
          columns[c] = keep.map((i) => toLakeValue(values[i], codecs[j]!));
        });
        const size = keep.length;
        keep = [];
        await onChunk({ size, columns });
        if (turnDue()) await takeTurn(req.signal);
      };
      let exact = filter?.exactTests;
      for (let i = 0; i < group.rows; i++) {
        if ((!geoms || envelopeMeets(geoms[i] as Uint8Array | null, box!)) && (!batch || filter!.test(batch, i))) keep.push(i);
        // After an exact geometry test (which can take long against a large literal), or every 1,024 rows.
        if ((i & 1023) === 0 || filter?.exactTests !== exact) {
          exact = filter?.exactTests;
          if (filter) this.checkExactTests(filter);
          if (turnDue()) await takeTurn(req.signal);
        }
        if (keep.length >= CHUNK_ROWS) await flush();
      }
      if (filter) this.checkExactTests(filter);
      await flush();
    }
  }
}

/**
 * The row groups with their data, in order, reading up to READ_AHEAD groups ahead: the store's
 * latency overlaps the work on the current group, and memory stays a few row groups.
 */
async function* ahead<T>(groups: GroupRef[], read: (g: GroupRef) => Promise<T>): AsyncGenerator<[GroupRef, T]> {
  const pending: Promise<T>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < READ_AHEAD && next < groups.length) {
      const p = read(groups[next++]!);
      p.catch(() => undefined); // awaited in turn below; an early failure must not go unhandled meanwhile
      pending.push(p);
    }
  };
  for (let i = 0; i < groups.length; i++) {
    fill();
    const data = await pending.shift()!;
    yield [groups[i]!, data];
  }
}

/** The work's outcome, but its signal's reason once the signal has aborted (whatever the aborted reads threw). */
async function stopping<T>(work: LakeWork, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    work.signal?.throwIfAborted();
    throw e;
  }
}

/** `p`, or the signal's reason as soon as it aborts (`p` itself runs on, for whoever else awaits it). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

function tooCostly(hint: string): LakeQueryError {
  return new LakeQueryError('Request too costly', `${hint}.`);
}

/** Values the filter reads differently from how they are decoded (bigints, decimals, dates, lists). */
function needsEval(codec: Codec): boolean {
  return codec.kind === 'integer' || codec.kind === 'decimal' || codec.kind === 'date' || codec.kind === 'list';
}

function geoOf(m: FileMetaData): GeoMetadata | undefined {
  const kv = m.key_value_metadata?.find((x) => x.key === 'geo');
  if (!kv?.value) return undefined;
  try {
    return JSON.parse(kv.value) as GeoMetadata;
  } catch {
    return undefined; // unreadable geo metadata: treat the file as plain parquet
  }
}

/** A row group's min/max by column (or dotted leaf path), in the filter's terms. */
function statsReader(d: Described, file: LakeFile, group: RowGroup): (path: string) => ColumnStats | undefined {
  return (path) => {
    const chunk = group.columns.find((c) => c.meta_data?.path_in_schema.join('.') === path);
    const s = chunk?.meta_data?.statistics;
    if (!s || !file.names.has(path.split('.')[0]!)) return undefined;
    const codec = d.byName.get(path)?.codec;
    const num = (v: unknown): number | undefined => {
      if (typeof v === 'bigint') return Number(v);
      if (typeof v !== 'number' || Number.isNaN(v)) return undefined;
      return codec?.kind === 'date' ? v * 86_400_000_000 : v;
    };
    const min = num(s.min_value ?? s.min), max = num(s.max_value ?? s.max);
    return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
  };
}

/**
 * The scan's bbox prefilter: the geometry's envelope meets the box (exact for points). NULL
 * and unreadable geometries are left out.
 */
function envelopeMeets(bytes: Uint8Array | null, [w, s, e, n]: [number, number, number, number]): boolean {
  if (!bytes) return false;
  let env: [number, number, number, number] | undefined;
  if (bytes.byteLength === 21 && bytes[0]! <= 1) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, 21);
    const little = bytes[0] === 1;
    if (view.getUint32(1, little) === 1) {
      const x = view.getFloat64(5, little), y = view.getFloat64(13, little);
      env = [x, y, x, y];
    }
  }
  if (!env) {
    try {
      env = envelope(decodeWkb(bytes));
    } catch {
      return false;
    }
  }
  if (!env || !(env[3] >= s && env[1] <= n)) return false;
  const meets = (x0: number, x1: number) => env[2] >= x0 && env[0] <= x1;
  return w <= e ? meets(w, e) : meets(w, 180) || meets(-180, e);
}

