/**
 * GET /collections/{collection_id}/items and /items/{feature_id}: raw rows of parquet-lake
 * collections (OGC API - Features core, GeoJSON, HTML, Filter with CQL2).
 */
import type { Request } from 'restify';
import { z } from '../schemas/zod.js';
import { defineRoute, json, type Reply } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { CONF } from '../../formats/conformance-classes.js';
import { F_VALUE, formatConformance, mediaType, type Format } from '../../formats/registry.js';
import type { Links } from '../links.js';
import type { Link } from '../schemas/common.js';
import type { RouteModule } from '../route-module.js';
import { FeatureCollectionResponse, FeatureResponse, ITEMS_FORMATS, ItemParams, ItemQuery, ItemsParams, ItemsQuery, RawItemResponse, RawItemsResponse } from '../schemas/items.js';
import { rawRow, toFeature } from '../encoders/items-encoding.js';
import { geometriesMap, geometryText } from '../html/geometry-map.js';
import type { ItemsQuery as ServiceQuery, ItemsResult, ItemsService } from '../../app/items/items-service.js';

const FORMATS = ITEMS_FORMATS;
const DEFAULT_LIMIT = 10;
/** Parameters carried into self/prev/next/alternate links, as the client wrote them. */
const CARRIED = ['bbox', 'datetime', 'properties', 'exclude-properties', 'filter', 'filter-lang'] as const;

type Query = Record<string, string | number | undefined>;

/** Query parameters the route declares; any other is a `<property>=<value>` filter (or ignored). */
const DECLARED = new Set(Object.keys(ItemsQuery.shape));

function carried(req: Request): Query {
  const out: Query = {};
  const raw = (req.query ?? {}) as Record<string, unknown>;
  for (const k of [...CARRIED, ...Object.keys(raw).filter((name) => !DECLARED.has(name))]) {
    const v = raw[k];
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof last === 'string') out[k] = last;
  }
  return out;
}

/** `<property>=<value>` parameters: every undeclared one; the service keeps those naming a column. */
function propertyEquals(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (!DECLARED.has(k) && typeof last === 'string') out[k] = last;
  }
  return out;
}

function serviceQuery(q: { bbox?: [number, number, number, number] | undefined; datetime?: string | undefined; properties?: string[] | undefined; 'exclude-properties'?: string[] | undefined; filter?: string | undefined; 'filter-lang'?: 'cql2-text' | 'cql2-json' | 'cql-text' | undefined }, format: Format, req: Request): ServiceQuery {
  return {
    propertyEquals: propertyEquals(req),
    ...(q.bbox ? { bbox: q.bbox } : {}),
    ...(q.datetime !== undefined ? { datetime: q.datetime } : {}),
    ...(q.properties ? { properties: q.properties } : {}),
    ...(q['exclude-properties'] ? { excludeProperties: q['exclude-properties'] } : {}),
    ...(q.filter !== undefined ? { filter: q.filter } : {}),
    ...(q['filter-lang'] ? { filterLang: q['filter-lang'] } : {}),
    keepGeometry: format !== 'json' && format !== 'parquet',
  };
}

const fileName = (id: string, suffix: string) => `${id.replace(/[^A-Za-z0-9_.-]/g, '_')}-${suffix}`;

function parquetReply(bytes: Uint8Array, format: Format, name: string): Reply {
  return { contentType: mediaType(format), body: bytes, headers: { 'Content-Disposition': `attachment; filename="${name}.parquet"` } };
}

/** self (this format), alternates (other formats), and prev/next when there are such pages. */
function pageLinks(links: Links, path: string, format: Format, query: Query, offset: number, limit: number, matched: number): Link[] {
  const out: Link[] = links.selfAndAlternates(path, format, FORMATS, { ...query, offset, limit }, 'This page');
  const here = { type: mediaType(format) };
  if (offset > 0) out.push(links.link('prev', path, { ...here, title: 'Previous page', query: { ...query, offset: Math.max(0, offset - limit), limit, f: F_VALUE[format] } }));
  if (limit > 0 && offset + limit < matched) out.push(links.link('next', path, { ...here, title: 'Next page', query: { ...query, offset: offset + limit, limit, f: F_VALUE[format] } }));
  return out;
}

export function itemRoutes(service: ItemsService): RouteModule {
  const list = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/items',
    operationId: 'getItems',
    summary: 'Raw rows of a parquet-lake collection, paged',
    description:
      'Rows of `<lake>/<collection>/data/**/*.parquet` in scan order (files by path, then row order). ' +
      'Filter with bbox, datetime and CQL2 (`filter`, `filter-lang`); page with limit/offset, following the `next` link.',
    tags: ['Items'],
    params: ItemsParams,
    query: ItemsQuery,
    // One concrete path per lake collection, listing its properties as equality parameters: GDAL's
    // OAPIF driver looks a layer's parameters up at /collections/<id>/items and pushes `-where`
    // to the server only for what it finds there (as `filter`, or `<property>=<value>`).
    documentedAt: async () =>
      (await service.propertyParameters()).map(({ id, columns }) => ({
        path: `/collections/${id}/items`,
        operationId: `getItems.${id}`,
        summary: `Raw rows of ${id}, paged`,
        query: ItemsQuery.extend(
          Object.fromEntries(
            columns
              .filter((c) => !DECLARED.has(c.name))
              .map((c) => [c.name, z.string().optional().openapi({ description: `Rows whose ${c.name} equals this value (${c.type})` })]),
          ),
        ),
      })),
    formats: FORMATS,
    defaultFormat: 'geojson',
    responses: responses({ description: 'One page of rows', schema: FeatureCollectionResponse, formats: FORMATS }, [400, 404, 406]),
    handler: async ({ params, query, format, links, req, signal }) => {
      const limit = query.limit ?? DEFAULT_LIMIT;
      const offset = query.offset ?? 0;
      const id = params.collection_id;
      const sq = { ...serviceQuery(query, format, req), limit, offset };
      if (format === 'parquet' || format === 'geoparquet') {
        const { bytes } = await service.parquet(id, sq, format === 'geoparquet', false, signal);
        return parquetReply(bytes, format, fileName(id, `items-${offset}`));
      }
      const result = await service.page(id, sq, signal);
      const path = `/collections/${encodeURIComponent(id)}/items`;
      const carry = carried(req);
      const pageLinkList = [
        ...pageLinks(links, path, format, carry, offset, limit, result.page.numberMatched),
        links.link('collection', `/collections/${encodeURIComponent(id)}`, { type: 'application/json', title: result.collection.title }),
      ];
      const numberReturned = result.page.rows.length;
      if (format === 'json') {
        const body: RawItemsResponse = {
          collection: id,
          source: result.dataset.source,
          numberMatched: result.page.numberMatched,
          numberReturned,
          limit,
          offset,
          files: result.dataset.files,
          columns: result.columns,
          items: result.page.rows.map(rawRow),
          links: pageLinkList,
        };
        return json(body);
      }
      if (format === 'html') return html(result, links, pageLinkList, carry, offset, limit);
      const body: FeatureCollectionResponse = {
        type: 'FeatureCollection',
        timeStamp: new Date().toISOString(),
        numberMatched: result.page.numberMatched,
        numberReturned,
        features: result.page.rows.map((r) => toFeature(r, result.dataset.geometryColumn)),
        links: pageLinkList,
      };
      return json(body, mediaType('geojson'));
    },
  });

  const one = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/items/{feature_id}',
    operationId: 'getItem',
    summary: 'One raw row by its 0-based index in scan order (within the filtered set)',
    description: 'The id is stable only while the set of files under the lake prefix does not change; do not store it.',
    tags: ['Items'],
    params: ItemParams,
    query: ItemQuery,
    formats: FORMATS,
    defaultFormat: 'geojson',
    responses: responses({ description: 'One row', schema: FeatureResponse, formats: FORMATS }, [400, 404, 406]),
    handler: async ({ params, query, format, links, req, signal }) => {
      const id = params.collection_id;
      const fid = params.feature_id;
      const sq = serviceQuery(query, format, req);
      if (format === 'parquet' || format === 'geoparquet') {
        const { bytes } = await service.parquet(id, { ...sq, offset: fid, limit: 1 }, format === 'geoparquet', true, signal);
        return parquetReply(bytes, format, fileName(id, `item-${fid}`));
      }
      const result = await service.item(id, fid, sq, signal);
      const path = `/collections/${encodeURIComponent(id)}/items/${fid}`;
      const itemsPath = `/collections/${encodeURIComponent(id)}/items`;
      const carry = carried(req);
      const linkList: Link[] = [
        ...links.selfAndAlternates(path, format, FORMATS, carry, 'This item'),
        links.link('collection', `/collections/${encodeURIComponent(id)}`, { type: 'application/json', title: result.collection.title }),
        links.link('items', itemsPath, { type: mediaType('geojson'), title: 'All items', query: carry }),
      ];
      const row = result.page.rows[0]!;
      if (format === 'json') {
        const body: RawItemResponse = { collection: id, source: result.dataset.source, numberMatched: result.page.numberMatched, feature_id: fid, item: rawRow(row), links: linkList };
        return json(body);
      }
      if (format === 'html') {
        const geometry = toFeature(row, result.dataset.geometryColumn).geometry;
        return renderHtml('item', {
          title: `${result.collection.title}: item ${fid}`,
          crumbs: crumbs(links, result, [['Items', links.href(itemsPath, { f: 'html' })], [`Item ${fid}`, '']]),
          links: linkList,
          row: htmlValues(row, result.dataset.geometryColumn, Infinity),
          geometryColumn: result.dataset.geometryColumn,
          map: geometriesMap([{ geometry, title: `Item ${fid}` }]),
          numberMatched: result.page.numberMatched,
        });
      }
      const feature: FeatureResponse = { ...toFeature(row, result.dataset.geometryColumn), links: linkList };
      return json(feature, mediaType('geojson'));
    },
  });

  return {
    routes: [list, one],
    conformance: [
      CONF.featuresCore,
      ...formatConformance('items'),
      CONF.featuresOas30,
      CONF.featuresFilter,
      CONF.featuresFeaturesFilter,
      CONF.cql2Text,
      CONF.cql2Json,
      CONF.cql2Basic,
      CONF.cql2AdvancedComparison,
      CONF.cql2CaseInsensitive,
      CONF.cql2AccentInsensitive,
      CONF.cql2BasicSpatial,
      CONF.cql2BasicSpatialPlus,
      CONF.cql2Spatial,
      CONF.cql2Temporal,
      CONF.cql2Arithmetic,
      CONF.cql2PropertyProperty,
    ],
  };
}

function crumbs(links: Links, result: ItemsResult, tail: [string, string][]): [string, string][] {
  const id = result.collection.id;
  return [['Home', links.href('/')], ['Collections', links.href('/collections', { f: 'html' })], [result.collection.title, links.href(`/collections/${encodeURIComponent(id)}`, { f: 'html' })], ...tail];
}

/** A row for the HTML tables: the geometry as WKT (not WKB bytes), the rest as the raw JSON shows it. */
function htmlValues(row: ItemsResult['page']['rows'][number], geometryColumn: string | undefined, maxWkt?: number): Record<string, unknown> {
  const values = rawRow(row);
  if (geometryColumn && geometryColumn in values) values[geometryColumn] = geometryText(toFeature(row, geometryColumn).geometry, maxWkt);
  return values;
}

function html(result: ItemsResult, links: Links, pageLinkList: Link[], carry: Query, offset: number, limit: number): Reply {
  const id = result.collection.id;
  const itemsPath = `/collections/${encodeURIComponent(id)}/items`;
  return renderHtml('items', {
    title: `${result.collection.title}: items`,
    crumbs: crumbs(links, result, [['Items', '']]),
    links: pageLinkList,
    columns: result.columns,
    rows: result.page.rows.map((r) => ({ index: r.index, href: links.href(`${itemsPath}/${r.index}`, { ...carry, f: 'html' }), values: htmlValues(r, result.dataset.geometryColumn) })),
    map: geometriesMap(result.page.rows.map((r) => ({ geometry: toFeature(r, result.dataset.geometryColumn).geometry, title: `Item ${r.index}`, href: links.href(`${itemsPath}/${r.index}`, { ...carry, f: 'html' }) }))),
    numberMatched: result.page.numberMatched,
    offset,
    limit,
    prev: pageLinkList.find((l) => l.rel === 'prev')?.href,
    next: pageLinkList.find((l) => l.rel === 'next')?.href,
    files: result.dataset.files,
    source: result.dataset.source,
  });
}
