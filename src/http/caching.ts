import { hash } from 'node:crypto';
import fresh from 'fresh';
import type { Request, Response } from 'restify';
import type { AnyRoute, Reply, SourceVersionsOf } from './route.js';
import { mediaType } from '../formats/registry.js';
import type { SourceVersion } from '../ports/source-version.js';

/** Cache-Control of the answers (`server.caching`). */
export interface CachingPolicy {
  /** max-age of answers that depend on the request and the configuration alone (0: no-cache). */
  gridMaxAgeSeconds: number;
  /** max-age of answers computed from collection data (0: no-cache, every use revalidates). */
  dataMaxAgeSeconds: number;
  /** Shared caches may store answers (`public`), or only the client's own (`private`). */
  public: boolean;
}

export interface HttpCachingOptions {
  policy: CachingPolicy;
  /** The revision of the service's code and configuration (src/app/service-revision.ts). */
  revision: () => string;
  versions: SourceVersionsOf;
}

/** The answer's caching headers, and its entity tag when it has one. */
interface Validated {
  headers: Record<string, string>;
  etag?: string;
}

/**
 * HTTP caching of the answers: entity tags, Last-Modified, `304 Not Modified` and Cache-Control,
 * as each route declares what its answer depends on (`validators` on the route spec).
 *
 * Tags are never hashes of bodies (bodies are streamed and never held for it): they hash what
 * the answer is a function of (the service's revision, the base URL, the path, the query with
 * its parameters in a fixed order, the negotiated media type and the profiles Accept asks of it, and for data answers the version
 * of the data), so every replica of one configuration gives the same tag. They are computed
 * before the answer is: a match costs no computation of it. The decision is `fresh`'s
 * (If-None-Match with weak comparison, else If-Modified-Since).
 *
 * Routes behind credentials (bearer tokens, admin) are `private, no-store` whatever they say.
 */
export class HttpCaching {
  constructor(private readonly options?: HttpCachingOptions) {}

  /** The caching of one answer, before it is computed. Never throws: a version that cannot be had leaves the answer without validators. */
  async prepare(route: AnyRoute, input: Parameters<AnyRoute['handler']>[0]): Promise<AnswerCaching> {
    if (route.secured || route.authorize) return SECURED;
    const method = input.req.method;
    if (!this.options || !route.validators || (method !== 'GET' && method !== 'HEAD')) return NONE;
    const declared = route.validators === 'request' ? {} : route.validators;
    const { policy } = this.options;
    let version: SourceVersion | null | undefined = null;
    try {
      if (declared.source) version = await declared.source(input, this.options.versions);
      const cacheControl = declared.cacheControl ?? `${policy.public ? 'public' : 'private'}, ${maxAge(version === null ? policy.gridMaxAgeSeconds : policy.dataMaxAgeSeconds)}`;
      if (version === undefined) return new AnswerCaching({ headers: { 'Cache-Control': cacheControl } });
      const etag = entityTag([this.options.revision(), input.links.baseUrl, ...pathAndQuery(input.req.url), mediaType(input.format), input.acceptProfiles.join(' '), declared.variant?.(input) ?? '', version?.id ?? ''], declared.weak?.(input) ?? false);
      input.etag = etag;
      const headers: Record<string, string> = { ETag: etag, 'Cache-Control': cacheControl };
      if (version?.modifiedMs !== undefined) headers['Last-Modified'] = new Date(version.modifiedMs).toUTCString();
      return new AnswerCaching({ headers, etag });
    } catch {
      return NONE;
    }
  }
}

/** The caching headers of one answer. */
export class AnswerCaching {
  constructor(private readonly validated?: Validated) {}

  /**
   * When the request's validators match: answers 304 with no body (ETag, Last-Modified and
   * Cache-Control as a 200 would carry them; `tagAsSent` gives the tag as the 200 would have been
   * sent, compressed or not) and says so.
   */
  notModified(req: Request, res: Response, tagAsSent: (etag: string) => string = (etag) => etag): boolean {
    const v = this.validated;
    if (!v?.etag) return false;
    // Preconditions alone: the request's own Cache-Control (`no-cache`, which fetch() adds to any
    // conditional request) speaks to caches on the way, and `fresh` would read it as "never fresh".
    const conditions = { 'if-none-match': req.headers['if-none-match'], 'if-modified-since': req.headers['if-modified-since'] };
    if (!fresh(conditions, { etag: v.etag, 'last-modified': v.headers['Last-Modified'] })) return false;
    res.writeHead(304, { ...v.headers, ETag: tagAsSent(v.etag) });
    res.end();
    return true;
  }

  /**
   * The reply with the caching headers, when it succeeded; the reply's own headers win. An
   * incomplete reply goes without validators and is not stored: it is not what the tag stands for.
   */
  decorate(reply: Reply): Reply {
    const v = this.validated;
    const status = reply.status ?? 200;
    if (!v || status < 200 || status >= 300) return reply;
    const headers = reply.incomplete ? { 'Cache-Control': 'no-store' } : v.headers;
    return { ...reply, headers: { ...headers, ...reply.headers } };
  }
}

const NONE = new AnswerCaching();
const SECURED = new AnswerCaching({ headers: { 'Cache-Control': 'private, no-store' } });

function maxAge(seconds: number): string {
  return seconds > 0 ? `max-age=${seconds}` : 'no-cache';
}

/** The path, and the query with its parameters in order of name (repeated ones in their order): equal URLs give equal tags. */
function pathAndQuery(url = '/'): [string, string] {
  const q = url.indexOf('?');
  if (q < 0) return [url, ''];
  const params = [...new URLSearchParams(url.slice(q + 1))].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return [url.slice(0, q), new URLSearchParams(params).toString()];
}

function entityTag(parts: string[], weak: boolean): string {
  // The one-shot hash: a Hash object per request costs more than the digest itself.
  const digest = hash('sha256', parts.join('\n'), 'base64url').slice(0, 32);
  return `${weak ? 'W/' : ''}"${digest}"`;
}
