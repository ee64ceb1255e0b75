import { keptSubZone, type ZoneData } from '../../domain/zone-data.js';
import { outlineToGeoJson } from '../../domain/geometry/rfc7946.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { pacedBytes } from '../paced-pieces.js';
import { CONF } from '../conformance-classes.js';

/**
 * GeoJSON (RFC 7946): one Feature per sub-zone and depth, the zone outline as geometry (split at
 * the antimeridian, right-hand rule), `zone_id`, `depth` and the field values as properties.
 * Written feature by feature (see paced-pieces.ts): each outline is computed, written and
 * dropped, so memory holds the text, never every geometry at once. Sub-zones a zone-data filter
 * excluded are left out.
 */
export function* zoneDataGeoJsonPieces(data: ZoneData, ctx: ZoneDataContext): Generator<string> {
  const names = Object.keys(data.fields);
  yield `{"type":"FeatureCollection","dggrs":${JSON.stringify(`[ogc-dggrs:${data.dggrsId}]`)},"zoneId":${JSON.stringify(data.zoneId)},"depths":${JSON.stringify(data.depths.map((d) => d.depth))},"features":[`;
  let first = true;
  for (const d of data.depths) {
    for (let i = 0; i < d.zones.length; i++) {
      // A sub-zone a zone-data filter excluded is no feature (OGC data-cql2-filter, vector representations).
      if (!keptSubZone(d, i)) continue;
      const zone = d.zones[i]!;
      const feature = {
        type: 'Feature',
        id: `${d.depth}:${zone}`,
        geometry: outlineToGeoJson(ctx.grid.zoneOutline(zone, ctx.refined)),
        properties: { zone_id: zone, depth: d.depth, ...Object.fromEntries(names.map((n) => [n, d.values[n]?.[i] ?? null])) },
      };
      yield `${first ? '' : ','}${JSON.stringify(feature)}`;
      first = false;
    }
  }
  yield `],"links":${JSON.stringify(ctx.links)}}`;
}

export const geoJson: ZoneDataEncoding = { format: 'geojson', conformance: [CONF.dggsDataGeojson], encode: (data, ctx) => pacedBytes(zoneDataGeoJsonPieces(data, ctx)) };
