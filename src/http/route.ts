import { Readable } from 'node:stream';
import type { Request, Response } from 'restify';
import type { ZodType } from 'zod';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from './schemas/zod.js';
import { AppError, InvalidRequestError, ValidationError } from '../ports/errors.js';
import { negotiateWithProfiles } from './formats.js';
import type { Format } from '../formats/registry.js';
import type { Links } from './links.js';
import type { ResponseCompression } from './compression.js';
import { varyOn } from './vary-headers.js';
import type { SourceVersion } from '../ports/source-version.js';

/** What a handler answers; the route kit writes it. */
export interface Reply {
  status?: number;
  contentType: string;
  /** A Readable is streamed (memory stays bounded for large files); its length goes in `headers`. */
  body: string | Uint8Array | Readable | object;
  headers?: Record<string, string>;
  /** Part of the answer was left out (not ready in time): it goes without validators and is not stored (src/http/caching.ts). */
  incomplete?: boolean;
}

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Negotiated format, when the route declares `formats`. */
  format: Format;
  /**
   * The profiles the Accept header asks of `format` (its ranges' `profile` parameter, the standard's
   * profile URIs by name, best first; formats.ts `Negotiated`): for the handler to honour, when the
   * request has no `profile` parameter, among the profiles the format has. Empty when none.
   */
  acceptProfiles: readonly string[];
  links: Links;
  req: Request;
  /** Aborts when the client goes away before the answer is finished: pass it on to the work. */
  signal: AbortSignal;
  /** The entity tag the answer carries, when its route declares validators (for a handler that honours If-Range). */
  etag?: string;
}

/** The version of the data of collections, by their ids; undefined when one is unknown or has none. */
export type SourceVersionsOf = (collectionIds: readonly string[]) => Promise<SourceVersion | undefined>;

/**
 * What an answer depends on besides its URL (path and query), its base URL, its negotiated format
 * and the service's revision (code and configuration): its validators and Cache-Control derive
 * from it (src/http/caching.ts). `'request'`: nothing else.
 */
export type RouteValidators<I> =
  | 'request'
  | {
      /**
       * The version of the data the answer is computed from (`versions` looks collections up);
       * undefined when it cannot be known (the answer then goes without validators); null when
       * this request's answer does not depend on data after all.
       */
      source?: (input: I, versions: SourceVersionsOf) => Promise<SourceVersion | null | undefined>;
      /** What else picks the representation (a header the answer varies by). */
      variant?: (input: I) => string;
      /** The body carries something of its own each time (a generation time): its tag is weak. */
      weak?: (input: I) => boolean;
      /** Cache-Control of the answers and their 304s in place of the policy's: files under a versioned URL are `immutable`. */
      cacheControl?: string;
    };

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * One route: its schemas validate the request, type the handler and document the route in
 * OpenAPI, so the three cannot drift apart.
 */
export interface RouteSpec<P extends AnyObject, Q extends AnyObject, B extends ZodType> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: `/collections/{collection_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** Status for a request that fails its schema: the contract says 422 on grid and zone routes, 400 elsewhere. */
  invalidStatus?: 400 | 422;
  /** Formats the route can answer; the first of `defaultFormat` or this list is used when nothing is asked. */
  formats?: readonly Format[];
  defaultFormat?: Format;
  /** Requires a bearer token (documented in OpenAPI, enforced by `authenticate` before the body is read). */
  secured?: boolean;
  /** Refuses a request by who sent it (throw an AppError); runs before the body is read. */
  authorize?: (req: Request) => void;
  /** Hidden from the OpenAPI document (for example /admin). */
  internal?: boolean;
  /**
   * Concrete paths the API document also lists this operation under, with their own query
   * parameters (e.g. one items path per collection with that collection's properties, as OGC API
   * Features clients such as GDAL look them up). Requests still match `path`.
   */
  documentedAt?: () => Promise<{ path: string; operationId: string; summary?: string; query: AnyObject }[]>;
  responses: RouteConfig['responses'];
  /** What the answer's validators (ETag, Last-Modified) derive from, for GET and HEAD; none when absent. */
  validators?: RouteValidators<HandlerInput<z.infer<P>, z.infer<Q>, z.infer<B>>>;
  handler: (input: HandlerInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<Reply>;
}

export type AnyRoute = RouteSpec<AnyObject, AnyObject, ZodType>;

export function defineRoute<P extends AnyObject = z.ZodObject<{}>, Q extends AnyObject = z.ZodObject<{}>, B extends ZodType = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
): AnyRoute {
  return spec as unknown as AnyRoute;
}

/** Restify path syntax from the OpenAPI one. */
export function restifyPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

export function parseInput(route: AnyRoute, req: Request, links: Links, signal: AbortSignal): HandlerInput<unknown, unknown, unknown> {
  const status = route.invalidStatus ?? 400;
  const params = validate(route.params, req.params ?? {}, 'path parameter', status);
  const query = validate(route.query, normaliseQuery(req.query), 'query parameter', status);
  const body = route.body ? validate(route.body, req.body, 'request body', status) : undefined;
  const raw = normaliseQuery(req.query);
  const { format, profiles } = route.formats
    ? negotiateWithProfiles(typeof raw.f === 'string' ? raw.f : undefined, req.header('accept'), route.formats, route.defaultFormat ?? route.formats[0]!)
    : { format: 'json' as const, profiles: [] };
  return { params, query, body, format, acceptProfiles: profiles, links, req, signal };
}

/** Repeated parameters keep their last value; the contract has no multi-valued parameters. */
function normaliseQuery(query: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? v[v.length - 1] : v;
  }
  return out;
}

function validate(schema: ZodType | undefined, value: unknown, what: string, status: 400 | 422): unknown {
  if (!schema) return {};
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = issue.path.map(String).join('.');
  const where = name ? `${what} "${name}"` : what;
  const hint = `${where}: ${issue.message}`;
  throw status === 400 ? new InvalidRequestError(`Invalid ${what}`, hint) : new ValidationError(`Invalid ${what}`, hint);
}

/**
 * Writes a reply; with `compression`, its body is compressed when the request and the media allow.
 * A body in memory is compressed off the event loop: the promise settles once it is written.
 */
export function send(res: Response, reply: Reply, compression?: ResponseCompression): void | Promise<void> {
  const status = reply.status ?? 200;
  for (const [k, v] of Object.entries(reply.headers ?? {})) {
    if (k.toLowerCase() === 'vary') varyOn(res, v);
    else res.header(k, v);
  }
  if (reply.body instanceof Readable) {
    const declared = res.getHeader('content-length');
    const encoder = compression?.encoderFor(res, status, reply.contentType, declared === undefined ? undefined : Number(declared));
    const stream = encoder ? encoder.stream(reply.body) : reply.body;
    res.writeHead(status, { 'Content-Type': reply.contentType });
    if (res.req?.method === 'HEAD') {
      stream.destroy();
      res.end();
      return;
    }
    // A failed read after the headers went out can only cut the response short.
    stream.on('error', () => res.destroy());
    res.on('close', () => stream.destroy());
    stream.pipe(res);
    return;
  }
  const contentType = withCharset(reply.contentType);
  const buffer = bodyBytes(reply.body);
  const write = (bytes: Buffer) => {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': bytes.length });
    res.end(bytes);
  };
  const encoder = compression?.encoderFor(res, status, contentType, buffer.length);
  if (!encoder) return write(buffer);
  // Compression failing on bytes in memory is a fault of ours; nothing was sent yet, but the
  // headers already name the coding: the answer is cut.
  return encoder.buffer(buffer).then(write, () => void res.destroy());
}

/** The bytes of a body that is not a stream: text as UTF-8, an object as its JSON. */
export function bodyBytes(body: Exclude<Reply['body'], Readable>): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Text types get a charset; binary ones whose name merely contains "json" (UBJSON) do not. */
function withCharset(type: string): string {
  return /[/+]json\b|html|text/.test(type) && !/charset|version=/.test(type) ? `${type}; charset=utf-8` : type;
}

export const json = (body: object, contentType = 'application/json', status = 200): Reply => ({ status, contentType, body });
