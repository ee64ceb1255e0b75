import type { Dggrs } from '../../../domain/dggrs/dggrs.js';
import type { ZonePolygon } from '../../../domain/geometry/rfc7946.js';
import { encodeZoneWkb } from '../../../domain/geometry/zone-wkb.js';
import { zoneGeometry } from './zone-list-geojson.js';
import { writeParquet } from './parquet-writer.js';

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
  const types = new Set<string>();
  const bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const rows = zones.map((z) => {
    const g = zoneGeometry(grid, z, opts.refined);
    types.add(g.type);
    extend(bbox, g);
    return [z, grid.zoneLevel(z), encodeZoneWkb(g)] as const;
  });
  const geo = {
    version: '1.1.0',
    primary_column: 'geometry',
    columns: {
      geometry: {
        encoding: 'WKB',
        geometry_types: [...types].sort(),
        orientation: 'counterclockwise',
        edges: 'planar',
        ...(zones.length ? { bbox } : {}),
      },
    },
  };
  return writeParquet(
    [{ name: 'zone_id', type: 'string' }, { name: 'level', type: 'integer' }, { name: 'geometry', type: 'blob' }],
    rows,
    { geometryColumn: 'geometry', geoMetadata: geo, kvMetadata: { dggrs: grid.id } },
  );
}

function extend(bbox: number[], g: ZonePolygon): void {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  for (const p of polys) for (const [x, y] of p[0]!) {
    bbox[0] = Math.min(bbox[0]!, x!);
    bbox[1] = Math.min(bbox[1]!, y!);
    bbox[2] = Math.max(bbox[2]!, x!);
    bbox[3] = Math.max(bbox[3]!, y!);
  }
}
