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
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { Expr } from '../../domain/cql2/index.js';
import {
  LakeNotFoundError,
  LakeQueryError,
  type LakeChunk,
  type LakeDataset,
  type LakePage,
  type LakePageRequest,
  type LakeReader,
  type LakeRow,
  type LakeScanRequest,
  type LakeValue,
  type RowFilter,
} from '../../ports/lake-reader.js';
import { findParquetFiles, realRoot, UnsafeLakePathError, type FoundFile } from './lake-files.js';
import { cql2Columns, fieldMeta, isGeometryType, type ColumnType, type GeoMetadata } from './lake-schema.js';
import { toLakeValue } from './lake-values.js';
import { toDuckDbSql, Cql2TranslationError, Cql2UnknownPropertyError, type Cql2Columns, type Cql2DuckDbFilter } from './cql2-duckdb-sql.js';

/** Everything known about one collection's files right now. */
export interface Described {
  dataset: LakeDataset;
  found: FoundFile[];
  types: ColumnType[];
  cql2: Cql2Columns;
  geo?: GeoMetadata;
}

interface FileMeta {
  key: string;
  rows: number;
  geo?: GeoMetadata;
}

/** Matching rows per file, in scan order; `rowNumbers` when a JS residual decided the match. */
interface FileMatch {
  file: FoundFile;
  count: number;
  rowNumbers?: number[];
}

const READ_OPTS = `union_by_name = true, hive_partitioning = false, filename = '__lake_file', file_row_number = true`;
export const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

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
  private engine?: Promise<{ db: DuckDBInstance; exportDir: string; root: string }>;
  private readonly fileMeta = new Map<string, FileMeta>();
  private readonly schemas = new Map<string, ColumnType[]>();

  constructor(private readonly root: string) {}

  /** One sandboxed in-memory engine per reader; each query takes its own connection. */
  private start(): Promise<{ db: DuckDBInstance; exportDir: string; root: string }> {
    this.engine ??= (async () => {
      const root = await realRoot(this.root);
      const exportDir = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'dggs-lake-'));
      const db = await DuckDBInstance.create(':memory:', { autoload_known_extensions: 'false', autoinstall_known_extensions: 'false' });
      const c = await db.connect();
      try {
        await c.run(`SET GLOBAL TimeZone = 'UTC'`); // TIMESTAMP columns compare as UTC (the translator relies on it)
        // Geometry is read as WKB BLOB everywhere: files with and without GeoParquet metadata then
        // share one schema (BLOB and GEOMETRY columns do not unify), and WKB is what we decode.
        await c.run('SET GLOBAL enable_geoparquet_conversion = false');
        // Paths are the service's own (config root and mkdtemp), not request input.
        await c.run(`SET allowed_directories = [${sqlString(root + path.sep)}, ${sqlString(exportDir + path.sep)}]`);
        await c.run('SET enable_external_access = false');
        await c.run('SET lock_configuration = true');
      } finally {
        c.closeSync();
      }
      return { db, exportDir, root };
    })();
    return this.engine;
  }

  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    if (!engine) return;
    const { db, exportDir } = await engine;
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

  async describe(collection: Collection): Promise<LakeDataset> {
    return (await this.described(collection)).dataset;
  }

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const d = await this.described(collection).catch((e: unknown) => {
      if (e instanceof LakeNotFoundError) return undefined; // no files yet: no queryables
      throw e;
    });
    if (!d) return {};
    const out: Record<string, FieldMeta> = {};
    for (const c of d.types) {
      const meta = fieldMeta(c, d.dataset.geometryColumn, d.geo);
      if (meta) out[c.name] = meta;
    }
    return out;
  }

  async described(collection: Collection): Promise<Described> {
    const { root } = await this.start();
    let found: FoundFile[];
    try {
      found = await findParquetFiles(root, collection.id);
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
    const dataset: LakeDataset = {
      collectionId: collection.id,
      source: `${collection.id}/data/**/*.parquet`,
      files,
      columns: types.map((t) => {
        const field = fieldMeta(t, geometryColumn, geo);
        return { name: t.name, type: t.type, field: field ?? { title: t.name, type: 'object' as const, svc_data_type: t.type }, queryable: field !== undefined };
      }),
      totalRows: files.reduce((s, f) => s + f.rows, 0),
      ...(geometryColumn ? { geometryColumn } : {}),
      ...(datetimeColumn ? { datetimeColumn } : {}),
    };
    return { dataset, found, types, cql2: cql2Columns(types, geometryColumn, geo), ...(geo ? { geo } : {}) };
  }

  /** Row counts and GeoParquet metadata from the footers; cached per (path, size, mtime). */
  private async refreshFileMeta(found: FoundFile[]): Promise<void> {
    const keyOf = (f: FoundFile) => `${f.size}:${f.mtimeMs}`;
    const stale = found.filter((f) => this.fileMeta.get(f.absolute)?.key !== keyOf(f));
    if (stale.length === 0) return;
    await this.withConnection(async (c) => {
      const files = listValue(stale.map((f) => f.absolute));
      const rows = (await c.runAndReadAll('SELECT file_name, num_rows FROM parquet_file_metadata($1)', [files])).getRows();
      const kv = (await c.runAndReadAll(`SELECT file_name, decode(value) FROM parquet_kv_metadata($1) WHERE decode(key) = 'geo'`, [files])).getRows();
      const geoByFile = new Map<string, GeoMetadata>();
      for (const [file, value] of kv) {
        try {
          geoByFile.set(String(file), JSON.parse(String(value)) as GeoMetadata);
        } catch {
          // unreadable geo metadata: treat the file as plain parquet
        }
      }
      const rowsByFile = new Map(rows.map(([file, n]) => [String(file), Number(n)]));
      for (const f of stale) {
        const geo = geoByFile.get(f.absolute);
        this.fileMeta.set(f.absolute, { key: keyOf(f), rows: rowsByFile.get(f.absolute) ?? 0, ...(geo ? { geo } : {}) });
      }
    });
  }

  private async schema(found: FoundFile[]): Promise<ColumnType[]> {
    const key = found.map((f) => `${f.absolute}:${f.size}:${f.mtimeMs}`).join('|');
    const cached = this.schemas.get(key);
    if (cached) return cached;
    const types = await this.withConnection(async (c) => {
      const r = await c.runAndReadAll(`SELECT * FROM read_parquet($1, union_by_name = true, hive_partitioning = false) LIMIT 0`, [listValue(found.map((f) => f.absolute))]);
      return r.columnNames().map((name, i) => ({ name, type: r.columnType(i).toString() }));
    });
    if (this.schemas.size > 64) this.schemas.clear();
    this.schemas.set(key, types);
    return types;
  }

  /** bbox, datetime and the CQL2 filter as one CQL2 tree, so all three share the translator's binding and exact checks. */
  private filterOf(d: Described, f: RowFilter): Cql2DuckDbFilter | undefined {
    const parts: Expr[] = [];
    if (f.bbox) {
      const g = d.dataset.geometryColumn;
      if (!g) throw new LakeQueryError('Invalid parameter', 'bbox needs a geometry column, and this collection has none.');
      parts.push({ kind: 'spatial', op: 's_intersects', left: { kind: 'property', name: g }, right: { kind: 'bbox', bbox: [...f.bbox] } });
    }
    if (f.datetime) {
      const col = d.dataset.datetimeColumn;
      if (!col) throw new LakeQueryError('Invalid parameter', 'datetime needs a datetime column, and this collection has none.');
      const ts = (ms: number): Expr => ({ kind: 'timestamp', value: new Date(ms).toISOString().replace('.000Z', 'Z') });
      if (f.datetime.start !== null) parts.push({ kind: 'comparison', op: '>=', left: { kind: 'property', name: col }, right: ts(f.datetime.start) });
      if (f.datetime.end !== null) parts.push({ kind: 'comparison', op: '<=', left: { kind: 'property', name: col }, right: ts(f.datetime.end) });
    }
    if (f.filter) parts.push(f.filter);
    if (parts.length === 0) return undefined;
    const expr: Expr = parts.length === 1 ? parts[0]! : { kind: 'and', args: parts };
    try {
      return toDuckDbSql(expr, d.cql2);
    } catch (e) {
      if (e instanceof Cql2UnknownPropertyError) throw new LakeQueryError('Invalid filter', e.message);
      if (e instanceof Cql2TranslationError) throw new LakeQueryError('Invalid filter', e.message);
      throw e;
    }
  }

  /** Per-file matches of the filtered set. */
  private async matches(c: DuckDBConnection, d: Described, filter: Cql2DuckDbFilter | undefined): Promise<FileMatch[]> {
    if (!filter) return d.found.map((file) => ({ file, count: this.fileMeta.get(file.absolute)!.rows }));
    const p = new Params(filter.params);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    if (!filter.residual) {
      const sql = `SELECT __lake_file, count(*) FROM read_parquet(${files}, ${READ_OPTS}) WHERE ${filter.sql} GROUP BY __lake_file`;
      const counts = new Map((await c.runAndReadAll(sql, p.values)).getRows().map(([f, n]) => [String(f), Number(n)]));
      return d.found.map((file) => ({ file, count: counts.get(file.absolute) ?? 0 }));
    }
    // A spatial predicate SQL can only approximate: fetch the candidates' row numbers and the
    // residual's columns, keep the exact matches.
    const residual = filter.residual;
    const extra = residual.columns.map((x) => `${x.sql} AS ${x.alias}`);
    const sql = `SELECT __lake_file, file_row_number, ${extra.join(', ')} FROM read_parquet(${files}, ${READ_OPTS}) WHERE ${filter.sql}`;
    const result = await c.stream(sql, p.values);
    const names = result.columnNames();
    const rowsByFile = new Map<string, number[]>();
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      for (const row of chunk.getRowObjects(names)) {
        if (!residual.test(row)) continue;
        const f = String(row.__lake_file);
        let list = rowsByFile.get(f);
        if (!list) rowsByFile.set(f, (list = []));
        list.push(Number(row.file_row_number));
      }
    }
    return d.found.map((file) => {
        const rowNumbers = (rowsByFile.get(file.absolute) ?? []).sort((a, b) => a - b);
        return { file, count: rowNumbers.length, rowNumbers };
      });
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
      } else if (m.rowNumbers) {
        // The prefilter again keeps every bound parameter referenced (DuckDB refuses unused ones).
        parts.push(`(${base} AND (${filter.sql}) AND file_row_number = ANY(${p.add(listValue(m.rowNumbers.slice(skip, skip + take)))}::BIGINT[]))`);
      } else {
        parts.push(`(${base} AND (${filter.sql}) ORDER BY file_row_number LIMIT ${p.add(take)}::BIGINT OFFSET ${p.add(skip)}::BIGINT)`);
      }
      want -= take;
      skip = 0;
    }
    if (parts.length === 0) return undefined;
    return { sql: `SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY __part, __row`, params: p.values };
  }

  private selectList(d: Described, columns: string[], geometryAs: 'wkb' | 'geometry'): string[] {
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
      const matches = await this.matches(c, d, filter);
      const numberMatched = matches.reduce((s, m) => s + m.count, 0);
      const page = this.pageSql(d, filter, matches, req, select);
      if (!page) return { numberMatched, rows: [] };
      const reader = await c.runAndReadAll(page.sql, page.params);
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
      const matches = await this.matches(c, d, filter);
      const page = this.pageSql(d, filter, matches, req, select) ?? {
        // An empty page is still a file with the right columns.
        sql: `SELECT ${select.join(', ')}, 0 AS __part, 0 AS __row FROM read_parquet($1, ${READ_OPTS}) LIMIT 0`,
        params: [listValue(d.found.map((f) => f.absolute))],
      };
      const cols = req.columns.map(q).join(', ');
      // COPY takes no parameters: materialise the page first, then copy the table.
      const table = `page_${randomUUID().replaceAll('-', '')}`;
      await c.run(`CREATE TEMP TABLE ${table} AS ${page.sql}`, page.params);
      try {
        await c.run(`COPY (SELECT ${cols} FROM ${table} ORDER BY __part, __row) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd${kv})`);
      } finally {
        await c.run(`DROP TABLE IF EXISTS ${table}`);
      }
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
   * points), which is what aggregation by representative point needs.
   */
  async scanDescribed(d: Described, req: LakeScanRequest, filter: Cql2DuckDbFilter | undefined, onChunk: (chunk: LakeChunk) => void | Promise<void>): Promise<void> {
    const select = this.selectList(d, req.columns, 'wkb');
    const p = new Params(filter?.params ?? []);
    const files = p.add(listValue(d.found.map((f) => f.absolute)));
    const where: string[] = [];
    if (filter) where.push(`(${filter.sql})`);
    if (req.bbox) where.push(this.envelopeSql(d, req.bbox, p));
    const extra = filter?.residual?.columns.map((x) => `${x.sql} AS ${x.alias}`) ?? [];
    const sql = `SELECT ${[...select, ...extra].join(', ')} FROM read_parquet(${files}, ${READ_OPTS})${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    await this.withConnection(async (c) => {
      const result = await c.stream(sql, p.values);
      const names = result.columnNames();
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        const raw = chunk.getColumns();
        let keep: number[] | undefined;
        if (filter?.residual) {
          const test = filter.residual.test;
          keep = [];
          const objects = chunk.getRowObjects(names);
          for (let i = 0; i < objects.length; i++) if (test(objects[i]!)) keep.push(i);
        }
        const columns: Record<string, LakeValue[]> = {};
        req.columns.forEach((col, j) => {
          const values = raw[j]!;
          columns[col] = keep ? keep.map((i) => toLakeValue(values[i]!)) : values.map(toLakeValue);
        });
        await onChunk({ size: keep ? keep.length : chunk.rowCount, columns });
      }
    });
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

const GEOMETRY_TYPES = /^(Point|LineString|Polygon|MultiPoint|MultiLineString|MultiPolygon|GeometryCollection)( Z)?$/;

/** GeoParquet 1.1 metadata for a page: WKB, CRS84 (the default when `crs` is absent), the source's geometry types. */
export function geoMetadataJson(column: string, source: GeoMetadata | undefined): string {
  const types = (source?.columns?.[column]?.geometry_types ?? []).filter((t) => GEOMETRY_TYPES.test(t));
  return JSON.stringify({ version: '1.1.0', primary_column: column, columns: { [column]: { encoding: 'WKB', geometry_types: types } } });
}

/**
 * The lake's GeoParquet metadata: the first file's, with the bbox covering kept only when every
 * file declares it (a file without the covering column reads NULL there, and a covering filter
 * would silently drop its rows).
 */
function consistentGeo(all: (GeoMetadata | undefined)[]): GeoMetadata | undefined {
  const first = all.find((g) => g !== undefined);
  if (!first?.columns) return first;
  const columns: NonNullable<GeoMetadata['columns']> = {};
  for (const [name, col] of Object.entries(first.columns)) {
    const same = JSON.stringify(col.covering?.bbox);
    const everywhere = col.covering?.bbox && all.every((g) => JSON.stringify(g?.columns?.[name]?.covering?.bbox) === same);
    const { covering: _dropped, ...rest } = col;
    columns[name] = everywhere ? col : rest;
  }
  return { ...first, columns };
}
