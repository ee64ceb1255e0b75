import restify, { type Request, type Response, type Server } from 'restify';
import type { Logger } from 'pino';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { parseInput, restifyPath, send, type AnyRoute } from './route.js';
import { toApiError } from './error-mapper.js';
import { Links } from './links.js';
import { buildOpenApiDocument } from './openapi/document.js';

export interface HttpServerOptions {
  routes: AnyRoute[];
  logger: Logger;
  publicBaseUrl?: string;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  /** Called before a secured route runs; throws UnauthorizedError to refuse. */
  authenticate: (req: Request) => void;
}

export interface HttpServer {
  server: Server;
  openApi: () => object;
}

/**
 * Assembles restify from route specs. Every failure, including restify's own (unknown route,
 * wrong method, bad body), leaves as an ApiError body.
 */
export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const server = restify.createServer({ name: 'dggs-api', handleUncaughtExceptions: false, ignoreTrailingSlash: true, strictFormatters: false });
  server.server.requestTimeout = opts.requestTimeoutMs;
  server.use(restify.plugins.queryParser({ mapParams: false, allowDots: false, plainObjects: true, parameterLimit: 200 }));
  server.use(restify.plugins.bodyParser({ mapParams: false, maxBodySize: opts.maxBodyBytes, rejectUnknown: true, requestBodyOnGet: false }));

  const baseUrlOf = (req: Request) => opts.publicBaseUrl ?? `http://${req.headers.host ?? 'localhost'}`;
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'Bearer token issued by the operator' });

  const fail = (req: Request, res: Response, err: unknown) => {
    const { error, internal } = toApiError(err);
    if (internal) opts.logger.error({ err, method: req.method, url: req.url }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    send(res, { status: error.code, contentType: 'application/json', body: error });
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
        security: route.secured ? [{ bearerAuth: [] }] : undefined,
        responses: route.responses,
      });
    }
    const handler = (req: Request, res: Response, next: (err?: unknown) => void) => {
      const started = process.hrtime.bigint();
      void (async () => {
        try {
          if (route.secured) opts.authenticate(req);
          const input = parseInput(route, req, new Links(baseUrlOf(req))) as Parameters<typeof route.handler>[0];
          send(res, await route.handler(input));
        } catch (err) {
          fail(req, res, err);
        } finally {
          opts.logger.info({ method: req.method, url: req.url, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
        }
        next(false);
      })();
    };
    server[route.method === 'delete' ? 'del' : route.method](restifyPath(route.path), handler);
  }

  // restify emits this after its own failures (unknown route, wrong method, unreadable body) and
  // then sends the error itself: give the error an ApiError body instead of sending twice.
  server.on('restifyError', (req: Request, _res: Response, err: { name?: string; body?: { message?: string }; toJSON?: () => unknown }, cb: () => void) => {
    if (err?.name === 'ResourceNotFoundError' && err.body) err.body.message = 'See the landing page / or the API document /api for the routes.';
    const { error, internal } = toApiError(err);
    if (internal) opts.logger.error({ err, method: req.method, url: req.url }, 'request failed');
    err.toJSON = () => error;
    cb();
  });

  let document: object | undefined;
  return {
    server,
    openApi: () => (document ??= buildOpenApiDocument(registry)),
  };
}
