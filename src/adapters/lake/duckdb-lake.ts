/**
 * LakeReader on DuckDB (core + parquet only: no spatial, no httpfs).
 *
 * Safety: the engine is sandboxed at start-up (external access off, only the lake root and a
 * private export directory allowed, configuration locked), file lists come from our own
 * directory walk (lake-files.ts), and every value that reaches SQL (file paths, filter
 * literals, bbox, datetime, offsets) is a bound parameter. Identifiers come only from the
 * parquet schema, quoted.
 *
 * Scan order: files sorted by path, rows in file order (`file_row_number`). A page is found
 * from per-file match counts (parquet metadata when unfiltered, one GROUP BY otherwise), so only
 * the files that hold the page are read for it.
 *
 * Exact spatial filters: SQL decides every row it can (points against boxes, see
 * point-box-sql.ts) and counts them in the same GROUP BY. The rows it cannot decide (other
 * shapes, other literals, points on a box edge) get the exact test in JS, all of them, since
 * numberMatched and the offsets count them: that work is bounded by `maxResidualRows` per
 * request, checked from the GROUP BY before any row is fetched, and it yields to the event loop
 * as it goes. Only the row numbers that pass are kept.
 *
 * Sharing and cancelling: each query (and each chunk fetched from a stream) occupies one of
 * Node's libuv threads while it runs, the threads files and DNS use too. At most
 * `maxRunningQueries` run at once (default one less than the pool), taken by classes of work in
 * turn (fair-slots.ts), as are the scan connections. A request's `signal` interrupts its running
 * query (DuckDB's interrupt), stops a stream before its next chunk and the JS loops at their next
 * rest; the request then rejects with the signal's reason and its connection is free again.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { DuckDBBlobVector, DuckDBInstance, listValue, type DuckDBConnection, type DuckDBDataChunk, type DuckDBValue } from '@duckdb/node-api';
import type { Collection, Extent, FieldMeta } from '../../domain/collection.js';
import { extentOf, unionBox } from '../../domain/extent-union.js';
import {
  LakeNotFoundError,
  LakeQueryError,
  rowFilterExpr,
  unlessNoFiles,
  type LakeChunk,
  type LakeDataset,
  type LakePage,
  type LakePageRequest,
  type LakePointScanRequest,
  type LakeReader,
  type LakeRow,
  type LakeScanRequest,
  type LakeValue,
  type LakeWork,
  type PointBatch,
  type RowFilter,
  type ZoneKeyStatsRequest,
} from '../../ports/lake-reader.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import type { KeyedZoneStats } from '../../domain/aggregation/zone-points.js';
import type { SourceVersion } from '../../ports/source-version.js';
import { findParquetFiles, LAKE_ID, realRoot, UnsafeLakePathError, type FoundFile } from './lake-files.js';
import { consistentGeo, geoMetadataJson, lakeFields } from '../../domain/lake/lake-columns.js';
import { cql2Columns, fieldMeta, isGeometryType, type ColumnType, type Described, type GeoMetadata } from './lake-schema.js';
import { q, sqlString } from './duckdb-sql-text.js';
import { toLakeValue } from './lake-values.js';
import { numberOrNaNSql, numberSql, pointColumnCount, PointReader, pointSelect, pointSource, readNumbers, type PointSource } from './point-columns.js';
import { parseZoneColumns, ZONE_COLUMNS_KEY, type ZoneKeyColumn } from './zone-key-columns.js';
import { FairSlots } from './fair-slots.js';
import { toDuckDbSql, Cql2TranslationError, Cql2UnknownPropertyError, type Cql2Columns, type Cql2DuckDbFilter, type Cql2Residual } from './cql2-duckdb-sql.js';


interface FileMeta {
  key: string;
  rows: number;
  geo?: GeoMetadata;
  /** Physical type of every leaf of the file's schema, by `.`-joined path (e.g. `bbox.xmin` -> DOUBLE). */
  leafTypes: Map<string, string>;
  /** Zone-key columns the file declares (and holds as INT64). */
  zoneColumns: ZoneKeyColumn[];
}

export interface DuckDbLakeOptions {
  /** DuckDB worker threads (default: DuckDB's, one per core). */
  threads?: number;
  /**
   * Result bytes DuckDB may produce ahead of a streamed scan's reader (default 16 MiB). Its own default
   * (about 1 MB) keeps a scan of millions of rows on about one thread: the reader drains the buffer
   * faster than one thread fills it.
   */
  streamBufferBytes?: number;
  /**
   * Queries (or chunk fetches) running at once, each holding a libuv thread meanwhile (default one
   * less than Node's pool, UV_THREADPOOL_SIZE or 4, so file and DNS work always find a thread).
   */
  maxRunningQueries?: number;
}

/** Matching rows per file, in scan order; `passed`: undecided rows the JS residual kept (when there were any). */
interface FileMatch {
  file: FoundFile;
  count: number;
  passed?: number[];
}

/** Rows whose exact geometry test runs in JS, at most, per request (see the class comment). */
export const MAX_RESIDUAL_ROWS = 100_000;
const DEFAULT_STREAM_BUFFER_BYTES = 16 * 1024 * 1024;
/** Point scans at once (each may hold its stream buffer); more wait their turn. */
const SCAN_CONNECTIONS = 4;

interface Engine {
  db: DuckDBInstance;
  exportDir: string;
  root: string;
  /** Free scan connections, and the turns to take one. */
  scans: DuckDBConnection[];
  scanSlots: FairSlots;
  /** Turns to run a query or fetch a chunk. */
  queries: FairSlots;
}

/** The class of the reader's own metadata queries (footers, schemas). */
const METADATA: LakeWork = { workClass: 'metadata' };

/** Rows per batch of `scanPoints`: enough to amortise a hand-over, small enough to bound memory. */
const POINT_BATCH_ROWS = 16_384;

const READ_OPTS = `union_by_name = true, hive_partitioning = false, filename = '__lake_file', file_row_number = true`;

/** Positional parameters after the CQL2 translator's `$1..$n`. */
export class Params {
  readonly values: DuckDBValue[];
  constructor(initial: readonly DuckDBValue[] = []) {
    this.values = [...initial];
  }
  add(v: DuckDBValue): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export class DuckDbLake implements LakeReader {
  private engine?: Promise<Engine>;
  private readonly fileMeta = new Map<string, FileMeta>();
  private readonly schemas = new Map<string, ColumnType[]>();
  /** Directory walks in progress, by collection: requests asking meanwhile share the walk's answer. */
  private readonly walks = new Map<string, Promise<FoundFile[]>>();

  constructor(
    private readonly root: string,
    private readonly maxResidualRows = MAX_RESIDUAL_ROWS,
    private readonly options: DuckDbLakeOptions = {},
  ) {}

  /**
   * One sandboxed in-memory engine per reader; each query takes its own connection, but for the point
   * scans of zone data, which take one of SCAN_CONNECTIONS set up before the configuration is locked
   * (streaming_buffer_size is a per-connection setting).
   */
  private start(): Promise<Engine> {
    this.engine ??= (async () => {
      const root = await realRoot(this.root);
      const exportDir = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'dggs-lake-'));
      const settings: Record<string, string> = { autoload_known_extensions: 'false', autoinstall_known_extensions: 'false' };
      if (this.options.threads) settings.threads = String(this.options.threads);
      const db = await DuckDBInstance.create(':memory:', settings);
      const scans: DuckDBConnection[] = [];
      const c = await db.connect();
      try {
        await c.run(`SET GLOBAL TimeZone = 'UTC'`); // TIMESTAMP columns compare as UTC (the translator relies on it)
        // Geometry is read as WKB BLOB everywhere: files with and without GeoParquet metadata then
        // share one schema (BLOB and GEOMETRY columns do not unify), and WKB is what we decode.
        await c.run('SET GLOBAL enable_geoparquet_conversion = false');
        // Paths are the service's own (config root and mkdtemp), not request input.
        await c.run(`SET allowed_directories = [${sqlString(root + path.sep)}, ${sqlString(exportDir + path.sep)}]`);
        await c.run('SET enable_external_access = false');
        const buffer = Math.floor(this.options.streamBufferBytes ?? DEFAULT_STREAM_BUFFER_BYTES);
        for (let i = 0; i < SCAN_CONNECTIONS; i++) {
          const scan = await db.connect();
          scans.push(scan);
          await scan.run(`SET streaming_buffer_size = '${buffer}B'`);
        }
        await c.run('SET lock_configuration = true');
      } catch (e) {
        for (const scan of scans) scan.closeSync();
        throw e;
      } finally {
        c.closeSync();
      }
      const running = this.options.maxRunningQueries ?? Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 1);
      return { db, exportDir, root, scans, scanSlots: new FairSlots(SCAN_CONNECTIONS), queries: new FairSlots(running) };
    })();
    return this.engine;
  }

  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    if (!engine) return;
    const { db, exportDir, scans } = await engine;
    for (const scan of scans) scan.closeSync();
    db.closeSync();
    await fs.rm(exportDir, { recursive: true, force: true });
  }

  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const { db } = await this.start();
    const c = await db.connect();
    try {
      return await fn(c);
    } finally {
      c.closeSync();
    }
  }

  /** A scan connection, when one is free and it is the turn of the work's class. */
  private async withScanConnection<T>(work: LakeWork, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const engine = await this.start();
    return engine.scanSlots.run(work.workClass ?? '', work.signal, async () => {
      const c = engine.scans.pop()!;
      try {
        return await fn(c);
      } finally {
        engine.scans.push(c);
      }
    });
  }

  /**
   * Runs one query (or fetches one chunk) on `c` in the work's turn; its signal interrupts it. An
   * interrupted query rejects with the signal's reason.
   */
  private async query<T>(c: DuckDBConnection, work: LakeWork, run: () => Promise<T>): Promise<T> {
    const { queries } = await this.start();
    const signal = work.signal;
    return queries.run(work.workClass ?? '', signal, async () => {
      signal?.throwIfAborted();
      const interrupt = () => c.interrupt();
      signal?.addEventListener('abort', interrupt, { once: true });
      try {
        return await run();
      } catch (e) {
        signal?.throwIfAborted();
        throw e;
      } finally {
        signal?.removeEventListener('abort', interrupt);
      }
    });
  }

  async describe(collection: Collection): Promise<LakeDataset> {
    return (await this.described(collection)).dataset;
  }

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const d = await unlessNoFiles(this.described(collection));
    // Zone-key columns are an index of the rows, like the bbox covering: not fields.
    return d ? lakeFields(d.types, d.dataset.geometryColumn, d.geo, this.zoneColumnNames(d)) : {};
  }

  /** The files' relative paths, sizes and modification times, from the walk the reads share (no engine, no footer read). */
  async version(collection: Collection): Promise<SourceVersion> {
    let found: FoundFile[];
    try {
      found = await this.walk(this.root, collection.id);
    } catch (e) {
      if (e instanceof UnsafeLakePathError) throw new LakeQueryError('Invalid collection id', 'Collection ids are letters, digits, "_", "." and "-".');
      throw e;
    }
    const hash = createHash('sha256');
    let modifiedMs = 0;
    for (const f of found) {
      hash.update(`${f.relative}\0${f.size}\0${f.mtimeMs}\n`);
      modifiedMs = Math.max(modifiedMs, f.mtimeMs);
    }
    return { id: hash.digest('base64url'), ...(found.length ? { modifiedMs } : {}) };
  }

  async missingSource(collection: Collection): Promise<'root' | 'folder' | undefined> {
    const isDir = (p: string) => fs.stat(p).then((st) => st.isDirectory(), () => false);
    const root = await realRoot(this.root);
    if (!(await isDir(root))) return 'root';
    return LAKE_ID.test(collection.id) && (await isDir(path.join(root, collection.id))) ? undefined : 'folder';
  }

  /**
   * From the footers when every file's GeoParquet metadata has a bbox, else from the bbox
   * covering columns (min and max, which the column statistics mostly answer); the datetime
   * column's min and max. A geometry without either gives no box: finding it would mean
   * decoding every row.
   */
  async extent(collection: Collection, work: LakeWork = METADATA): Promise<Extent | undefined> {
    const d = await unlessNoFiles(this.described(collection));
    if (!d) return undefined;
    const g = d.dataset.geometryColumn;
    const dt = d.dataset.datetimeColumn;
    const selects: string[] = [];
    let box: [number, number, number, number] | undefined;
    if (g) {
      const declared = d.found.map((f) => geoBBox(this.fileMeta.get(f.absolute)?.geo, g));
      const covering = d.cql2[g]?.bbox;
      if (declared.every((b) => b !== undefined)) box = unionBox(declared);
      else if (covering) {
        const ref = (x: string | readonly string[]) => (typeof x === 'string' ? [x] : x).map(q).join('.');
        selects.push(`min(${ref(covering.xmin)})`, `min(${ref(covering.ymin)})`, `max(${ref(covering.xmax)})`, `max(${ref(covering.ymax)})`);
      }
    }
    const dtType = dt ? d.types.find((t) => t.name === dt)?.type : undefined;
    const timed = dtType !== undefined && /^(TIMESTAMP|DATE)/.test(dtType);
    if (timed) selects.push(`epoch_ms(min(${q(dt!)})::TIMESTAMP)`, `epoch_ms(max(${q(dt!)})::TIMESTAMP)`);
    let start: number | null = null;
    let end: number | null = null;
    if (selects.length > 0) {
      const row = await this.withConnection(async (c) => {
        const sql = `SELECT ${selects.join(', ')} FROM read_parquet($1, union_by_name = true, hive_partitioning = false)`;
        return (await this.query(c, work, () => c.runAndReadAll(sql, [listValue(d.found.map((f) => f.absolute))]))).getRows()[0] ?? [];
      });
      const num = (v: DuckDBValue | undefined) => (v === null || v === undefined ? null : Number(v));
      let i = 0;
      if (!box && g && d.cql2[g]?.bbox) {
        const b = row.slice(0, 4).map(num);
        if (b.every((x) => x !== null && Number.isFinite(x))) box = b as [number, number, number, number];
        i = 4;
      }
      if (timed) [start, end] = [num(row[i]), num(row[i + 1])];
    }
    return extentOf(box, start, end);
  }

  async described(collection: Collection): Promise<Described> {
    const { root } = await this.start();
    let found: FoundFile[];
    try {
      found = await this.walk(root, collection.id);
    } catch (e) {
      if (e instanceof UnsafeLakePathError) throw new LakeQueryError('Invalid collection id', 'Collection ids are letters, digits, "_", "." and "-".');
      throw e;
    }
    if (found.length === 0) throw new LakeNotFoundError(`no parquet files for ${collection.id}`);
    await this.refreshFileMeta(found);
    const types = await this.schema(found);
    const geo = consistentGeo(found.map((f) => this.fileMeta.get(f.absolute)?.geo));
    const backing = collection.backing.kind === 'parquet-lake' ? collection.backing : undefined;
    const names = new Set(types.map((t) => t.name));
    const geometryColumn = [backing?.geometryColumn, geo?.primary_column].find((g): g is string => !!g && names.has(g));
    const datetimeColumn = backing?.datetimeColumn && names.has(backing.datetimeColumn) ? backing.datetimeColumn : undefined;
    const files = found.map((f) => ({ file: f.relative, rows: this.fileMeta.get(f.absolute)!.rows }));
    const zoneColumns = new Set(found.flatMap((f) => this.fileMeta.get(f.absolute)!.zoneColumns.map((z) => z.column)));
    const dataset: LakeDataset = {
      collectionId: collection.id,
      source: `${collection.id}/data/**/*.parquet`,
      files,
      columns: types.map((t) => {
        const field = zoneColumns.has(t.name) ? undefined : fieldMeta(t, geometryColumn, geo);
        return { name: t.name, type: t.type, field: field ?? { title: t.name, type: 'object' as const, svc_data_type: t.type }, queryable: field !== undefined };
      }),
      totalRows: files.reduce((s, f) => s + f.rows, 0),
      ...(geometryColumn ? { geometryColumn } : {}),
      ...(datetimeColumn ? { datetimeColumn } : {}),
    };
    return { dataset, found, types, cql2: cql2Columns(types, geometryColumn, geo), ...(geo ? { geo } : {}) };
  }

  /**
   * The collection's files, from a walk of its directory; one walk at a time per collection, the
   * requests of its time share it (under load every file system call waits a turn of the event loop,
   * and a zone-data request looks its collection up several times).
   */
  private walk(root: string, id: string): Promise<FoundFile[]> {
    let walk = this.walks.get(id);
    if (!walk) {
      walk = findParquetFiles(root, id).finally(() => this.walks.delete(id));
      this.walks.set(id, walk);
    }
    return walk;
  }

  /** Row counts and GeoParquet metadata from the footers; cached per (path, size, mtime). */
  private async refreshFileMeta(found: FoundFile[]): Promise<void> {
    const keyOf = (f: FoundFile) => `${f.size}:${f.mtimeMs}`;
    const stale = found.filter((f) => this.fileMeta.get(f.absolute)?.key !== keyOf(f));
    if (stale.length === 0) return;
    await this.withConnection(async (c) => {
      const files = listValue(stale.map((f) => f.absolute));
      const read = async (sql: string) => (await this.query(c, METADATA, () => c.runAndReadAll(sql, [files]))).getRows();
      const rows = await read('SELECT file_name, num_rows FROM parquet_file_metadata($1)');
      const kv = await read(`SELECT file_name, decode(key), decode(value) FROM parquet_kv_metadata($1) WHERE decode(key) IN ('geo', '${ZONE_COLUMNS_KEY}')`);
      const geoByFile = new Map<string, GeoMetadata>();
      const zonesByFile = new Map<string, ZoneKeyColumn[]>();
      for (const [file, key, value] of kv) {
        if (key === ZONE_COLUMNS_KEY) zonesByFile.set(String(file), parseZoneColumns(String(value)));
        else {
          try {
            geoByFile.set(String(file), JSON.parse(String(value)) as GeoMetadata);
          } catch {
            // unreadable geo metadata: treat the file as plain parquet
          }
        }
      }
      const leaves = leafTypesByFile(await read('SELECT file_name, name, type, num_children FROM parquet_schema($1)'));
      const rowsByFile = new Map(rows.map(([file, n]) => [String(file), Number(n)]));
      for (const f of stale) {
        const geo = geoByFile.get(f.absolute);
        const leafTypes = leaves.get(f.absolute) ?? new Map<string, string>();
        const zoneColumns = (zonesByFile.get(f.absolute) ?? []).filter((z) => leafTypes.get(z.column) === 'INT64');
        this.fileMeta.set(f.absolute, { key: keyOf(f), rows: rowsByFile.get(f.absolute) ?? 0, leafTypes, zoneColumns, ...(geo ? { geo } : {}) });
      }
    });
  }

  private async schema(found: FoundFile[]): Promise<ColumnType[]> {
    const key = found.map((f) => `${f.absolute}:${f.size}:${f.mtimeMs}`).join('|');
    const cached = this.schemas.get(key);
    if (cached) return cached;
    const types = await this.withConnection(async (c) => {
      const r = await this.query(c, METADATA, () => c.runAndReadAll(`SELECT * FROM read_parquet($1, union_by_name = true, hive_partitioning = false) LIMIT 0`, [listValue(found.map((f) => f.absolute))]));
      return r.columnNames().map((name, i) => ({ name, type: r.columnType(i).toString() }));
    });
    if (this.schemas.size > 64) this.schemas.clear();
    this.schemas.set(key, types);
    return types;
  }

  /** The row filter as DuckDB SQL: bbox, datetime and CQL2 share the translator's binding and exact checks. */
  private filterOf(d: Described, f: RowFilter): Cql2DuckDbFilter | undefined {
    const expr = rowFilterExpr(d.dataset, f);
    if (!expr) return undefined;
    try {
      return toDuckDbSql(expr, d.cql2);
    } catch (e) {
      if (e instanceof Cql2UnknownPropertyError) throw new LakeQueryError('Invalid filter', e.message);
      if (e instanceof Cql2TranslationError) throw new LakeQueryError('Invalid filter', e.message);
      throw e;
    }
  }

  /** Per-file matches of the filtered set. */
  private async matches(c: DuckDBConnection, d: Described, filter: Cql2DuckDbFilter | undefined, work: LakeWork): Promise<FileMatch[]> {
    if (!filter) return d.found.map((file) => ({ file, count: this.fileMeta.get(file.absolute)!.rows }));
    const p = new Params(filter.params);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const residual = filter.residual;
    const open = residual ? `count(*) FILTER (WHERE ${residual.undecided})` : '0';
    const sql = `SELECT __lake_file, count(*), ${open} FROM read_parquet(${files}, ${READ_OPTS}) WHERE ${filter.sql} GROUP BY __lake_file`;
    const counts = new Map((await this.query(c, work, () => c.runAndReadAll(sql, p.values))).getRows().map(([f, n, u]) => [String(f), { all: Number(n), open: Number(u) }]));
    const undecided = [...counts.values()].reduce((sum, x) => sum + x.open, 0);
    if (!residual || undecided === 0) return d.found.map((file) => ({ file, count: counts.get(file.absolute)?.all ?? 0 }));
    this.checkResidualBound(undecided);
    const passed = await this.residualPass(c, d, filter, residual, work);
    return d.found.map((file) => {
      const n = counts.get(file.absolute);
      const kept = passed.get(file.absolute) ?? [];
      return { file, count: (n ? n.all - n.open : 0) + kept.length, passed: kept };
    });
  }

  private checkResidualBound(undecided: number): void {
    if (undecided > this.maxResidualRows) {
      throw new LakeQueryError(
        'Filter too costly',
        `${undecided} rows need the exact geometry test, at most ${this.maxResidualRows} per request (the bound). Points against a bbox or rectangle are settled in the database; narrow bbox or datetime, or add conditions on other columns.`,
      );
    }
  }

  /** Row numbers, per file in ascending order, of the undecided rows the exact test keeps. */
  private async residualPass(c: DuckDBConnection, d: Described, filter: Cql2DuckDbFilter, residual: Cql2Residual, work: LakeWork): Promise<Map<string, number[]>> {
    const p = new Params(filter.params);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const extra = residual.columns.map((x) => `${x.sql} AS ${x.alias}`);
    // The file as its position in the list: a path string per row costs more than the test.
    const sql = `SELECT list_position(${files}, __lake_file) - 1, file_row_number, ${extra.join(', ')} FROM read_parquet(${files}, ${READ_OPTS}) WHERE (${filter.sql}) AND ${residual.undecided}`;
    const result = await this.query(c, work, () => c.stream(sql, p.values));
    const names = result.columnNames();
    const out = new Map<string, number[]>();
    const fetch = () => this.query(c, work, () => result.fetchChunk());
    for (let chunk = await fetch(); chunk && chunk.rowCount > 0; chunk = await fetch()) {
      const [fileIndex, rowNumber] = [chunk.getColumnVector(0), chunk.getColumnVector(1)];
      const read = residualReader(chunk, names, 2);
      for (let i = 0; i < chunk.rowCount; i++) {
        if (residual.test(read(i))) {
          const f = d.found[Number(fileIndex.getItem(i))]!.absolute;
          let list = out.get(f);
          if (!list) out.set(f, (list = []));
          list.push(Number(rowNumber.getItem(i)));
        }
        if (turnDue()) await takeTurn(work.signal);
      }
    }
    for (const list of out.values()) list.sort((a, b) => a - b);
    return out;
  }

  /** SQL for the page rows (ordered), or undefined when the page is empty. */
  private pageSql(d: Described, filter: Cql2DuckDbFilter | undefined, matches: FileMatch[], req: LakePageRequest, select: string[]): { sql: string; params: DuckDBValue[] } | undefined {
    const p = new Params(filter?.params ?? []);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const parts: string[] = [];
    let skip = req.offset;
    let want = req.limit;
    for (const m of matches) {
      if (want <= 0) break;
      if (skip >= m.count) {
        skip -= m.count;
        continue;
      }
      const take = Math.min(want, m.count - skip);
      const base = `SELECT ${select.join(', ')}, ${parts.length} AS __part, file_row_number AS __row FROM read_parquet(${files}, ${READ_OPTS}) WHERE __lake_file = ${p.add(m.file.absolute)}`;
      if (!filter) {
        parts.push(`(${base} AND file_row_number >= ${p.add(skip)}::BIGINT AND file_row_number < ${p.add(skip + take)}::BIGINT)`);
      } else {
        // Rows SQL decided, plus the undecided ones the residual kept.
        const undecided = filter.residual?.undecided;
        const kept = !m.passed || !undecided ? '' : m.passed.length === 0 ? ` AND NOT ${undecided}` : ` AND (NOT ${undecided} OR file_row_number = ANY(${p.add(listValue(m.passed))}::BIGINT[]))`;
        parts.push(`(${base} AND (${filter.sql})${kept} ORDER BY file_row_number LIMIT ${p.add(take)}::BIGINT OFFSET ${p.add(skip)}::BIGINT)`);
      }
      want -= take;
      skip = 0;
    }
    if (parts.length === 0) return undefined;
    return { sql: `SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY __part, __row`, params: p.values };
  }

  private selectList(d: Described, columns: string[], geometryAs: 'wkb' | 'geometry'): string[] {
    if (columns.length === 0) throw new LakeQueryError('Invalid parameter', `no columns selected; valid columns are: ${d.types.map((x) => x.name).join(', ')}`);
    const byName = new Map(d.types.map((t) => [t.name, t]));
    return columns.map((name) => {
      const t = byName.get(name);
      if (!t) throw new LakeQueryError('Invalid parameter', `unknown column "${name.slice(0, 64)}"; valid columns are: ${d.types.map((x) => x.name).join(', ')}`);
      if (name !== d.dataset.geometryColumn) return q(name);
      const isGeom = isGeometryType(t.type);
      if (geometryAs === 'wkb') return isGeom ? `st_aswkb(${q(name)}) AS ${q(name)}` : q(name);
      return isGeom ? q(name) : `st_geomfromwkb(${q(name)}) AS ${q(name)}`;
    });
  }

  async page(collection: Collection, req: LakePageRequest): Promise<LakePage> {
    const d = await this.described(collection);
    const filter = this.filterOf(d, req);
    const select = this.selectList(d, req.columns, 'wkb');
    return this.withConnection(async (c) => {
      const matches = await this.matches(c, d, filter, req);
      const numberMatched = matches.reduce((s, m) => s + m.count, 0);
      const page = this.pageSql(d, filter, matches, req, select);
      if (!page) return { numberMatched, rows: [] };
      const reader = await this.query(c, req, () => c.runAndReadAll(page.sql, page.params));
      const names = reader.columnNames();
      const rows: LakeRow[] = reader.getRows().map((values, i) => {
        const out: Record<string, LakeValue> = {};
        req.columns.forEach((col, j) => (out[col] = toLakeValue(values[names.indexOf(col) >= 0 ? names.indexOf(col) : j]!)));
        return { index: req.offset + i, values: out };
      });
      return { numberMatched, rows };
    });
  }

  async pageAsParquet(collection: Collection, req: LakePageRequest, geo: boolean): Promise<Uint8Array> {
    const d = await this.described(collection);
    const filter = this.filterOf(d, req);
    const select = this.selectList(d, req.columns, 'wkb');
    const g = d.dataset.geometryColumn;
    // GeoParquet: WKB column plus the `geo` file metadata (written by us, as the engine's
    // automatic metadata is tied to the GEOMETRY conversion we switch off).
    const kv = geo && g && req.columns.includes(g) ? `, KV_METADATA {geo: ${sqlString(geoMetadataJson(g, d.geo))}}` : '';
    const { exportDir } = await this.start();
    const file = path.join(exportDir, `${randomUUID()}.parquet`);
    await this.withConnection(async (c) => {
      const matches = await this.matches(c, d, filter, req);
      const page = this.pageSql(d, filter, matches, req, select) ?? {
        // An empty page is still a file with the right columns.
        sql: `SELECT ${select.join(', ')}, 0 AS __part, 0 AS __row FROM read_parquet($1, ${READ_OPTS}) LIMIT 0`,
        params: [listValue(d.found.map((f) => f.absolute))],
      };
      const cols = req.columns.map(q).join(', ');
      // COPY takes no parameters: materialise the page first, then copy the table.
      const table = `page_${randomUUID().replaceAll('-', '')}`;
      // The table goes with the connection, which closes after this.
      await this.query(c, req, () => c.run(`CREATE TEMP TABLE ${table} AS ${page.sql}`, page.params));
      await this.query(c, req, () => c.run(`COPY (SELECT ${cols} FROM ${table} ORDER BY __part, __row) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd${kv})`));
    });
    try {
      return new Uint8Array(await fs.readFile(file));
    } finally {
      await fs.rm(file, { force: true });
    }
  }

  async scan(collection: Collection, req: LakeScanRequest, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void> {
    const d = await this.described(collection);
    await this.scanDescribed(d, req, this.filterOf(d, { ...(req.datetime ? { datetime: req.datetime } : {}), ...(req.filter ? { filter: req.filter } : {}) }), onChunk);
  }

  /**
   * Streams the rows in DuckDB's chunks. `bbox` here is an envelope prefilter only (exact for
   * points), which is what aggregation by representative point needs. Rows the filter leaves
   * undecided get the residual test here (bounded as for pages, counted first).
   */
  async scanDescribed(d: Described, req: LakeScanRequest, filter: Cql2DuckDbFilter | undefined, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void> {
    const select = this.selectList(d, req.columns, 'wkb');
    const { p, from, extra } = this.scanFrom(d, filter, req.bbox);
    const residual = filter?.residual;
    await this.withConnection(async (c) => {
      if (residual) {
        const [[n]] = (await this.query(c, req, () => c.runAndReadAll(`SELECT count(*) ${from} AND ${residual.undecided}`, p.values))).getRows() as [[bigint]];
        this.checkResidualBound(Number(n));
      }
      const result = await this.query(c, req, () => c.stream(`SELECT ${[...select, ...extra].join(', ')} ${from}`, p.values));
      const names = result.columnNames();
      const fetch = () => this.query(c, req, () => result.fetchChunk());
      for (let chunk = await fetch(); chunk && chunk.rowCount > 0; chunk = await fetch()) {
        const raw = chunk.getColumns();
        let keep: number[] | undefined;
        if (residual) {
          keep = [];
          const open = raw[select.length]!;
          const read = residualReader(chunk, names, select.length + 1);
          for (let i = 0; i < chunk.rowCount; i++) {
            if (open[i] !== true || residual.test(read(i))) keep.push(i);
            if (turnDue()) await takeTurn(req.signal);
          }
        }
        const columns: Record<string, LakeValue[]> = {};
        req.columns.forEach((col, j) => {
          const values = raw[j]!;
          columns[col] = keep ? keep.map((i) => toLakeValue(values[i]!)) : values.map(toLakeValue);
        });
        await onChunk({ size: keep ? keep.length : chunk.rowCount, columns });
        if (turnDue()) await takeTurn(req.signal);
      }
    });
  }

  /**
   * What a streamed scan reads: the FROM clause over the collection's files, narrowed by the
   * filter's SQL and the bbox prefilter (`filtered`: it has a WHERE), its parameters, and the
   * select items the filter's residual test needs.
   */
  private scanFrom(d: Described, filter: Cql2DuckDbFilter | undefined, bbox: [number, number, number, number] | undefined): { p: Params; from: string; filtered: boolean; extra: string[] } {
    const p = new Params(filter?.params ?? []);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const where: string[] = [];
    if (filter) where.push(`(${filter.sql})`);
    if (bbox) where.push(this.envelopeSql(d, bbox, p));
    const residual = filter?.residual;
    const extra = residual ? [`${residual.undecided} AS __undecided`, ...residual.columns.map((x) => `${x.sql} AS ${x.alias}`)] : [];
    return { p, from: `FROM read_parquet(${files}, ${READ_OPTS})${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, filtered: where.length > 0, extra };
  }

  /**
   * The rows `scan` streams, as plain columns for aggregation (see point-columns.ts). The next
   * chunk is asked for before the current one is read, so DuckDB scans while the caller bins.
   */
  async scanPoints(collection: Collection, req: LakePointScanRequest, onBatch: (batch: PointBatch) => void | Promise<void>): Promise<void> {
    const d = await this.described(collection);
    if (!d.dataset.geometryColumn) throw new LakeQueryError('Invalid parameter', 'Aggregating rows by zone needs a geometry column, and this collection has none.');
    const filter = this.filterOf(d, { ...(req.datetime ? { datetime: req.datetime } : {}), ...(req.filter ? { filter: req.filter } : {}) });
    const src = this.pointSourceOf(d);
    const { p, from, filtered, extra } = this.scanFrom(d, filter, req.bbox);
    const residual = filter?.residual;
    const points = pointSelect(src);
    const numbers = req.fields.map((f, i) => `${numberOrNaNSql(f, this.columnType(d, f))} AS __v${i}`);
    // The instant as epoch ms in UTC (the session's time zone), NaN where null or not a time.
    const dt = d.dataset.datetimeColumn;
    const timed = req.time === true;
    if (timed) numbers.push(dt && /^(TIMESTAMP|DATE)/.test(this.columnType(d, dt)) ? `coalesce(epoch_ms(${q(dt)}::TIMESTAMP)::DOUBLE, 'NaN'::DOUBLE) AS __t` : `'NaN'::DOUBLE AS __t`);
    const first = pointColumnCount(src);
    const open = first + numbers.length;
    await this.withScanConnection(req, async (c) => {
      if (residual) {
        const [[n]] = (await this.query(c, req, () => c.runAndReadAll(`SELECT count(*) ${from}${filtered ? ' AND' : ' WHERE'} ${residual.undecided}`, p.values))).getRows() as [[bigint]];
        this.checkResidualBound(Number(n));
      }
      const result = await this.query(c, req, () => c.stream(`SELECT ${[...points, ...numbers, ...extra].join(', ')} ${from}`, p.values));
      const names = result.columnNames();
      const reader = new PointReader(src);
      const fresh = (rows: number): PointBatch => ({
        size: 0,
        x: new Float64Array(rows),
        y: new Float64Array(rows),
        values: req.fields.map(() => new Float64Array(rows)),
        ...(timed ? { time: new Float64Array(rows) } : {}),
      });
      let batch = fresh(POINT_BATCH_ROWS);
      const fetch = () => {
        const chunk = this.query(c, req, () => result.fetchChunk());
        chunk.catch(() => undefined); // awaited in turn; an abort may reject it while the caller bins the last batch
        return chunk;
      };
      let next = fetch();
      try {
        for (;;) {
          const chunk = await next;
          if (!chunk || chunk.rowCount === 0) break;
          next = fetch();
          let rows: number[] | undefined;
          if (residual) {
            rows = [];
            const undecided = chunk.getColumnVector(open);
            const read = residualReader(chunk, names, open + 1);
            for (let i = 0; i < chunk.rowCount; i++) {
              if (undecided.getItem(i) !== true || residual.test(read(i))) rows.push(i);
              if (turnDue()) await takeTurn(req.signal);
            }
          }
          const n = rows ? rows.length : chunk.rowCount;
          if (batch.size + n > batch.x.length) {
            if (batch.size > 0) await onBatch(batch);
            batch = fresh(Math.max(POINT_BATCH_ROWS, n));
          }
          reader.read(chunk, rows, batch.x, batch.y, batch.size);
          readNumbers(chunk, first, rows, timed ? [...batch.values, batch.time!] : batch.values, batch.size);
          batch.size += n;
          if (turnDue()) await takeTurn(req.signal);
        }
        if (batch.size > 0) await onBatch(batch);
      } finally {
        // The connection closes after this: never with a fetch still running on it.
        await next.catch(() => undefined);
      }
    });
  }

  /** Levels of `dggrsId` with stored zone-key columns in every file of the collection. */
  async zoneKeyLevels(collection: Collection, dggrsId: string): Promise<number[]> {
    return [...this.storedZoneColumns(await this.described(collection), dggrsId).keys()].sort((a, b) => a - b);
  }

  /**
   * Statistics per stored zone key, by a GROUP BY in DuckDB over the rows `scan` would stream.
   * Undefined when the filter leaves rows to the exact test in JS (the caller bins those rows
   * itself). Medians as the row-by-row path takes them: the middle value, or the mean of the
   * two middle values, picked exactly (quantile_disc of the values and of their negation).
   */
  async zoneKeyStats(collection: Collection, req: ZoneKeyStatsRequest): Promise<KeyedZoneStats | undefined> {
    const d = await this.described(collection);
    const column = this.storedZoneColumns(d, req.dggrsId).get(req.level);
    if (!column) throw new LakeQueryError('Invalid parameter', `The lake holds no zone keys of ${req.dggrsId} at level ${req.level} in every file; npm run ingest writes them.`);
    const filter = this.filterOf(d, { ...(req.datetime ? { datetime: req.datetime } : {}), ...(req.filter ? { filter: req.filter } : {}) });
    if (filter?.residual) return undefined;
    const p = new Params(filter?.params ?? []);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const where = [`${q(column)} IS NOT NULL`];
    if (filter) where.push(`(${filter.sql})`);
    if (req.bbox) where.push(this.envelopeSql(d, req.bbox, p));
    const fields = [...new Set([...req.fields, ...req.medians])];
    const inner = [`${q(column)} AS __z`, ...fields.map((f, i) => `${numberSql(f, this.columnType(d, f))} AS __v${i}`)];
    const aggregates = ['count(*)'];
    fields.forEach((f, i) => {
      const v = `__v${i}`;
      aggregates.push(`count(${v})`);
      if (req.fields.includes(f)) aggregates.push(`min(${v})`, `max(${v})`, `avg(${v})`, `stddev_pop(${v})`);
      if (req.medians.includes(f)) aggregates.push(`CASE WHEN count(${v}) % 2 = 1 THEN quantile_disc(${v}, 0.5) ELSE (quantile_disc(${v}, 0.5) + -quantile_disc(-${v}, 0.5)) / 2 END`);
    });
    const sql = `SELECT __z, ${aggregates.join(', ')} FROM (SELECT ${inner.join(', ')} FROM read_parquet(${files}, ${READ_OPTS}) WHERE ${where.join(' AND ')}) GROUP BY __z`;
    const rows = await this.withConnection(async (c) => (await this.query(c, req, () => c.runAndReadAll(sql, p.values))).getRows());
    const num = (v: DuckDBValue): number => (v === null ? NaN : Number(v));
    const out: KeyedZoneStats = { keys: rows.map((r) => num(r[0]!)), count: rows.map((r) => num(r[1]!)), fields: {} };
    let at = 2;
    for (const f of fields) {
      const col = (k: number) => rows.map((r) => num(r[k]!));
      const s: KeyedZoneStats['fields'][string] = { valid: col(at++), min: [], max: [], mean: [], stdDev: [] };
      if (req.fields.includes(f)) [s.min, s.max, s.mean, s.stdDev] = [col(at++), col(at++), col(at++), col(at++)];
      if (req.medians.includes(f)) s.median = col(at++);
      out.fields[f] = s;
    }
    return out;
  }

  /** Stored zone-key columns of `dggrsId` by level, those that every file declares and holds. */
  private storedZoneColumns(d: Described, dggrsId: string): Map<number, string> {
    const per = d.found.map((f) => this.fileMeta.get(f.absolute)?.zoneColumns ?? []);
    const out = new Map<number, string>();
    for (const z of per[0] ?? []) {
      if (z.dggrs === dggrsId && per.every((cols) => cols.some((o) => o.column === z.column && o.dggrs === z.dggrs && o.level === z.level))) out.set(z.level, z.column);
    }
    return out;
  }

  /** Every zone-key column any file declares: an index of the rows, not a field. */
  private zoneColumnNames(d: Described): Set<string> {
    return new Set(d.found.flatMap((f) => this.fileMeta.get(f.absolute)?.zoneColumns.map((z) => z.column) ?? []));
  }

  private pointSourceOf(d: Described): PointSource {
    return pointSource(d, d.found.map((f) => this.fileMeta.get(f.absolute) ?? { leafTypes: new Map<string, string>() }));
  }

  private columnType(d: Described, name: string): string {
    const t = d.types.find((x) => x.name === name);
    if (!t) throw new LakeQueryError('Invalid parameter', `unknown column "${name.slice(0, 64)}"; valid columns are: ${d.types.map((x) => x.name).join(', ')}`);
    return t.type;
  }

  /** Envelope test against a box, on GeoParquet covering columns when present (row-group pruning by statistics). */
  envelopeSql(d: Described, bbox: [number, number, number, number], p: Params): string {
    const g = d.dataset.geometryColumn;
    if (!g) throw new LakeQueryError('Invalid parameter', 'bbox needs a geometry column, and this collection has none.');
    const info = d.cql2[g];
    const [w, s, e, n] = bbox;
    const boxes: [number, number][] = w <= e ? [[w, e]] : [[w, 180], [-180, e]];
    const ref = (x: string | readonly string[]) => (typeof x === 'string' ? [x] : x).map(q).join('.');
    if (info?.bbox) {
      const b = info.bbox;
      const lat = `${ref(b.ymax)} >= ${p.add(s)} AND ${ref(b.ymin)} <= ${p.add(n)}`;
      const lon = boxes.map(([x0, x1]) => `(${ref(b.xmax)} >= ${p.add(x0)} AND ${ref(b.xmin)} <= ${p.add(x1)})`).join(' OR ');
      return `(${lat} AND (${lon}))`;
    }
    const geom = info?.encoding === 'geometry' ? q(g) : `st_geomfromwkb(${q(g)})`;
    const polys = boxes.map(([x0, x1]) => `st_intersects_extent(${geom}, CAST(${p.add(`POLYGON((${x0} ${s}, ${x1} ${s}, ${x1} ${n}, ${x0} ${n}, ${x0} ${s}))`)} AS GEOMETRY))`);
    return `(${polys.join(' OR ')})`;
  }
}

/** The bbox a file's GeoParquet metadata declares for column `g` (2D, or the 2D part of a 3D one). */
function geoBBox(geo: GeoMetadata | undefined, g: string): [number, number, number, number] | undefined {
  const b = (geo?.columns?.[g] as { bbox?: unknown } | undefined)?.bbox;
  if (!Array.isArray(b) || !b.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
  if (b.length === 4) return [b[0], b[1], b[2], b[3]];
  if (b.length === 6) return [b[0], b[1], b[3], b[4]];
  return undefined;
}

/**
 * Reads row `i` of the residual columns (from index `first` on) into one reused object; blobs as
 * plain bytes, without the copy a DuckDBBlobValue makes.
 */
function residualReader(chunk: DuckDBDataChunk, names: string[], first: number): (i: number) => Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const cells = names.slice(first).map((name, k) => {
    const v = chunk.getColumnVector(first + k);
    return { name, get: v instanceof DuckDBBlobVector ? (i: number) => v.getItemBytes(i) : (i: number) => v.getItem(i) };
  });
  return (i) => {
    for (const c of cells) row[c.name] = c.get(i);
    return row;
  };
}

/**
 * Physical types of every schema leaf per file, by `.`-joined path, from parquet_schema rows
 * (file, name, type, num_children) listed depth first from each file's root.
 */
function leafTypesByFile(rows: DuckDBValue[][]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const stacks = new Map<string, { path: string[]; left: number[] }>();
  for (const [file, name, type, children] of rows) {
    const f = String(file);
    let state = stacks.get(f);
    if (!state) {
      // The first row of a file is its root: its children are the top-level columns.
      stacks.set(f, { path: [], left: [Number(children ?? 0)] });
      out.set(f, new Map());
      continue;
    }
    while (state.left.length > 1 && state.left[state.left.length - 1] === 0) {
      state.left.pop();
      state.path.pop();
    }
    state.left[state.left.length - 1]!--;
    const n = Number(children ?? 0);
    if (n > 0) {
      state.path.push(String(name));
      state.left.push(n);
    } else out.get(f)!.set([...state.path, String(name)].join('.'), String(type));
  }
  return out;
}
