import cors from 'cors';
import type { Request, Response, Server } from 'restify';
import { restifyPath, type AnyRoute } from './route.js';
import { varyOn } from './vary-headers.js';

export interface CorsConfig {
  /** Origins of pages whose scripts may read the public routes; `*` for any. */
  origins: string[];
  /** Origins also allowed on secured routes (bearer token in `Authorization`); the only ones there. */
  securedOrigins: string[];
  maxAgeSeconds: number;
}

/**
 * Response headers a page's script may read besides the CORS-safelisted ones (Content-Type,
 * Content-Length, Cache-Control, Last-Modified, ...): every header of ours a client acts on.
 */
export const EXPOSED_HEADERS = [
  'OGC-Zones-Total', 'Link', 'X-Request-Id', 'Values-Scale', 'Values-Offset', 'ETag', 'Content-Disposition', 'Retry-After',
  'Location', 'WWW-Authenticate', 'Allow', 'Accept-Ranges', 'Content-Range',
];

/** Request headers a page may send beyond the safelisted ones: conditional and range reads. */
const READ_HEADERS = ['Accept', 'If-None-Match', 'If-Modified-Since', 'If-Range', 'Range'];
/** Secured routes also take a bearer token and a JSON body. */
const SECURED_HEADERS = [...READ_HEADERS, 'Authorization', 'Content-Type'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];

/** `*`, or the origins allowed, which the answer then names itself (and varies on `Origin`). */
type Allowed = '*' | string[];

/**
 * Applies the CORS policy to a request before restify routes it, and answers preflights (restify
 * would refuse OPTIONS with 405). Returns true when it answered.
 *
 * An actual request gets `Access-Control-Allow-Origin` (the origin itself, or `*` for any origin
 * on a public route) and the exposed headers when its origin is allowed, whatever the answer
 * (errors included); a preflight on a route's path (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) from an allowed origin is 204 with the path's methods, the
 * request headers allowed and the max age. A refused origin gets no CORS header at all, so the
 * browser keeps the answer from the page (a refused preflight goes on to restify's 405). The
 * route (by method and path, as restify matches it) decides the policy: a secured one accepts
 * only `securedOrigins`. `routable` false (the request target was refused before routing): the
 * public policy, never a preflight answer. A request without `Origin` is no browser's
 * cross-origin request: it gets the policy's cacheable headers without a route lookup.
 */
export function crossOrigin(config: CorsConfig, server: Server, routes: readonly AnyRoute[]): (req: Request, res: Response, routable?: boolean) => boolean {
  if (config.origins.length === 0 && config.securedOrigins.length === 0) return () => false;
  const publicAllowed: Allowed = config.origins.includes('*') ? '*' : [...new Set([...config.origins, ...config.securedOrigins])];
  const securedAllowed: Allowed = config.securedOrigins;
  const byKey = new Map<string, AnyRoute>();
  for (const route of routes) {
    const method = route.method === 'delete' ? 'DELETE' : route.method.toUpperCase();
    byKey.set(`${method} ${restifyPath(route.path)}`, route);
    if (method === 'GET') byKey.set(`HEAD ${restifyPath(route.path)}`, route);
  }
  // restify's own router decides which route a method and URL reach (normalised path, decoding,
  // trailing slash) so the policy cannot disagree with the routing.
  const lookup = (method: string, url: URL): AnyRoute | undefined => {
    const probe = { method, getUrl: () => url, params: {} } as unknown as Request & { route?: { path?: string } };
    if (!server.router.lookup(probe, undefined as unknown as Response)) return undefined;
    return byKey.get(`${method} ${String(probe.route?.path ?? '')}`);
  };
  const allowedFor = (route: AnyRoute | undefined): Allowed => (route?.secured ? securedAllowed : publicAllowed);
  const admits = (allowed: Allowed, origin: string) => allowed === '*' || allowed.includes(origin);

  const exposed = EXPOSED_HEADERS.join(',');
  // The headers of actual answers depend on the policy alone: one handler each, made once (a
  // preflight's depend on its path's methods).
  const publicAnswer = corsHandler(publicAllowed);
  const securedAnswer = corsHandler(securedAllowed);
  return (req, res, routable = true) => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      // No browser's cross-origin request (those always name their Origin): no route lookup, only
      // what lets a shared cache hand this answer to one later: `*` and the exposed headers, or
      // that the answer varies on Origin. (Under `*` a secured route's answer says `*` here too:
      // those are `private, no-store`, so no cache keeps them, and a browser's request for one,
      // with its Origin, goes through the whole policy below.)
      if (publicAllowed === '*') {
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.setHeader('Access-Control-Expose-Headers', exposed);
      } else varyOn(res, 'Origin');
      return false;
    }
    // restify 12 builds a WHATWG URL (its types still say url.Url); a routable request's URL was
    // parsed already (server.ts), so this reads restify's cached one.
    const url = routable ? (req.getUrl() as unknown as URL) : undefined;
    const wanted = req.headers['access-control-request-method'];
    if (url && req.method === 'OPTIONS' && typeof wanted === 'string') {
      const methods = METHODS.filter((m) => lookup(m, url));
      if (methods.length > 0) {
        const route = lookup(wanted.toUpperCase(), url);
        const allowed = allowedFor(route);
        if (!admits(allowed, origin)) return false;
        run(corsHandler(allowed, { methods, headers: route?.secured ? SECURED_HEADERS : READ_HEADERS, maxAge: config.maxAgeSeconds }), req, res);
        return true;
      }
    }
    run(url && lookup(req.method ?? 'GET', url)?.secured ? securedAnswer : publicAnswer, req, res);
    return false;
  };
}

/**
 * The cors package's handler of a policy: with `preflight`, its answer (204, ended by the
 * handler); without, the headers of an actual answer (an OPTIONS that is not an answered
 * preflight goes on as one).
 */
function corsHandler(allowed: Allowed, preflight?: { methods: string[]; headers: string[]; maxAge: number }): CorsHandler {
  return cors({
    // An array is matched against Origin and reflected, with Vary: Origin, even when it does not match.
    origin: allowed,
    methods: preflight?.methods ?? [],
    allowedHeaders: preflight?.headers ?? [],
    maxAge: preflight?.maxAge,
    exposedHeaders: EXPOSED_HEADERS,
    preflightContinue: !preflight,
  });
}

type CorsHandler = ReturnType<typeof cors>;

function run(handle: CorsHandler, req: Request, res: Response): void {
  handle(req, res, () => {});
}
