/**
 * The CQL2 translator's column descriptions for a DuckDB lake. What every lake decides the same
 * way (queryables, their metadata, the trusted covering) is in the domain's lake-columns; this
 * adds only what DuckDB's SQL needs: how geometry is stored and which covering columns prune.
 */
import { coveringOf, isGeometryType, queryableKind, type ColumnType, type GeoMetadata } from '../../domain/lake/lake-columns.js';
import type { Cql2ColumnInfo, Cql2Columns } from './cql2-duckdb-types.js';
import type { FoundFile } from './lake-files.js';
import type { LakeDataset } from '../../ports/lake-reader.js';

export { fieldMeta, isGeometryType, isNumericType, type ColumnType, type GeoMetadata } from '../../domain/lake/lake-columns.js';

/** Everything known about one collection's files right now. */
export interface Described {
  dataset: LakeDataset;
  found: FoundFile[];
  types: ColumnType[];
  cql2: Cql2Columns;
  geo?: GeoMetadata;
}

/** The allow-list handed to the CQL2 translator; covering bbox columns let DuckDB prune row groups. */
export function cql2Columns(columns: ColumnType[], geometryColumn: string | undefined, geo?: GeoMetadata): Cql2Columns {
  const out: Record<string, Cql2ColumnInfo> = {};
  for (const c of columns) {
    const type = queryableKind(c, geometryColumn);
    if (!type) continue;
    if (type === 'geometry') {
      const covering = coveringOf(columns, c.name, geo);
      out[c.name] = {
        type,
        encoding: isGeometryType(c.type) ? 'geometry' : 'wkb',
        ...(covering ? { bbox: { xmin: covering.xmin, ymin: covering.ymin, xmax: covering.xmax, ymax: covering.ymax } } : {}),
      };
    } else out[c.name] = { type };
  }
  return out;
}
