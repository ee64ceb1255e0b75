/**
 * An OGC API Features server on loopback that misbehaves on purpose, one way per landing page
 * (`<origin>/<fault>`): its collection `c` answers items as the fault says. Used to check that
 * a client maps each fault to the right error instead of hanging or looping.
 *
 *   ok         two pages of valid features (ids 1..4)
 *   slow       items never answer
 *   garbage    items are not JSON
 *   not-fc     items are JSON but no FeatureCollection
 *   loop       the `next` link points back to the first page
 *   endless    every page has new features and a `next` link
 *   many       numberMatched is a billion
 *   huge       one page of `hugeBytes` bytes
 *   error      items answer HTTP 500
 *   zigzag~N   one page of N zig-zag lines of 400 vertices over 5-15E 45.5-46.5N (costly to relate to one another)
 *   next-to~U  the `next` link goes to U (URL-encoded in the landing path)
 *   redirect~U items redirect (302) to U
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultyBackend {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/** A line of `n` vertices zig-zagging over 5-15E between 45.5N and 46.5N; `phase` 1 mirrors it, so two of opposite phase cross at every edge. */
export const zigzag = (n: number, phase: number): [number, number][] => Array.from({ length: n }, (_, i) => [5 + (i / n) * 10, (i + phase) % 2 ? 46.5 : 45.5]);

const feature = (id: number) => ({ type: 'Feature', id, geometry: { type: 'Point', coordinates: [10 + id / 100, 45.5] }, properties: { value: id } });

export async function startFaultyBackend(opts: { hugeBytes?: number } = {}): Promise<FaultyBackend> {
  const requests: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://x');
    const [, fault = '', ...rest] = url.pathname.split('/');
    const tail = rest.join('/');
    const base = `http://${req.headers.host}/${fault}`;
    // No chaining on writeHead: restify patches ServerResponse in this process and returns nothing.
    const send = (status: number, headers: Record<string, string>, body?: string) => {
      res.writeHead(status, headers);
      res.end(body);
    };
    const json = (status: number, body: unknown) => send(status, { 'content-type': 'application/json' }, JSON.stringify(body));
    if (tail === 'conformance') return json(200, { conformsTo: ['http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core', 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson'] });
    if (tail === 'collections/c') return json(200, { id: 'c', links: [{ rel: 'items', href: `${base}/collections/c/items`, type: 'application/geo+json' }] });
    if (tail === 'collections/c/queryables') return json(200, { type: 'object', properties: { value: { type: 'integer' }, geometry: { format: 'geometry-point' } } });
    if (tail !== 'collections/c/items') return json(404, { code: 'NotFound' });
    const page = Number(url.searchParams.get('page') ?? '0');
    const next = (href: string) => [{ rel: 'next', href, type: 'application/geo+json' }];
    const fc = (features: unknown[], links: unknown[] = [], extra: object = {}) => json(200, { type: 'FeatureCollection', features, links, ...extra });
    const [kind, arg = ''] = fault.split('~') as [string, string?];
    switch (kind) {
      case 'ok':
        return page === 0 ? fc([feature(1), feature(2)], next(`${base}/collections/c/items?page=1`)) : fc([feature(3), feature(4)]);
      case 'slow':
        held.push(res);
        return;
      case 'garbage':
        return send(200, { 'content-type': 'application/geo+json' }, '<html>not json</html>');
      case 'not-fc':
        return json(200, { type: 'Feature', features: 'none' });
      case 'loop':
        return fc([feature(page * 2 + 1)], next(`${base}/collections/c/items?page=0&limit=${url.searchParams.get('limit') ?? ''}`));
      case 'endless':
        return fc([feature(page * 2 + 1), feature(page * 2 + 2)], next(`${base}/collections/c/items?page=${page + 1}`));
      case 'many':
        return fc([feature(1)], next(`${base}/collections/c/items?page=1`), { numberMatched: 1_000_000_000 });
      case 'huge':
        return fc([{ ...feature(1), properties: { value: 1, padding: 'x'.repeat(opts.hugeBytes ?? 1_000_000) } }]);
      case 'error':
        return json(500, { code: 'ServerError' });
      case 'zigzag':
        return fc(Array.from({ length: Number(arg) }, (_, i) => ({ type: 'Feature', id: i + 1, geometry: { type: 'LineString', coordinates: zigzag(400, 1) }, properties: { value: i } })));
      case 'next-to':
        return fc([feature(1)], next(decodeURIComponent(arg)));
      case 'redirect':
        return send(302, { location: decodeURIComponent(arg) });
      default:
        return json(404, { code: 'NotFound' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
