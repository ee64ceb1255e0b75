import { expect } from 'chai';
import { checkUrl, isNonPublicAddress, type FetchPolicy } from '../../src/adapters/rasters/url-guard.js';
import { httpStatus } from '../support/http-status.js';

/*
 * The cog-url SSRF guard, table-driven: which addresses a client may make the service fetch
 * from. Every IANA special-purpose range that is not globally reachable is refused, in IPv4 and
 * in every IPv6 form that carries or translates to an IPv4 address.
 */

const refused: [address: string, why: string][] = [
  // IPv4 special-purpose registry
  ['0.0.0.0', '"this network" 0/8'],
  ['0.255.255.255', '"this network" 0/8, last'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, last'],
  ['100.64.0.1', 'shared address space 100.64/10'],
  ['100.127.255.255', 'shared address space 100.64/10, last'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback 127/8'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12, last'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private 192.168/16'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.255', 'benchmarking 198.18/15, last'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'limited broadcast'],
  // IPv6 ranges refused whatever they hold
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated), even of a public address'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::ffff:0:8.8.8.8', 'SIIT IPv4-translated, even of a public address'],
  ['::ffff:0:7f00:1', 'SIIT IPv4-translated loopback, hex'],
  ['64:ff9b:1::808:808', 'NAT64 local-use 64:ff9b:1::/48'],
  ['64:ff9b:1:ffff::1', 'NAT64 local-use, last'],
  ['100::1', 'discard-only 100::/64'],
  ['2001::1', 'Teredo 2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (a real-looking one)'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:10::1', 'ORCHID (deprecated) 2001:10::/28'],
  ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'SRv6 SIDs'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fd12:3456:789a::1', 'unique-local fd00::/8'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf:ffff::1', 'link-local fe80::/10, last'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['ff05::fb', 'multicast (mDNS, site)'],
  // IPv4 inside IPv6: refused exactly when the IPv4 address is
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['64:ff9b::10.0.0.1', 'NAT64 well-known prefix to a private address'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 well-known prefix to 169.254.169.254, hex'],
  ['64:ff9b::127.0.0.1', 'NAT64 well-known prefix to loopback'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2002:a9fe:a9fe::', '6to4 of 169.254.169.254'],
  // not addresses at all
  ['example.com', 'not an IP literal'],
  ['', 'empty'],
];

const allowed: [address: string, why: string][] = [
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['100.63.255.255', 'just below 100.64/10'],
  ['100.128.0.0', 'just above 100.64/10'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.0', 'just above 172.16/12'],
  ['192.0.1.1', 'between 192.0.0/24 and TEST-NET-1'],
  ['192.31.196.1', 'AS112, globally reachable'],
  ['198.17.255.255', 'just below 198.18/15'],
  ['198.20.0.0', 'just above 198.18/15'],
  ['223.255.255.255', 'just below multicast'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2a00:1450:4001::200e', 'public IPv6'],
  ['2001:200::1', 'just above 2001::/23'],
  ['2001:4860:4860::8888', 'public IPv6 in 2001::/16'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public (the same host as 8.8.8.8)'],
  ['64:ff9b::808:808', 'NAT64 well-known prefix to a public address'],
  ['64:ff9b::8.8.8.8', 'NAT64 well-known prefix to a public address, dotted'],
  ['2002:808:808::1', '6to4 of a public address'],
];

describe('cog-url guard: special-purpose addresses', () => {
  for (const [address, why] of refused) {
    it(`refuses ${address || '(empty)'}: ${why}`, () => expect(isNonPublicAddress(address)).to.equal(true));
  }
  for (const [address, why] of allowed) {
    it(`allows ${address}: ${why}`, () => expect(isNonPublicAddress(address)).to.equal(false));
  }
});

describe('cog-url guard: URL checks', () => {
  const policy: FetchPolicy = { allowedSchemes: ['https', 'http'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1, timeoutMs: 1, maxRedirects: 0 };
  const status = async (url: string, p: FetchPolicy = policy) => {
    try {
      await checkUrl(url, p);
      return 200;
    } catch (e) {
      return httpStatus(e);
    }
  };

  const table: [url: string, expected: number, p?: FetchPolicy][] = [
    ['http://[64:ff9b:1::a00:1]/a.tif', 403],
    ['http://[2001::1]/a.tif', 403],
    ['http://[::ffff:0:7f00:1]/a.tif', 403],
    ['http://[::ffff:127.0.0.1]/a.tif', 403],
    ['http://[64:ff9b::7f00:1]/a.tif', 403],
    ['http://[2002:a9fe:a9fe::1]/a.tif', 403],
    ['http://[fe80::1%25eth0]/a.tif', 400], // WHATWG URLs have no zone ids: malformed
    ['http://0177.0.0.1/a.tif', 403], // octal spelling of loopback
    ['http://0x7f000001/a.tif', 403], // hex spelling of loopback
    ['http://169.254.169.254/latest/meta-data/', 403],
    ['http://[::]/a.tif', 403],
    ['http://user:pass@8.8.8.8/a.tif', 400],
    ['http://8.8.8.8/a.tif', 200],
    ['http://[2606:4700:4700::1111]/a.tif', 200],
    // allowedPrivateRanges opens exactly the ranges named
    ['http://127.0.0.1:8080/a.tif', 200, { ...policy, allowedPrivateRanges: ['127.0.0.1/32'] }],
    ['http://127.0.0.2/a.tif', 403, { ...policy, allowedPrivateRanges: ['127.0.0.1/32'] }],
    ['http://[::ffff:127.0.0.1]/a.tif', 200, { ...policy, allowedPrivateRanges: ['127.0.0.1'] }],
    ['http://10.20.30.40/a.tif', 200, { ...policy, allowedPrivateRanges: ['10.20.0.0/16'] }],
    ['http://10.21.0.1/a.tif', 403, { ...policy, allowedPrivateRanges: ['10.20.0.0/16'] }],
    ['http://[fd00::5]/a.tif', 200, { ...policy, allowedPrivateRanges: ['fd00::/8'] }],
    ['http://[fe80::5]/a.tif', 403, { ...policy, allowedPrivateRanges: ['fd00::/8'] }],
  ];
  for (const [url, expected, p] of table) {
    it(`${url}${p?.allowedPrivateRanges ? ` with allowedPrivateRanges ${p.allowedPrivateRanges.join(',')}` : ''} -> ${expected}`, async () => {
      expect(await status(url, p)).to.equal(expected);
    });
  }
});
