import { z } from '../schemas/zod.js';
import type { Link } from '../schemas/common.js';
import { ZonesResponse } from '../schemas/dggs.js';
import { defineRoute, type AnyRoute, type Reply } from '../route.js';
import { responses } from '../responses.js';
import { formatParam, queryBBox, queryBoolean, queryInteger } from '../schemas/query.js';
import { F_VALUE, mediaType, offeredBy, type Format } from '../../formats/registry.js';
import { zoneFeatureCollectionChunks } from '../encoders/zone-list-geojson.js';
import { steppedReadable } from '../stepped-stream.js';
import { encodeZoneListParquet, zoneListParquetRows } from '../encoders/zone-list-parquet.js';
import { zoneListUint64 } from '../encoders/zone-list-uint64.js';
import { zoneListGeotiff } from '../encoders/zone-list-geotiff.js';
import { zoneListHtml } from '../html/zone-list-page.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import { pageLinkHeader, type Links } from '../links.js';
import { contentDisposition, fileName } from '../../formats/file-names.js';
import { MAX_EDGE_ZONES, MAX_ZONES_PER_QUERY, type ZoneListPage, type ZonesService } from '../../app/zones/zones-service.js';
import { isTemporal } from '../../domain/collection.js';
import { UnsupportedFormatError } from '../../ports/errors.js';
import { allValues, zoneQueryArea, SUPPORTED_CRS_TEXT } from '../zone-query-area.js';
import { contextLinks, gridPath, rel, zoneTemplates, type DggsForm, type Scope } from '../grid-scope.js';

/** Zone lists (zone query): a page of the zones of a box or below a parent zone, in every list format. */
export const LIST_FORMATS = offeredBy('zone-list');

const zonesQuery = z.object({
  bbox: queryBBox('Zones intersecting min_lon,min_lat,max_lon,max_lat (CRS84; min_lon > max_lon crosses the antimeridian). On a collection, clamped to its extent.'),
  'bbox-crs': z.string().optional().openapi({ description: `CRS of bbox: ${SUPPORTED_CRS_TEXT}; others are 400` }),
  subset: z.string().optional().openapi({ description: 'Lat(min:max),Lon(min:max) (CRS84; Lon min > max crosses the antimeridian; * for an open end), instead of bbox; on a collection with a temporal extent also time("start":"end"). Repeated subset parameters read as one list. 400 for another axis or with bbox.', example: 'Lat(44:48),Lon(5:16)' }),
  'subset-crs': z.string().optional().openapi({ description: `CRS of the Lat/Lon subset: ${SUPPORTED_CRS_TEXT}; others are 400` }),
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval start/end (open ends `..` or empty; `../..` restricts nothing): alone, on a collection with rows in time (parquet lake, OGC API Features), the zones holding a row in it; with `filter`, the interval the zone values are computed over; elsewhere checked (400 when malformed) and ignored', example: '2024-01-05T00:00:00Z/2024-01-10T00:00:00Z' }),
  'zone-level': queryInteger('Level of the listed zones (default: the grid default level); with parent-zone, the depth below the parent (default 1)', { min: 0 }),
  'parent-zone': z.string().min(1).optional().openapi({ description: 'List the sub-zones of this zone, in the grid sub-zone order' }),
  'compact-zones': queryBoolean('Must be omitted or false: compaction is not implemented (true is a 400)'),
  'refined-geometry': queryBoolean('Densify zone edges in geometry outputs (default true)'),
  limit: queryInteger('Zones per page; capped at the service maximum', { min: 1 }),
  offset: queryInteger('Zones to skip (paging; follow the `next` link)', { min: 0 }),
  filter: z.string().optional().openapi({
    description:
      "Collection routes (OGC zone-query-cql2-filter): CQL2 keeping the zones whose OWN data satisfies it, for every backing kind: the zone's values of the collection's zone-data fields at the listed level (its zone data at depth 0, in the `datetime` interval) and its outline as `geometry`; a zone without a value fails a comparison on it.",
    example: 'temperature > 1.5',
  }),
  'filter-lang': z.enum(['cql2-text', 'cql2-json']).optional().openapi({ description: 'Encoding of `filter`; default cql2-text' }),
  f: formatParam(LIST_FORMATS),
});

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

/** Bounds of the zone list encodings (config `limits`). */
export interface ZoneListLimits {
  /** Cells (pixels times bands) a GeoTIFF zone list may have (limits.maxRasterCells). */
  maxRasterCells: number;
}

export function zoneListRoute(form: DggsForm, service: ZonesService, limits: ZoneListLimits): AnyRoute {
  return defineRoute({
    ...form.get('/{dggrs_id}/zones', 'getDGGRSZones', { bare: 'Zones of a grid in a box or below a parent zone', scoped: 'Zones of a grid covering a collection (or a box / parent zone within it)' }),
    description: `Lists zone ids of one level. Lists longer than the page size are paged with a \`next\` link; queries selecting more than ${MAX_ZONES_PER_QUERY.toLocaleString('en-US')} zones, or whose bbox edges cross more than ${MAX_EDGE_ZONES.toLocaleString('en-US')} zones, are refused with 422.`,
    params: form.gridParams,
    query: zonesQuery,
    formats: LIST_FORMATS,
    responses: responses({ description: 'The zone list', schema: ZonesResponse, formats: LIST_FORMATS }, [400, 404, 406, 422, 503]),
    // A collection's zones filtered by its data (filter, datetime) change with the data; the others do not.
    validators: form.scoped
      ? { source: async ({ params, query }, versions) => (query.filter !== undefined || query.datetime !== undefined ? versions([form.scopeOf(params).collection!.id]) : null) }
      : 'request',
    handler: async ({ params, query, links, format, req, signal }) => {
      const scope = form.scopeOf(params);
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
      const page = await service.list(
        grid,
        {
          bbox: asked.bbox,
          zoneLevel: query['zone-level'],
          parentZone: query['parent-zone'],
          compactZones: query['compact-zones'],
          limit: query.limit,
          offset: query.offset,
          filter: query.filter,
          filterLang: query['filter-lang'],
          datetime: asked.datetime,
        },
        scope.collection,
        signal,
      );
      return zoneListReply(links, scope, page, format, query, requestQuery(req.url), limits, signal);
    },
  });
}

/**
 * A page of zones in the negotiated format; `OGC-Zones-Total` counts the whole list, and the
 * `Link` header gives the page's links in every format (binary pages have no other place for them).
 */
async function zoneListReply(links: Links, scope: Scope, page: ZoneListPage, format: Format, query: z.infer<typeof zonesQuery>, asked: Record<string, string>, limits: ZoneListLimits, signal: AbortSignal): Promise<Reply> {
  const linkList = listLinks(links, scope, page, format, asked);
  const link = pageLinkHeader(linkList);
  const reply = await zoneListBody(links, scope, page, format, query, linkList, limits, signal);
  return { ...reply, headers: { ...reply.headers, 'OGC-Zones-Total': String(page.total), ...(link ? { Link: link } : {}) } };
}

async function zoneListBody(links: Links, scope: Scope, page: ZoneListPage, format: Format, query: z.infer<typeof zonesQuery>, linkList: Link[], limits: ZoneListLimits, signal: AbortSignal): Promise<Reply> {
  const grid = page.grid;
  const refined = query['refined-geometry'] ?? true;
  // Downloads are named after the list and where the page starts in it.
  const download = () => ({ 'Content-Disposition': contentDisposition(fileName(`${scope.collection ? `${scope.collection.id}-` : ''}${grid.id}-zones-${page.offset}`, format)) });
  if (format === 'geojson') {
    const body = steppedReadable(zoneFeatureCollectionChunks(grid, page.zones, refined, linkList, { numberMatched: page.total }));
    return { contentType: mediaType('geojson'), body };
  }
  if (format === 'uint64') return { contentType: mediaType('uint64'), body: zoneListUint64(grid, page.zones), headers: download() };
  if (format === 'geotiff') return { contentType: mediaType('geotiff'), body: await zoneListGeotiff(grid, page.zones, page.level, limits.maxRasterCells, signal), headers: download() };
  if (format === 'parquet' || format === 'geoparquet') {
    const rows = await runStepped(zoneListParquetRows(grid, page.zones, { geometry: format === 'geoparquet', refined }));
    const body = await encodeZoneListParquet(grid, rows);
    return { contentType: mediaType(format), body, headers: download() };
  }
  // Areas depend on the zone's level and shape only: no zone is described for them.
  const area = page.zones.reduce((s, zid) => s + grid.zoneArea(zid), 0);
  if (format === 'html') return await zoneListHtml(links, scope, page, linkList, area, query);
  return { contentType: 'application/json', body: { zones: page.zones, returnedAreaMetersSquare: area, linkTemplates: zoneTemplates(links, scope, grid), links: linkList } };
}
