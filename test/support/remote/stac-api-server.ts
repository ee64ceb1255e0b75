/**
 * A small STAC API on loopback, written to the STAC API 1.0 spec, for the remote-backend tests
 * (no packaged STAC API server exists for this machine). It serves one set of items in several
 * flavours, each under its own landing page:
 *
 *   /api       Core + Item Search with GET and POST, the Filter extension (CQL2-JSON in POST,
 *              CQL2-Text in GET) and the Query extension; POST paging by `next` links with
 *              `body` + `merge`, GET paging by `token` in the href.
 *   /get-only  Item Search by GET only, Query extension only.
 *   /bare      Item Search by GET only, no extension (cloud cover can only be filtered by the client).
 *   /static    no API: a static catalog (catalog.json -> child catalog -> items) served as files.
 *   /broken    like /bare, but searches answer HTML; /slow: searches never answer;
 *   /evil      like /api, but POST `next` links point at http://127.0.0.2 (another origin).
 *   /assets/*  files of test/fixtures/rasters, with HTTP Range support (COGs).
 *
 * Search: `bbox` (antimeridian-crossing boxes too), `intersects` (GeoJSON, any geometry: the
 * item geometry must intersect it), `datetime` (instant or interval, `..` open ends),
 * `collections`, `ids`, `limit` (default 10, at most 100), `filter` (comparisons of properties
 * with numbers, combined with AND), `query` (lt, lte, gt, gte, eq, neq). Unsupported input is
 * 400. Every request is recorded with its method and body.
 */
import http from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseCql2Json, parseCql2Text, type Expr } from '../../../src/domain/cql2/index.js';
import { spatialRelation } from '../../../src/domain/geometry/relate.js';
import type { Geometry } from '../../../src/domain/geometry/geojson.js';

const RASTERS = path.resolve(import.meta.dirname, '../../fixtures/rasters');
const V = 'https://api.stacspec.org/v1.0.0';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';

export type StacItemJson = Record<string, unknown> & { id: string; properties: Record<string, unknown>; bbox?: number[]; geometry?: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body?: Record<string, unknown>;
}

export interface StacApiServer {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Flavour = 'api' | 'get-only' | 'bare' | 'broken' | 'slow' | 'evil';
const FLAVOURS = new Set(['api', 'get-only', 'bare', 'broken', 'slow', 'evil']);

class BadRequest extends Error {}

/** `items` may use `{origin}` in asset hrefs; it is replaced by the server's origin. */
export async function startStacApi(items: StacItemJson[], opts: { collection?: string } = {}): Promise<StacApiServer> {
  const requests: RecordedRequest[] = [];
  const held: http.ServerResponse[] = [];
  const collection = opts.collection ?? 'scenes';
  let origin = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      let body: Record<string, unknown> | undefined;
      const send = (status: number, doc: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof doc === 'string' ? doc : JSON.stringify(doc));
      };
      try {
        if (chunks.length > 0) body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return send(400, { code: 'BadRequest', description: 'body is not JSON' });
      }
      requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, ...(body ? { body } : {}) });
      const [, mount = '', ...rest] = url.pathname.split('/');
      const tail = rest.join('/');
      const all = items.map((i) => materialise(i, origin, collection));
      try {
        if (mount === 'assets') return asset(req, res, tail);
        if (mount === 'static') return send(...staticDoc(all, tail, `${origin}/static`));
        if (!FLAVOURS.has(mount)) return send(404, { code: 'NotFound' });
        const flavour = mount as Flavour;
        const base = `${origin}/${flavour}`;
        if (tail === '' || tail === 'conformance') return send(200, landing(flavour, base));
        if (tail === `collections/${collection}`) return send(200, { type: 'Collection', id: collection, stac_version: '1.0.0', links: [] });
        if (tail !== 'search') return send(404, { code: 'NotFound' });
        if (flavour === 'broken') return send(200, '<html>oops</html>', 'text/html');
        if (flavour === 'slow') return void held.push(res);
        if (req.method === 'POST' && flavour !== 'api' && flavour !== 'evil') return send(405, { code: 'MethodNotAllowed' });
        const params = req.method === 'POST' ? (body ?? {}) : fromQuery(url.searchParams, flavour);
        const page = search(all, params, flavour === 'evil' ? 'api' : flavour, base, req.method === 'POST', url.searchParams);
        if (flavour === 'evil') for (const l of page.links) l.href = String(l.href).replace('127.0.0.1', '127.0.0.2');
        return send(200, page, 'application/geo+json');
      } catch (err) {
        if (err instanceof BadRequest) return send(400, { code: 'BadRequest', description: err.message });
        throw err;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: async () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function materialise(i: StacItemJson, origin: string, collection: string): StacItemJson {
  return JSON.parse(JSON.stringify({ collection, ...i }).replaceAll('{origin}', origin)) as StacItemJson;
}

function landing(mount: Flavour, base: string) {
  const conformsTo = [`${V}/core`, `${V}/item-search`];
  if (mount === 'api' || mount === 'evil') conformsTo.push(`${V}/item-search#filter`, `${V}/item-search#query`, `${CQL2}/cql2-json`, `${CQL2}/cql2-text`, `${CQL2}/basic-cql2`);
  if (mount === 'get-only') conformsTo.push(`${V}/item-search#query`);
  const links = [
    { rel: 'self', href: `${base}/`, type: 'application/json' },
    { rel: 'search', href: `${base}/search`, type: 'application/geo+json', method: 'GET' },
    ...(mount === 'api' || mount === 'evil' ? [{ rel: 'search', href: `${base}/search`, type: 'application/geo+json', method: 'POST' }] : []),
  ];
  return { type: 'Catalog', id: `fixture-${mount}`, stac_version: '1.0.0', description: 'STAC API fixture', conformsTo, links };
}

/** GET parameters as the POST body they stand for. */
function fromQuery(q: URLSearchParams, mount: Flavour): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const num = (s: string) => s.split(',').map((v) => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new BadRequest(`not a number list: ${s}`);
    return n;
  });
  if (q.has('bbox')) out.bbox = num(q.get('bbox')!);
  if (q.has('intersects')) out.intersects = JSON.parse(q.get('intersects')!);
  if (q.has('datetime')) out.datetime = q.get('datetime');
  if (q.has('collections')) out.collections = q.get('collections')!.split(',');
  if (q.has('ids')) out.ids = q.get('ids')!.split(',');
  if (q.has('limit')) out.limit = Number(q.get('limit'));
  if (q.has('token')) out.token = q.get('token');
  if (q.has('filter')) {
    if (mount !== 'api') throw new BadRequest('filter is not supported here');
    const lang = q.get('filter-lang') ?? 'cql2-text';
    out.filter = lang === 'cql2-text' ? { text: q.get('filter') } : JSON.parse(q.get('filter')!);
    out['filter-lang'] = lang;
  }
  if (q.has('query')) out.query = JSON.parse(q.get('query')!);
  return out;
}

function search(all: StacItemJson[], p: Record<string, unknown>, mount: Flavour, base: string, post: boolean, query?: URLSearchParams) {
  const limit = p.limit === undefined ? 10 : Number(p.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new BadRequest('limit must be a positive integer');
  const size = Math.min(limit, 100);
  if (p.bbox !== undefined && p.intersects !== undefined) throw new BadRequest('bbox and intersects are mutually exclusive');
  if (p.query !== undefined && mount === 'bare') throw new BadRequest('query is not supported here');
  if (p.filter !== undefined && mount !== 'api') throw new BadRequest('filter is not supported here');
  const filter = p.filter === undefined ? undefined : parseFilter(p.filter, p['filter-lang']);
  const matched = all.filter((i) => {
    if (Array.isArray(p.collections) && !p.collections.includes(i.collection)) return false;
    if (Array.isArray(p.ids) && !p.ids.includes(i.id)) return false;
    if (p.bbox !== undefined && !bboxMatch(itemBox(i), p.bbox as number[])) return false;
    if (p.intersects !== undefined && !spatialRelation('intersects', itemGeometry(i), p.intersects as Geometry)) return false;
    if (typeof p.datetime === 'string' && !timeMatch(i, p.datetime)) return false;
    if (filter && !evaluate(filter, i.properties)) return false;
    if (p.query !== undefined && !queryMatch(p.query as Record<string, Record<string, number>>, i.properties)) return false;
    return true;
  });
  const offset = p.token === undefined ? 0 : Number(String(p.token).replace(/^next:/, ''));
  const page = matched.slice(offset, offset + size);
  const links: Record<string, unknown>[] = [];
  if (offset + size < matched.length) {
    const token = `next:${offset + size}`;
    if (post) links.push({ rel: 'next', href: `${base}/search`, method: 'POST', type: 'application/geo+json', body: { token }, merge: true });
    else {
      const u = new URL(`${base}/search`);
      for (const [k, v] of query ?? []) if (k !== 'token') u.searchParams.set(k, v);
      u.searchParams.set('token', token);
      links.push({ rel: 'next', href: u.href, type: 'application/geo+json' });
    }
  }
  return { type: 'FeatureCollection', features: page, links, numberMatched: matched.length, numberReturned: page.length };
}

function itemBox(i: StacItemJson): number[] {
  return i.bbox as number[];
}

function itemGeometry(i: StacItemJson): Geometry {
  return i.geometry as Geometry;
}

function bboxMatch(a: number[], b: number[]): boolean {
  if (b.length !== 4) throw new BadRequest('bbox must have 4 numbers');
  if (a[1]! > b[3]! || b[1]! > a[3]!) return false;
  const spans = (x: number[]) => (x[0]! <= x[2]! ? [[x[0]!, x[2]!]] : [[x[0]!, 180], [-180, x[2]!]]);
  return spans(a).some(([a0, a1]) => spans(b).some(([b0, b1]) => a0! <= b1! && b0! <= a1!));
}

function timeMatch(i: StacItemJson, dt: string): boolean {
  const [s, e = s] = dt.split('/') as [string, string?];
  const lo = s === '..' || s === '' ? -Infinity : Date.parse(s);
  const hi = e === '..' || e === '' ? Infinity : Date.parse(e!);
  if (Number.isNaN(lo) || Number.isNaN(hi)) throw new BadRequest(`invalid datetime ${dt}`);
  const p = i.properties;
  const start = Date.parse(String(p.datetime ?? p.start_datetime));
  const end = Date.parse(String(p.datetime ?? p.end_datetime));
  return start <= hi && end >= lo;
}

function parseFilter(f: unknown, lang: unknown): Expr {
  try {
    if (lang === 'cql2-text' || (typeof f === 'object' && f !== null && 'text' in f)) return parseCql2Text(typeof f === 'string' ? f : (f as { text: string }).text);
    return parseCql2Json(f);
  } catch (err) {
    throw new BadRequest(`invalid filter: ${(err as Error).message}`);
  }
}

/** Comparisons of a property with a number, AND-ed: what the fixture's Filter support covers. */
function evaluate(e: Expr, props: Record<string, unknown>): boolean {
  if (e.kind === 'and') return e.args.every((a) => evaluate(a, props));
  if (e.kind === 'comparison' && e.left.kind === 'property' && e.right.kind === 'number') {
    const v = props[e.left.name];
    if (typeof v !== 'number') return false;
    const x = e.right.value;
    return { '=': v === x, '<>': v !== x, '<': v < x, '>': v > x, '<=': v <= x, '>=': v >= x }[e.op];
  }
  throw new BadRequest('the fixture evaluates comparisons of a property with a number, and AND');
}

function queryMatch(q: Record<string, Record<string, number>>, props: Record<string, unknown>): boolean {
  return Object.entries(q).every(([name, ops]) => {
    const v = props[name];
    if (typeof v !== 'number') return false;
    return Object.entries(ops).every(([op, x]) => {
      switch (op) {
        case 'lt': return v < x;
        case 'lte': return v <= x;
        case 'gt': return v > x;
        case 'gte': return v >= x;
        case 'eq': return v === x;
        case 'neq': return v !== x;
        default: throw new BadRequest(`query operator ${op} is not supported`);
      }
    });
  });
}

/** catalog.json -> sub/catalog.json -> items/<id>.json, relative links throughout. */
function staticDoc(all: StacItemJson[], tail: string, base: string): [number, unknown] {
  const half = Math.ceil(all.length / 2);
  if (tail === 'catalog.json') {
    return [200, { type: 'Catalog', id: 'root', stac_version: '1.0.0', description: 'static', links: [{ rel: 'self', href: `${base}/catalog.json` }, { rel: 'child', href: './sub/catalog.json' }, ...all.slice(0, half).map((i) => ({ rel: 'item', href: `./items/${i.id}.json` }))] }];
  }
  if (tail === 'sub/catalog.json') {
    return [200, { type: 'Catalog', id: 'sub', stac_version: '1.0.0', description: 'child', links: [{ rel: 'parent', href: '../catalog.json' }, { rel: 'child', href: '../catalog.json' }, ...all.slice(half).map((i) => ({ rel: 'item', href: `../items/${i.id}.json` }))] }];
  }
  const m = /^items\/(.+)\.json$/.exec(tail);
  const item = m && all.find((i) => i.id === m[1]);
  return item ? [200, item] : [404, { code: 'NotFound' }];
}

function asset(req: http.IncomingMessage, res: http.ServerResponse, name: string): void {
  const file = path.join(RASTERS, path.basename(name));
  if (!existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  const size = statSync(file).size;
  const bytes = readFileSync(file);
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (m) {
    const start = Number(m[1]), end = Math.min(m[2] ? Number(m[2]) : size - 1, size - 1);
    res.writeHead(206, { 'content-type': 'image/tiff', 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1), 'accept-ranges': 'bytes' });
    res.end(bytes.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, { 'content-type': 'image/tiff', 'content-length': String(size), 'accept-ranges': 'bytes' });
  res.end(bytes);
}
