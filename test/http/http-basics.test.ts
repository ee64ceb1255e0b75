import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { rawExchange, type RawResponse } from './http-basics-raw-client.js';

const TOKEN = 'http-basics-token-0123456789';

/** Host, request line, HEAD, 401 challenges and the parser's refusals: every answer an ApiError. */
describe('HTTP basics: request line, Host, HEAD, 401 and protocol errors', function () {
  this.timeout(30_000);
  let s: TestServer;
  let port: number;
  before(async () => {
    s = await startTestServer({ auth: { tokenSha256: [sha256Hex(TOKEN)] } });
    port = Number(new URL(s.base).port);
  });
  after(() => s.close());

  const get = (target: string, headers: string[] = ['Host: localhost'], version = '1.1') =>
    rawExchange(port, `GET ${target} HTTP/${version}\r\n${[...headers, 'Connection: close'].map((h) => `${h}\r\n`).join('')}\r\n`);

  const expectApiError = (res: RawResponse | { status: number; body: string }, status: number, message?: string) => {
    expect(res.status, res.body.slice(0, 300)).to.equal(status);
    const body = JSON.parse(res.body) as { code: number; message: string; hint?: string };
    expect(body.code).to.equal(status);
    if (message) expect(body.message).to.equal(message);
    return body;
  };

  const alive = async () => expect((await s.get('/conformance')).status).to.equal(200);

  describe('Host', () => {
    it('answers a malformed Host with 400 ApiError, and the process keeps serving', async () => {
      for (const host of ['localhost:abc', 'a b', '[', '%', '@', '|', 'localhost:99999', 'a:65536', 'a:0', 'x/admin/status?', 'user@host', '999.1.1.1', '[::1', '[zz::1]', 'a..b', 'a\tb']) {
        const res = await get('/', [`Host: ${host}`]);
        const body = expectApiError(res, 400, 'Malformed request');
        expect(body.hint, host).to.match(/Host header/);
      }
      await alive();
    });

    it('routes by the request path only: a Host carrying a path is refused, never routed', async () => {
      const res = await get('/collections', ['Host: x/admin/status?']);
      expectApiError(res, 400);
      expect(res.body).to.not.contain('initialized');
      // an absolute-form target routes by its own path; its authority replaces Host (RFC 9112 §3.2.2)
      const absolute = await get('http://example.org:81/collections?f=json', ['Host: x/admin/status?']);
      expect(absolute.status).to.equal(200);
      const collections = JSON.parse(absolute.body) as { collections: unknown[]; links: { href: string }[] };
      expect(collections.collections.length).to.be.greaterThan(0);
      expect(collections.links[0]!.href).to.match(/^http:\/\/example\.org:81\/collections/);
      for (const target of ['http://[', 'http://a:99999/', 'ftp://example.org/', 'http://user:pw@example.org/']) {
        expectApiError(await get(target), 400, 'Malformed request');
      }
      await alive();
    });

    it('builds links from a valid Host, and from the listening address when Host is empty or absent (HTTP/1.0)', async () => {
      const named = await get('/', ['Host: Example.ORG:8081']);
      expect(named.status).to.equal(200);
      expect((JSON.parse(named.body) as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === 'data')!.href).to.equal('http://example.org:8081/collections');
      const ipv6 = await get('/', ['Host: [::1]:9']);
      expect((JSON.parse(ipv6.body) as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === 'data')!.href).to.equal('http://[::1]:9/collections');
      for (const res of [await get('/', ['Host:']), await get('/', [], '1.0')]) {
        expect(res.status, res.raw.slice(0, 200)).to.equal(200);
        expect((JSON.parse(res.body) as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === 'data')!.href).to.equal(`${s.base}/collections`);
      }
    });

    it('refuses HTTP/1.1 without Host, and two Host headers, with 400 ApiError', async () => {
      expect(expectApiError(await get('/', []), 400).hint).to.contain('Host');
      expect(expectApiError(await get('/', ['Host: a', 'Host: b']), 400).hint).to.contain('one Host');
    });

    it('uses server.publicBaseUrl for links whatever the Host says', async () => {
      const pub = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', publicBaseUrl: 'https://dggs.example.net/api/v1' } });
      try {
        const res = await rawExchange(Number(new URL(pub.base).port), 'GET / HTTP/1.1\r\nHost: evil.example:1\r\nConnection: close\r\n\r\n');
        const links = (JSON.parse(res.body) as { links: { rel: string; href: string }[] }).links;
        expect(links.find((l) => l.rel === 'data')!.href).to.equal('https://dggs.example.net/api/v1/collections');
        expect(res.body).to.not.contain('evil');
      } finally {
        await pub.close();
      }
    });
  });

  describe('request target', () => {
    it('refuses malformed percent-escapes in path or query with 400 ApiError', async () => {
      for (const target of ['/collections?f=%zz', '/collections/%zz', '/dggs?x=%', '/dggs/IVEA7H/zones?bbox=%2']) {
        const body = expectApiError(await get(target), 400, 'Malformed request');
        expect(body.hint).to.contain('percent-escape');
      }
      expect((await get('/collections?f=%6Aso%6E')).status).to.equal(200);
    });

    it('answers a URL over 16 KiB with 414 and headers over 16 KiB with 431, both ApiError JSON', async () => {
      for (const size of [16_385, 20_000, 40_000, 200_000]) {
        const res = await fetch(`${s.base}/collections?x=${'a'.repeat(size)}`);
        const body = expectApiError({ status: res.status, body: await res.text() }, 414, 'URI too long');
        expect(body.hint).to.contain('16384');
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
      }
      for (const size of [17_000, 40_000, 200_000]) {
        const res = await fetch(`${s.base}/collections`, { headers: { 'X-Padding': 'b'.repeat(size) } });
        const body = expectApiError({ status: res.status, body: await res.text() }, 431, 'Request header fields too large');
        expect(body.hint).to.contain('16384');
      }
      // many small headers add up the same way
      const many = Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'c'.repeat(60)}`);
      expectApiError(await get('/collections', ['Host: a', ...many]), 431);
      // just under the bounds is served
      expect((await fetch(`${s.base}/collections?x=${'a'.repeat(16_000)}`)).status).to.equal(200);
      await alive();
    });

    it('answers what the HTTP parser refuses with 400 ApiError, unknown-but-valid methods with 405', async () => {
      const cases: [string, number][] = [
        ['FOO / HTTP/1.1\r\nHost: a\r\n\r\n', 400],
        ['hello\r\n\r\n', 400],
        ['GET / HTTP/9.9\r\nHost: a\r\n\r\n', 400],
        ['GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n', 400],
        ['GET / HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n', 400],
        ['POST /orders HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
        ['POST /orders HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
        ['CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n', 405],
        ['PATCH /collections HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 405],
        ['DELETE /collections HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 405],
      ];
      for (const [request, status] of cases) {
        const res = await rawExchange(port, request);
        expect(res.headers['content-type'], JSON.stringify(request)).to.match(/^application\/json/);
        expectApiError(res, status);
      }
      await alive();
    });

    it('serves a request with an Upgrade header as an ordinary request instead of leaving it hanging', async () => {
      const res = await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade, close\r\n\r\n', { timeoutMs: 3000 });
      expect(res.status).to.equal(200);
      expect(JSON.parse(res.body)).to.have.property('conformsTo');
    });

    it('keeps malformed, repeated and long query parameters to 4xx ApiErrors', async () => {
      const targets = [
        '/dggs/IVEA7H/zones?zone-level=1&zone-level=abc',
        '/dggs/IVEA7H/zones?zone-level[a]=1',
        '/dggs/IVEA7H/zones?zone-level[]=1&zone-level[]=2&zone-level[5]=x',
        '/dggs/IVEA7H/zones?bbox[__proto__][x]=1',
        `/dggs/IVEA7H/zones?bbox=${'9'.repeat(15_000)}`,
        `/dggs/IVEA7H/zones/${'F'.repeat(5000)}`,
        `/collections/${'c'.repeat(5000)}`,
        '/collections?f=json&f=png',
        `/?f=${'x'.repeat(15_000)}`,
        `/collections?${'a=1&'.repeat(3000)}f=png`,
      ];
      for (const target of targets) {
        const res = await s.get(target);
        expect(res.status, target.slice(0, 80)).to.be.within(400, 499);
        const body = (await res.json()) as { code: number; message: string };
        expect(body.code, target.slice(0, 80)).to.equal(res.status);
        expect(body.message).to.be.a('string');
      }
      await alive();
    });
  });

  describe('HEAD', () => {
    it('answers wherever GET does, with the same status and headers and no body', async () => {
      const auth = { Authorization: `Bearer ${TOKEN}` };
      const collection = s.config.collections[0]!.id;
      const paths = ['/', '/?f=html', '/conformance', '/collections', `/collections/${collection}`, `/collections/${collection}/queryables`, '/dggs', '/dggs/IVEA7H', '/api/openapi.json', '/concepts', '/orders', '/collections/nope', '/no/such/route'];
      for (const path of paths) {
        const g = await fetch(s.base + path, { headers: auth });
        const gBody = Buffer.from(await g.arrayBuffer());
        const h = await fetch(s.base + path, { method: 'HEAD', headers: auth });
        expect(h.status, path).to.equal(g.status);
        expect(h.headers.get('content-type'), path).to.equal(g.headers.get('content-type'));
        expect(h.headers.get('content-length'), path).to.equal(String(gBody.length));
        expect((await h.arrayBuffer()).byteLength, path).to.equal(0);
      }
      // on the wire: no body bytes after the head
      const raw = await rawExchange(port, 'HEAD /conformance HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(raw.status).to.equal(200);
      expect(raw.raw.slice(raw.raw.indexOf('\r\n\r\n') + 4)).to.equal('');
    });
  });

  describe('401', () => {
    it('carries WWW-Authenticate: Bearer with realm, and error="invalid_token" for a refused token (RFC 6750)', async () => {
      const none = await s.get('/orders');
      expect(none.status).to.equal(401);
      expect(none.headers.get('www-authenticate')).to.equal('Bearer realm="dggs-api"');
      const basic = await s.get('/orders', { Authorization: 'Basic YTpi' });
      expect(basic.headers.get('www-authenticate')).to.equal('Bearer realm="dggs-api"');
      const wrong = await s.get('/orders/1', { Authorization: 'Bearer not-the-token' });
      expect(wrong.status).to.equal(401);
      expect(wrong.headers.get('www-authenticate')).to.match(/^Bearer realm="dggs-api", error="invalid_token"/);
      expect(await wrong.json()).to.include({ code: 401 });
      const ok = await s.get('/orders', { Authorization: `Bearer ${TOKEN}` });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('www-authenticate')).to.equal(null);
    });
  });
});
