/**
 * Rewrites a lake collection's files with stored zone-key columns (`npm run ingest`): for every
 * row, the grid's numeric key of the zone holding its representative point, one BIGINT column
 * per level (zone-key-columns.ts), plus the GeoParquet bbox covering when the files lack a
 * shared one. Rows, their order and every other column stay as they were.
 *
 * Each file is rewritten on its own: written next to the original under a hidden name (which the
 * lake never reads), checked to hold as many rows, then renamed over it, so a reader sees the old
 * file or the new one, never a partial one. The points come from the WKB itself (never from a
 * covering), exactly as the row-by-row aggregation takes them.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DOUBLE, DuckDBBlobVector, DuckDBDataChunk, DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { decodeWkb } from '../../domain/geometry/wkb.js';
import { envelope } from '../../domain/geometry/geojson.js';
import { representativePoint, wkbPointXY } from '../../domain/geometry/representative-point.js';
import { findParquetFiles, realRoot, type FoundFile } from './lake-files.js';
import { parseZoneColumns, ZONE_COLUMNS_KEY, zoneColumnsJson, zoneKeyColumnName, type ZoneKeyColumn } from './zone-key-columns.js';
import { q, sqlString } from './duckdb-sql-text.js';
import type { GeoMetadata } from './lake-schema.js';

export interface ZoneColumnsJob {
  /** The lake root directory. */
  root: string;
  collectionId: string;
  /** The geometry column (the collection's `geometryColumn`). */
  geometryColumn: string;
  grid: Dggrs;
  levels: number[];
  /** Progress lines. */
  log?: (line: string) => void;
}

export class ZoneColumnsError extends Error {
  override readonly name = 'ZoneColumnsError';
}

const COVERING = 'bbox';
const BBOX_KEYS = ['xmin', 'ymin', 'xmax', 'ymax'] as const;

/** Writes the zone-key columns into every file of the collection; returns the files and rows written. */
export async function writeZoneColumns(job: ZoneColumnsJob): Promise<{ files: number; rows: number }> {
  const { grid, levels } = job;
  if (!grid.zoneKeyFromPoint || !grid.zoneIdFromKey || grid.maxZoneKeyLevel === undefined) throw new ZoneColumnsError(`${grid.id} has no numeric zone keys to store`);
  const beyond = levels.filter((l) => l < 0 || l > grid.maxZoneKeyLevel! || l > grid.maxRefinementLevel);
  if (beyond.length) throw new ZoneColumnsError(`${grid.id} stores zone keys for levels 0-${Math.min(grid.maxZoneKeyLevel, grid.maxRefinementLevel)}, not ${beyond.join(', ')}`);
  const files = await findParquetFiles(await realRoot(job.root), job.collectionId);
  if (files.length === 0) throw new ZoneColumnsError(`no parquet files under ${job.collectionId}/data in ${job.root}`);

  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run('SET enable_geoparquet_conversion = false'); // WKB stays BLOB, as the lake reads it
    const metas = await Promise.all(files.map((f) => fileMeta(c, f.absolute)));
    const shared = sharedCovering(metas.map((m) => m.geo), job.geometryColumn);
    let rows = 0;
    for (const [i, file] of files.entries()) {
      const t0 = performance.now();
      const n = await rewrite(db, c, job, file, metas[i]!, shared);
      rows += n;
      job.log?.(`${file.relative}: ${n.toLocaleString('en')} rows, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    return { files: files.length, rows };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

interface FileMeta {
  geo?: GeoMetadata;
  zoneColumns: ZoneKeyColumn[];
  columns: { name: string; type: string }[];
  rows: number;
}

async function fileMeta(c: DuckDBConnection, file: string): Promise<FileMeta> {
  const kv = new Map((await c.runAndReadAll('SELECT decode(key), decode(value) FROM parquet_kv_metadata($1)', [file])).getRows().map(([k, v]) => [String(k), String(v)]));
  let geo: GeoMetadata | undefined;
  try {
    geo = kv.has('geo') ? (JSON.parse(kv.get('geo')!) as GeoMetadata) : undefined;
  } catch {
    geo = undefined;
  }
  const described = await c.runAndReadAll(`SELECT * FROM read_parquet($1) LIMIT 0`, [file]);
  const columns = described.columnNames().map((name, i) => ({ name, type: described.columnType(i).toString() }));
  const [[rows]] = (await c.runAndReadAll('SELECT num_rows FROM parquet_file_metadata($1)', [file])).getRows() as [[bigint]];
  return { ...(geo ? { geo } : {}), zoneColumns: parseZoneColumns(kv.get(ZONE_COLUMNS_KEY) ?? ''), columns, rows: Number(rows) };
}

/** The covering every file declares alike for the geometry column (kept as it is), if any. */
function sharedCovering(geos: (GeoMetadata | undefined)[], g: string): string | undefined {
  const first = JSON.stringify(geos[0]?.columns?.[g]?.covering?.bbox);
  return first !== undefined && geos.every((x) => JSON.stringify(x?.columns?.[g]?.covering?.bbox) === first) ? first : undefined;
}

/** Rows of `file`: computes points, keys and boxes, writes the new file beside it and renames it over. */
async function rewrite(db: DuckDBInstance, c: DuckDBConnection, job: ZoneColumnsJob, file: FoundFile, meta: FileMeta, sharedCover: string | undefined): Promise<number> {
  const g = job.geometryColumn;
  const geomType = meta.columns.find((x) => x.name === g)?.type;
  if (!geomType) throw new ZoneColumnsError(`${file.relative} has no column "${g}" (the collection's geometryColumn)`);
  const addCovering = sharedCover === undefined;
  const declaredCover = meta.geo?.columns?.[g]?.covering?.bbox?.xmin?.[0];
  if (addCovering && meta.columns.some((x) => x.name === COVERING) && declaredCover !== COVERING) {
    throw new ZoneColumnsError(`${file.relative} has a column "${COVERING}" that is not its bbox covering: rename it, or give every file the same covering`);
  }
  const newColumns = job.levels.map((level) => ({ column: zoneKeyColumnName(job.grid.id, level), dggrs: job.grid.id, level }));
  const replaced = new Set([...newColumns.map((z) => z.column), ...(addCovering ? [COVERING] : [])].filter((name) => meta.columns.some((x) => x.name === name)));

  // Keys (and boxes) in file order, appended to a scratch table beside a row number.
  const keys = job.levels.map((_, k) => `k${k}`);
  const boxes = addCovering ? [...BBOX_KEYS] : [];
  // The appender has a connection of its own: its flushes would end a stream on the reading one.
  await c.run(`CREATE OR REPLACE TABLE zone_keys (rn DOUBLE, ${[...boxes, ...keys].map((k) => `${k} DOUBLE`).join(', ')})`);
  const writer = await db.connect();
  const appender = await writer.createAppender('zone_keys');
  const width = 1 + boxes.length + keys.length;
  const geometryTypes = new Set<string>();
  const wkb = geomType.startsWith('GEOMETRY') ? `st_aswkb(${q(g)})` : q(g);
  const result = await c.stream(`SELECT ${wkb} FROM read_parquet($1, file_row_number = true) ORDER BY file_row_number`, [file.absolute]);
  let rn = 0;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const n = chunk.rowCount;
    const geometries = chunk.getColumnVector(0) as DuckDBBlobVector;
    const cols: (number | null)[][] = Array.from({ length: width }, () => new Array<number | null>(n).fill(null));
    for (let i = 0; i < n; i++) {
      cols[0]![i] = rn++;
      const bytes = geometries.getItemBytes(i);
      const row = bytes ? rowPlace(bytes) : undefined;
      if (row?.typeName) geometryTypes.add(row.typeName);
      if (!row) continue;
      if (addCovering && row.box) row.box.forEach((v, b) => (cols[1 + b]![i] = v));
      if (!row.point) continue;
      const [x, y] = row.point;
      if (!Number.isFinite(x) || !(y >= -90 && y <= 90)) continue;
      job.levels.forEach((level, k) => {
        const key = job.grid.zoneKeyFromPoint!(x, y, level);
        if (!Number.isNaN(key)) cols[1 + boxes.length + k]![i] = key;
      });
    }
    const out = DuckDBDataChunk.create(cols.map(() => DOUBLE), n);
    out.setColumns(cols);
    appender.appendDataChunk(out);
  }
  appender.closeSync();
  writer.closeSync();

  const geo = geoMetadata(meta.geo, g, addCovering ? COVERING : undefined, [...geometryTypes]);
  const declared = [...meta.zoneColumns.filter((z) => !replaced.has(z.column) && !newColumns.some((n) => n.column === z.column)), ...newColumns];
  const kv = `KV_METADATA {geo: ${sqlString(JSON.stringify(geo))}, ${ZONE_COLUMNS_KEY}: ${sqlString(zoneColumnsJson(declared))}}`;
  const exclude = ['file_row_number', ...replaced].map(q).join(', ');
  const cover = addCovering ? `, struct_pack(${BBOX_KEYS.map((k) => `${k} := z.${k}`).join(', ')}) AS ${q(COVERING)}` : '';
  const zones = newColumns.map((z, k) => `z.k${k}::BIGINT AS ${q(z.column)}`).join(', ');
  const tmp = path.join(path.dirname(file.absolute), `.${path.basename(file.absolute)}.zones-${process.pid}.tmp`);
  try {
    await c.run(
      `COPY (SELECT t.* EXCLUDE (${exclude})${cover}, ${zones} FROM read_parquet(${sqlString(file.absolute)}, file_row_number = true) t JOIN zone_keys z ON t.file_row_number = z.rn::BIGINT ORDER BY t.file_row_number)
        TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd, ${kv})`,
    );
    const [[written]] = (await c.runAndReadAll('SELECT num_rows FROM parquet_file_metadata($1)', [tmp])).getRows() as [[bigint]];
    if (Number(written) !== meta.rows) throw new ZoneColumnsError(`${file.relative}: wrote ${written} rows of ${meta.rows}; the original is left as it was`);
    await fs.rename(tmp, file.absolute);
  } finally {
    await fs.rm(tmp, { force: true });
    await c.run('DROP TABLE IF EXISTS zone_keys');
  }
  return meta.rows;
}

/** The place of a row: its representative point, its bbox, its GeoParquet type name; as the row-by-row path reads the WKB. */
function rowPlace(bytes: Uint8Array): { point?: [number, number]; box?: [number, number, number, number]; typeName?: string } | undefined {
  const xy = wkbPointXY(bytes);
  if (xy) return { point: xy, box: [xy[0], xy[1], xy[0], xy[1]], typeName: 'Point' };
  try {
    const geometry = decodeWkb(bytes);
    const point = representativePoint(geometry);
    const box = envelope(geometry);
    const z = hasZ(bytes);
    return { ...(point ? { point } : {}), ...(box ? { box: [box[0], box[1], box[2], box[3]] as [number, number, number, number] } : {}), typeName: `${geometry.type}${z ? ' Z' : ''}` };
  } catch {
    return undefined; // undecodable geometry: no place
  }
}

/** Whether a WKB geometry (ISO or EWKB) declares Z. */
function hasZ(bytes: Uint8Array): boolean {
  if (bytes.byteLength < 5) return false;
  const code = new DataView(bytes.buffer, bytes.byteOffset, 5).getUint32(1, bytes[0] === 1);
  const iso = Math.floor((code & 0x0fffffff) / 1000);
  return (code & 0x80000000) !== 0 || iso === 1 || iso === 3;
}

/** The file's GeoParquet metadata with the covering (when added) and geometry types (when it had none). */
function geoMetadata(source: GeoMetadata | undefined, g: string, covering: string | undefined, types: string[]): GeoMetadata & { version: string } {
  const base = (source ?? { primary_column: g, columns: {} }) as GeoMetadata & { version?: string };
  const col = { encoding: 'WKB', ...(base.columns?.[g] ?? {}) };
  if (!col.geometry_types) col.geometry_types = [...types].sort();
  if (covering) col.covering = { bbox: Object.fromEntries(BBOX_KEYS.map((k) => [k, [covering, k]])) as Record<(typeof BBOX_KEYS)[number], string[]> };
  return { ...base, version: base.version ?? '1.1.0', primary_column: base.primary_column ?? g, columns: { ...(base.columns ?? {}), [g]: col } };
}
