import restify, { type Request, type Response, type Server } from 'restify';
import type { Logger } from 'pino';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { parseInput, restifyPath, send, type AnyRoute } from './route.js';
import { toApiError } from './error-mapper.js';
import { Links } from './links.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { guardConnections, type ConnectionLimits, type ConnectionStats } from './connection-guard.js';
import { admitRequestTarget, baseUrlFor } from './request-target.js';
import { readJsonBody } from './request-body.js';
import { bearerChallenge } from './bearer-challenge.js';
import { HttpRefusal } from './http-errors.js';
import { clientGoneSignal } from './client-gone.js';
import { createRequestLog, type RequestObserver } from './request-log.js';
import { createForwarding } from './forwarded.js';
import { HttpCaching } from './caching.js';
import { mediaType } from '../formats/registry.js';
import { AppError } from '../ports/errors.js';
import { crossOrigin, type CorsConfig } from './cross-origin.js';
import { ResponseCompression, type CompressionConfig } from './compression.js';
import { errorReply } from './error-reply.js';
import { varyOn } from './vary-headers.js';

export type HttpLimits = ConnectionLimits & { maxBodyBytes: number };

export interface HttpServerOptions {
  routes: AnyRoute[];
  logger: Logger;
  publicBaseUrl?: string;
  /** Peers whose forwarded headers are believed (proxy-addr trust values); none when absent. */
  trustedProxies?: readonly string[];
  limits: HttpLimits;
  /** Called (and awaited) before a secured route reads its body; throws NotAuthenticatedError to refuse. */
  authenticate: (req: Request) => void | Promise<void>;
  /** Told of every request the log records and given the connection guard's counts (the metrics). */
  observer?: RequestObserver & { watchConnections(stats: () => ConnectionStats): void };
  /** Absent: no CORS headers, and preflights are refused as any OPTIONS request. */
  cors?: CorsConfig;
  /** Absent: answers are sent as they are. */
  compression?: CompressionConfig;
  /** Validators, 304 and Cache-Control of the answers; none when absent. */
  caching?: HttpCaching;
}

export interface HttpServer {
  server: Server;
  openApi: () => Promise<object>;
}

/**
 * Assembles restify from route specs. Every failure, including restify's own (unknown route,
 * wrong method, bad body), leaves as an ApiError body.
 */
export function createHttpServer(opts: HttpServerOptions): HttpServer {
  // noWriteContinue: `100 Continue` is sent only once the request may send its body (after auth).
  const server = restify.createServer({ name: 'dggs-api', handleUncaughtExceptions: false, ignoreTrailingSlash: true, strictFormatters: false, noWriteContinue: true } as restify.ServerOptions);
  // Before restify's own listener, so every answer, restify's included, carries the request id.
  const forwarding = createForwarding(opts.trustedProxies ?? []);
  const requestLog = createRequestLog(opts.logger, (req) => forwarding.addresses(req), opts.observer);
  requestLog.observe(server.server);
  const connections = guardConnections(server.server, opts.limits, requestLog, (socket) => forwarding.trusts(socket));
  opts.observer?.watchConnections(() => connections.stats());
  // The request line and Host are checked before restify parses them (it builds its URL from both).
  const authorities = new WeakMap<Request, string | undefined>();
  const cors = crossOrigin(opts.cors ?? { origins: [], securedOrigins: [], maxAgeSeconds: 0 }, server, opts.routes);
  const compression = opts.compression && new ResponseCompression(opts.compression);
  // `first` handlers run on each request before restify touches it (missing from @types/restify).
  (server as Server & { first(handler: (req: Request, res: Response) => boolean): void }).first((req, res) => {
    if (connections.refused(req.socket)) return false;
    try {
      authorities.set(req, admitRequestTarget(req, opts.limits));
      const forwarded = forwarding.of(req);
      if (forwarded.proxied) connections.admitProxied(res, forwarded.client);
      req.getUrl();
    } catch (err) {
      cors(req, res, false);
      fail(req, res, err);
      return false;
    }
    // CORS headers go on before anything can answer; preflights are answered here.
    return !cors(req, res);
  });
  server.use(restify.plugins.queryParser({ mapParams: false, allowDots: false, plainObjects: true, parameterLimit: 200 }));

  const baseUrlOf = (req: Request) => baseUrlFor(opts.publicBaseUrl, authorities.get(req), forwarding.of(req), req.socket);
  // An error page's home link: the error may be that the forwarded headers that build links are malformed.
  const homeOf = (req: Request) => {
    try {
      return new Links(baseUrlOf(req)).href('/');
    } catch {
      return '/';
    }
  };
  const caching = opts.caching ?? new HttpCaching();
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'Bearer token issued by the operator' });

  const fail = (req: Request, res: Response, err: unknown) => {
    const { error, internal } = toApiError(err);
    if (internal) opts.logger.error({ err, requestId: requestLog.idOf(req), method: req.method, url: req.url }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers: Record<string, string> = err instanceof HttpRefusal ? { ...err.headers } : {};
    if (error.code === 401) headers['WWW-Authenticate'] = bearerChallenge(req, 'dggs-api');
    // Refusals of a busy service or a reached quota say when to come back.
    if (err instanceof AppError && err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
    // A refused body is left unread: close rather than read it to reach the next request.
    if (announcesBody(req) && !req.complete) headers.Connection = 'close';
    send(res, errorReply(req, error, headers, homeOf(req), requestLog.idOf(req)));
  };

  for (const route of opts.routes) {
    if (!route.internal) {
      registry.registerPath({
        method: route.method,
        path: route.path,
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        tags: route.tags,
        request: {
          params: route.params,
          query: route.query,
          body: route.body ? { required: true, content: { 'application/json': { schema: route.body } } } : undefined,
        },
        // An explicit empty list marks a public operation (no inherited or assumed scheme).
        security: route.secured ? [{ bearerAuth: [] }] : [],
        responses: route.responses,
      });
    }
    const handler = (req: Request, res: Response, next: (err?: unknown) => void) => {
      requestLog.routed(req, route.path);
      if (route.formats) varyOn(res, 'Accept');
      const gone = clientGoneSignal(res);
      void (async () => {
        try {
          if (route.secured) await opts.authenticate(req);
          route.authorize?.(req);
          if (route.body) {
            if (/\b100-continue\b/i.test(req.headers.expect ?? '')) res.writeContinue();
            req.body = await readJsonBody(req, opts.limits.maxBodyBytes);
          }
          const input = parseInput(route, req, new Links(baseUrlOf(req)), gone) as Parameters<typeof route.handler>[0];
          const cache = await caching.prepare(route, input);
          const sentTag = (etag: string) => compression?.revalidatedTag(res, mediaType(input.format), etag) ?? etag;
          if (!cache.notModified(req, res, sentTag)) await send(res, cache.decorate(await route.handler(input)), compression);
        } catch (err) {
          // The work stopped because its client left: there is nobody to answer.
          if (!(gone.aborted && err === gone.reason)) fail(req, res, err);
        }
        next(false);
      })();
    };
    server[route.method === 'delete' ? 'del' : route.method](restifyPath(route.path), handler);
    // HEAD answers as GET does; Node leaves out the body and keeps Content-Length.
    if (route.method === 'get') server.head(restifyPath(route.path), handler);
  }

  // restify emits this after its own failures (unknown route, wrong method, unreadable body) and
  // then sends the error itself unless the response is marked sent: answer as every failure is
  // answered, and mark it (restify's guard against sending twice, server.js _routeErrorResponse).
  server.on('restifyError', (req: Request, res: Response, err: { name?: string; body?: { message?: string } }, cb: () => void) => {
    if (err?.name === 'ResourceNotFoundError' && err.body) err.body.message = 'See the landing page / or the API document /api for the routes.';
    fail(req, res, err);
    (res as Response & { _sent?: boolean })._sent = true;
    cb();
  });

  // Built on first request: the concrete paths some routes add may need to read data (a lake's columns).
  let document: Promise<object> | undefined;
  const build = async () => {
    // A child registry, so a failed build leaves the routes' own registry as it was for a retry.
    const extended = new OpenAPIRegistry([registry]);
    for (const route of opts.routes) {
      if (route.internal || !route.documentedAt) continue;
      for (const at of await route.documentedAt()) {
        extended.registerPath({
          method: route.method,
          path: at.path,
          operationId: at.operationId,
          summary: at.summary ?? route.summary,
          description: route.description,
          tags: route.tags,
          request: { query: at.query },
          security: route.secured ? [{ bearerAuth: [] }] : [],
          responses: route.responses,
        });
      }
    }
    return buildOpenApiDocument(extended);
  };
  return {
    server,
    openApi: () => (document ??= build().catch((err) => {
      document = undefined;
      throw err;
    })),
  };
}

function announcesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}
