import { expect } from 'chai';
import { Links, MAX_LINK_HEADER_BYTES, pageLinkHeader } from '../../../src/http/links.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

/** What href gave before its text fast path: the URL parser's answer. */
function parsed(base: string, path: string, query: Record<string, string | number | boolean | undefined>): string {
  const url = new URL(base.replace(/\/$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

describe('Links.href', () => {
  const bases = ['http://localhost:8080', 'http://localhost:8080/', 'https://Example.ORG:443/api/v1/', 'http://[::1]:9000/a%20b', 'http://h/x/../y', 'http://h:80', 'http://h/?q=1'];
  const pieces = ['dggs', 'IVEA7H', 'zones', 'A4-0-A', '%2F', '%zz', '.', '..', '%2e%2E', '.x', 'a b', 'é', '\\', '"', '<>', '{z}', '?', '#', ':', '@', "'", '~', '', '\ud800'];
  const values = ['json', 'a b', 'x&y=z', '~!*()\'', 'é€😀', '\udc00', '+', '%41', 1.5, true, undefined];

  it('gives the URL parser\'s text for generated paths and queries', () => {
    const rnd = mulberry32(16);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    let fast = 0;
    for (let i = 0; i < 5000; i++) {
      const base = pick(bases);
      const path = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => `/${pick(pieces)}${rnd() < 0.3 ? pick(pieces) : ''}`).join('');
      const query: Record<string, string | number | boolean | undefined> = {};
      for (let q = Math.floor(rnd() * 3); q > 0; q--) query[String(pick(values) ?? 'k')] = pick(values);
      expect(new Links(base).href(path, query), `${base} + ${path} ${JSON.stringify(query)}`).to.equal(parsed(base, path, query));
      if (/^(\/[\w\-.~!$&'()*+,;=:@%]*)+$/.test(path)) fast++;
    }
    expect(fast, 'paths on the text path').to.be.greaterThan(1000);
  });

  it('keeps the routes\' own paths and an empty query as before', () => {
    const links = new Links('http://localhost:8080/');
    expect(links.href('/dggs/IVEA7H/zones/A4-0-A', { f: 'json', 'refined-geometry': false })).to.equal('http://localhost:8080/dggs/IVEA7H/zones/A4-0-A?f=json&refined-geometry=false');
    expect(links.href('')).to.equal('http://localhost:8080/');
    expect(links.href('/collections')).to.equal('http://localhost:8080/collections');
  });
});

describe('pageLinkHeader', () => {
  const link = (rel: string, query: string) => ({ href: `https://h/dggs/IVEA7H/zones?${query}`, rel, type: 'application/x-binary' });

  it('gives next, prev and self as RFC 8288 links, and nothing else', () => {
    const header = pageLinkHeader([link('self', 'offset=10'), link('alternate', 'f=json'), link('prev', 'offset=0'), link('next', 'offset=20'), link('collection', 'x')]);
    expect(header).to.equal(
      '<https://h/dggs/IVEA7H/zones?offset=20>; rel="next"; type="application/x-binary", <https://h/dggs/IVEA7H/zones?offset=0>; rel="prev"; type="application/x-binary", <https://h/dggs/IVEA7H/zones?offset=10>; rel="self"; type="application/x-binary"',
    );
    expect(pageLinkHeader([link('alternate', 'f=json')])).to.equal(undefined);
  });

  it('leaves out the links that would take it past its bound, next kept first', () => {
    const filter = `filter=${'x'.repeat(1500)}`;
    const header = pageLinkHeader([link('self', `${filter}&offset=10`), link('prev', `${filter}&offset=0`), link('next', `${filter}&offset=20`)])!;
    expect(Buffer.byteLength(header)).to.be.at.most(MAX_LINK_HEADER_BYTES);
    expect(header).to.match(/^<[^>]+offset=20>; rel="next"/);
    expect(header).to.contain('rel="prev"').and.not.contain('rel="self"');
    expect(pageLinkHeader([link('next', `filter=${'x'.repeat(MAX_LINK_HEADER_BYTES)}`)]), 'a link longer than the bound').to.equal(undefined);
  });
});
