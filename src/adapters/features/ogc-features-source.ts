/**
 * FeatureSource over a remote OGC API - Features server (Part 1 core + GeoJSON; Part 3
 * filtering when the server declares it).
 *
 * Per backend (base URL) the conformance declaration is read once; per collection the collection
 * document (its `items` and `queryables` links) and the queryables. A scan then GETs the items
 * page by page through `next` links:
 * - `bbox`, `datetime` and `limit` are always sent (Part 1 core);
 * - the CQL2 `filter` is split into its AND terms; the terms the server can evaluate (it declares
 *   Part 3 filtering, the encoding, and every CQL2 class the term needs, and knows its
 *   properties) are sent, the others evaluated here;
 * - `properties` is sent when the server declares Part 6 property selection;
 * - `datetime` is also checked here on the temporal property when known, and `bbox` on each
 *   feature's envelope: servers that declare core but ignore `datetime` (MapServer 8.0), or drop
 *   `bbox` from their `next` links (MapServer 8.0 again), exist; dropped parameters are put back
 *   on the next link.
 * Features are deduplicated by id; a page that brings only features already seen means the
 * server's paging does not advance (MapServer 8.0 with paging-capable data ignores `offset`):
 * that is a bad payload, not an endless loop. Pages and features count in the client request's
 * reads (`query.reads`), shared by all its scans, so the bounds hold per request; a scan stops
 * between pages, and the page being read is dropped, when `query.signal` aborts.
 */
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { Expr } from '../../domain/cql2/index.js';
import { envelope, type Geometry } from '../../domain/geometry/geojson.js';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import { intervalsOverlap } from '../../domain/time-interval.js';
import { remoteReads } from '../../domain/remote-reads.js';
import { andOf, conjuncts, filterProperties, supportedBy } from '../../domain/features/cql2-classes.js';
import { toCql2Json, toCql2Text } from '../../domain/features/cql2-encode.js';
import { assertEvaluable, matchesFilter, UnsupportedFilterError } from '../../domain/features/cql2-evaluate.js';
import type { FeatureQuery, FeatureScanReport, FeatureSource, RemoteFeature } from '../../ports/feature-source.js';
import type { RemoteHttp, RemoteResponse } from '../../ports/remote-http.js';
import { InvalidRequestError, ValidationError } from '../../ports/errors.js';
import { backendLabel, backendStatus, badPayload, remoteFault } from '../../ports/remote-faults.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { fieldsFromSample, fieldsFromSchema, type SchemaFields } from './queryables.js';

export interface FeaturePagingLimits {
  /** `limit` asked per page. */
  pageSize: number;
  /** Pages one client request may read, over all its scans (`FeatureQuery.reads`). */
  maxPages: number;
  /** Features one client request may read (before local filtering), over all its scans. */
  maxFeatures: number;
}

export interface OgcFeaturesOptions {
  http: RemoteHttp;
  limits: FeaturePagingLimits;
}

const F1 = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/';
const F3 = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf/';
/** Part 6 (property selection) is a draft: any version of its class. */
const PROPERTY_SELECTION = /^http:\/\/www\.opengis\.net\/spec\/ogcapi-features-6\/[^/]+\/conf\/(properties|property-selection)$/;
const QUERYABLES_REL = ['http://www.opengis.net/def/rel/ogc/1.0/queryables', 'queryables'];
const SCHEMA_REL = ['http://www.opengis.net/def/rel/ogc/1.0/schema', 'describedby'];
const GEOJSON = /^application\/(geo\+)?json\b/i;
const WHAT = 'Feature backend';
/**
 * Longest URL sent with a pushed filter: servers commonly refuse request lines past 8 KiB (this
 * service at server.maxUrlBytes, 16 KiB); a longer filter is evaluated here instead.
 */
const MAX_PUSHED_URL = 8000;
/** Statuses with which a backend refuses a pushed filter it cannot take (bad, too long, too costly). */
const FILTER_REFUSALS = [400, 413, 414, 422, 431] as const;
/** Features read to infer fields when a backend has neither queryables nor schema. */
const SAMPLE = 100;

interface Capabilities {
  filter: boolean;
  text: boolean;
  json: boolean;
  classes: Set<string>;
  properties: boolean;
}

interface CollectionInfo {
  items: string;
  queryables?: string;
  schema?: string;
}

type Backing = Extract<Collection['backing'], { kind: 'ogc-features' }>;

export class OgcFeaturesSource implements FeatureSource {
  private readonly capabilities = new Map<string, Promise<Capabilities>>();
  private readonly collections = new Map<string, Promise<CollectionInfo>>();
  private readonly schemas = new Map<string, Promise<SchemaFields>>();

  constructor(private readonly options: OgcFeaturesOptions) {}

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const b = backing(collection);
    const schema = await this.schema(collection, b);
    return { ...schema.fields, ...(b.fields ?? {}) };
  }

  async scan(collection: Collection, query: FeatureQuery, onPage: (features: RemoteFeature[]) => void | Promise<void>): Promise<FeatureScanReport> {
    const b = backing(collection);
    const label = backendLabel(collection.id, this.base(b));
    if (query.filter) {
      try {
        assertEvaluable(query.filter);
      } catch (err) {
        if (err instanceof UnsupportedFilterError) throw new InvalidRequestError('Filter not supported', `${err.message}; ${label} is filtered with CQL2 comparisons, LIKE/BETWEEN/IN, spatial, temporal and array predicates.`);
        throw err;
      }
    }
    const [caps, info, schema] = await Promise.all([this.caps(collection, b), this.collection(collection, b), this.schema(collection, b)]);
    const geometryNames = new Set(['geometry', ...schema.geometry]);
    const datetimeProperty = b.datetimeProperty ?? schema.datetime;
    const { limits } = this.options;

    const known = new Set(Object.keys(schema.fields));
    const canPush = (t: Expr) => caps.filter && (caps.text || caps.json) && supportedBy(t, caps.classes) && [...filterProperties(t)].every((p) => known.has(p));
    const planWith = (push: (t: Expr) => boolean) => requestPlan(query, info.items, limits.pageSize, caps, datetimeProperty, geometryNames, push);
    const allHere = () => planWith(() => false);
    let plan = planWith(canPush);
    // A filter that would make the URL longer than servers commonly accept is evaluated here instead.
    if (plan.pushed.includes('filter') && plan.first.length > MAX_PUSHED_URL) plan = allHere();

    // The request's reads so far, this scan's included: the bounds hold for their sum.
    const reads = query.reads ?? remoteReads();
    const seen = new Set<string | number>();
    const fetched = new Set<string>();
    let url: string | undefined = plan.first;
    let pages = 0, received = 0, delivered = 0;
    while (url) {
      query.signal?.throwIfAborted();
      if (reads.pages >= limits.maxPages) {
        throw new ValidationError('Too many feature pages', `Reading ${label} for this request takes more than ${limits.maxPages} pages of ${limits.pageSize} features, counted over all the backend reads of one request (remoteBackends.maxPages); ask for a smaller zone or area, a narrower datetime or a more selective filter.`);
      }
      if (fetched.has(url)) throw badPayload(WHAT, label, `a "next" link back to a page already read (${pathOf(url)}): its paging loops`);
      fetched.add(url);
      reads.pages++;
      // A backend may refuse a filter it declares it can evaluate (its own bounds on length,
      // nesting or cost): the scan then starts again with the whole filter evaluated here.
      const refusable = pages === 0 && plan.pushed.includes('filter');
      const page: { json: unknown; url: string } | undefined = await this.getJson(url, label, b, 'application/geo+json', refusable ? FILTER_REFUSALS : [], query.signal);
      if (!page) {
        plan = allHere();
        url = plan.first;
        continue;
      }
      pages++;
      const { features, next, matched } = featureCollection(page.json, label);
      if (pages === 1 && matched !== undefined && reads.features + matched > limits.maxFeatures) {
        throw new ValidationError('Too many features', `${label} has ${matched} features for this request${reads.features > 0 ? ` (after ${reads.features} read by its other backend reads)` : ''}; at most ${limits.maxFeatures} are read per request (remoteBackends.maxFeatures). Ask for a smaller zone or area, a narrower datetime or a more selective filter.`);
      }
      received += features.length;
      reads.features += features.length;
      if (reads.features > limits.maxFeatures) {
        throw new ValidationError('Too many features', `${label} returned more than ${limits.maxFeatures} features for this request, counted over all its backend reads (remoteBackends.maxFeatures). Ask for a smaller zone or area, a narrower datetime or a more selective filter.`);
      }
      const kept: RemoteFeature[] = [];
      let fresh = 0;
      for (const f of features) {
        // A local filter's spatial test can take long against a large literal: other requests get
        // a turn after every slice of this loop.
        if (turnDue()) await takeTurn(query.signal);
        if (f.id !== undefined) {
          if (seen.has(f.id)) continue;
          seen.add(f.id);
        }
        fresh++;
        if (query.bbox && f.geometry && !meets(f.geometry, query.bbox)) continue;
        if (query.datetime && datetimeProperty && !inTime(f.properties[datetimeProperty], query.datetime)) continue;
        if (plan.localFilter && !matchesFilter(plan.localFilter, f, geometryNames)) continue;
        kept.push(f);
      }
      if (features.length > 0 && fresh === 0) throw badPayload(WHAT, label, `a page of features all read before (${pathOf(url)}): its paging does not advance`);
      delivered += kept.length;
      if (kept.length > 0) await onPage(kept);
      url = features.length > 0 && next ? keepParams(new URL(next, page.url), plan.params) : undefined;
    }
    return { pages, received, delivered, pushed: plan.pushed, local: plan.local, firstPage: plan.first };
  }

  /** The backend's base URL (landing page). */
  private base(b: Backing): string {
    return b.url.replace(/\/+$/, '');
  }

  private caps(collection: Collection, b: Backing): Promise<Capabilities> {
    const base = this.base(b);
    return cached(this.capabilities, base, async () => {
      const label = backendLabel(collection.id, base);
      // Without a readable conformance declaration, assume Part 1 core only: nothing is pushed beyond bbox/datetime/limit.
      const doc = await this.getJson(`${base}/conformance`, label, b, 'application/json', true);
      const list = doc && Array.isArray((doc.json as { conformsTo?: unknown }).conformsTo) ? ((doc.json as { conformsTo: unknown[] }).conformsTo.filter((c) => typeof c === 'string') as string[]) : [];
      const has = (uri: string) => list.includes(uri);
      return {
        filter: has(`${F3}filter`) || has(`${F3}features-filter`),
        text: has(`${CQL2}cql2-text`),
        json: has(`${CQL2}cql2-json`),
        classes: new Set(list.filter((c) => c.startsWith(CQL2)).map((c) => c.slice(CQL2.length))),
        properties: list.some((c) => PROPERTY_SELECTION.test(c)),
      };
    });
  }

  private collection(collection: Collection, b: Backing): Promise<CollectionInfo> {
    const base = this.base(b);
    const href = `${base}/collections/${encodeURIComponent(b.collection)}`;
    return cached(this.collections, href, async () => {
      const label = backendLabel(collection.id, base);
      const doc = await this.getJson(href, label, b, 'application/json');
      const links = linksOf(doc.json);
      const find = (rels: string[], type?: RegExp) => {
        const matching = links.filter((l) => rels.includes(l.rel));
        const best = matching.find((l) => !type || !l.type || type.test(l.type));
        return best ? new URL(best.href, doc.url).href : undefined;
      };
      return {
        items: find(['items'], GEOJSON) ?? `${href}/items`,
        queryables: find(QUERYABLES_REL, /json/i) ?? `${href}/queryables`,
        schema: find(SCHEMA_REL, /json/i),
      };
    });
  }

  private schema(collection: Collection, b: Backing): Promise<SchemaFields> {
    const base = this.base(b);
    return cached(this.schemas, `${base}\n${b.collection}`, async () => {
      const label = backendLabel(collection.id, base);
      const info = await this.collection(collection, b);
      for (const href of [info.queryables, info.schema]) {
        if (!href) continue;
        const doc = await this.getJson(href, label, b, 'application/schema+json', true);
        if (!doc) continue;
        try {
          return fieldsFromSchema(doc.json);
        } catch (err) {
          throw badPayload(WHAT, label, `an unusable schema at ${pathOf(href)}: ${(err as Error).message}`);
        }
      }
      const sample = await this.getJson(withParams(info.items, new URLSearchParams({ limit: String(SAMPLE) })), label, b, 'application/geo+json');
      return fieldsFromSample(featureCollection(sample.json, label).features);
    });
  }

  /** GET and parse JSON; with `optional`, a 4xx/5xx answer (or one of the statuses listed) is undefined instead of an error. */
  private async getJson(url: string, label: string, b: Backing, accept: string, optional: true | readonly number[], signal?: AbortSignal): Promise<{ json: unknown; url: string } | undefined>;
  private async getJson(url: string, label: string, b: Backing, accept: string, optional?: false, signal?: AbortSignal): Promise<{ json: unknown; url: string }>;
  private async getJson(url: string, label: string, b: Backing, accept: string, optional: boolean | readonly number[] = false, signal?: AbortSignal): Promise<{ json: unknown; url: string } | undefined> {
    let res: RemoteResponse;
    try {
      // Configured headers (API keys) go to the backend's own origin only; the http port drops them on redirects elsewhere.
      const sameOrigin = new URL(url).origin === new URL(this.base(b)).origin;
      res = await this.options.http.request({ method: 'GET', url, headers: { accept: `${accept}, application/json;q=0.9`, ...(sameOrigin ? b.headers : {}) }, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw remoteFault(err, WHAT, label);
    }
    if (res.status < 200 || res.status > 299) {
      if (optional === true || (optional && optional.includes(res.status))) return undefined;
      throw backendStatus(WHAT, label, res.status, url);
    }
    try {
      return { json: JSON.parse(new TextDecoder().decode(res.body)) as unknown, url: res.url };
    } catch {
      throw badPayload(WHAT, label, `something that is not JSON from ${pathOf(url)} (${res.headers['content-type'] ?? 'no content type'})`);
    }
  }
}

interface RequestPlan {
  params: URLSearchParams;
  /** The first page's URL. */
  first: string;
  pushed: string[];
  local: string[];
  /** The filter terms evaluated here. */
  localFilter?: Expr;
}

/**
 * The query parameters of a scan: bbox, datetime and limit always; the AND terms of the filter
 * that `canPush` accepts; the properties needed when the backend selects them.
 */
function requestPlan(query: FeatureQuery, items: string, pageSize: number, caps: Capabilities, datetimeProperty: string | undefined, geometryNames: ReadonlySet<string>, canPush: (t: Expr) => boolean): RequestPlan {
  const params = new URLSearchParams();
  const pushed: string[] = [];
  const local: string[] = [];
  if (query.bbox) {
    params.set('bbox', query.bbox.join(','));
    pushed.push('bbox');
  }
  if (query.datetime) {
    params.set('datetime', query.datetime.text);
    pushed.push('datetime');
    if (datetimeProperty) local.push('datetime');
  }
  let localFilter: Expr | undefined;
  if (query.filter) {
    const terms = conjuncts(query.filter);
    const remote = andOf(terms.filter(canPush));
    localFilter = andOf(terms.filter((t) => !canPush(t)));
    if (remote) {
      if (caps.text) {
        params.set('filter', toCql2Text(remote));
        params.set('filter-lang', 'cql2-text');
      } else {
        params.set('filter', JSON.stringify(toCql2Json(remote)));
        params.set('filter-lang', 'cql2-json');
      }
      pushed.push('filter');
    }
    if (localFilter) local.push('filter');
  }
  if (query.properties && caps.properties) {
    const needed = new Set([...query.properties, ...(localFilter ? [...filterProperties(localFilter)].filter((p) => !geometryNames.has(p)) : []), ...(datetimeProperty && query.datetime ? [datetimeProperty] : [])]);
    // No property needed (geometry only): an empty list means different things to different servers.
    if (needed.size > 0) {
      params.set('properties', [...needed].join(','));
      pushed.push('properties');
    }
  }
  params.set('limit', String(pageSize));
  pushed.push('limit');
  return { params, first: withParams(items, params), pushed, local, ...(localFilter ? { localFilter } : {}) };
}

function backing(collection: Collection): Backing {
  if (collection.backing.kind !== 'ogc-features') throw new Error(`ogc-features source given a ${collection.backing.kind} collection`);
  return collection.backing;
}

/** Memoises a promise per key; a failure is forgotten so the next request tries again. */
function cached<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    p = load();
    map.set(key, p);
    p.catch(() => map.delete(key));
  }
  return p;
}

function withParams(href: string, params: URLSearchParams): string {
  const url = new URL(href);
  for (const [k, v] of params) url.searchParams.set(k, v);
  // The format is asked with Accept: `f` values differ between servers (ours: f=json is raw rows).
  return url.href;
}

/**
 * A `next` link with the query parameters it dropped put back: MapServer 8.0 writes next links
 * without `bbox`, which would page through the whole collection. Parameters the link carries
 * (its own `limit`, a paging token) are kept as they are.
 */
function keepParams(next: URL, sent: URLSearchParams): string {
  for (const [k, v] of sent) if (!next.searchParams.has(k)) next.searchParams.set(k, v);
  return next.href;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

interface Link {
  rel: string;
  href: string;
  type?: string;
}

function linksOf(doc: unknown): Link[] {
  const links = typeof doc === 'object' && doc !== null ? (doc as { links?: unknown }).links : undefined;
  if (!Array.isArray(links)) return [];
  return links.filter((l): l is Link => typeof l === 'object' && l !== null && typeof (l as Link).rel === 'string' && typeof (l as Link).href === 'string');
}

/** The features, `next` link and `numberMatched` of a GeoJSON FeatureCollection page. */
function featureCollection(doc: unknown, label: string): { features: RemoteFeature[]; next?: string; matched?: number } {
  if (typeof doc !== 'object' || doc === null || (doc as { type?: unknown }).type !== 'FeatureCollection' || !Array.isArray((doc as { features?: unknown }).features)) {
    throw badPayload(WHAT, label, 'a page that is not a GeoJSON FeatureCollection');
  }
  const raw = (doc as { features: unknown[] }).features;
  const features: RemoteFeature[] = raw.map((f, i) => {
    if (typeof f !== 'object' || f === null || (f as { type?: unknown }).type !== 'Feature') throw badPayload(WHAT, label, `feature ${i} of a page that is not a GeoJSON Feature`);
    const { id, geometry, properties } = f as { id?: unknown; geometry?: unknown; properties?: unknown };
    if (geometry !== null && geometry !== undefined && !isGeometry(geometry)) throw badPayload(WHAT, label, `feature ${i} with an invalid geometry`);
    return {
      ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}),
      geometry: (geometry ?? null) as Geometry | null,
      properties: typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? (properties as Record<string, unknown>) : {},
    };
  });
  const links = linksOf(doc).filter((l) => l.rel === 'next');
  const next = (links.find((l) => l.type && GEOJSON.test(l.type)) ?? links.find((l) => !l.type))?.href;
  const matched = (doc as { numberMatched?: unknown }).numberMatched;
  return { features, ...(next ? { next } : {}), ...(typeof matched === 'number' && Number.isFinite(matched) ? { matched } : {}) };
}

const GEOMETRY_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']);

function isGeometry(g: unknown): boolean {
  if (typeof g !== 'object' || g === null) return false;
  const { type, coordinates, geometries } = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (type === 'GeometryCollection') return Array.isArray(geometries) && geometries.every(isGeometry);
  return typeof type === 'string' && GEOMETRY_TYPES.has(type) && Array.isArray(coordinates);
}

/** The geometry's envelope meets the box (west > east crosses the antimeridian). */
function meets(g: Geometry, [w, s, e, n]: BBox): boolean {
  const env = envelope(g);
  if (!env) return false;
  if (env[1] > n || env[3] < s) return false;
  return w <= e ? env[0] <= e && env[2] >= w : env[2] >= w || env[0] <= e;
}

function inTime(v: unknown, t: NonNullable<FeatureQuery['datetime']>): boolean {
  if (typeof v !== 'string') return false;
  const at = Date.parse(v);
  return Number.isFinite(at) && intervalsOverlap(t, at, at);
}
