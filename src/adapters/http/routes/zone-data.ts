import { z } from '../schemas/zod.js';
import { CollectionIdParam, type Link } from '../schemas/common.js';
import { AdHocZoneDataQuery, CollectionZoneDataQuery, DataResponse } from '../schemas/zone-data.js';
import { defineRoute } from '../route.js';
import { responses } from '../responses.js';
import { CONF } from '../conformance-classes.js';
import type { Links } from '../links.js';
import type { Format } from '../formats.js';
import type { RouteModule } from '../route-module.js';
import type { ZoneData, ZoneDataOptions } from '../../../domain/zone-data.js';
import type { ZoneDataService } from '../../../app/use-cases/zone-data-service.js';
import { ZONE_DATA_ENCODERS, ZONE_DATA_FORMATS } from '../encoders/zone-data-encoders.js';
import type { ZoneDataContext } from '../encoders/zone-data-context.js';

const DggrsIdParam = z.string().openapi({ param: { name: 'dggrs_id', in: 'path' }, description: 'DGGRS identifier, like IVEA7H' });
const ZoneIdParam = z.string().openapi({ param: { name: 'zone_id', in: 'path' }, description: 'Zone identifier in the grid' });
const collectionParams = z.object({ collection_id: CollectionIdParam, dggrs_id: DggrsIdParam, zone_id: ZoneIdParam });
const gridParams = z.object({ dggrs_id: DggrsIdParam, zone_id: ZoneIdParam });

type Query = Record<string, unknown>;

/** Query values the links carry forward (everything but the format). */
function forward(query: Query): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k === 'f' || v === undefined) continue;
    raw[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return raw;
}

function options(q: Query): ZoneDataOptions {
  const o: ZoneDataOptions = {};
  if (q['cog-no-data-value'] !== undefined) o.noData = q['cog-no-data-value'] as number;
  if (q['cog-sampling-factor'] !== undefined) o.samplingFactor = q['cog-sampling-factor'] as number;
  if (q['cog-all-touched'] !== undefined) o.allTouched = q['cog-all-touched'] as boolean;
  if (q['cog-stat'] !== undefined) o.stats = q['cog-stat'] as string[];
  if (q['cog-band'] !== undefined) o.bands = q['cog-band'] as number[];
  if (q['stac-search-strategy'] !== undefined) o.stacStrategy = q['stac-search-strategy'] as ZoneDataOptions['stacStrategy'];
  if (q.intersection_percent !== undefined) o.intersectionPercent = q.intersection_percent as number;
  if (q.cloud_cover_percent !== undefined) o.cloudCoverPercent = q.cloud_cover_percent as number;
  return o;
}

function datetimeBounds(text: string | undefined): ZoneDataContext['datetime'] {
  if (!text) return undefined;
  const parts = text.split('/');
  const open = (s: string | undefined) => (s === undefined || s === '' || s === '..' ? null : s);
  return parts.length === 1 ? { start: parts[0]!, end: parts[0]! } : { start: open(parts[0]), end: open(parts[1]) };
}

async function encode(service: ZoneDataService, data: ZoneData, format: Format, links: Links, path: string, query: Query, title: string, crumbs: [string, string][]) {
  const list: Link[] = [
    ...links.selfAndAlternates(path, format, ZONE_DATA_FORMATS, forward(query), title),
    ...data.sources.map((s) => ({ href: s.href, rel: s.rel ?? 'source', ...(s.type ? { type: s.type } : {}), ...(s.title ? { title: s.title } : {}) })),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs', `/dggs/${encodeURIComponent(data.dggrsId)}`, { type: 'application/json', title: 'The grid' }),
  ];
  const ctx: ZoneDataContext = {
    grid: service.grid(data.dggrsId),
    links: list,
    refined: (query['refined-geometry'] as boolean | undefined) ?? false,
    datetime: datetimeBounds(query.datetime as string | undefined),
    title,
    crumbs,
  };
  return ZONE_DATA_ENCODERS[format]!(data, ctx);
}

/** Zone data: the collection-backed GET and the ad-hoc raster GET. */
export function zoneDataRoutes(service: ZoneDataService): RouteModule {
  const collectionRoute = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: 'getCollectionZoneData',
    summary: 'Values of the collection for one zone and its sub-zones',
    description: 'Zonal statistics of raster collections (fixed COG or STAC catalog) for the zone and its sub-zones at each `zone-depth`, in the grid sub-zone order.',
    tags: ['Zone data'],
    params: collectionParams,
    query: CollectionZoneDataQuery,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 403, 404, 406, 422]),
    handler: async ({ params, query, format, links }) => {
      const data = await service.collectionZoneData(params.collection_id, {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        properties: query.properties,
        excludeProperties: query['exclude-properties'],
        options: options(query),
      });
      const c = service.collection(params.collection_id);
      const base = `/collections/${encodeURIComponent(c.id)}`;
      const path = `${base}/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
      return encode(service, data, format, links, path, query, `${c.title}: zone ${params.zone_id}`, [
        ['Home', links.href('/')],
        ['Collections', links.href('/collections', { f: 'html' })],
        [c.title, links.href(base, { f: 'html' })],
        [`Zone ${params.zone_id} data`, ''],
      ]);
    },
  });

  const adHocRoute = defineRoute({
    method: 'get',
    path: '/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: 'getZoneDataFromRaster',
    summary: 'Zonal statistics of the raster given by cog-url',
    description: 'Reads the Cloud-Optimized GeoTIFF at `cog-url` (public http(s) only, unless the operator allows more) and returns statistics per sub-zone. Without `cog-url` the answer is 400.',
    tags: ['Zone data'],
    params: gridParams,
    query: AdHocZoneDataQuery,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 403, 404, 406, 413, 422]),
    handler: async ({ params, query, format, links }) => {
      const data = await service.adHocZoneData(query['cog-url'], {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        options: options(query),
      });
      const path = `/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
      return encode(service, data, format, links, path, query, `Zone ${params.zone_id} of ${params.dggrs_id} from a raster`, [
        ['Home', links.href('/')],
        ['Grids', links.href('/dggs', { f: 'html' })],
        [`Zone ${params.zone_id} data`, ''],
      ]);
    },
  });

  return {
    routes: [collectionRoute, adHocRoute],
    conformance: [CONF.dggsDataRetrieval, CONF.dggsDataCustomDepths, CONF.dggsDataSubsetting, CONF.dggsDataJson, CONF.dggsDataGeojson],
  };
}
