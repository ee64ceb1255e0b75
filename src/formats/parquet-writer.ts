import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';

/**
 * Small shared Parquet writer for the encoders (zone lists, zone data). DuckDB writes the file:
 * rows go into a temporary in-memory table through the appender, then `COPY ... TO` a temporary
 * file with the caller's key-value metadata (GeoParquet's `geo` goes there), and the bytes are
 * returned. Kept deliberately tiny: plain scalar columns and BLOB (for WKB geometry).
 */
export type ParquetColumnType = 'string' | 'double' | 'integer' | 'bigint' | 'boolean' | 'blob';

export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
}

export interface ParquetOptions {
  /** Name of the BLOB column holding WKB; documents intent, the `geo` metadata names it too. */
  geometryColumn?: string;
  /** GeoParquet metadata object, stored as JSON under the file key `geo`. */
  geoMetadata?: object;
  /** Further file key-value metadata. */
  kvMetadata?: Record<string, string>;
}

export type ParquetCell = string | number | bigint | boolean | Uint8Array | null | undefined;

const SQL_TYPE: Record<ParquetColumnType, string> = {
  string: 'VARCHAR',
  double: 'DOUBLE',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  blob: 'BLOB',
};

let instance: Promise<DuckDBInstance> | undefined;
/** One in-memory DuckDB per process; each write uses its own connection and table. */
function duck(): Promise<DuckDBInstance> {
  instance ??= DuckDBInstance.create(':memory:');
  return instance;
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

export async function writeParquet(columns: readonly ParquetColumn[], rows: Iterable<readonly ParquetCell[]>, options: ParquetOptions = {}): Promise<Buffer> {
  if (columns.length === 0) throw new Error('writeParquet: at least one column is needed');
  if (options.geometryColumn && !columns.some((c) => c.name === options.geometryColumn && c.type === 'blob')) {
    throw new Error(`writeParquet: geometry column "${options.geometryColumn}" must be a blob column`);
  }
  const db = await duck();
  const conn = await db.connect();
  const table = `pq_${randomUUID().replace(/-/g, '')}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'dggs-parquet-'));
  const file = path.join(dir, 'out.parquet');
  try {
    await conn.run(`CREATE TABLE ${table} (${columns.map((c) => `${ident(c.name)} ${SQL_TYPE[c.type]}`).join(', ')})`);
    const appender = await conn.createAppender(table);
    try {
      for (const row of rows) {
        columns.forEach((c, i) => append(appender, c.type, row[i]));
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    const kv: Record<string, string> = { ...(options.kvMetadata ?? {}) };
    if (options.geoMetadata) kv.geo = JSON.stringify(options.geoMetadata);
    const kvSql = Object.keys(kv).length
      ? `, KV_METADATA {${Object.entries(kv).map(([k, v]) => `${ident(k)}: ${literal(v)}`).join(', ')}}`
      : '';
    await conn.run(`COPY ${table} TO ${literal(file)} (FORMAT parquet, COMPRESSION zstd${kvSql})`);
    await conn.run(`DROP TABLE ${table}`);
    return await readFile(file);
  } finally {
    conn.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

function append(a: DuckDBAppender, type: ParquetColumnType, v: ParquetCell): void {
  if (v === null || v === undefined) return a.appendNull();
  switch (type) {
    case 'string':
      return a.appendVarchar(String(v));
    case 'double':
      return a.appendDouble(Number(v));
    case 'integer':
      return a.appendInteger(Number(v));
    case 'bigint':
      return a.appendBigInt(typeof v === 'bigint' ? v : BigInt(v as number));
    case 'boolean':
      return a.appendBoolean(Boolean(v));
    case 'blob':
      if (!(v instanceof Uint8Array)) throw new Error('writeParquet: blob cells must be Uint8Array');
      return a.appendBlob(v);
  }
}
