import { isIP, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import parseForwarded from 'forwarded-parse';
import { MalformedRequestError } from './http-errors.js';
import { validAuthority, type ForwardedTarget } from './request-target.js';

/** What a request's connection and its trusted proxies say about who sent it and what it asked for. */
export interface Forwarded extends ForwardedTarget {
  /** The socket's peer (an IPv4 peer on a dual-stack socket without its ::ffff: prefix); null once the socket closed. */
  peer: string | null;
  /** The client: the peer itself, or the address the trusted proxies in front of it forwarded. */
  client: string | null;
  /** The peer is a trusted proxy: its connection carries many clients, counted by `client`. */
  proxied: boolean;
}

export interface Forwarding {
  /** Whether the socket's peer is a trusted proxy. */
  trusts(socket: Socket): boolean;
  /**
   * The request's client, scheme, host and path prefix. Forwarded headers count only from a
   * trusted peer, and only as far back as the chain of trusted hops reaches. Throws
   * MalformedRequestError (400) when a trusted proxy sent a malformed one. Read once per request.
   */
  of(req: IncomingMessage): Forwarded;
  /** Client and peer for the request log, which also logs requests refused for a malformed header (their client is then the peer). */
  addresses(req: IncomingMessage): { client: string | null; peer: string | null };
}

const MAX_PREFIX = 256;
/**
 * Hops a walk goes back at most. Real chains have a few proxies; each hop costs an address parse,
 * and a header of 16 KiB could list 1,600 of them.
 */
export const MAX_HOPS = 32;
/** `/`-led segments of RFC 3986 pchar (escapes included); a trailing `/` is allowed and dropped. */
const CLEAN_PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)*\/?$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;
/** RFC 7239 §6: a node is an IPv4 address, a bracketed IPv6 address, `unknown` or an obfuscated `_name`, with an optional port. */
const NODE = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9A-Fa-f:.]+)\]|(unknown)|(_[A-Za-z0-9._-]+))(?::(?:\d{1,5}|_[A-Za-z0-9._-]+))?$/i;

const bad = (hint: string) => new MalformedRequestError(hint);
const HINT = {
  forwarded: (detail: string) => `The Forwarded header from a trusted proxy is not RFC 7239 syntax (${detail}).`,
  node: 'Each "for" of the Forwarded header must be an IPv4 address, a quoted "[IPv6]" address (either with an optional :port), "unknown" or an obfuscated _name.',
  xff: 'X-Forwarded-For must list IP addresses, the client\'s first and each proxy\'s after it.',
  proto: 'The forwarded scheme (proto of the Forwarded header, X-Forwarded-Proto) must be http or https.',
  host: 'The forwarded host (host of the Forwarded header, X-Forwarded-Host) must be a host name, IPv4 address or [IPv6] address with an optional :port (1-65535).',
  port: 'X-Forwarded-Port must be a port number (1-65535).',
  prefix: `X-Forwarded-Prefix must be a path of "/"-led segments (RFC 3986 characters or %-escapes) without "." or ".." segments, at most ${MAX_PREFIX} characters.`,
};

/**
 * Reads `Forwarded` (RFC 7239) and `X-Forwarded-*` from the peers `trustedProxies` names, as
 * proxy-addr's `compile` reads them. When a trusted proxy sends `Forwarded`, it alone gives the
 * client, scheme and host (it is the standard, and mixing it with the X- headers would mix what
 * different hops saw); `X-Forwarded-Prefix`, which has no counterpart in it, is read either way.
 * Either walk goes back at most MAX_HOPS hops: the address it reaches there is the client.
 */
export function createForwarding(trustedProxies: readonly string[]): Forwarding {
  const trust = trustedProxies.length > 0 ? proxyaddr.compile([...trustedProxies]) : undefined;
  const trusted = (address: string | null | undefined) => trust !== undefined && !!address && trust(address, 0);
  const read = new WeakMap<IncomingMessage, Forwarded | MalformedRequestError>();

  const resolve = (req: IncomingMessage): Forwarded | MalformedRequestError => {
    const peer = plainAddress(req.socket.remoteAddress);
    if (!trusted(peer)) return { peer, client: peer, proxied: false, prefix: '' };
    try {
      const h = req.headers;
      const prefix = forwardedPrefix(h['x-forwarded-prefix']);
      if (nonEmpty(h.forwarded)) return { peer, proxied: true, prefix, ...fromForwarded(h.forwarded!, peer!, trusted) };
      // proxy-addr walks X-Forwarded-For from the right while each hop is trusted.
      const chain = proxyaddr.all(req, (address, i) => i < MAX_HOPS && trusted(address));
      const hops = chain.length - 1;
      const client = plainAddress(chain[hops]);
      if (hops > 0 && !isIP(client ?? '')) throw bad(HINT.xff);
      const proto = ofHop(h['x-forwarded-proto'], hops);
      const host = ofHop(h['x-forwarded-host'], hops);
      const port = ofHop(h['x-forwarded-port'], hops);
      return {
        peer,
        client,
        proxied: true,
        prefix,
        ...(proto !== undefined ? { proto: scheme(proto) } : {}),
        ...(host !== undefined ? { host: authority(host) } : {}),
        ...(port !== undefined ? { port: portNumber(port) } : {}),
      };
    } catch (err) {
      if (err instanceof MalformedRequestError) return err;
      throw err;
    }
  };

  const of = (req: IncomingMessage): Forwarded | MalformedRequestError => {
    let answer = read.get(req);
    if (answer === undefined) read.set(req, (answer = resolve(req)));
    return answer;
  };

  return {
    trusts: (socket) => trusted(plainAddress(socket.remoteAddress)),
    of(req) {
      const answer = of(req);
      if (answer instanceof MalformedRequestError) throw answer;
      return answer;
    },
    addresses(req) {
      const answer = of(req);
      if (answer instanceof MalformedRequestError) {
        const peer = plainAddress(req.socket.remoteAddress);
        return { client: peer, peer };
      }
      return { client: answer.client, peer: answer.peer };
    },
  };
}

/**
 * The RFC 7239 walk: elements are read from the last (added by the proxy that connects to us)
 * towards the first while the address reached is trusted; the element where the walk stops
 * names the client and carries the scheme and host that client used. An element without `for`
 * ends the walk at the proxy that wrote it; so does MAX_HOPS.
 */
function fromForwarded(header: string, peer: string, trusted: (address: string) => boolean): Pick<Forwarded, 'client' | 'proto' | 'host'> {
  let elements: Record<string, string>[];
  try {
    elements = parseForwarded(header);
  } catch (err) {
    throw bad(HINT.forwarded((err as Error).message));
  }
  let client = peer;
  let used: Record<string, string> | undefined;
  for (let i = elements.length - 1; i >= 0 && i >= elements.length - MAX_HOPS && trusted(client); i--) {
    used = elements[i]!;
    if (used.for === undefined) break;
    client = nodeAddress(used.for);
  }
  return {
    client,
    ...(used?.proto !== undefined ? { proto: scheme(used.proto) } : {}),
    ...(used?.host !== undefined ? { host: authority(used.host) } : {}),
  };
}

/** A `for` node's address (`unknown` and obfuscated names as they are), without its port. */
function nodeAddress(node: string): string {
  const m = NODE.exec(node);
  if (!m) throw bad(HINT.node);
  const [, v4, v6, unknown, obfuscated] = m;
  if (v4 !== undefined) {
    if (isIP(v4) !== 4) throw bad(HINT.node);
    return v4;
  }
  if (v6 !== undefined) {
    if (isIP(v6) !== 6) throw bad(HINT.node);
    return plainAddress(v6)!;
  }
  return unknown !== undefined ? 'unknown' : obfuscated!;
}

/**
 * The value of a forwarded list header for the client the walk reached, `hops` trusted proxies
 * back. Proxies that append give one value per hop, read from the right as X-Forwarded-For is;
 * one that sets the header gives a single value, which is then the one; a list shorter than the
 * walk gives its first value (the hop nearest the client that recorded one).
 */
function ofHop(header: string | string[] | undefined, hops: number): string | undefined {
  if (header === undefined || !nonEmpty(header)) return undefined;
  const values = (Array.isArray(header) ? header.join(',') : header).split(',').map((v) => v.trim());
  return values[Math.max(0, values.length - Math.max(1, hops))];
}

function scheme(value: string): 'http' | 'https' {
  const v = value.toLowerCase();
  if (v !== 'http' && v !== 'https') throw bad(HINT.proto);
  return v;
}

function authority(value: string): string {
  let a: string | undefined;
  try {
    a = validAuthority(value);
  } catch {
    throw bad(HINT.host);
  }
  if (a === undefined) throw bad(HINT.host);
  return a;
}

function portNumber(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > 65535) throw bad(HINT.port);
  return n;
}

/** The path prefix a proxy strips (`/sub`), without its trailing `/`; '' for none. */
function forwardedPrefix(header: string | string[] | undefined): string {
  const value = ofHop(header, 1);
  if (value === undefined) return '';
  if (value.length > MAX_PREFIX || !CLEAN_PATH.test(value) || DOT_SEGMENT.test(value)) throw bad(HINT.prefix);
  return value.replace(/\/$/, '');
}

function nonEmpty(header: string | string[] | undefined): boolean {
  return header !== undefined && (Array.isArray(header) ? header.join('') : header).trim() !== '';
}

/** An IPv4 address on a dual-stack socket comes as ::ffff:a.b.c.d: the address is a.b.c.d. */
function plainAddress(address: string | null | undefined): string | null {
  return address?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '') ?? null;
}
