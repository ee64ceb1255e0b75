/**
 * Forwarded headers count only from trusted proxies: from any other peer they change nothing
 * (links, the logged client, connection caps); from a trusted one they give the links' scheme,
 * host and prefix and the client's address, which the log and the per-client bound use, and a
 * malformed one is a 400.
 */
import { expect } from 'chai';
import http from 'node:http';
import pino from 'pino';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturedLogs, type CapturedLogs, type LogLine } from '../support/captured-logs.js';
import { parseConfig, ConfigError } from '../../src/app/config/load-config.js';
import { createHttpServer, type HttpLimits } from '../../src/http/server.js';
import { MAX_HOPS } from '../../src/http/forwarded.js';
import { defineRoute, json } from '../../src/http/route.js';
import { send } from '../../scripts/fuzz/http-client.js';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { FORWARDED_MALFORMED, FORWARDED_VALID } from '../../scripts/fuzz/values.js';
import { idleSocket } from './http-basics-raw-client.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own (no pooling), from `localAddress` when given. */
function request(port: number, path: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers, agent: false, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const hrefs = (a: Answer) => (JSON.parse(a.body) as { links: { href: string }[] }).links.map((l) => l.href);
const lineOf = (logs: CapturedLogs, a: Answer) => logs.first((l) => l.msg === 'request' && l.requestId === a.headers['x-request-id']);
const portOf = (s: TestServer) => Number(new URL(s.base).port);

/** Every forwarded header at once, as a client (or a proxy) might send them. */
const FORGED = {
  'X-Forwarded-For': '8.8.8.8',
  Forwarded: 'for=1.2.3.4;proto=https;host=x',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'evil.example',
  'X-Forwarded-Port': '444',
  'X-Forwarded-Prefix': '/sub',
};

describe('HTTP: forwarded headers and trusted proxies', function () {
  this.timeout(60_000);

  it('refuses a server.trustedProxies value proxy-addr cannot read at start, naming the key', () => {
    for (const value of ['nope', '10.0.0.0/33', '1.2.3', 'loopback/8', '']) {
      expect(() => parseConfig({ server: { trustedProxies: ['loopback', value] } }), value).to.throw(ConfigError, /key "server\.trustedProxies\[1\]"/);
    }
    expect(parseConfig({ server: { trustedProxies: ['loopback', 'linklocal', 'uniquelocal', '10.0.0.0/8', '192.168.0.0/255.255.0.0', 'fd00::/8', '203.0.113.7'] } }).server.trustedProxies).to.have.length(7);
    expect(parseConfig({}).server.trustedProxies).to.deep.equal([]);
  });

  describe('with no trusted proxy', () => {
    let s: TestServer;
    let logs: CapturedLogs;
    before(async () => {
      logs = capturedLogs('info');
      s = await startTestServer({}, logs.logger);
    });
    after(() => s.close());

    it('ignores every forwarded header: links come from Host, the logged client is the peer', async () => {
      const res = await request(portOf(s), '/collections?f=json', FORGED);
      expect(res.status).to.equal(200);
      for (const href of hrefs(res)) expect(href.startsWith(`${s.base}/`), href).to.equal(true);
      expect(res.body).to.not.match(/evil\.example|\/sub\//);
      const line = await lineOf(logs, res);
      expect(line.client).to.equal('127.0.0.1');
      expect(line).to.not.have.property('peer');
    });

    it('ignores malformed forwarded headers too (they are nobody\'s word)', async () => {
      for (const [name, value] of FORWARDED_MALFORMED.filter(([, v]) => /^[\x20-\x7e]*$/.test(v))) {
        const res = await request(portOf(s), '/conformance?f=json', { [name]: value });
        expect(res.status, `${name}: ${value.slice(0, 60)}`).to.equal(200);
      }
    });
  });

  describe('behind a trusted proxy (loopback)', () => {
    let s: TestServer;
    let logs: CapturedLogs;
    before(async () => {
      logs = capturedLogs('info');
      s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', trustedProxies: ['loopback'] } }, logs.logger);
    });
    after(() => s.close());

    const linksBase = async (headers: Record<string, string>) => {
      const res = await request(portOf(s), '/collections?f=json', headers);
      expect(res.status, res.body).to.equal(200);
      const all = hrefs(res);
      expect(all.length).to.be.greaterThan(0);
      return all;
    };

    it('writes links with the scheme, host and path prefix of X-Forwarded-Proto, -Host and -Prefix', async () => {
      const links = await linksBase({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example', 'X-Forwarded-Prefix': '/sub' });
      for (const href of links) expect(href.startsWith('https://public.example/sub/'), href).to.equal(true);
      expect(links).to.include('https://public.example/sub/collections?f=json');
      // HTML pages link the same way.
      const html = await request(portOf(s), '/collections?f=html', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example', 'X-Forwarded-Prefix': '/sub/' });
      expect(html.body).to.contain('href="https://public.example/sub/collections');
    });

    it('writes links with the proto and host of Forwarded, which wins over the X-Forwarded-* headers', async () => {
      const links = await linksBase({ Forwarded: 'for=192.0.2.7;proto=https;host=public.example', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'other.example', 'X-Forwarded-Prefix': '/sub' });
      for (const href of links) expect(href.startsWith('https://public.example/sub/'), href).to.equal(true);
      // Only the proto of Forwarded: the host is the request's own.
      for (const href of await linksBase({ Forwarded: 'proto=https' })) expect(href.startsWith(`https://127.0.0.1:${portOf(s)}/`), href).to.equal(true);
    });

    it('writes a forwarded port unless it is the scheme\'s default', async () => {
      for (const href of await linksBase({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example', 'X-Forwarded-Port': '8443' })) expect(href.startsWith('https://public.example:8443/'), href).to.equal(true);
      for (const href of await linksBase({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example:8080', 'X-Forwarded-Port': '443' })) expect(href.startsWith('https://public.example/'), href).to.equal(true);
      for (const href of await linksBase({ Forwarded: 'proto=https;host="public.example:443"' })) expect(href.startsWith('https://public.example/'), href).to.equal(true);
    });

    it('logs the forwarded client, and the proxy as peer', async () => {
      const viaXff = await request(portOf(s), '/conformance?f=json', { 'X-Forwarded-For': '203.0.113.9' });
      expect(await lineOf(logs, viaXff)).to.include({ client: '203.0.113.9', peer: '127.0.0.1', status: 200 });
      const viaForwarded = await request(portOf(s), '/conformance?f=json', { Forwarded: 'for="[2001:db8::17]:4711"', 'X-Forwarded-For': '203.0.113.9' });
      expect(await lineOf(logs, viaForwarded), 'Forwarded wins').to.include({ client: '2001:db8::17', peer: '127.0.0.1' });
      // A trusted proxy that names no client: it is the client.
      const plain = await request(portOf(s), '/conformance?f=json');
      const line = await lineOf(logs, plain);
      expect(line.client).to.equal('127.0.0.1');
      expect(line).to.not.have.property('peer');
    });

    it('follows a chain of proxies only as far as its hops are trusted', async () => {
      // 127.0.0.2 is trusted (loopback), 203.0.113.5 is not: what it says about 198.51.100.1 is not believed.
      const xff = await request(portOf(s), '/conformance?f=json', { 'X-Forwarded-For': '198.51.100.1, 203.0.113.5, 127.0.0.2' });
      expect((await lineOf(logs, xff)).client).to.equal('203.0.113.5');
      const forwarded = 'for=198.51.100.1;proto=http;host=forged.example, for=203.0.113.5;proto=https;host=public.example, for=127.0.0.2;proto=http;host=inner.example';
      const res = await request(portOf(s), '/collections?f=json', { Forwarded: forwarded });
      expect((await lineOf(logs, res)).client).to.equal('203.0.113.5');
      // The scheme and host are those the client the walk stopped at used, as the trusted hop recorded them.
      for (const href of hrefs(res)) expect(href.startsWith('https://public.example/'), href).to.equal(true);
      // All trusted: the first address is the client.
      const all = await request(portOf(s), '/conformance?f=json', { 'X-Forwarded-For': '198.51.100.1, 127.0.0.3, 127.0.0.2' });
      expect((await lineOf(logs, all)).client).to.equal('198.51.100.1');
    });

    it(`goes back at most ${MAX_HOPS} hops (each costs an address parse; a header could list over a thousand)`, async () => {
      // Hop n (counted from the service) is 127.0.1.n, all trusted.
      const hops = Array.from({ length: 40 }, (_, i) => `127.0.1.${40 - i}`);
      const xff = await request(portOf(s), '/conformance?f=json', { 'X-Forwarded-For': ['198.51.100.1', ...hops].join(', ') });
      expect((await lineOf(logs, xff)).client).to.equal(`127.0.1.${MAX_HOPS}`);
      const forwarded = await request(portOf(s), '/conformance?f=json', { Forwarded: ['198.51.100.1', ...hops].map((a) => `for=${a}`).join(', ') });
      expect((await lineOf(logs, forwarded)).client).to.equal(`127.0.1.${MAX_HOPS}`);
    });

    it('reads list headers from the right, one value per trusted hop', async () => {
      // The proxy appended https to what the client claimed (http): the proxy's word counts.
      for (const href of await linksBase({ 'X-Forwarded-For': '203.0.113.5', 'X-Forwarded-Proto': 'http, https' })) expect(href.startsWith('https://'), href).to.equal(true);
      // Two trusted hops that both appended: the outer one saw the client's scheme.
      for (const href of await linksBase({ 'X-Forwarded-For': '203.0.113.5, 127.0.0.2', 'X-Forwarded-Proto': 'https, http' })) expect(href.startsWith('https://'), href).to.equal(true);
      // One value set for the whole chain.
      for (const href of await linksBase({ 'X-Forwarded-For': '203.0.113.5, 127.0.0.2', 'X-Forwarded-Proto': 'https' })) expect(href.startsWith('https://'), href).to.equal(true);
    });

    it('answers every malformed forwarded value with a 400 ApiError naming the header, logged with the proxy as client', async () => {
      for (const [name, value] of FORWARDED_MALFORMED) {
        const r = await send(new URL(s.base), { method: 'GET', path: '/conformance?f=json', headers: [[name, value]] }, { timeoutMs: 10_000 });
        const what = `${name}: ${value.slice(0, 60)}`;
        expect(r.response?.status, what).to.equal(400);
        const res = r.response!;
        expect(apiErrorProblem(res.status, String(res.headers['content-type']), res.body, res.bodyBytes), what).to.equal(undefined);
        const body = JSON.parse(res.body.toString()) as { message: string; hint: string };
        expect(body.message).to.equal('Malformed request');
        expect(body.hint, what).to.contain(name === 'Forwarded' ? 'Forwarded header' : name);
        const line = await logs.first((l: LogLine) => l.msg === 'request' && l.requestId === res.headers['x-request-id']);
        expect(line, what).to.include({ client: '127.0.0.1', status: 400 });
      }
      // A browser gets the same refusal as a page, whose links cannot come from the headers refused.
      for (const [name, value] of FORWARDED_MALFORMED) {
        const r = await send(new URL(s.base), { method: 'GET', path: '/conformance', headers: [[name, value], ['Accept', 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8']] }, { timeoutMs: 10_000 });
        const what = `${name}: ${value.slice(0, 60)} (HTML)`;
        expect(r.response?.status, what).to.equal(400);
        expect(String(r.response!.headers['content-type']), what).to.match(/^text\/html/);
      }
      for (const [name, value] of FORWARDED_VALID) {
        const r = await send(new URL(s.base), { method: 'GET', path: '/conformance?f=json', headers: [[name, value]] }, { timeoutMs: 10_000 });
        expect(r.response?.status, `${name}: ${value.slice(0, 60)}`).to.equal(200);
      }
    });

    it('uses server.publicBaseUrl over forwarded values, and still logs the forwarded client', async () => {
      const pub = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', trustedProxies: ['loopback'], publicBaseUrl: 'https://dggs.example.net/api' } }, logs.logger);
      try {
        const res = await request(portOf(pub), '/collections?f=json', FORGED);
        for (const href of hrefs(res)) expect(href.startsWith('https://dggs.example.net/api/'), href).to.equal(true);
        expect((await lineOf(logs, res)).client).to.equal('1.2.3.4');
      } finally {
        await pub.close();
      }
    });
  });

  describe('connection and request bounds', () => {
    const LIMITS: HttpLimits = { maxBodyBytes: 1024, maxConnections: 100, maxConnectionsPerPeer: 2, headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 10_000, idleTimeoutMs: 20_000, maxUrlBytes: 1024, maxHeaderBytes: 4096 };

    /** Our route kit with one route that holds every request until `release`. */
    async function holding(trustedProxies: string[]) {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered = 0;
      const route = defineRoute({
        method: 'get', path: '/hold', operationId: 'hold', summary: 'x', tags: [], responses: {}, query: z.object({}),
        handler: async () => {
          entered++;
          await gate;
          return json({ done: true });
        },
      });
      const { server } = createHttpServer({ logger: pino({ level: 'silent' }), limits: LIMITS, authenticate: () => {}, routes: [route], trustedProxies });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const until = async (n: number) => {
        for (let i = 0; i < 250 && entered < n; i++) await new Promise((r) => setTimeout(r, 20));
        expect(entered).to.equal(n);
      };
      return { port: server.address().port as number, until, release, close: () => new Promise<void>((r) => server.close(() => r())) };
    }

    it('many clients through a trusted proxy are not refused, though the proxy holds more connections than a peer may', async () => {
      const srv = await holding(['loopback']);
      try {
        const answers = Array.from({ length: 8 }, (_, i) => request(srv.port, '/hold', { 'X-Forwarded-For': `198.51.100.${i + 1}` }));
        await srv.until(8);
        srv.release();
        expect((await Promise.all(answers)).map((a) => a.status)).to.deep.equal(Array(8).fill(200));
      } finally {
        await srv.close();
      }
    });

    it('one client behind a trusted proxy past its bound of requests in flight gets 429 with Retry-After; others are still served', async () => {
      const srv = await holding(['loopback']);
      try {
        const held = [request(srv.port, '/hold', { 'X-Forwarded-For': '198.51.100.1' }), request(srv.port, '/hold', { Forwarded: 'for=198.51.100.1' })];
        await srv.until(2);
        const refused = await request(srv.port, '/hold', { 'X-Forwarded-For': '198.51.100.1' });
        expect(refused.status).to.equal(429);
        expect(refused.headers['retry-after']).to.equal('1');
        const body = JSON.parse(refused.body) as { code: number; message: string; hint: string };
        expect(body).to.include({ code: 429, message: 'Too many requests' });
        expect(body.hint).to.contain('server.maxConnectionsPerPeer');
        // IPv6 clients are counted per /64, as peers are.
        const v6 = [request(srv.port, '/hold', { 'X-Forwarded-For': '2001:db8:0:1::1' }), request(srv.port, '/hold', { 'X-Forwarded-For': '2001:db8:0:1::2' })];
        await srv.until(4);
        expect((await request(srv.port, '/hold', { 'X-Forwarded-For': '2001:db8:0:1::3' })).status).to.equal(429);
        const other = request(srv.port, '/hold', { 'X-Forwarded-For': '198.51.100.2' });
        await srv.until(5);
        srv.release();
        expect((await Promise.all([...held, ...v6, other])).map((a) => a.status)).to.deep.equal(Array(5).fill(200));
        // Answered requests leave the bound.
        expect((await request(srv.port, '/hold', { 'X-Forwarded-For': '198.51.100.1' })).status).to.equal(200);
      } finally {
        await srv.close();
      }
    });

    it('with no trusted proxy the per-peer connection cap holds whatever X-Forwarded-For says', async () => {
      const srv = await holding([]);
      const open = await Promise.all([idleSocket(srv.port, '127.0.0.1'), idleSocket(srv.port, '127.0.0.1')]);
      try {
        const res = await request(srv.port, '/hold', { 'X-Forwarded-For': '198.51.100.77' }, '127.0.0.1');
        expect(res.status).to.equal(429);
        expect(JSON.parse(res.body)).to.include({ code: 429, message: 'Too many connections' });
      } finally {
        for (const socket of open) socket.destroy();
        srv.release();
        await srv.close();
      }
    });
  });
});
