import restify, { type Request, type Response, type Server } from 'restify';
import type { Logger } from 'pino';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { parseInput, restifyPath, send, type AnyRoute } from './route.js';
import { toApiError } from './error-mapper.js';
import { Links } from './links.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { guardConnections, type ConnectionLimits } from './connection-guard.js';
import { admitRequestTarget, baseUrlFor } from './request-target.js';
import { readJsonBody } from './request-body.js';
import { bearerChallenge } from './bearer-challenge.js';
import { HttpRefusal } from './http-errors.js';
import { clientGoneSignal } from './client-gone.js';
import { createRequestLog } from './request-log.js';
import { HttpCaching } from './caching.js';
import { AppError } from '../ports/errors.js';

export type HttpLimits = ConnectionLimits & { maxBodyBytes: number };

export interface HttpServerOptions {
  routes: AnyRoute[];
  logger: Logger;
  publicBaseUrl?: string;
  limits: HttpLimits;
  /** Called (and awaited) before a secured route reads its body; throws NotAuthenticatedError to refuse. */
  authenticate: (req: Request) => void | Promise<void>;
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
  const requestLog = createRequestLog(opts.logger);
  requestLog.observe(server.server);
  const connections = guardConnections(server.server, opts.limits, requestLog);
  // The request line and Host are checked before restify parses them (it builds its URL from both).
  const authorities = new WeakMap<Request, string | undefined>();
  // `first` handlers run on each request before restify touches it (missing from @types/restify).
  (server as Server & { first(handler: (req: Request, res: Response) => boolean): void }).first((req, res) => {
    if (connections.refused(req.socket)) return false;
    try {
      authorities.set(req, admitRequestTarget(req, opts.limits));
      req.getUrl();
      return true;
    } catch (err) {
      fail(req, res, err);
      return false;
    }
  });
  server.use(restify.plugins.queryParser({ mapParams: false, allowDots: false, plainObjects: true, parameterLimit: 200 }));

  const caching = opts.caching ?? new HttpCaching();
  const baseUrlOf = (req: Request) => baseUrlFor(opts.publicBaseUrl, authorities.get(req), req.socket);
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
    send(res, { status: error.code, contentType: 'application/json', body: error, headers });
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
          if (!cache.notModified(req, res)) send(res, cache.decorate(await route.handler(input)));
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
  // then sends the error itself: give the error an ApiError body instead of sending twice.
  server.on('restifyError', (req: Request, res: Response, err: { name?: string; body?: { message?: string }; toJSON?: () => unknown }, cb: () => void) => {
    if (err?.name === 'ResourceNotFoundError' && err.body) err.body.message = 'See the landing page / or the API document /api for the routes.';
    const { error, internal } = toApiError(err);
    if (internal) opts.logger.error({ err, requestId: requestLog.idOf(req), method: req.method, url: req.url }, 'request failed');
    err.toJSON = () => error;
    // restify writes no body, hence no content headers, for HEAD: give the ones GET would carry.
    if (req.method === 'HEAD') {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Content-Length', Buffer.byteLength(JSON.stringify(error)));
    }
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
