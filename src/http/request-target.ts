import { isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { HeadersTooLargeError, MalformedRequestError, UriTooLongError } from './http-errors.js';

/** No route takes more than a handful; the query parser would silently drop those past its own limit. */
export const MAX_QUERY_PARAMETERS = 200;

export interface RequestTargetLimits {
  maxUrlBytes: number;
  maxHeaderBytes: number;
}

/**
 * Checks the request line and Host before restify sees them. restify builds its URL as
 * `new URL('http://' + Host + req.url)` and routes on that URL's path: a Host such as
 * `x/admin/status?` moves the routed path, and one `new URL` refuses (`localhost:abc`, `[`) throws
 * outside any handler and ends the process. After this check the Host restify reads is a valid
 * authority (or absent), and req.url is in origin form, so routing depends on the path alone.
 *
 * Returns the validated authority (`name[:port]`), or undefined when the request named none.
 */
export function admitRequestTarget(req: IncomingMessage, limits: RequestTargetLimits): string | undefined {
  const target = req.url ?? '';
  if (target.length > limits.maxUrlBytes) throw new UriTooLongError(limits.maxUrlBytes);
  if (headerBytes(req.rawHeaders) > limits.maxHeaderBytes) throw new HeadersTooLargeError(limits.maxHeaderBytes);

  const hostLines = countHeader(req.rawHeaders, 'host');
  if (hostLines > 1) throw new MalformedRequestError('Send exactly one Host header.');
  if (hostLines === 0 && req.httpVersion === '1.1') throw new MalformedRequestError('HTTP/1.1 requests must carry a Host header.');

  let authority: string | undefined;
  if (target.startsWith('/') || target === '*') {
    authority = validAuthority(req.headers.host ?? '');
  } else {
    // Absolute form: its authority replaces Host (RFC 9112 §3.2.2).
    const url = parseAbsolute(target);
    authority = validAuthority(url.host);
    req.url = url.pathname + url.search;
  }
  const url = req.url ?? '';
  if (/%(?![0-9A-Fa-f]{2})/.test(url)) throw new MalformedRequestError('A "%" in the path or query must start a percent-escape of two hex digits (%25 for "%" itself).');
  const query = url.indexOf('?');
  if (query >= 0 && url.slice(query + 1).split('&').length > MAX_QUERY_PARAMETERS) {
    throw new MalformedRequestError(`A request may carry at most ${MAX_QUERY_PARAMETERS} query parameters.`);
  }

  if (authority) req.headers.host = authority;
  else delete req.headers.host;
  return authority;
}

/**
 * `host[:port]` as RFC 9110 allows for http: a DNS name, an IPv4 address or a bracketed IPv6
 * literal, and a port of at most 65535. An empty value names no authority. Anything else is 400.
 */
export function validAuthority(value: string): string | undefined {
  if (value === '') return undefined;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::(\d{1,5}))?$/.exec(value);
  const bad = () => new MalformedRequestError('The Host header must be a host name, IPv4 address or [IPv6] address with an optional :port (1-65535).');
  if (!match || value.length > 260) throw bad();
  const [, host, port] = match;
  if (host!.startsWith('[') && !isIPv6(host!.slice(1, -1))) throw bad();
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw bad();
  // WHATWG URL decides the rest (numeric hosts such as 999.1.1.1) exactly as restify will.
  try {
    const url = new URL(`http://${value}/`);
    if (url.pathname !== '/' || url.username || url.password) throw bad();
    return url.host;
  } catch {
    throw bad();
  }
}

function parseAbsolute(target: string): URL {
  const bad = () => new MalformedRequestError('The request target must be a path starting with "/" (or an absolute http URL).');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw bad();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host || url.username || url.password) throw bad();
  return url;
}

/** What trusted proxies say the client asked for (see forwarded.ts); each part absent when none said. */
export interface ForwardedTarget {
  proto?: 'http' | 'https';
  /** `host[:port]`, validated. */
  host?: string;
  port?: number;
  /** The path prefix the proxy strips (`/sub`), '' for none. */
  prefix: string;
}

/**
 * The base of the links a response writes: the configured public URL; else the scheme, host and
 * prefix trusted proxies forwarded, completed by the request's authority (or the address the
 * client reached) and plain http.
 */
export function baseUrlFor(publicBaseUrl: string | undefined, authority: string | undefined, forwarded: ForwardedTarget, socket: Socket): string {
  if (publicBaseUrl) return publicBaseUrl;
  const scheme = forwarded.proto ?? 'http';
  const host = forwarded.host ?? authority ?? localAuthority(socket);
  // URL drops the scheme's default port (https://x:443 is https://x).
  const url = new URL(`${scheme}://${host}`);
  if (forwarded.port !== undefined) url.port = String(forwarded.port);
  return url.origin + forwarded.prefix;
}

function localAuthority(socket: Socket): string {
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${isIPv6(address) ? `[${address}]` : address}:${socket.localPort ?? 80}`;
}

/** Header names and values, as Node's parser counts them against maxHeaderSize (its strings hold one byte per character). */
function headerBytes(raw: string[]): number {
  let total = 0;
  for (const part of raw) total += part.length;
  return total;
}

function countHeader(raw: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}
