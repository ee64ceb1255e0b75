import dns from 'node:dns/promises';
import net from 'node:net';
import { InvalidRequestError, ForbiddenError, UpstreamError } from '../../ports/errors.js';
import type { InFlightBytes } from '../../ports/remote-http.js';

/** The `rasterFetch` config: which URLs a client may make the service fetch. */
export interface FetchPolicy {
  allowedSchemes: readonly ('http' | 'https' | 'file')[];
  /** Empty means any public host; `*.example.com` matches sub-domains. */
  allowedHosts: readonly string[];
  allowPrivateNetworks: boolean;
  /** CIDR ranges of non-public addresses allowed even when private networks are not (an internal object store). */
  allowedPrivateRanges?: readonly string[];
  /** Bound of any one upstream response body. */
  maxBytes: number;
  /** Bound of all bytes one client request makes the service fetch (every range, every hop); `maxBytes` if absent. */
  maxRequestBytes?: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Bytes of all upstream bodies being received at once, over every request (shared with the other remote readers). */
  inFlight?: InFlightBytes;
}

/** A URL that passed the policy, with the address it must be fetched from (pinned, so DNS cannot change between check and use). */
export interface CheckedUrl {
  url: URL;
  address?: string;
  family?: 4 | 6;
}

const HINT_PRIVATE = 'The service does not fetch from loopback, private, link-local, unique-local or other special-purpose (IANA) addresses; give a public http(s) URL.';

/**
 * Checks a URL against the policy and resolves its host. Every address the name resolves to must
 * be public (unless private networks are allowed): a name with one private address is refused.
 */
export async function checkUrl(raw: string | URL, policy: FetchPolicy): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new InvalidRequestError('Invalid raster URL', 'cog-url must be an absolute http(s) URL, like https://example.com/data/cog.tif');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!(policy.allowedSchemes as readonly string[]).includes(scheme)) {
    throw new ForbiddenError('Raster URL scheme not allowed', `Allowed schemes: ${policy.allowedSchemes.join(', ') || 'none'}.`);
  }
  if (scheme === 'file') return { url };
  if (url.username || url.password) throw new InvalidRequestError('Invalid raster URL', 'Credentials in the URL are not accepted.');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.allowedHosts.length > 0 && !policy.allowedHosts.some((h) => hostMatches(host, h.toLowerCase()))) {
    throw new ForbiddenError('Raster host not allowed', `Allowed hosts: ${policy.allowedHosts.join(', ')}.`);
  }
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch (err) {
      // A name that does not exist is the caller's to fix; a resolver that fails is upstream trouble.
      const code = (err as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') throw new InvalidRequestError('Raster host not found', `The host "${host}" of cog-url does not resolve.`);
      throw new UpstreamError('Raster fetch failed', `The host "${host}" of cog-url could not be resolved now (${code ?? 'DNS error'}); try again later.`);
    }
  }
  if (addresses.length === 0) throw new InvalidRequestError('Raster host not found', `The host "${host}" of cog-url does not resolve.`);
  if (!policy.allowPrivateNetworks && addresses.some((a) => isNonPublicAddress(a.address) && !allowedPrivately(a.address, policy))) {
    throw new ForbiddenError('Raster URL points to a non-public address', HINT_PRIVATE);
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

const allowLists = new WeakMap<readonly string[], net.BlockList>();

/** Whether a non-public address lies in one of the policy's `allowedPrivateRanges`. */
function allowedPrivately(address: string, policy: FetchPolicy): boolean {
  const ranges = policy.allowedPrivateRanges;
  if (!ranges || ranges.length === 0) return false;
  let list = allowLists.get(ranges);
  if (!list) {
    list = new net.BlockList();
    for (const cidr of ranges) {
      // The config schema checked the form; BlockList refuses anything else.
      const [a = '', p] = cidr.split('/');
      const family = net.isIP(a) === 4 ? 'ipv4' : 'ipv6';
      list.addSubnet(a, p === undefined ? (family === 'ipv4' ? 32 : 128) : Number(p), family);
    }
    allowLists.set(ranges, list);
  }
  const ip = address.replace(/%.*$/, '');
  return list.check(ip, net.isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

/**
 * IANA special-purpose IPv4 ranges no client may reach through the service. The registry's
 * globally reachable entries (AS112, AMT) are public services and stay allowed.
 */
const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGN)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the limited broadcast 255.255.255.255
];

/** IPv6 ranges refused whatever they contain. */
const V6_BLOCKED: [string, number][] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // SIIT IPv4-translated ::ffff:0:a.b.c.d
  ['64:ff9b:1::', 48], // NAT64 local-use
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID and ORCHIDv2, DRIP
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/**
 * One list for both families. Node's BlockList applies IPv4 rules to IPv4-mapped addresses
 * (::ffff:a.b.c.d) itself; the prefixes that carry an IPv4 address elsewhere, well-known NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16), get each IPv4 rule translated into their space, so they are
 * refused exactly when the address they lead to is.
 */
const blocked = new net.BlockList();
for (const [a, p] of V4_BLOCKED) {
  blocked.addSubnet(a, p, 'ipv4');
  blocked.addSubnet(`64:ff9b::${a}`, 96 + p, 'ipv6');
  const [b0, b1, b2, b3] = a.split('.').map(Number) as [number, number, number, number];
  const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
  blocked.addSubnet(`2002:${hex(b0, b1)}:${hex(b2, b3)}::`, 16 + p, 'ipv6');
}
for (const [a, p] of V6_BLOCKED) blocked.addSubnet(a, p, 'ipv6');

/** True for loopback, link-local, private, unique-local, reserved and multicast addresses, including IPv4 carried inside IPv6. */
export function isNonPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = net.isIP(ip);
  if (kind === 0) return true;
  return blocked.check(ip, kind === 4 ? 'ipv4' : 'ipv6');
}
