/**
 * What every lake adapter decides the same way from a parquet schema (as engine type names in
 * DuckDB's spelling, e.g. BIGINT, TIMESTAMP, VARCHAR[]): which columns are queryables and their
 * metadata, how a filter may use them, which GeoParquet covering is trusted, and which object
 * paths belong to a collection. Pure, so a second lake (the object store one) answers exactly as
 * the DuckDB one does.
 */
import type { FieldMeta } from '../collection.js';

/** The `geo` file metadata of GeoParquet (only what we use). */
export interface GeoMetadata {
  primary_column?: string;
  columns?: Record<string, { encoding?: string; geometry_types?: string[]; covering?: { bbox?: Record<'xmin' | 'ymin' | 'xmax' | 'ymax', string[]> } }>;
}

export interface ColumnType {
  name: string;
  type: string;
}

/** How a filter may use a column. */
export type QueryableKind = 'string' | 'number' | 'integer' | 'boolean' | 'datetime' | 'date' | 'geometry' | 'array';

/** Same charset as collection ids in config: one path segment, never `.` or `..`. */
export const LAKE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;
const NUMBER = /^(FLOAT|DOUBLE|REAL|DECIMAL.*)$/;

export function isNumericType(type: string): boolean {
  return INTEGER.test(type) || NUMBER.test(type);
}

export function isGeometryType(type: string): boolean {
  return type.startsWith('GEOMETRY');
}

export function queryableKind(c: ColumnType, geometryColumn: string | undefined): QueryableKind | undefined {
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

/** The fields of a lake's columns, by name; `except`: columns that index the rows (zone keys), not fields. */
export function lakeFields(columns: ColumnType[], geometryColumn: string | undefined, geo: GeoMetadata | undefined, except: ReadonlySet<string> = new Set()): Record<string, FieldMeta> {
  const out: Record<string, FieldMeta> = {};
  for (const c of columns) {
    if (except.has(c.name)) continue;
    const meta = fieldMeta(c, geometryColumn, geo);
    if (meta) out[c.name] = meta;
  }
  return out;
}

export function fieldMeta(c: ColumnType, geometryColumn: string | undefined, geo?: GeoMetadata): FieldMeta | undefined {
  const kind = queryableKind(c, geometryColumn);
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

/** The covering bbox struct paths of the geometry column, when the lake's metadata names one its columns hold. */
export function coveringOf(columns: ColumnType[], geometryColumn: string | undefined, geo: GeoMetadata | undefined): Record<'xmin' | 'ymin' | 'xmax' | 'ymax', string[]> | undefined {
  const covering = geometryColumn ? geo?.columns?.[geometryColumn]?.covering?.bbox : undefined;
  return covering && columns.some((x) => x.name === covering.xmin[0]) ? covering : undefined;
}

/**
 * The lake's GeoParquet metadata: the first file's, with the bbox covering kept only when every
 * file declares it (a file without the covering column reads NULL there, and a covering filter
 * would silently drop its rows).
 */
export function consistentGeo(all: (GeoMetadata | undefined)[]): GeoMetadata | undefined {
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

/**
 * Whether a path below a collection's `data/` prefix (`/`-separated) is one of its data files:
 * a `.parquet` name, with no segment hidden (`.x`) or a marker (`_SUCCESS`, `_x`).
 */
export function isLakeDataPath(relative: string): boolean {
  const parts = relative.split('/');
  return parts.every((p) => p.length > 0 && !p.startsWith('.') && !p.startsWith('_')) && parts[parts.length - 1]!.toLowerCase().endsWith('.parquet');
}

/** Scan order of files: by their path relative to the lake root, in code-unit order. */
export function byLakePath<T extends { relative: string }>(a: T, b: T): number {
  return a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0;
}

const GEOMETRY_TYPES = /^(Point|LineString|Polygon|MultiPoint|MultiLineString|MultiPolygon|GeometryCollection)( Z)?$/;

/** GeoParquet 1.1 metadata for a written page: WKB, CRS84 (the default when `crs` is absent), the source's geometry types. */
export function geoMetadataJson(column: string, source: GeoMetadata | undefined): string {
  const types = (source?.columns?.[column]?.geometry_types ?? []).filter((t) => GEOMETRY_TYPES.test(t));
  return JSON.stringify({ version: '1.1.0', primary_column: column, columns: { [column]: { encoding: 'WKB', geometry_types: types } } });
}
