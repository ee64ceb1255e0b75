import type { ZoneData } from '../../../domain/zone-data.js';
import { outlineToGeoJson } from '../../../domain/geometry/rfc7946.js';
import type { ZoneDataContext } from './zone-data-context.js';

/**
 * GeoJSON (RFC 7946): one Feature per sub-zone and depth, the zone outline as geometry (split at
 * the antimeridian, right-hand rule), `zone_id`, `depth` and the field values as properties.
 */
export function zoneDataGeoJson(data: ZoneData, ctx: ZoneDataContext): Record<string, unknown> {
  const names = Object.keys(data.fields);
  const features = data.depths.flatMap((d) =>
    d.zones.map((zone, i) => ({
      type: 'Feature',
      id: `${d.depth}:${zone}`,
      geometry: outlineToGeoJson(ctx.grid.zoneOutline(zone, ctx.refined)),
      properties: { zone_id: zone, depth: d.depth, ...Object.fromEntries(names.map((n) => [n, d.values[n]?.[i] ?? null])) },
    })),
  );
  return { type: 'FeatureCollection', dggrs: `[ogc-dggrs:${data.dggrsId}]`, zoneId: data.zoneId, depths: data.depths.map((d) => d.depth), features, links: ctx.links };
}
