import { keptSubZone, type ZoneData } from '../../domain/zone-data.js';
import { outlineToGeoJson } from '../../domain/geometry/rfc7946.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { writeParquet, type ParquetCell, type ParquetColumn } from '../parquet-writer.js';
import { ZoneGeometryColumn } from '../geoparquet-metadata.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { fileName } from '../file-names.js';

/**
 * Zone data as Parquet or GeoParquet 1.1: one row per sub-zone and depth, `zone_id`, `depth`,
 * then every field as a nullable DOUBLE (the DGGS-JSON values, nulls kept); GeoParquet adds the
 * WKB `geometry` of each sub-zone. The zone, grid and depths go into file metadata so a file
 * says what it holds once detached from the URL. Outlines are computed ahead, giving the event
 * loop a turn between slices; the request's geometry bound keeps their WKB small. Sub-zones a
 * zone-data filter excluded are no rows.
 */
async function* zoneDataParquet(data: ZoneData, ctx: ZoneDataContext, geo: boolean): AsyncGenerator<Buffer> {
  const names = Object.keys(data.fields);
  const columns: ParquetColumn[] = [{ name: 'zone_id', type: 'string' }, { name: 'depth', type: 'integer' }, ...names.map((n) => ({ name: n, type: 'double' as const }))];
  const geometry = geo ? new ZoneGeometryColumn() : undefined;
  if (geometry) columns.push({ name: 'geometry', type: 'blob' });
  const wkb: Uint8Array[][] = [];
  if (geometry) {
    for (const d of data.depths) {
      const list: Uint8Array[] = [];
      for (const [i, zone] of d.zones.entries()) {
        if (!keptSubZone(d, i)) {
          list.push(new Uint8Array(0));
          continue;
        }
        list.push(geometry.wkb(outlineToGeoJson(ctx.grid.zoneOutline(zone, ctx.refined))));
        if (turnDue()) await takeTurn(ctx.signal);
      }
      wkb.push(list);
    }
  }
  function* rows(): Generator<ParquetCell[]> {
    for (let k = 0; k < data.depths.length; k++) {
      const d = data.depths[k]!;
      for (let i = 0; i < d.zones.length; i++) {
        if (!keptSubZone(d, i)) continue;
        const row: ParquetCell[] = [d.zones[i]!, d.depth];
        for (const n of names) row.push(d.values[n]?.[i] ?? null);
        if (geometry) row.push(wkb[k]![i]!);
        yield row;
      }
    }
  }
  const kvMetadata = { dggrs: data.dggrsId, zone_id: data.zoneId, depths: data.depths.map((d) => d.depth).join(',') };
  yield await writeParquet(columns, rows(), geometry ? { geometryColumn: 'geometry', geoMetadata: geometry.metadata(), kvMetadata } : { kvMetadata });
}

const dataName = (data: ZoneData): string => `${data.dggrsId}-${data.zoneId}-data`;

export const parquet: ZoneDataEncoding = { format: 'parquet', conformance: [], encode: (data, ctx) => zoneDataParquet(data, ctx, false), fileName: (data) => fileName(dataName(data), 'parquet') };
export const geoParquet: ZoneDataEncoding = { format: 'geoparquet', conformance: [], encode: (data, ctx) => zoneDataParquet(data, ctx, true), fileName: (data) => fileName(dataName(data), 'geoparquet') };
