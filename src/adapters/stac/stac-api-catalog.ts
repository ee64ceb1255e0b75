/**
 * StacCatalog over a STAC API's Item Search (`/search`).
 *
 * POST when the landing page offers it (a `search` link with method POST), GET otherwise. The
 * search carries `collections` (from config), `datetime`, `limit`, and the zone as `intersects`
 * (POST) or `bbox` (GET). `eo:cloud_cover` is pushed as a CQL2 `filter` when the API declares
 * the Filter extension (CQL2-JSON in a POST body, CQL2-Text in a GET query), else as a `query`
 * when it declares the Query extension; otherwise it is applied here. Every answer is checked
 * here too (bbox, time, cloud cover): an API that ignores a parameter gives no wrong items.
 *
 * Pages are followed through `next` links in both forms: GET (an href) and POST (href, `body`,
 * `merge`), a POST only to the search endpoint's own origin. Pages and items are bounded; the
 * bound is refused with 422 naming it.
 */
import type { StacItemDescriptor, StacSearch } from '../../ports/stac-catalog.js';
import type { RemoteResponse } from '../../ports/remote-http.js';
import { remoteReads } from '../../domain/remote-reads.js';
import { ValidationError } from '../../ports/errors.js';
import { backendStatus, badPayload, catalogLabel, remoteFault } from '../../ports/remote-faults.js';
import { matchesSearch, parseStacItem } from './stac-json.js';
import { getStacJson, remoteAssetHref, WHAT, type RemoteStacOptions } from './stac-http.js';

const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf/';
const ITEM_SEARCH = /^https:\/\/api\.stacspec\.org\/v1\.[^/]+\/item-search$/;
const FILTER = /^https:\/\/api\.stacspec\.org\/v1\.[^/]+\/item-search#filter$/;
const QUERY = /^https:\/\/api\.stacspec\.org\/v1\.[^/]+\/item-search#query$/;

type Json = Record<string, unknown>;

interface Link {
  rel: string;
  href: string;
  method?: string;
  body?: Json;
  merge?: boolean;
}

function linksOf(doc: unknown): Link[] {
  const links = typeof doc === 'object' && doc !== null ? (doc as { links?: unknown }).links : undefined;
  if (!Array.isArray(links)) return [];
  return links.filter((l): l is Link => typeof l === 'object' && l !== null && typeof (l as Link).rel === 'string' && typeof (l as Link).href === 'string');
}

const conformsTo = (doc: Json): string[] => (Array.isArray(doc.conformsTo) ? doc.conformsTo.filter((c): c is string => typeof c === 'string') : []);

/** A landing page of a STAC API (not a static catalog). */
export function isStacApi(doc: Json): boolean {
  return conformsTo(doc).some((c) => ITEM_SEARCH.test(c)) || linksOf(doc).some((l) => l.rel === 'search');
}

interface Capabilities {
  search: string;
  post: boolean;
  filterJson: boolean;
  filterText: boolean;
  query: boolean;
}

function capabilities(landing: { doc: Json; url: string }): Capabilities {
  const list = conformsTo(landing.doc);
  const links = linksOf(landing.doc).filter((l) => l.rel === 'search');
  const post = links.find((l) => (l.method ?? 'GET').toUpperCase() === 'POST');
  const link = post ?? links[0];
  const filter = list.some((c) => FILTER.test(c)) && list.includes(`${CQL2}basic-cql2`);
  return {
    search: new URL(link?.href ?? 'search', landing.url.endsWith('/') ? landing.url : `${landing.url}/`).href,
    post: post !== undefined,
    filterJson: filter && list.includes(`${CQL2}cql2-json`),
    filterText: filter && list.includes(`${CQL2}cql2-text`),
    query: list.some((c) => QUERY.test(c)),
  };
}

const iso = (ms: number | null) => (ms === null ? '..' : new Date(ms).toISOString());

export class StacApiCatalog {
  private readonly caps: Capabilities;
  private readonly label: string;

  constructor(
    private readonly href: string,
    landing: { doc: Json; url: string },
    private readonly options: RemoteStacOptions,
  ) {
    this.caps = capabilities(landing);
    this.label = catalogLabel(href);
  }

  async search(q: StacSearch): Promise<StacItemDescriptor[]> {
    const { caps } = this;
    const { pageSize, maxPages, maxItems } = this.options.limits;
    const cloud = q.maxCloudCover;
    const collections = this.options.collections;
    const datetime = q.datetime ? `${iso(q.datetime.start)}/${iso(q.datetime.end)}` : undefined;

    let request: { method: 'GET' | 'POST'; url: string; body?: Json };
    if (caps.post) {
      const body: Json = { limit: pageSize, ...(q.intersects ? { intersects: q.intersects } : { bbox: q.bbox }) };
      if (collections) body.collections = collections;
      if (datetime) body.datetime = datetime;
      if (cloud !== undefined && caps.filterJson) {
        body.filter = { op: '<=', args: [{ property: 'eo:cloud_cover' }, cloud] };
        body['filter-lang'] = 'cql2-json';
      } else if (cloud !== undefined && caps.query) body.query = { 'eo:cloud_cover': { lte: cloud } };
      request = { method: 'POST', url: caps.search, body };
    } else {
      const url = new URL(caps.search);
      url.searchParams.set('limit', String(pageSize));
      url.searchParams.set('bbox', q.bbox.join(','));
      if (collections) url.searchParams.set('collections', collections.join(','));
      if (datetime) url.searchParams.set('datetime', datetime);
      if (cloud !== undefined && (caps.filterText || caps.filterJson)) {
        url.searchParams.set('filter', caps.filterText ? `"eo:cloud_cover" <= ${cloud}` : JSON.stringify({ op: '<=', args: [{ property: 'eo:cloud_cover' }, cloud] }));
        url.searchParams.set('filter-lang', caps.filterText ? 'cql2-text' : 'cql2-json');
      } else if (cloud !== undefined && caps.query) url.searchParams.set('query', JSON.stringify({ 'eo:cloud_cover': { lte: cloud } }));
      request = { method: 'GET', url: url.href };
    }

    const items = new Map<string, StacItemDescriptor>();
    const seen = new Set<string>();
    const searchOrigin = new URL(caps.search).origin;
    // Pages and items count over every search of the client request (its own count when it has none).
    const reads = q.reads ?? remoteReads();
    for (let page = 1; ; page++) {
      if (page > 1 && reads.pages >= maxPages) {
        throw new ValidationError('Too many STAC pages', `Searching ${this.label} for this request takes more than ${maxPages} pages of ${pageSize} items, counted over all its searches (remoteBackends.maxPages); ask for a smaller zone or area, or a narrower datetime.`);
      }
      reads.pages++;
      const key = `${request.method} ${request.url} ${JSON.stringify(request.body ?? null)}`;
      if (seen.has(key)) throw badPayload(WHAT, this.label, 'a "next" link back to a page already read: its paging loops');
      seen.add(key);
      const res = await this.send(request);
      const doc = res.doc;
      if (doc.type !== 'FeatureCollection' || !Array.isArray(doc.features)) throw badPayload(WHAT, this.label, 'a search page that is not a GeoJSON FeatureCollection');
      const matched = typeof doc.numberMatched === 'number' ? doc.numberMatched : typeof (doc.context as Json | undefined)?.matched === 'number' ? ((doc.context as Json).matched as number) : undefined;
      if (page === 1 && matched !== undefined && reads.features + matched > maxItems) {
        throw new ValidationError('Too many STAC items', `${this.label} has ${matched} items for this search${reads.features > 0 ? ` (after ${reads.features} read by the request's other searches)` : ''}; at most ${maxItems} are read per request (remoteBackends.maxFeatures). Ask for a smaller zone or area, or a narrower datetime.`);
      }
      reads.features += doc.features.length;
      if (reads.features > maxItems) throw new ValidationError('Too many STAC items', `${this.label} returned more than ${maxItems} items for this request, counted over all its searches (remoteBackends.maxFeatures). Ask for a smaller zone or area, or a narrower datetime.`);
      for (const f of doc.features) {
        let item: StacItemDescriptor;
        try {
          const base = linksOf(f).find((l) => l.rel === 'self')?.href;
          const location = base ? new URL(base, res.url).href : res.url;
          item = parseStacItem(f, (href) => remoteAssetHref(href, location));
        } catch (err) {
          throw badPayload(WHAT, this.label, `an unusable item: ${(err as Error).message}`);
        }
        if (!items.has(item.id) && matchesSearch(item, q)) items.set(item.id, item);
      }
      const next = linksOf(doc).find((l) => l.rel === 'next');
      if (!next || doc.features.length === 0) break;
      const url = new URL(next.href, res.url).href;
      if ((next.method ?? 'GET').toUpperCase() === 'POST') {
        // A POST goes to the search endpoint's own origin only: a catalog cannot make the service POST elsewhere.
        if (new URL(url).origin !== searchOrigin) throw badPayload(WHAT, this.label, `a POST "next" link to another origin (${new URL(url).origin})`);
        const body = next.merge ? { ...(request.body ?? {}), ...(next.body ?? {}) } : (next.body ?? request.body ?? {});
        request = { method: 'POST', url, body };
      } else request = { method: 'GET', url };
    }
    return [...items.values()];
  }

  private async send(request: { method: 'GET' | 'POST'; url: string; body?: Json }): Promise<{ doc: Json; url: string }> {
    if (request.method === 'GET') return getStacJson(this.options.http, request.url, this.href);
    let res: RemoteResponse;
    try {
      res = await this.options.http.request({ method: 'POST', url: request.url, body: JSON.stringify(request.body ?? {}), headers: { accept: 'application/geo+json, application/json;q=0.9' } });
    } catch (err) {
      throw remoteFault(err, WHAT, this.label);
    }
    if (res.status < 200 || res.status > 299) throw backendStatus(WHAT, this.label, res.status, request.url);
    try {
      const doc = JSON.parse(new TextDecoder().decode(res.body)) as unknown;
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not an object');
      return { doc: doc as Json, url: res.url };
    } catch {
      throw badPayload(WHAT, this.label, `a search answer that is not a JSON object`);
    }
  }
}
