import dns from 'node:dns/promises';
import net from 'node:net';
import { BadRequestError, ForbiddenError } from '../../app/errors.js';

/** The `rasterFetch` config: which URLs a client may make the service fetch. */
export interface FetchPolicy {
  allowedSchemes: readonly ('http' | 'https' | 'file')[];
  /** Empty means any public host; `*.example.com` matches sub-domains. */
  allowedHosts: readonly string[];
  allowPrivateNetworks: boolean;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

/** A URL that passed the policy, with the address it must be fetched from (pinned, so DNS cannot change between check and use). */
export interface CheckedUrl {
  url: URL;
  address?: string;
  family?: 4 | 6;
}

const HINT_PRIVATE = 'The service does not fetch from loopback, link-local, private or unique-local addresses; give a public http(s) URL.';

/**
 * Checks a URL against the policy and resolves its host. Every address the name resolves to must
 * be public (unless private networks are allowed): a name with one private address is refused.
 */
export async function checkUrl(raw: string | URL, policy: FetchPolicy): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new BadRequestError('Invalid raster URL', 'cog-url must be an absolute http(s) URL, like https://example.com/data/cog.tif');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!(policy.allowedSchemes as readonly string[]).includes(scheme)) {
    throw new ForbiddenError('Raster URL scheme not allowed', `Allowed schemes: ${policy.allowedSchemes.join(', ') || 'none'}.`);
  }
  if (scheme === 'file') return { url };
  if (url.username || url.password) throw new BadRequestError('Invalid raster URL', 'Credentials in the URL are not accepted.');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.allowedHosts.length > 0 && !policy.allowedHosts.some((h) => hostMatches(host, h.toLowerCase()))) {
    throw new ForbiddenError('Raster host not allowed', `Allowed hosts: ${policy.allowedHosts.join(', ')}.`);
  }
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch {
      throw new BadRequestError('Raster host not found', `The host "${host}" of cog-url does not resolve.`);
    }
  }
  if (addresses.length === 0) throw new BadRequestError('Raster host not found', `The host "${host}" of cog-url does not resolve.`);
  if (!policy.allowPrivateNetworks && addresses.some((a) => isNonPublicAddress(a.address))) {
    throw new ForbiddenError('Raster URL points to a non-public address', HINT_PRIVATE);
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

/** IPv4 ranges no client may reach through the service. */
const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const V6_BLOCKED: [string, number][] = [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['100::', 64], ['2001:db8::', 32],
];
const v4List = new net.BlockList();
for (const [a, p] of V4_BLOCKED) v4List.addSubnet(a, p, 'ipv4');
const v6List = new net.BlockList();
for (const [a, p] of V6_BLOCKED) v6List.addSubnet(a, p, 'ipv6');

/** True for loopback, link-local, private, unique-local, reserved and multicast addresses, including IPv4 inside IPv6. */
export function isNonPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = net.isIP(ip);
  if (kind === 4) return v4List.check(ip, 'ipv4');
  if (kind !== 6) return true;
  const embedded = embeddedV4(ip);
  if (embedded && v4List.check(embedded, 'ipv4')) return true;
  return v6List.check(ip, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedV4(ip: string): string | undefined {
  const words = expandV6(ip);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => words.slice(0, n).every((w) => w === 0);
  if (zeros(5) && words[5] === 0xffff) return v4(words[6]!, words[7]!);
  if (zeros(6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  return undefined;
}

function expandV6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const p = dotted[1]!.split('.').map(Number);
    text = text.slice(0, -dotted[1]!.length) + `${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  const all = [...h, ...fill, ...t].map((w) => parseInt(w || '0', 16));
  return all.length === 8 && all.every((w) => Number.isFinite(w)) ? all : undefined;
}
