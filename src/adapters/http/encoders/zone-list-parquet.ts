import type { Dggrs } from '../../../domain/dggrs/dggrs.js';
import { zoneGeometry } from './zone-list-geojson.js';
import { writeParquet } from './parquet-writer.js';
import { ZoneGeometryColumn } from './geoparquet-metadata.js';

/**
 * Zone lists as Parquet (a `zone_id` column) or GeoParquet 1.1 (plus a WKB `geometry` column,
 * described by the `geo` file metadata: CRS84 by default, planar edges, CCW exteriors).
 */
export async function encodeZoneListParquet(grid: Dggrs, zones: readonly string[], opts: { geometry: boolean; refined: boolean }): Promise<Buffer> {
  if (!opts.geometry) {
    return writeParquet([{ name: 'zone_id', type: 'string' }, { name: 'level', type: 'integer' }], zones.map((z) => [z, grid.zoneLevel(z)]), {
      kvMetadata: { dggrs: grid.id },
    });
  }
  const geometry = new ZoneGeometryColumn();
  const rows = zones.map((z) => [z, grid.zoneLevel(z), geometry.wkb(zoneGeometry(grid, z, opts.refined))] as const);
  return writeParquet(
    [{ name: 'zone_id', type: 'string' }, { name: 'level', type: 'integer' }, { name: 'geometry', type: 'blob' }],
    rows,
    { geometryColumn: 'geometry', geoMetadata: geometry.metadata(), kvMetadata: { dggrs: grid.id } },
  );
}
