import { CollectionZoneDataParams, CollectionZoneDataQuery, DataResponse } from '../schemas/zone-data.js';
import { defineRoute, type AnyRoute, type Reply } from '../route.js';
import { responses } from '../responses.js';
import type { Links } from '../links.js';
import { F_VALUE, mediaType, type Format } from '../../formats/registry.js';
import type { ZoneDataService } from '../../app/zone-data/zone-data-service.js';
import type { ZoneFeaturesService } from '../../app/items/zone-features-service.js';
import { UnsupportedFormatError } from '../../ports/errors.js';
import { ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { isTemporal } from '../../domain/collection.js';
import { zoneFeaturesJsonFg, type JsonFgDggsProfile } from '../encoders/zone-data-jsonfg.js';
import { formatParam } from '../schemas/query.js';
import { askedProfile, formatPlan, forward, jsonFgProfile, withOutline, withSubset, zoneDataOptions, type CollectionZoneDataParams as Query } from '../zone-data-query.js';
import { presentZoneData } from '../zone-data-presenter.js';

type Params = { collection_id: string; dggrs_id: string; zone_id: string };

/**
 * The formats of a collection's zone data: its encodings, and DGGS-UBJSON-FG (geo+ubjson) where the
 * route places features (it writes the features of a lake collection, not zone values).
 */
export const featureZoneDataFormats = (features: boolean): readonly Format[] => (features ? [...ZONE_DATA_FORMATS, 'geo-ubjson'] : ZONE_DATA_FORMATS);

/** The collection's zone data; DGGS-JSON-FG (geo+json) and DGGS-UBJSON-FG (geo+ubjson) when `features` is given and a profile asks for it. */
export function collectionZoneDataRoute(service: ZoneDataService, features?: ZoneFeaturesService): AnyRoute {
  const formats = featureZoneDataFormats(features !== undefined);
  return defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: '.collection.getDGGRSZoneData',
    summary: 'Values of the collection for one zone and its sub-zones',
    description: 'Zonal statistics of raster collections (fixed COG or STAC catalog) for the zone and its sub-zones at each `zone-depth`, in the grid sub-zone order.',
    tags: ['Zone data'],
    params: CollectionZoneDataParams,
    query: features ? CollectionZoneDataQuery.extend({ f: formatParam(formats.map((f) => F_VALUE[f]), 'Response format (default DGGS-JSON; geo+ubjson is DGGS-UBJSON-FG of lake collections); when omitted the Accept header decides') }) : CollectionZoneDataQuery,
    invalidStatus: 422,
    formats,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats }, [400, 403, 404, 406, 422, 503]),
    validators: { source: ({ params }, versions) => versions([params.collection_id]) },
    handler: async ({ params, query: asked, format, acceptProfiles, links, req, signal }) => {
      const query = withSubset(asked, req.url, isTemporal(service.collection(params.collection_id)));
      const profileAsked = askedProfile(query.profile, acceptProfiles, format, features !== undefined);
      const profile = jsonFgProfile(profileAsked, query.f, format);
      if (profile) {
        if (!features) throw new UnsupportedFormatError(formats.map((f) => F_VALUE[f]), 'DGGS-JSON-FG is not offered here.');
        return zoneFeaturesReply(features, params, query, profile, links, signal, format === 'geo-ubjson' ? 'geo-ubjson' : 'geojson');
      }
      const plan = formatPlan(format, profileAsked);
      const data = await service.collectionZoneData(params.collection_id, {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        properties: query.properties,
        excludeProperties: query['exclude-properties'],
        options: zoneDataOptions(query),
        ...(query.filter !== undefined ? { filter: query.filter } : {}),
        ...(query['filter-lang'] ? { filterLang: query['filter-lang'] } : {}),
        ...withOutline(format, query),
        check: plan.check,
      }, signal);
      const c = service.collection(params.collection_id);
      const base = `/collections/${encodeURIComponent(c.id)}`;
      return presentZoneData(service.grid(data.dggrsId), data, format, links, {
        signal,
        profile: plan.profile,
        formats: featureZoneDataFormats(features?.hasFeatures(c.id) ?? false),
        path: `${base}/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`,
        query,
        title: `${c.title}: zone ${params.zone_id}`,
        crumbs: [
          ['Home', links.href('/')],
          ['Collections', links.href('/collections', { f: 'html' })],
          [c.title, links.href(base, { f: 'html' })],
          [`Zone ${params.zone_id} data`, ''],
        ],
        collections: [c],
      });
    },
  });
}

/** The features of a lake collection in the zone, as DGGS-JSON-FG. */
async function zoneFeaturesReply(features: ZoneFeaturesService, params: Params, query: Query, profile: JsonFgDggsProfile, links: Links, signal: AbortSignal, format: 'geojson' | 'geo-ubjson'): Promise<Reply> {
  const found = await features.features(params.collection_id, {
    dggrsId: params.dggrs_id,
    zoneId: params.zone_id,
    naming: profile.includes('zoneids') ? 'zone-id' : 'index',
    withGeometry: profile.endsWith('-plus'),
    ...(query['zone-depth'] !== undefined ? { zoneDepth: query['zone-depth'] } : {}),
    ...(query.datetime !== undefined ? { datetime: query.datetime } : {}),
    ...(query.properties ? { properties: query.properties } : {}),
    ...(query['exclude-properties'] ? { excludeProperties: query['exclude-properties'] } : {}),
    ...(query.filter !== undefined ? { filter: query.filter } : {}),
    ...(query['filter-lang'] ? { filterLang: query['filter-lang'] } : {}),
  }, signal);
  const path = `/collections/${encodeURIComponent(params.collection_id)}/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
  const other = format === 'geojson' ? 'geo-ubjson' : 'geojson';
  const title = (f: typeof format) => `Features of ${params.collection_id} in zone ${params.zone_id} (${f === 'geojson' ? 'DGGS-JSON-FG' : 'DGGS-UBJSON-FG'})`;
  // The profile goes with the links, whichever way it was asked (parameter or Accept).
  const carried = { ...forward(query), profile };
  return zoneFeaturesJsonFg(found, profile, [
    links.link('self', path, { type: mediaType(format), title: title(format), query: { ...carried, f: F_VALUE[format] } }),
    links.link('alternate', path, { type: mediaType(other), title: title(other), query: { ...carried, f: F_VALUE[other] } }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs', `/dggs/${encodeURIComponent(params.dggrs_id)}`, { type: 'application/json', title: 'The grid' }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/geodata', `/collections/${encodeURIComponent(params.collection_id)}`, { type: 'application/json', title: 'The collection' }),
  ], format, signal);
}
