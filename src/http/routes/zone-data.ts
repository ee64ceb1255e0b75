import { z } from '../schemas/zod.js';
import { CollectionIdParam, type Link } from '../schemas/common.js';
import { AdHocZoneDataQuery, CollectionZoneDataQuery, CrossCollectionRequest, CrossCollectionZoneDataQuery, DataResponse } from '../schemas/zone-data.js';
import { defineRoute } from '../route.js';
import { responses } from '../responses.js';
import { CONF } from '../../formats/conformance-classes.js';
import type { Links } from '../links.js';
import { F_VALUE, mediaType, type Format } from '../../formats/registry.js';
import type { RouteModule } from '../route-module.js';
import type { ZoneData, ZoneDataOptions } from '../../domain/zone-data.js';
import type { ZoneDataService } from '../../app/zone-data/zone-data-service.js';
import { InvalidRequestError, UnsupportedFormatError } from '../../ports/errors.js';
import { ZONE_DATA_CONFORMANCE, ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { zoneDataReply } from '../encoders/zone-data-reply.js';
import type { ZoneDataView } from '../encoders/zone-data-view.js';
import { publicSourceHref } from '../source-files.js';
import { isTemporal, type Collection } from '../../domain/collection.js';
import { allValues, zoneDataSubset } from '../zone-query-area.js';
import type { ZoneFeaturesService } from '../../app/items/zone-features-service.js';
import { zoneFeaturesJsonFg, type JsonFgDggsProfile } from '../encoders/zone-data-jsonfg.js';

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

function withOutline(format: Format, query: Query): { outline?: { refined: boolean } } {
  const o = outline(format, query);
  return o ? { outline: o } : {};
}

function datetimeBounds(text: string | undefined): ZoneDataView['datetime'] {
  if (!text) return undefined;
  const parts = text.split('/');
  const open = (s: string | undefined) => (s === undefined || s === '' || s === '..' ? null : s);
  return parts.length === 1 ? { start: parts[0]!, end: parts[0]! } : { start: open(parts[0]), end: open(parts[1]) };
}

/**
 * The query with its `subset` read (OGC data-subsetting): a time subset becomes `datetime`, so links
 * carry the one form; a subset on any other axis is a 400.
 */
function withSubset<Q extends { datetime?: string | undefined }>(query: Q, url: string | undefined, temporal: boolean): Q {
  const subsets = allValues(url, 'subset');
  if (subsets.length === 0) return query;
  const datetime = zoneDataSubset({ subsets, ...(query.datetime !== undefined ? { datetime: query.datetime } : {}), temporal });
  const { subset: _subset, ...rest } = query as Q & { subset?: string };
  return { ...rest, datetime } as Q;
}

/** Geometry encodings write every sub-zone's outline: the service bounds their vertices. */
function outline(format: Format, query: Query): { refined: boolean } | undefined {
  return format === 'geojson' || format === 'geoparquet' ? { refined: (query['refined-geometry'] as boolean | undefined) ?? false } : undefined;
}

/** Query parameters of the GET routes that the POST refuses: field selection is per collection in the body. */
const NOT_ON_POST: Record<string, string> = {
  properties: 'list the fields of each collection in its `fields`',
  'exclude-properties': 'list the fields of each collection in its `fields`',
  'cog-url': 'ad-hoc rasters are read with GET and cog-url',
  filter: 'put a filter in the selection it restricts (`filter` in the body)',
  'filter-lang': 'a body filter is CQL2-Text as a string or CQL2-JSON as an object',
};

async function encode(service: ZoneDataService, data: ZoneData, format: Format, links: Links, path: string, query: Query, title: string, crumbs: [string, string][], self?: Link[], collections: Collection[] = []) {
  const list: Link[] = [
    ...(self ?? links.selfAndAlternates(path, format, ZONE_DATA_FORMATS, forward(query), title)),
    // Sources inside this service (a lake's items) come as paths, a collection's local files as
    // the route that serves them: links are absolute; a local file that is not served is left out.
    ...data.sources.flatMap((s) => {
      const href = publicSourceHref(collections, s.href, (p) => links.href(p));
      return href ? [{ href, rel: s.rel ?? 'source', ...(s.type ? { type: s.type } : {}), ...(s.title ? { title: s.title } : {}) }] : [];
    }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs', `/dggs/${encodeURIComponent(data.dggrsId)}`, { type: 'application/json', title: 'The grid' }),
  ];
  const view: ZoneDataView = {
    grid: service.grid(data.dggrsId),
    links: list,
    refined: (query['refined-geometry'] as boolean | undefined) ?? false,
    datetime: datetimeBounds(query.datetime as string | undefined),
    title,
    crumbs,
  };
  return zoneDataReply(format, data, view);
}

/**
 * A `profile` of DGGS-JSON-FG answers with features when geo+json is the format, or when the request
 * names no format (`f`) at all; beside another `f` it is a 400.
 */
function jsonFgProfile(query: { profile?: string | undefined; f?: string | undefined }, format: Format): JsonFgDggsProfile | undefined {
  const p = query.profile;
  if (p === undefined || !p.startsWith('jsonfg-dggs')) return undefined;
  if (format === 'geojson' || (query.f === undefined && format === 'dggs-json')) return p as JsonFgDggsProfile;
  throw new InvalidRequestError('Profile needs geo+json', `profile=${p} is a DGGS-JSON-FG profile of geo+json: use f=geo+json (or leave f out).`);
}

/** Zone data: the collection-backed GET and the ad-hoc raster GET; DGGS-JSON-FG when `features` is given. */
export function zoneDataRoutes(service: ZoneDataService, features?: ZoneFeaturesService): RouteModule {
  const collectionRoute = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: '.collection.getDGGRSZoneData',
    summary: 'Values of the collection for one zone and its sub-zones',
    description: 'Zonal statistics of raster collections (fixed COG or STAC catalog) for the zone and its sub-zones at each `zone-depth`, in the grid sub-zone order.',
    tags: ['Zone data'],
    params: collectionParams,
    query: CollectionZoneDataQuery,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 403, 404, 406, 422, 503]),
    handler: async ({ params, query: asked, format, links, req, signal }) => {
      const query = withSubset(asked, req.url, isTemporal(service.collection(params.collection_id)));
      const profile = jsonFgProfile(query, format);
      if (profile) {
        if (!features) throw new UnsupportedFormatError(ZONE_DATA_FORMATS.map((f) => F_VALUE[f]), 'DGGS-JSON-FG is not offered here.');
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
        return zoneFeaturesJsonFg(found, profile, [
          links.link('self', path, { type: mediaType('geojson'), title: `Features of ${params.collection_id} in zone ${params.zone_id} (DGGS-JSON-FG)`, query: { ...forward(query), f: F_VALUE.geojson } }),
          links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs', `/dggs/${encodeURIComponent(params.dggrs_id)}`, { type: 'application/json', title: 'The grid' }),
          links.link('https://www.opengis.net/def/rel/ogc/1.0/geodata', `/collections/${encodeURIComponent(params.collection_id)}`, { type: 'application/json', title: 'The collection' }),
        ]);
      }
      const data = await service.collectionZoneData(params.collection_id, {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        properties: query.properties,
        excludeProperties: query['exclude-properties'],
        options: options(query),
        ...(query.filter !== undefined ? { filter: query.filter } : {}),
        ...(query['filter-lang'] ? { filterLang: query['filter-lang'] } : {}),
        ...withOutline(format, query),
      }, signal);
      const c = service.collection(params.collection_id);
      const base = `/collections/${encodeURIComponent(c.id)}`;
      const path = `${base}/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
      return encode(service, data, format, links, path, query, `${c.title}: zone ${params.zone_id}`, [
        ['Home', links.href('/')],
        ['Collections', links.href('/collections', { f: 'html' })],
        [c.title, links.href(base, { f: 'html' })],
        [`Zone ${params.zone_id} data`, ''],
      ], undefined, [c]);
    },
  });

  const adHocRoute = defineRoute({
    method: 'get',
    path: '/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: '.dataset.getDGGRSZoneData',
    summary: 'Zonal statistics of the raster given by cog-url',
    description: 'Reads the Cloud-Optimized GeoTIFF at `cog-url` (public http(s) only, unless the operator allows more) and returns statistics per sub-zone. Without `cog-url` the answer is 400.',
    tags: ['Zone data'],
    params: gridParams,
    query: AdHocZoneDataQuery,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 403, 404, 406, 413, 422, 503]),
    handler: async ({ params, query: asked, format, links, req, signal }) => {
      const query = withSubset(asked, req.url, false);
      const data = await service.adHocZoneData(query['cog-url'], {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        options: options(query),
        ...withOutline(format, query),
      }, signal);
      const path = `/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
      return encode(service, data, format, links, path, query, `Zone ${params.zone_id} of ${params.dggrs_id} from a raster`, [
        ['Home', links.href('/')],
        ['Grids', links.href('/dggs', { f: 'html' })],
        [`Zone ${params.zone_id} data`, ''],
      ]);
    },
  });

  const crossCollectionRoute = defineRoute({
    method: 'post',
    path: '/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: 'postCrossCollectionZoneData',
    summary: 'Fields of several collections for one zone, joined on zone id',
    description:
      'Reads the selected fields of each listed collection (parquet lake, raster, STAC alike) for the zone and its sub-zones at each `zone-depth`, concurrently, ' +
      'and joins them into one table keyed on zone id with columns `{alias|id}__{field}`. A sub-zone without data in a source has null in its columns. ' +
      '`properties`, `exclude-properties` and `cog-url` are refused with 400: fields are chosen per collection in the body. ' +
      'Errors: 422 for an invalid body (empty `collections` or `fields`, wrong types, one collection twice without distinct aliases) or a request over the size bounds; ' +
      '404 for an unknown collection; 400 for an unknown field (the hint lists the valid ones), a `filter` on a collection without rows (raster, STAC), or a malformed CQL2 filter (the hint gives the position).',
    tags: ['Zone data'],
    params: gridParams,
    query: CrossCollectionZoneDataQuery,
    body: CrossCollectionRequest,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'The joined zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 404, 406, 413, 415, 422, 503]),
    handler: async ({ params, query, body, format, links, req, signal }) => {
      const raw = (req.query ?? {}) as Record<string, unknown>;
      const refused = Object.keys(NOT_ON_POST).filter((k) => k in raw);
      if (refused.length > 0) {
        throw new InvalidRequestError('Parameter not accepted on POST', `${refused.join(', ')}: not accepted with a cross-collection body; ${NOT_ON_POST[refused[0]!]}.`);
      }
      const selections = body.collections.map((c) => ({ id: c.id, fields: c.fields, ...(c.alias != null ? { alias: c.alias } : {}), ...(c.filter != null ? { filter: c.filter } : {}) }));
      const data = await service.crossCollectionZoneData({
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        selections,
        ...withOutline(format, query),
      }, signal);
      const grid = `/dggs/${encodeURIComponent(params.dggrs_id)}`;
      const path = `${grid}/zones/${encodeURIComponent(params.zone_id)}/data`;
      // The answer is to a POST: `self` names the resource posted to; each part links to the GET that gives it alone.
      const self: Link[] = [{ href: links.href(path, { ...forward(query), f: F_VALUE[format] }), rel: 'self', type: mediaType(format), title: 'This cross-collection answer (POST)' }];
      for (const sel of selections) {
        const filter = sel.filter === undefined ? {} : typeof sel.filter === 'string' ? { filter: sel.filter } : { filter: JSON.stringify(sel.filter), 'filter-lang': 'cql2-json' };
        self.push(
          links.link('related', `/collections/${encodeURIComponent(sel.id)}${path}`, {
            type: mediaType('dggs-json'),
            title: `${sel.alias ?? sel.id}: these fields of ${sel.id} alone`,
            query: { ...forward(query), properties: sel.fields.join(','), ...filter },
          }),
        );
      }
      return encode(service, data, format, links, path, query, `Zone ${params.zone_id} of ${params.dggrs_id}: ${selections.map((s) => s.alias ?? s.id).join(' + ')}`, [
        ['Home', links.href('/')],
        ['Grids', links.href('/dggs', { f: 'html' })],
        [`Zone ${params.zone_id} data`, ''],
      ], self, selections.map((sel) => service.collection(sel.id)));
    },
  });

  return {
    routes: [collectionRoute, adHocRoute, crossCollectionRoute],
    conformance: [
      CONF.dggsDataRetrieval, CONF.dggsDataCustomDepths, CONF.dggsDataSubsetting, CONF.dggsDataCql2Filter, ...ZONE_DATA_CONFORMANCE,
      ...(features ? [CONF.dggsDataJsonFg] : []),
    ],
  };
}
