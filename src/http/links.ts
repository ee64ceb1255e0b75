import type { Link } from './schemas/common.js';
import { F_VALUE, mediaType, type Format } from '../formats/registry.js';

/** Builds absolute links from the service's public base URL. */
export class Links {
  /** The base as the URL parser writes it, when paths can be appended to it as text (see href). */
  private readonly prefix: string | undefined;

  constructor(readonly baseUrl: string) {
    this.prefix = plainPrefix(baseUrl.replace(/\/$/, ''));
  }

  /**
   * The absolute URL of `path` with `query`: the text `new URL(base + path)` would give. A page
   * builds dozens of links, and parsing each was a tenth of a zone info request: paths that the
   * parser would leave as they are (already escaped, no dot segments) are joined as text.
   */
  href(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
    if (this.prefix !== undefined && PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) {
      let search = '';
      for (const k in query) {
        const v = query[k];
        if (v !== undefined) search += `${search ? '&' : '?'}${formEncode(k)}=${formEncode(String(v))}`;
      }
      return this.prefix + path + search;
    }
    const url = new URL(this.baseUrl.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  link(rel: string, path: string, opts: { type?: string; title?: string; query?: Record<string, string | number | boolean | undefined> } = {}): Link {
    return { href: this.href(path, opts.query), rel, ...(opts.type ? { type: opts.type } : {}), ...(opts.title ? { title: opts.title } : {}) };
  }

  /** `self` in the answered format plus `alternate` for each other format the route offers. */
  selfAndAlternates(path: string, current: Format, formats: readonly Format[], query: Record<string, string | number | boolean | undefined> = {}, title?: string): Link[] {
    return formats.map((format) => ({
      href: this.href(path, { ...query, f: F_VALUE[format] }),
      rel: format === current ? 'self' : 'alternate',
      type: mediaType(format),
      title: `${title ?? 'This document'} as ${format.toUpperCase()}`,
    }));
  }
}

/** The relations of a page's own links that its `Link` header repeats, the most wanted first. */
const PAGE_RELS = ['next', 'prev', 'self'];
/**
 * Bound of a `Link` header: proxies hold a response's whole header block in one buffer (nginx:
 * 4 or 8 KiB by default) and fail the response past it, and a page's links repeat its query,
 * which may carry a long filter.
 */
export const MAX_LINK_HEADER_BYTES = 4096;

/**
 * The `Link` header (RFC 8288) of one page of a list: the page's `next`, `prev` and `self` links as
 * its body lists them, so a client of any format, a parquet or uint64 download included, finds
 * the next page. Links that would take the header past MAX_LINK_HEADER_BYTES are left out (the
 * body's links still have them); undefined when none is left.
 */
export function pageLinkHeader(links: readonly Link[]): string | undefined {
  let header = '';
  for (const rel of PAGE_RELS) {
    const l = links.find((x) => x.rel === rel);
    if (!l) continue;
    const part = `<${l.href}>; rel="${rel}"${l.type ? `; type="${l.type}"` : ''}`;
    const next = header ? `${header}, ${part}` : part;
    if (Buffer.byteLength(next) <= MAX_LINK_HEADER_BYTES) header = next;
  }
  return header || undefined;
}

/** Paths of '/'-led segments of characters the URL parser copies unchanged (RFC 3986 pchar, escapes). */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)+$/;
/** A '.' or '..' segment (also escaped), which the parser would resolve. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/** The parsed base without its final '/', when it is an http(s) URL without query or fragment. */
function plainPrefix(base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || base.includes('?') || base.includes('#')) return undefined;
  return url.href.replace(/\/$/, '');
}

/** Where form encoding differs from encodeURIComponent's. */
const FORM_ESCAPES: Record<string, string> = { '!': '%21', "'": '%27', '(': '%28', ')': '%29', '~': '%7E', '%20': '+' };

/** application/x-www-form-urlencoded, as URLSearchParams writes a name or value (lone surrogates become U+FFFD). */
function formEncode(s: string): string {
  return encodeURIComponent(s.toWellFormed()).replace(/[!'()~]|%20/g, (m) => FORM_ESCAPES[m]!);
}
