/**
 * Parquet column types -> queryable metadata (the contract's SchemaProperty) and the CQL2
 * translator's column descriptions. Only types a client can meaningfully select or filter are
 * offered as queryables.
 */
import type { FieldMeta } from '../../domain/collection.js';
import type { Cql2ColumnInfo, Cql2Columns } from './cql2-duckdb-types.js';

/** The `geo` file metadata of GeoParquet (only what we use). */
export interface GeoMetadata {
  primary_column?: string;
  columns?: Record<string, { encoding?: string; geometry_types?: string[]; covering?: { bbox?: Record<'xmin' | 'ymin' | 'xmax' | 'ymax', string[]> } }>;
}

export interface ColumnType {
  name: string;
  type: string;
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;
const NUMBER = /^(FLOAT|DOUBLE|REAL|DECIMAL.*)$/;

export function isNumericType(type: string): boolean {
  return INTEGER.test(type) || NUMBER.test(type);
}

export function isGeometryType(type: string): boolean {
  return type.startsWith('GEOMETRY');
}

function cql2Type(c: ColumnType, geometryColumn: string | undefined): Cql2ColumnInfo['type'] | undefined {
  const t = c.type;
  if (c.name === geometryColumn || isGeometryType(t)) return 'geometry';
  if (INTEGER.test(t)) return 'integer';
  if (NUMBER.test(t)) return 'number';
  if (t === 'VARCHAR') return 'string';
  if (t === 'BOOLEAN') return 'boolean';
  if (t.startsWith('TIMESTAMP')) return 'datetime';
  if (t === 'DATE') return 'date';
  if (t.endsWith('[]')) return 'array';
  return undefined;
}

export function fieldMeta(c: ColumnType, geometryColumn: string | undefined, geo?: GeoMetadata): FieldMeta | undefined {
  const kind = cql2Type(c, geometryColumn);
  const base = { title: c.name, svc_data_type: c.type };
  switch (kind) {
    case 'geometry': {
      const types = geo?.columns?.[c.name]?.geometry_types ?? [];
      const single = types.length === 1 ? types[0]!.replace(/ Z$/, '').toLowerCase() : undefined;
      const format = single && /^(point|linestring|polygon|multipoint|multilinestring|multipolygon)$/.test(single) ? `geometry-${single}` : 'geometry-any';
      return { ...base, type: 'object', format, description: 'Geometry (WKB in the parquet file)' };
    }
    case 'integer':
      return { ...base, type: 'integer' };
    case 'number':
      return { ...base, type: 'number' };
    case 'string':
      return { ...base, type: 'string' };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'datetime':
      return { ...base, type: 'string', format: 'date-time' };
    case 'date':
      return { ...base, type: 'string', format: 'date' };
    case 'array':
      return { ...base, type: 'array' };
    default:
      return undefined;
  }
}

/** The allow-list handed to the CQL2 translator; covering bbox columns let DuckDB prune row groups. */
export function cql2Columns(columns: ColumnType[], geometryColumn: string | undefined, geo?: GeoMetadata): Cql2Columns {
  const out: Record<string, Cql2ColumnInfo> = {};
  for (const c of columns) {
    const type = cql2Type(c, geometryColumn);
    if (!type) continue;
    if (type === 'geometry') {
      const covering = geo?.columns?.[c.name]?.covering?.bbox;
      const present = covering && columns.some((x) => x.name === covering.xmin[0]);
      out[c.name] = {
        type,
        encoding: isGeometryType(c.type) ? 'geometry' : 'wkb',
        ...(present ? { bbox: { xmin: covering.xmin, ymin: covering.ymin, xmax: covering.xmax, ymax: covering.ymax } } : {}),
      };
    } else out[c.name] = { type };
  }
  return out;
}
