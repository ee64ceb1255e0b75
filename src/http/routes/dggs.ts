import { z } from '../schemas/zod.js';
import { CollectionIdParam, type Link, type LinkTemplate } from '../schemas/common.js';
import { DggrsIdParam, DggrsIdResponse, DggsResponse, GeoJsonFeature, ZoneIdParam, ZoneIdResponse, ZonesResponse } from '../schemas/dggs.js';
import { defineRoute, json, type AnyRoute, type Reply } from '../route.js';
import { KeptReplies } from '../kept-replies.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { zoneSvgMap } from '../html/zone-svg.js';
import { publicSourceHref } from '../source-files.js';
import { formatParam, queryBBox, queryBoolean, queryInteger } from '../schemas/query.js';
import { CONF } from '../conformance-classes.js';
import { F_VALUE, mediaType, type Format } from '../formats.js';
import { zoneFeature, zoneFeatureCollectionChunks, zoneGeometry } from '../encoders/zone-list-geojson.js';
import { steppedReadable } from '../stepped-stream.js';
import { encodeZoneListParquet, zoneListParquetRows } from '../encoders/zone-list-parquet.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import type { Links } from '../links.js';
import type { RouteModule } from '../route-module.js';
import { MAX_EDGE_ZONES, MAX_ZONES_PER_QUERY, type ZoneListPage, type ZonesService } from '../../app/use-cases/zones-service.js';
import type { Dggrs, Stepped, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import type { Collection } from '../../domain/collection.js';
import type { ZoneDataService, ZoneQueryScope } from '../../app/zone-data/zone-data-service.js';
import { InvalidRequestError, UnsupportedFormatError } from '../../ports/errors.js';
import { allValues, isTemporal, zoneQueryArea, SUPPORTED_CRS_TEXT } from '../zone-query-area.js';
import { zoneListUint64 } from '../encoders/zone-list-uint64.js';

/** Zone info of a collection carries per-field statistics when its backing serves zone data. */
type ZoneStatistics = Pick<ZoneDataService, 'zoneStatistics' | 'zoneQueryFilter'>;

/**
 * Grid and zone routes, each in a bare (`/dggs/...`) and a collection-scoped
 * (`/collections/{collection_id}/dggs/...`) form with the same shapes; the scoped form adds
 * collection links, clamps zone lists to the collection's extent and links zones to data.
 */
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';
const rel = {
  dggrs: `${REL}/dggrs`,
  definition: `${REL}/dggrs-definition`,
  list: `${REL}/dggrs-list`,
  zoneInfo: `${REL}/dggrs-zone-info`,
  zoneQuery: `${REL}/dggrs-zone-query`,
  zoneData: `${REL}/dggrs-zone-data`,
  parent: `${REL}/dggrs-zone-parent`,
  child: `${REL}/dggrs-zone-child`,
  neighbor: `${REL}/dggrs-zone-neighbor`,
  geodata: `${REL}/geodata`,
  dataset: `${REL}/dataset`,
};

const GRID_FORMATS = ['json', 'html'] as const satisfies readonly Format[];
const LIST_FORMATS = ['json', 'html', 'geojson', 'parquet', 'geoparquet', 'uint64'] as const satisfies readonly Format[];
const ZONE_FORMATS = ['json', 'html', 'geojson'] as const satisfies readonly Format[];
/** HTML zone lists describe and draw at most this many zones of a page (the ids are all listed). */
const HTML_DETAIL = 400;
const HTML_DRAW = 300;
const HTML_OUTLINE = 5000;
/** Zones described or outlined between two pauses while an HTML zone list is prepared. */
const ZONES_PER_STEP = 50;

const gridQuery = z.object({ f: formatParam(GRID_FORMATS) });
const zonesQuery = z.object({
  bbox: queryBBox('Zones intersecting min_lon,min_lat,max_lon,max_lat (CRS84; min_lon > max_lon crosses the antimeridian). On a collection, clamped to its extent.'),
  'bbox-crs': z.string().optional().openapi({ description: `CRS of bbox: ${SUPPORTED_CRS_TEXT}; others are 400` }),
  subset: z.string().optional().openapi({ description: 'Lat(min:max),Lon(min:max) (CRS84; Lon min > max crosses the antimeridian; * for an open end), instead of bbox; on a collection with a temporal extent also time("start":"end"). Repeated subset parameters read as one list. 400 for another axis or with bbox.', example: 'Lat(44:48),Lon(5:16)' }),
  'subset-crs': z.string().optional().openapi({ description: `CRS of the Lat/Lon subset: ${SUPPORTED_CRS_TEXT}; others are 400` }),
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval start/end (open ends `..`): on a collection with rows in time (parquet lake), the zones holding a row in it; elsewhere checked (400 when malformed) and ignored', example: '2024-01-05T00:00:00Z/2024-01-10T00:00:00Z' }),
  'zone-level': queryInteger('Level of the listed zones (default: the grid default level); with parent-zone, the depth below the parent (default 1)', { min: 0 }),
  'parent-zone': z.string().min(1).optional().openapi({ description: 'List the sub-zones of this zone, in the grid sub-zone order' }),
  'compact-zones': queryBoolean('Must be omitted or false: compaction is not implemented (true is a 400)'),
  'refined-geometry': queryBoolean('Densify zone edges in geometry outputs (default true)'),
  limit: queryInteger('Zones per page; capped at the service maximum', { min: 1 }),
  offset: queryInteger('Zones to skip (paging; follow the `next` link)', { min: 0 }),
  filter: z.string().optional().openapi({ description: 'Collection routes: CQL2 keeping the zones where matching data exists (lake: a matching row in the zone; rasters: the zone\'s field values at the listed level and its `geometry`)' }),
  'filter-lang': z.enum(['cql2-text', 'cql2-json']).optional().openapi({ description: 'Encoding of `filter`; default cql2-text' }),
  f: formatParam(LIST_FORMATS),
});
const zoneQuery = z.object({
  'refined-geometry': queryBoolean('Densify zone edges in the geometry (default true)'),
  f: formatParam(ZONE_FORMATS),
});

const enc = encodeURIComponent;

interface Scope {
  collection?: Collection;
  /** `''` or `/collections/{id}`. */
  prefix: string;
}

function gridPath(scope: Scope, grid: Dggrs): string {
  return `${scope.prefix}/dggs/${enc(grid.id)}`;
}

function crumbsFor(links: Links, scope: Scope, grid?: Dggrs, tail: [string, string][] = []): [string, string][] {
  const out: [string, string][] = [['Home', links.href('/')]];
  if (scope.collection) {
    out.push(['Collections', links.href('/collections', { f: 'html' })], [scope.collection.title, links.href(scope.prefix, { f: 'html' })]);
  }
  out.push(['Grids', links.href(`${scope.prefix}/dggs`, { f: 'html' })]);
  if (grid) out.push([grid.id, links.href(gridPath(scope, grid), { f: 'html' })]);
  out.push(...tail);
  out[out.length - 1] = [out[out.length - 1]![0], ''];
  return out;
}

function contextLinks(links: Links, scope: Scope): Link[] {
  if (scope.collection) return [links.link(rel.geodata, scope.prefix, { type: 'application/json', title: scope.collection.title })];
  return [links.link(rel.dataset, '/', { type: 'application/json', title: 'Landing page' })];
}

function zoneTemplates(links: Links, scope: Scope, grid: Dggrs): LinkTemplate[] {
  const base = links.href(gridPath(scope, grid));
  const out: LinkTemplate[] = [{ rel: rel.zoneInfo, title: 'Zone information', uriTemplate: `${base}/zones/{zoneId}` }];
  if (scope.collection) out.push({ rel: rel.zoneData, title: 'Zone data', uriTemplate: `${base}/zones/{zoneId}/data` });
  return out;
}

function gridSummaryLinks(links: Links, scope: Scope, grid: Dggrs): Link[] {
  return [
    links.link('self', gridPath(scope, grid), { type: 'application/json', title: grid.title }),
    { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
  ];
}

function gridBody(links: Links, scope: Scope, grid: Dggrs, format: Format) {
  const path = gridPath(scope, grid);
  return {
    id: grid.id,
    title: grid.title,
    uri: grid.uri,
    description: grid.description,
    crs: [grid.crs],
    default_depth: grid.defaultDepth,
    max_refinement_level: grid.maxRefinementLevel,
    max_relative_depth: grid.maxRelativeDepth,
    linkTemplates: zoneTemplates(links, scope, grid),
    links: [
      ...links.selfAndAlternates(path, format, GRID_FORMATS, {}, grid.title),
      { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
      links.link(rel.zoneQuery, `${path}/zones`, { type: 'application/json', title: 'Zone list' }),
      links.link(rel.list, `${scope.prefix}/dggs`, { type: 'application/json', title: 'All grids' }),
      ...contextLinks(links, scope),
    ],
  };
}

/** The request's own query string, so `next` and alternates keep every parameter. */
function requestQuery(url: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(url ?? '/', 'http://x').searchParams) out[k] = v;
  return out;
}

function listLinks(links: Links, scope: Scope, page: ZoneListPage, format: Format, query: Record<string, string>): Link[] {
  const path = `${gridPath(scope, page.grid)}/zones`;
  const { f: _f, ...q } = query;
  const out: Link[] = links.selfAndAlternates(path, format, LIST_FORMATS, q, 'Zone list');
  if (page.nextOffset !== undefined) {
    out.push({ ...links.link('next', path, { query: { ...q, offset: page.nextOffset, f: F_VALUE[format] } }), type: mediaType(format), title: 'Next page' });
  }
  if (page.offset > 0) {
    out.push({ ...links.link('prev', path, { query: { ...q, offset: Math.max(0, page.offset - page.limit), f: F_VALUE[format] } }), type: mediaType(format), title: 'Previous page' });
  }
  out.push(
    links.link(rel.dggrs, gridPath(scope, page.grid), { type: 'application/json', title: page.grid.title }),
    { href: page.grid.uri, rel: rel.definition, title: `Definition of ${page.grid.id}` },
    ...(scope.collection ? contextLinks(links, scope) : []),
  );
  return out;
}

/** `source` link of a collection's zone: where its values come from. */
function sourceLink(links: Links, c: Collection, bbox: number[]): Link | undefined {
  const b = c.backing;
  switch (b.kind) {
    case 'raster-url': {
      const href = publicSourceHref([c], b.url, (p) => links.href(p));
      return href ? { href, rel: 'source', type: 'image/tiff; application=geotiff; profile=cloud-optimized', title: 'Source raster (COG)' } : undefined;
    }
    case 'stac': {
      const href = publicSourceHref([c], b.catalog, (p) => links.href(p));
      return href ? { href, rel: 'source', type: 'application/json', title: 'Source STAC catalog' } : undefined;
    }
    case 'parquet-lake':
      return links.link('source', `/collections/${enc(c.id)}/items`, { type: 'application/geo+json', title: 'Source rows in the zone bbox', query: { bbox: bbox.join(',') } });
    case 'ogc-features': {
      const url = new URL(`${b.url.replace(/\/$/, '')}/collections/${enc(b.collection)}/items`);
      url.searchParams.set('bbox', bbox.join(','));
      return { href: url.toString(), rel: 'source', type: 'application/geo+json', title: 'Source features in the zone bbox' };
    }
  }
}

export function dggsRoutes(service: ZonesService, stats?: ZoneStatistics, zoneInfoCacheBytes = 0): RouteModule {
  const forms: { scoped: boolean }[] = [{ scoped: false }, { scoped: true }];
  const routes: AnyRoute[] = [];
  // A grid's zone info (no collection) depends on the request alone: its encoded answers are kept.
  const infoCache = zoneInfoCacheBytes > 0 ? new KeptReplies(zoneInfoCacheBytes) : undefined;

  const scopeOf = (params: { collection_id?: string }): Scope => {
    if (params.collection_id === undefined) return { prefix: '' };
    const collection = service.collection(params.collection_id);
    return { collection, prefix: `/collections/${enc(collection.id)}` };
  };

  /**
   * `filter` keeps the zones where the collection has matching data; a bare grid has none to match.
   * `datetime` on a collection with a time axis keeps the zones with data in it (elsewhere it is ignored).
   */
  const zoneQueryFilter = (scope: Scope, grid: Dggrs, filter: string | undefined, filterLang: 'cql2-text' | 'cql2-json' | undefined, datetime: string | undefined, signal: AbortSignal) => {
    const c = scope.collection;
    const when = datetime !== undefined && c && isTemporal(c) ? { datetime } : {};
    if (filter === undefined && !('datetime' in when)) return {};
    if (!c || !stats) throw new InvalidRequestError('filter needs a collection', 'A zone query filter tests the data in each zone: use /collections/{collection_id}/dggs/{dggrs_id}/zones?filter=...');
    return { keep: (level: number, area: ZoneQueryScope) => stats.zoneQueryFilter(c.id, grid, level, area, { ...(filter !== undefined ? { filter } : {}), ...(filterLang ? { filterLang } : {}), ...when }, signal) };
  };

  for (const { scoped } of forms) {
    const base = scoped ? '/collections/{collection_id}/dggs' : '/dggs';
    // Operation ids end with the suffixes of OGC 21-038r1 /req/operation-ids (`.dataset.getDGGRSList`...).
    const origin = scoped ? '.collection' : '.dataset';
    const tags = ['DGGS'];
    const listParams = scoped ? z.object({ collection_id: CollectionIdParam }) : z.object({});
    const gridParams = scoped ? z.object({ collection_id: CollectionIdParam, dggrs_id: DggrsIdParam }) : z.object({ dggrs_id: DggrsIdParam });
    const zoneParams = scoped
      ? z.object({ collection_id: CollectionIdParam, dggrs_id: DggrsIdParam, zone_id: ZoneIdParam })
      : z.object({ dggrs_id: DggrsIdParam, zone_id: ZoneIdParam });
    const notFound = scoped ? [404, 406] : [406];

    routes.push(
      defineRoute({
        method: 'get',
        path: base,
        operationId: `${origin}.getDGGRSList`,
        summary: scoped ? 'Grids available for a collection' : 'Grids (DGGRS) available',
        tags,
        params: listParams,
        query: gridQuery,
        formats: GRID_FORMATS,
        invalidStatus: 422,
        responses: responses({ description: 'The grids', schema: DggsResponse, formats: GRID_FORMATS }, [...notFound, 422]),
        handler: async ({ params, links, format }) => {
          const scope = scopeOf(params as { collection_id?: string });
          const grids = service.listGrids();
          const path = `${scope.prefix}/dggs`;
          const body = {
            dggrs: grids.map((g) => ({ id: g.id, title: g.title, uri: g.uri, links: gridSummaryLinks(links, scope, g) })),
            links: [...links.selfAndAlternates(path, format, GRID_FORMATS, {}, 'Grids'), ...contextLinks(links, scope)],
          };
          if (format === 'html') {
            return renderHtml('dggs-list', {
              title: scope.collection ? `Grids of ${scope.collection.title}` : 'Grids',
              crumbs: crumbsFor(links, scope),
              links: body.links,
              grids: grids.map((g) => ({
                id: g.id,
                title: g.title,
                description: g.description,
                isDefault: g.id === service.defaultGrid.id,
                href: links.href(gridPath(scope, g), { f: 'html' }),
                zonesHref: links.href(`${gridPath(scope, g)}/zones`, { f: 'html' }),
              })),
            });
          }
          return json(body);
        },
      }),
      defineRoute({
        method: 'get',
        path: `${base}/{dggrs_id}`,
        operationId: `${origin}.getDGGRS`,
        summary: scoped ? 'Describe a grid for a collection' : 'Describe a grid (DGGRS)',
        tags,
        params: gridParams,
        query: gridQuery,
        formats: GRID_FORMATS,
        invalidStatus: 422,
        responses: responses({ description: 'The grid', schema: DggrsIdResponse, formats: GRID_FORMATS }, [404, 406, 422]),
        handler: async ({ params, links, format }) => {
          const scope = scopeOf(params as { collection_id?: string });
          const grid = service.grid(params.dggrs_id);
          const body = gridBody(links, scope, grid, format);
          if (format === 'html') {
            const level0 = grid.zonesInBBox(0, [-180, -90, 180, 90]);
            // Pentagons are the exception in hexagonal grids only (in a pentagonal grid every zone is one).
            const hexagonal = [...level0, ...grid.children(level0[0]!)].some((z) => grid.describeZone(z).shape === 'hexagon');
            const pentagons = hexagonal ? level0.map((z) => grid.describeZone(z)).filter((d) => d.shape === 'pentagon') : [];
            const levels = Array.from({ length: Math.min(grid.maxRefinementLevel, 15) + 1 }, (_, l) => ({ ...grid.levelInfo(l), ...pentagonsAt(grid, pentagons, l) }));
            return renderHtml('dggrs', {
              title: grid.title,
              crumbs: crumbsFor(links, scope, grid),
              links: body.links,
              grid: body,
              defaultLevel: grid.defaultLevel,
              zoneIdForm: grid.zoneIdForm,
              zonesHref: links.href(`${gridPath(scope, grid)}/zones`),
              levels,
              level0: level0.map((zid) => ({ id: zid, href: links.href(`${gridPath(scope, grid)}/zones/${enc(zid)}`, { f: 'html' }) })),
            });
          }
          return json(body);
        },
      }),
      defineRoute({
        method: 'get',
        path: `${base}/{dggrs_id}/zones`,
        operationId: `${origin}.getDGGRSZones`,
        summary: scoped ? 'Zones of a grid covering a collection (or a box / parent zone within it)' : 'Zones of a grid in a box or below a parent zone',
        description: `Lists zone ids of one level. Lists longer than the page size are paged with a \`next\` link; queries selecting more than ${MAX_ZONES_PER_QUERY.toLocaleString('en-US')} zones, or whose bbox edges cross more than ${MAX_EDGE_ZONES.toLocaleString('en-US')} zones, are refused with 422.`,
        tags,
        params: gridParams,
        query: zonesQuery,
        formats: LIST_FORMATS,
        invalidStatus: 422,
        responses: responses({ description: 'The zone list', schema: ZonesResponse, formats: LIST_FORMATS }, [400, 404, 406, 422, 503]),
        handler: async ({ params, query, links, format, req, signal }) => {
          const scope = scopeOf(params as { collection_id?: string });
          const grid = service.grid(params.dggrs_id);
          const asked = zoneQueryArea({
            ...(query.bbox ? { bbox: query.bbox } : {}),
            ...(query['bbox-crs'] !== undefined ? { bboxCrs: query['bbox-crs'] } : {}),
            subsets: allValues(req.url, 'subset'),
            ...(query['subset-crs'] !== undefined ? { subsetCrs: query['subset-crs'] } : {}),
            ...(query.datetime !== undefined ? { datetime: query.datetime } : {}),
            temporal: scope.collection ? isTemporal(scope.collection) : false,
          });
          if (format === 'uint64' && !grid.zoneToUint64) {
            throw new UnsupportedFormatError(LIST_FORMATS.filter((f) => f !== 'uint64').map((f) => F_VALUE[f]), `${grid.id} defines no 64-bit integer zone ids.`);
          }
          const page = await service.listZones(
            grid,
            {
              bbox: asked.bbox,
              zoneLevel: query['zone-level'],
              parentZone: query['parent-zone'],
              compactZones: query['compact-zones'],
              limit: query.limit,
              offset: query.offset,
              ...zoneQueryFilter(scope, grid, query.filter, query['filter-lang'], asked.datetime, signal),
            },
            scope.collection,
          );
          const refined = query['refined-geometry'] ?? true;
          const linkList = listLinks(links, scope, page, format, requestQuery(req.url));
          const headers: Record<string, string> = { 'OGC-Zones-Total': String(page.total) };
          if (format === 'geojson') {
            const body = steppedReadable(zoneFeatureCollectionChunks(grid, page.zones, refined, linkList, { numberMatched: page.total }));
            return { contentType: mediaType('geojson'), headers, body };
          }
          if (format === 'uint64') {
            const next = linkList.find((l) => l.rel === 'next');
            return { contentType: mediaType('uint64'), body: zoneListUint64(grid, page.zones), headers: { ...headers, ...(next ? { Link: `<${next.href}>; rel="next"` } : {}) } };
          }
          if (format === 'parquet' || format === 'geoparquet') {
            const rows = await runStepped(zoneListParquetRows(grid, page.zones, { geometry: format === 'geoparquet', refined }));
            const body = await encodeZoneListParquet(grid, rows);
            return { contentType: mediaType(format), body, headers: { ...headers, 'Content-Disposition': `attachment; filename="${grid.id}-zones.${format === 'parquet' ? 'parquet' : 'geoparquet'}.parquet"` } };
          }
          // Areas depend on the zone's level and shape only: no zone is described for them.
          const area = page.zones.reduce((s, zid) => s + grid.zoneArea(zid), 0);
          if (format === 'html') return await zoneListHtml(links, scope, page, linkList, area, query);
          return { contentType: 'application/json', headers, body: { zones: page.zones, returnedAreaMetersSquare: area, linkTemplates: zoneTemplates(links, scope, grid), links: linkList } };
        },
      }),
      defineRoute({
        method: 'get',
        path: `${base}/{dggrs_id}/zones/{zone_id}`,
        operationId: `${origin}.getDGGRSZoneInfo`,
        summary: scoped ? 'Describe one zone, with links to the collection data' : 'Describe one zone',
        tags,
        params: zoneParams,
        query: zoneQuery,
        formats: ZONE_FORMATS,
        invalidStatus: 422,
        responses: responses({ description: 'The zone', schema: ZoneIdResponse, formats: ['json', 'html'] }, [404, 406, 422]),
        handler: async ({ params, query, links, format, signal }) => {
          const scope = scopeOf(params as { collection_id?: string });
          const refined = query['refined-geometry'] ?? true;
          const answer = () => zoneInfo(service, scope, params.dggrs_id, params.zone_id, refined, links, format, stats, signal);
          if (scope.collection || !infoCache) return answer();
          return infoCache.get(`${links.baseUrl}\n${format}\n${refined}\n${params.dggrs_id}\n${params.zone_id}`, answer);
        },
      }),
    );
  }
  // The GeoJSON zone feature schema is documented alongside the JSON one.
  for (const r of routes.filter((x) => x.path.endsWith('{zone_id}'))) {
    const ok = (r.responses as Record<string, { content: Record<string, unknown> }>)['200']!;
    ok.content[mediaType('geojson')] = { schema: GeoJsonFeature };
  }

  return {
    routes,
    conformance: [CONF.dggsCore, CONF.dggsRoot, CONF.dggsCollection, CONF.dggsZoneQuery, CONF.dggsZoneHtml, CONF.dggsZoneGeojson, CONF.dggsZoneUint64, CONF.dggsZoneQueryCql2Filter],
  };
}

async function zoneInfo(service: ZonesService, scope: Scope, gridId: string, zoneId: string, refined: boolean, links: Links, format: Format, stats?: ZoneStatistics, signal?: AbortSignal): Promise<Reply> {
  const grid = service.grid(gridId);
  const d = service.describe(grid, zoneId);
  const gpath = gridPath(scope, grid);
  const zpath = (z: string) => `${gpath}/zones/${enc(z)}`;
  const parents = grid.parents(d.id);
  const children = grid.children(d.id);
  const neighbours = grid.neighbours(d.id);
  const geometry = zoneGeometry(grid, d.id, refined);
  const list: Link[] = [
    ...links.selfAndAlternates(zpath(d.id), format, ['json', 'html', 'geojson'], refined ? {} : { 'refined-geometry': false }, `Zone ${d.id}`),
    links.link(rel.dggrs, gpath, { type: 'application/json', title: grid.title }),
    { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
    ...parents.map((p, i) => links.link(rel.parent, zpath(p), { type: 'application/json', title: `${i === 0 ? 'Primary parent' : 'Parent'} ${p}` })),
    ...children.map((c) => links.link(rel.child, zpath(c), { type: 'application/json', title: `Child ${c}` })),
    ...neighbours.map((n) => links.link(rel.neighbor, zpath(n), { type: 'application/json', title: `Neighbour ${n}` })),
    links.link(rel.zoneQuery, `${gpath}/zones`, { type: 'application/json', title: 'Sub-zones of this zone', query: { 'parent-zone': d.id } }),
  ];
  if (scope.collection) {
    list.push(links.link(rel.zoneData, `${zpath(d.id)}/data`, { type: 'application/json', title: `Data of ${scope.collection.title} in this zone` }));
    const src = sourceLink(links, scope.collection, d.bbox);
    if (src) list.push(src);
    list.push(...contextLinks(links, scope));
  }
  const body = {
    id: d.id,
    level: d.level,
    shapeType: d.shape,
    crs: grid.crs,
    centroid: d.centroid,
    bbox: d.bbox,
    geometry,
    areaMetersSquare: d.areaMetersSquare,
    ...(await statisticsOf(stats, scope, grid.id, d.id, signal)),
    links: list,
  };
  if (format === 'geojson') {
    const { geometry: _g, links: l, ...props } = body;
    const feature = zoneFeature(grid, d.id, refined, { ...props, dggrs: grid.id }, l);
    return { contentType: mediaType('geojson'), body: feature };
  }
  if (format === 'html') {
    const info = (z: string) => ({ id: z, href: links.href(zpath(z), { f: 'html' }) });
    const map = zoneSvgMap(
      grid,
      [
        ...neighbours.map((n) => ({ zoneId: n, cls: 'nb', href: links.href(zpath(n), { f: 'html' }) })),
        { zoneId: d.id, cls: 'me' },
      ],
      d.centroid[0],
    );
    return renderHtml('zone', {
      title: `Zone ${d.id}`,
      crumbs: crumbsFor(links, scope, grid, [['Zones', links.href(`${gpath}/zones`, { f: 'html' })], [d.id, '']]),
      links: list,
      zone: body,
      grid,
      edgeCount: d.edgeCount,
      vertexCount: geometry.type === 'Polygon' ? geometry.coordinates[0]!.length : geometry.coordinates.reduce((s, p) => s + p[0]!.length, 0),
      parents: parents.map(info),
      children: children.map(info),
      neighbours: neighbours.map(info),
      subZonesHref: links.href(`${gpath}/zones`, { 'parent-zone': d.id, f: 'html' }),
      dataHref: scope.collection ? links.href(`${zpath(d.id)}/data`) : undefined,
      source: list.find((l) => l.rel === 'source'),
      map,
    });
  }
  return json(body);
}

/**
 * `statistics` for a collection's zone, or nothing: backings without zone data (and any failure
 * to read the source) leave it out rather than fail the zone info, which stands on the grid alone.
 */
/**
 * Statistics are an extra of zone info: they are left out when the source fails, and when it
 * has not answered within STATISTICS_MS (a remote backend over a large zone can take far longer
 * than the zone info itself); the work is then told to stop, as when the client leaves.
 */
const STATISTICS_MS = 2000;

async function statisticsOf(stats: ZoneStatistics | undefined, scope: Scope, gridId: string, zoneId: string, signal?: AbortSignal) {
  if (!stats || !scope.collection) return {};
  let timer: NodeJS.Timeout | undefined;
  const late = new AbortController();
  try {
    const given = new Promise<undefined>((resolve) => (timer = setTimeout(() => {
      resolve(undefined);
      late.abort(new Error('zone statistics left out: not ready in time'));
    }, STATISTICS_MS)));
    const work = stats.zoneStatistics(scope.collection.id, gridId, zoneId, undefined, signal ? AbortSignal.any([signal, late.signal]) : late.signal);
    work.catch(() => undefined);
    const statistics = await Promise.race([work, given]);
    return statistics && Object.keys(statistics).length ? { statistics } : {};
  } catch {
    return {};
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pentagons of a level: as many as at level 0, each the zone at a level-0 pentagon's centre
 * (they stay at the icosahedron's vertices), with its own area; levelInfo gives the hexagons'.
 */
function pentagonsAt(grid: Dggrs, centres: readonly ZoneDescription[], level: number): { pentagons?: number; pentagonAreaMetersSquare?: number } {
  if (!centres.length) return {};
  const d = grid.describeZone(grid.zoneFromPoint(centres[0]!.centroid[0], centres[0]!.centroid[1], level));
  return d.shape === 'pentagon' ? { pentagons: centres.length, pentagonAreaMetersSquare: d.areaMetersSquare } : {};
}

/** `fn` over `items`, a few at a time with pauses in between. */
function* mapInSteps<T, U>(items: readonly T[], fn: (item: T) => U): Stepped<U[]> {
  const out: U[] = [];
  for (const item of items) {
    out.push(fn(item));
    if (out.length % ZONES_PER_STEP === 0) yield;
  }
  return out;
}

async function zoneListHtml(links: Links, scope: Scope, page: ZoneListPage, linkList: Link[], area: number, query: Record<string, unknown>): Promise<Reply> {
  const grid = page.grid;
  const gpath = gridPath(scope, grid);
  const zpath = (z: string) => `${gpath}/zones/${enc(z)}`;
  const parent = typeof query['parent-zone'] === 'string' ? query['parent-zone'] : undefined;
  const detail = await runStepped(mapInSteps(page.zones.slice(0, HTML_DETAIL), (zid) => {
    const d = grid.describeZone(zid);
    return { id: zid, href: links.href(zpath(zid), { f: 'html' }), shape: d.shape, area: d.areaMetersSquare, centroid: d.centroid, dataHref: scope.collection ? links.href(`${zpath(zid)}/data`) : undefined };
  }));
  const box = page.boxes[0];
  const refLon = parent ? grid.describeZone(parent).centroid[0] : box ? (box[0] <= box[2] ? (box[0] + box[2]) / 2 : ((box[0] + box[2] + 360) / 2 + 180) % 360 - 180) : 0;
  // Up to HTML_DRAW zones are drawn refined, each linking to its page; up to HTML_OUTLINE (a world
  // list at a default level) as plain outlines only, to keep the page small.
  const shown = page.zones.slice(0, HTML_OUTLINE);
  const refined = shown.length <= HTML_DRAW;
  // The outlines (the costly part of the map) are made in steps; the map then reads them back.
  const outlines = new Map(await runStepped(mapInSteps(shown, (zid) => [zid, grid.zoneOutline(zid, refined)] as const)));
  const drawn: Dggrs = Object.create(grid, { zoneOutline: { value: (zid: string) => outlines.get(zid) ?? grid.zoneOutline(zid, refined) } });
  const map = zoneSvgMap(drawn, shown.map((zid) => ({ zoneId: zid, cls: 'z', ...(refined ? { href: links.href(zpath(zid), { f: 'html' }) } : {}) })), refLon, 720);
  return renderHtml('zones', {
    title: parent ? `Sub-zones of ${parent}` : `Zones of ${grid.id} at level ${page.level}`,
    crumbs: crumbsFor(links, scope, grid, [['Zones', '']]),
    links: linkList,
    grid,
    page,
    parent,
    parentHref: parent ? links.href(zpath(parent), { f: 'html' }) : undefined,
    area,
    detail,
    more: page.zones.slice(HTML_DETAIL).map((zid) => ({ id: zid, href: links.href(zpath(zid), { f: 'html' }) })),
    next: linkList.find((l) => l.rel === 'next' && l.type === 'text/html'),
    prev: linkList.find((l) => l.rel === 'prev' && l.type === 'text/html'),
    map,
    mapped: shown.length,
    form: {
      action: links.href(`${gpath}/zones`),
      bbox: typeof query.bbox === 'object' && query.bbox ? (query.bbox as number[]).join(',') : '',
      level: query['zone-level'] ?? '',
      parent: parent ?? '',
    },
  });
}
