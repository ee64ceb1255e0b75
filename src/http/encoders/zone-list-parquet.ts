import type { Dggrs, Stepped } from '../../domain/dggrs/dggrs.js';
import { zoneGeometry } from './zone-list-geojson.js';
import { writeParquet } from '../../formats/parquet-writer.js';
import { ZoneGeometryColumn } from '../../formats/geoparquet-metadata.js';
import { FEATURES_PER_STEP } from './zone-list-geojson.js';

/**
 * Zone lists as Parquet (a `zone_id` column) or GeoParquet 1.1 (plus a WKB `geometry` column,
 * described by the `geo` file metadata: CRS84 by default, planar edges, CCW exteriors). The
 * geometries are made in steps (see zoneListParquetRows), then DuckDB writes the file.
 */
export async function encodeZoneListParquet(grid: Dggrs, rows: ZoneListRows): Promise<Buffer> {
  if (!rows.geometry) {
    return writeParquet([{ name: 'zone_id', type: 'string' }, { name: 'level', type: 'integer' }], rows.rows, {
      kvMetadata: { dggrs: grid.id },
    });
  }
  return writeParquet(
    [{ name: 'zone_id', type: 'string' }, { name: 'level', type: 'integer' }, { name: 'geometry', type: 'blob' }],
    rows.rows,
    { geometryColumn: 'geometry', geoMetadata: rows.geometry.metadata(), kvMetadata: { dggrs: grid.id } },
  );
}

export interface ZoneListRows {
  rows: (readonly [string, number] | readonly [string, number, Uint8Array])[];
  geometry?: ZoneGeometryColumn;
}

/** The rows of a zone list file, geometries (the costly part) made a few at a time. */
export function* zoneListParquetRows(grid: Dggrs, zones: readonly string[], opts: { geometry: boolean; refined: boolean }): Stepped<ZoneListRows> {
  if (!opts.geometry) return { rows: zones.map((z) => [z, grid.zoneLevel(z)] as const) };
  const geometry = new ZoneGeometryColumn();
  const rows: ZoneListRows['rows'] = [];
  for (let i = 0; i < zones.length; i++) {
    rows.push([zones[i]!, grid.zoneLevel(zones[i]!), geometry.wkb(zoneGeometry(grid, zones[i]!, opts.refined))]);
    if (i % FEATURES_PER_STEP === FEATURES_PER_STEP - 1) yield;
  }
  return { rows, geometry };
}
