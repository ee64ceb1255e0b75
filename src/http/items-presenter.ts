import { json, type Reply } from './route.js';
import { itemMap, itemsMap } from './html/page-maps.js';
import { renderHtml } from './html/render.js';
import { F_VALUE, mediaType, type Format } from '../formats/registry.js';
import { pageLinkHeader, type Links } from './links.js';
import { contentDisposition, fileName } from '../formats/file-names.js';
import type { Link } from './schemas/common.js';
import { ITEMS_FORMATS, type FeatureCollectionResponse, type FeatureResponse, type RawItemResponse, type RawItemsResponse } from './schemas/items.js';
import { rawRow, toFeature } from './encoders/items-encoding.js';
import { geometriesMap, geometryText } from './html/geometry-map.js';
import type { ItemsResult } from '../app/items/items-service.js';
import type { CarriedQuery } from './items-query.js';

const itemsPath = (id: string) => `/collections/${encodeURIComponent(id)}/items`;

/** A parquet download of rows, named after the collection and what was asked; a page's links go in its `Link` header. */
export function parquetReply(bytes: Uint8Array, format: Format, id: string, suffix: string, pageLinkList: Link[] = []): Reply {
  const link = pageLinkHeader(pageLinkList);
  return { contentType: mediaType(format), body: bytes, headers: { 'Content-Disposition': contentDisposition(fileName(`${id}-${suffix}`, format)), ...(link ? { Link: link } : {}) } };
}

/** The links of one page of rows: its own and its collection's. */
export function itemsPageLinks(result: ItemsResult, format: Format, links: Links, carry: CarriedQuery, offset: number, limit: number): Link[] {
  const id = result.collection.id;
  return [
    ...pageLinks(links, itemsPath(id), format, carry, offset, limit, result.page.numberMatched),
    links.link('collection', `/collections/${encodeURIComponent(id)}`, { type: 'application/json', title: result.collection.title }),
  ];
}

/** self (this format), alternates (other formats), and prev/next when there are such pages. */
function pageLinks(links: Links, path: string, format: Format, query: CarriedQuery, offset: number, limit: number, matched: number): Link[] {
  const out: Link[] = links.selfAndAlternates(path, format, ITEMS_FORMATS, { ...query, offset, limit }, 'This page');
  const here = { type: mediaType(format) };
  if (offset > 0) out.push(links.link('prev', path, { ...here, title: 'Previous page', query: { ...query, offset: Math.max(0, offset - limit), limit, f: F_VALUE[format] } }));
  if (limit > 0 && offset + limit < matched) out.push(links.link('next', path, { ...here, title: 'Next page', query: { ...query, offset: offset + limit, limit, f: F_VALUE[format] } }));
  return out;
}

/** One page of rows in the negotiated format (not parquet), its links in the body and in its `Link` header. */
export function presentItemsPage(result: ItemsResult, format: Format, links: Links, carry: CarriedQuery, offset: number, limit: number): Reply {
  const pageLinkList = itemsPageLinks(result, format, links, carry, offset, limit);
  const reply = itemsPageBody(result, format, links, carry, offset, limit, pageLinkList);
  const link = pageLinkHeader(pageLinkList);
  return link ? { ...reply, headers: { ...reply.headers, Link: link } } : reply;
}

function itemsPageBody(result: ItemsResult, format: Format, links: Links, carry: CarriedQuery, offset: number, limit: number, pageLinkList: Link[]): Reply {
  const id = result.collection.id;
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
  if (format === 'html') return itemsPage(result, links, pageLinkList, carry, offset, limit);
  const body: FeatureCollectionResponse = {
    type: 'FeatureCollection',
    timeStamp: new Date().toISOString(),
    numberMatched: result.page.numberMatched,
    numberReturned,
    features: result.page.rows.map((r) => toFeature(r, result.dataset.geometryColumn)),
    links: pageLinkList,
  };
  return json(body, mediaType('geojson'));
}

/** One row in the negotiated format (not parquet). */
export function presentItem(result: ItemsResult, fid: number, format: Format, links: Links, carry: CarriedQuery): Reply {
  const id = result.collection.id;
  const linkList: Link[] = [
    ...links.selfAndAlternates(`${itemsPath(id)}/${fid}`, format, ITEMS_FORMATS, carry, 'This item'),
    links.link('collection', `/collections/${encodeURIComponent(id)}`, { type: 'application/json', title: result.collection.title }),
    links.link('items', itemsPath(id), { type: mediaType('geojson'), title: 'All items', query: carry }),
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
      crumbs: crumbs(links, result, [['Items', links.href(itemsPath(id), { f: 'html' })], [`Item ${fid}`, '']]),
      links: linkList,
      row: htmlValues(row, result.dataset.geometryColumn, Infinity),
      geometryColumn: result.dataset.geometryColumn,
      map: geometriesMap([{ geometry, title: `Item ${fid}` }]),
      mapConfig: itemMap(geometry, `Item ${fid}`),
      numberMatched: result.page.numberMatched,
    });
  }
  const feature: FeatureResponse = { ...toFeature(row, result.dataset.geometryColumn), links: linkList };
  return json(feature, mediaType('geojson'));
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

function itemsPage(result: ItemsResult, links: Links, pageLinkList: Link[], carry: CarriedQuery, offset: number, limit: number): Reply {
  const path = itemsPath(result.collection.id);
  return renderHtml('items', {
    title: `${result.collection.title}: items`,
    crumbs: crumbs(links, result, [['Items', '']]),
    links: pageLinkList,
    columns: result.columns,
    rows: result.page.rows.map((r) => ({ index: r.index, href: links.href(`${path}/${r.index}`, { ...carry, f: 'html' }), values: htmlValues(r, result.dataset.geometryColumn) })),
    mapConfig: result.dataset.geometryColumn ? itemsMap(links, path, pageLinkList, carry) : undefined,
    map: geometriesMap(result.page.rows.map((r) => ({ geometry: toFeature(r, result.dataset.geometryColumn).geometry, title: `Item ${r.index}`, href: links.href(`${path}/${r.index}`, { ...carry, f: 'html' }) }))),
    numberMatched: result.page.numberMatched,
    offset,
    limit,
    prev: pageLinkList.find((l) => l.rel === 'prev')?.href,
    next: pageLinkList.find((l) => l.rel === 'next')?.href,
    files: result.dataset.files,
    source: result.dataset.source,
  });
}
