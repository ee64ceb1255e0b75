/**
 * Writes a page of lake rows as a parquet file with the column types the lake describes (so the
 * file matches what the DuckDB lake writes for the same page). DuckDB is used here only as a
 * parquet writer: an in-memory engine per call, external access off except one private scratch
 * directory, configuration locked. Values reach it as bound parameters; identifiers and types
 * come from the parquet schema, quoted.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBInstance, listValue, LIST, VARCHAR } from '@duckdb/node-api';
import type { LakeValue } from '../../ports/lake-reader.js';

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
/** A parquet schema's type spelled by DuckDB: letters, digits, spaces, quotes, brackets, commas. */
const TYPE = /^[A-Za-z0-9_ ,()"[\].:-]+$/;

export interface PageColumn {
  name: string;
  /** DuckDB type name; the geometry column is written as BLOB (WKB). */
  type: string;
}

function text(v: LakeValue, type: string): string | null {
  if (v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'object') return JSON.stringify(v, (_k, x: unknown) => (x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x));
  if (type.startsWith('TIMESTAMP') && typeof v === 'string') return v.replace(/Z$/, '');
  return String(v);
}

function valueSql(param: string, type: string): string {
  if (type === 'BLOB' || type.startsWith('GEOMETRY')) return `unhex(${param})`;
  if (type.endsWith('[]') || type.startsWith('STRUCT') || type.startsWith('MAP')) return `CAST(CAST(${param} AS JSON) AS ${type})`;
  return `CAST(${param} AS ${type})`;
}

export async function writePageParquet(columns: PageColumn[], rows: Record<string, LakeValue>[], geoKv: string | undefined): Promise<Uint8Array> {
  for (const c of columns) if (!TYPE.test(c.type)) throw new Error(`cannot write a column of type ${c.type.slice(0, 64)}`);
  const dir = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'dggs-s3-page-'));
  const db = await DuckDBInstance.create(':memory:', { autoload_known_extensions: 'false', autoinstall_known_extensions: 'false' });
  try {
    const c = await db.connect();
    try {
      await c.run(`SET TimeZone = 'UTC'`);
      await c.run(`SET allowed_directories = [${sqlString(dir + path.sep)}]`);
      await c.run('SET enable_external_access = false');
      await c.run('SET lock_configuration = true');
      const file = path.join(dir, `${randomUUID()}.parquet`);
      const params = columns.map((col) => listValue(rows.map((r) => text(r[col.name] ?? null, col.type))));
      const select = columns.map((col, i) => `${valueSql(`unnest($${i + 1})`, col.type)} AS ${q(col.name)}`);
      await c.run(`CREATE TEMP TABLE page AS SELECT ${select.join(', ')}`, params, columns.map(() => LIST(VARCHAR)));
      const kv = geoKv ? `, KV_METADATA {geo: ${sqlString(geoKv)}}` : '';
      await c.run(`COPY (SELECT * FROM page) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd${kv})`);
      return new Uint8Array(await fs.readFile(file));
    } finally {
      c.closeSync();
    }
  } finally {
    db.closeSync();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
