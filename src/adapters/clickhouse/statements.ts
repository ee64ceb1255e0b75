/**
 * Every statement the ClickHouse pyramid store runs, built here and nowhere else: identifiers
 * through `sqlIdentifier` (config values and names built from them), values through `sqlLiteral`.
 *
 * Layout on each shard of database `db`:
 * - `dggs_pyramid_generations`: one row per event of a pyramid's generation (prepared, published,
 *   dropped), with the layout as JSON; the same rows on every shard, so any shard answers `layout`.
 * - per generation `g`, `<table>_<g>_local`: the cells this shard holds, a MergeTree ordered by
 *   (coarse, level, key, period) and partitioned by ingest part, so a retried part is one
 *   `DROP PARTITION` per shard; and `<table>_<g>`: the Distributed table over the cluster, sharded
 *   by `intHash64(coarse)` so one shard holds each coarse zone.
 */
import { ALL_TIME } from '../../ports/zone-pyramid-store.js';
import { sqlArray, sqlIdentifier, sqlList, sqlLiteral, sqlNumber, sqlString } from './sql-literal.js';

export const GENERATIONS_TABLE = 'dggs_pyramid_generations';
/** Generation ids the store makes: `g`, then base-36 digits; anything else is refused before use. */
export const GENERATION_ID = /^g[0-9a-z]{8,24}$/;
export type GenerationState = 'prepared' | 'published' | 'dropped';

/** The columns of one field's moments, by the field's index in the generation's layout. */
const MOMENTS = ['valid', 'sum', 'm2', 'min', 'max'] as const;
const KEY_COLUMNS = ['coarse', 'level', 'key', 'period', 'count'] as const;

export function fieldColumns(index: number): string[] {
  return MOMENTS.map((m) => `f${index}_${m}`);
}

/** The tables of one generation of one pyramid. */
export interface GenerationTables {
  database: string;
  /** Distributed table over the cluster. */
  distributed: string;
  /** The shard's own MergeTree table. */
  local: string;
}

export function generationTables(database: string, table: string, generation: string): GenerationTables {
  if (!GENERATION_ID.test(generation)) throw new Error(`not a pyramid generation id: ${JSON.stringify(generation.slice(0, 40))}`);
  return { database, distributed: `${table}_${generation}`, local: `${table}_${generation}_local` };
}

function qualified(database: string, table: string): string {
  return `${sqlIdentifier(database)}.${sqlIdentifier(table)}`;
}

export function createDatabase(database: string): string {
  return `CREATE DATABASE IF NOT EXISTS ${sqlIdentifier(database)}`;
}

export function createGenerationsTable(database: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified(database, GENERATIONS_TABLE)} (pyramid String, generation String, state String, at UInt64, layout String) ENGINE = MergeTree ORDER BY (pyramid, at)`;
}

export function createLocalCells(t: GenerationTables, fieldCount: number): string {
  const fields = Array.from({ length: fieldCount }, (_, i) => {
    const [valid, sum, m2, min, max] = fieldColumns(i).map(sqlIdentifier);
    return `, ${valid} UInt64, ${sum} Float64, ${m2} Float64, ${min} Float64, ${max} Float64`;
  }).join('');
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(t.database, t.local)} (part String, coarse Int64, level UInt8, key Int64, period Int64, count UInt64${fields}) ` +
    'ENGINE = MergeTree PARTITION BY part ORDER BY (coarse, level, key, period)'
  );
}

export function createDistributedCells(t: GenerationTables, cluster: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified(t.database, t.distributed)} AS ${qualified(t.database, t.local)} ENGINE = Distributed(${sqlIdentifier(cluster)}, ${sqlIdentifier(t.database)}, ${sqlIdentifier(t.local)}, intHash64(coarse))`;
}

export function dropTable(database: string, table: string): string {
  return `DROP TABLE IF EXISTS ${qualified(database, table)}`;
}

/** One shard's cells of an ingest part (a no-op where the shard holds none). */
export function dropPart(t: GenerationTables, part: string): string {
  return `ALTER TABLE ${qualified(t.database, t.local)} DROP PARTITION ${sqlString(part)}`;
}

/** The columns of a RowBinary insert of cells, in the order `encodeCells` writes them. */
export function insertCells(t: GenerationTables, fieldCount: number): string {
  const columns = ['part', ...KEY_COLUMNS, ...Array.from({ length: fieldCount }, (_, i) => fieldColumns(i)).flat()];
  return `INSERT INTO ${qualified(t.database, t.distributed)} (${columns.map(sqlIdentifier).join(', ')}) FORMAT RowBinary`;
}

export function recordGeneration(database: string, pyramid: string, generation: string, state: GenerationState, at: number, layoutJson: string): string {
  // INSERT ... SELECT: the literals go through the SQL parser, the one whose escapes sqlString targets.
  return `INSERT INTO ${qualified(database, GENERATIONS_TABLE)} (pyramid, generation, state, at, layout) SELECT ${[pyramid, generation, state, at, layoutJson].map(sqlLiteral).join(', ')}`;
}

/** The published generation and its layout (hex: plain ASCII whatever the layout's bytes). */
export function selectPublished(database: string, pyramid: string): string {
  return `SELECT generation, hex(layout) FROM ${qualified(database, GENERATIONS_TABLE)} WHERE pyramid = ${sqlString(pyramid)} AND state = 'published' ORDER BY at DESC LIMIT 1 FORMAT TabSeparated`;
}

/** One generation's latest state (hex layout), `at` of its preparation. */
export function selectGeneration(database: string, pyramid: string, generation: string): string {
  return `SELECT state, hex(layout), at FROM ${qualified(database, GENERATIONS_TABLE)} WHERE pyramid = ${sqlString(pyramid)} AND generation = ${sqlString(generation)} ORDER BY at DESC LIMIT 1 FORMAT TabSeparated`;
}

/** Every generation of a pyramid with its latest state. */
export function selectGenerations(database: string, pyramid: string): string {
  return `SELECT generation, argMax(state, at), min(at) FROM ${qualified(database, GENERATIONS_TABLE)} WHERE pyramid = ${sqlString(pyramid)} GROUP BY generation FORMAT TabSeparated`;
}

export interface CellSelection {
  level: number;
  keys: readonly number[];
  coarse: readonly number[];
  /** Indexes of the wanted fields in the generation's layout. */
  fieldIndexes: readonly number[];
  periods?: { from: number; to: number };
}

/** The columns `selectCells` answers, in order. */
export function cellColumnCount(fieldCount: number): number {
  return KEY_COLUMNS.length + MOMENTS.length * fieldCount;
}

export function selectCells(t: GenerationTables, s: CellSelection): string {
  const columns = [...KEY_COLUMNS, ...s.fieldIndexes.flatMap(fieldColumns)].map(sqlIdentifier).join(', ');
  const period = s.periods
    ? `period >= ${sqlNumber(s.periods.from)} AND period < ${sqlNumber(s.periods.to)} AND period != ${sqlNumber(ALL_TIME)}`
    : `period = ${sqlNumber(ALL_TIME)}`;
  // The keys as one array literal: 18.16 parses `IN (k1, ..., kN)` as a function of N arguments,
  // several times slower for the thousands of keys of a zone's sub-zones, on every shard.
  // The coarse keys narrow the scan to a few ranges of the sort order; without them the level and keys still answer.
  const coarse = s.coarse.length > 0 ? `coarse IN ${sqlList(s.coarse)} AND ` : '';
  return `SELECT ${columns} FROM ${qualified(t.database, t.distributed)} WHERE ${coarse}level = ${sqlNumber(s.level)} AND key IN (SELECT toInt64(arrayJoin(${sqlArray(s.keys)}))) AND ${period} FORMAT TabSeparated`;
}

/** Cancels a query by the id the adapter gave it (on an aborted read). */
export function killQuery(queryId: string): string {
  return `KILL QUERY WHERE query_id = ${sqlString(queryId)} ASYNC`;
}
