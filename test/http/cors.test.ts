import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { loadConfig } from '../../src/app/config/load-config.js';
import { configSchema } from '../../src/app/config/config-schema.js';

const TOKEN = 'cors-test-token-0123456789';
const MAPS = 'http://maps.example';
const APP = 'https://app.example:8443';
const OTHER = 'https://evil.example';

/** One request over node:http, the target sent exactly as written (no normalising of dot segments or escapes). */
function raw(port: number, method: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject)
      .end();
  });
}

const preflight = (port: number, target: string, origin: string, method: string, requestHeaders?: string) =>
  raw(port, 'OPTIONS', target, { Origin: origin, 'Access-Control-Request-Method': method, ...(requestHeaders ? { 'Access-Control-Request-Headers': requestHeaders } : {}) });

const list = (value: string | string[] | undefined) => String(value ?? '').split(/\s*,\s*/).filter(Boolean);
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers', 'access-control-max-age'];
const expectNoCors = (headers: http.IncomingHttpHeaders, what: string) => {
  for (const h of CORS_HEADERS) expect(headers[h], `${what}: ${h}`).to.equal(undefined);
};

describe('HTTP: CORS', function () {
  this.timeout(60_000);

  describe('any origin on the public routes (the demo config: origins ["*"])', () => {
    let s: TestServer;
    let port: number;
    before(async () => {
      s = await startTestServer({ auth: { tokenSha256: [sha256Hex(TOKEN)] } });
      port = Number(new URL(s.base).port);
    });
    after(() => s.close());

    it('answers every origin with *, on successes and errors alike, and exposes the headers clients read', async () => {
      for (const [target, status] of [['/collections', 200], ['/dggs/IVEA7H/zones?zone-level=2&limit=5', 200], ['/no/such/route', 404], ['/dggs/IVEA7H/zones?zone-level=abc', 422]] as const) {
        const res = await raw(port, 'GET', target, { Origin: OTHER });
        expect(res.status, target).to.equal(status);
        expect(res.headers['access-control-allow-origin'], target).to.equal('*');
        expect(list(res.headers['access-control-expose-headers']), target).to.include.members(['OGC-Zones-Total', 'Link', 'X-Request-Id', 'Values-Scale', 'Values-Offset', 'ETag', 'Content-Disposition', 'Retry-After']);
        // The same answer for every origin: nothing to vary on.
        expect(list(res.headers.vary), target).to.not.include('Origin');
        expect(res.headers['access-control-allow-credentials'], target).to.equal(undefined);
      }
      const zones = await raw(port, 'GET', '/dggs/IVEA7H/zones?zone-level=2&limit=5', { Origin: OTHER });
      expect(zones.headers['ogc-zones-total']).to.match(/^\d+$/);
    });

    it('answers a preflight on any route path (204, the path\'s methods) where restify alone would say 405', async () => {
      const res = await preflight(port, '/collections/demo-stations/dggs/IVEA7H/zones?zone-level=3', OTHER, 'GET', 'if-none-match');
      expect(res.status).to.equal(204);
      expect(res.headers['access-control-allow-origin']).to.equal('*');
      expect(list(res.headers['access-control-allow-methods'])).to.have.members(['GET', 'HEAD']);
      expect(list(res.headers['access-control-allow-headers'])).to.include.members(['Accept', 'If-None-Match', 'Range']);
      expect(res.headers['access-control-max-age']).to.equal('600');
      expect(res.body).to.equal('');
      // Without Origin and Access-Control-Request-Method, OPTIONS is no preflight: 405 as before, readable cross-origin.
      const plain = await raw(port, 'OPTIONS', '/collections', { Origin: OTHER });
      expect(plain.status).to.equal(405);
      expect(plain.headers['access-control-allow-origin']).to.equal('*');
      expect(JSON.parse(plain.body)).to.include({ code: 405 });
      // A path no route serves is 404 whatever the method.
      expect((await preflight(port, '/no/such/route', OTHER, 'GET')).status).to.equal(404);
    });

    it('keeps the secured routes closed to every origin when securedOrigins is empty, "*" notwithstanding', async () => {
      const res = await preflight(port, '/orders', OTHER, 'POST', 'authorization,content-type');
      expect(res.status).to.equal(405);
      expectNoCors(res.headers, 'preflight of POST /orders');
      const get = await raw(port, 'GET', '/orders', { Origin: OTHER, Authorization: `Bearer ${TOKEN}` });
      expect(get.status).to.equal(200);
      expect(get.headers['access-control-allow-origin']).to.equal(undefined);
      expect(list(get.headers.vary)).to.include('Origin');
    });
  });

  describe('listed origins, and securedOrigins on the secured routes', () => {
    let s: TestServer;
    let port: number;
    before(async () => {
      s = await startTestServer({
        server: { host: '127.0.0.1', port: 0, logLevel: 'silent', cors: { origins: [MAPS], securedOrigins: [APP], maxAgeSeconds: 120 } },
        auth: { tokenSha256: [sha256Hex(TOKEN)] },
      });
      port = Number(new URL(s.base).port);
    });
    after(() => s.close());

    it('names an allowed origin itself and varies on Origin; a refused origin gets no CORS header', async () => {
      for (const origin of [MAPS, APP]) {
        const res = await raw(port, 'GET', '/collections', { Origin: origin });
        expect(res.headers['access-control-allow-origin'], origin).to.equal(origin);
        expect(list(res.headers.vary), origin).to.include.members(['Origin', 'Accept']);
      }
      for (const headers of [{ Origin: OTHER }, { Origin: 'null' }, { Origin: `${MAPS}:80` }, {}] as Record<string, string>[]) {
        const res = await raw(port, 'GET', '/collections', headers);
        expect(res.status).to.equal(200);
        expect(res.headers['access-control-allow-origin'], JSON.stringify(headers)).to.equal(undefined);
        expect(list(res.headers.vary), JSON.stringify(headers)).to.include('Origin');
      }
      const notFound = await raw(port, 'GET', '/no/such/route', { Origin: MAPS });
      expect(notFound.status).to.equal(404);
      expect(notFound.headers['access-control-allow-origin']).to.equal(MAPS);
    });

    it('a refused origin\'s preflight carries no CORS header, so the browser blocks the request', async () => {
      const res = await preflight(port, '/collections', OTHER, 'GET');
      expectNoCors(res.headers, 'refused preflight');
      expect(res.status).to.equal(405);
      const allowed = await preflight(port, '/collections', MAPS, 'GET');
      expect(allowed.status).to.equal(204);
      expect(allowed.headers['access-control-allow-origin']).to.equal(MAPS);
      expect(allowed.headers['access-control-max-age']).to.equal('120');
      expect(list(allowed.headers.vary)).to.include('Origin');
    });

    it('secured routes accept securedOrigins only, with Authorization and Content-Type, and their 401 is readable', async () => {
      const ok = await preflight(port, '/orders', APP, 'POST', 'authorization,content-type');
      expect(ok.status).to.equal(204);
      expect(ok.headers['access-control-allow-origin']).to.equal(APP);
      expect(list(ok.headers['access-control-allow-methods'])).to.have.members(['GET', 'HEAD', 'POST']);
      expect(list(ok.headers['access-control-allow-headers'])).to.include.members(['Authorization', 'Content-Type']);

      // An origin allowed on the public routes only.
      const refused = await preflight(port, '/orders', MAPS, 'POST', 'authorization,content-type');
      expectNoCors(refused.headers, 'preflight of POST /orders from a public origin');
      const read = await raw(port, 'GET', '/orders', { Origin: MAPS, Authorization: `Bearer ${TOKEN}` });
      expect(read.status).to.equal(200);
      expect(read.headers['access-control-allow-origin']).to.equal(undefined);

      const unauthenticated = await raw(port, 'GET', '/orders', { Origin: APP });
      expect(unauthenticated.status).to.equal(401);
      expect(unauthenticated.headers['access-control-allow-origin']).to.equal(APP);
      expect(list(unauthenticated.headers['access-control-expose-headers'])).to.include('WWW-Authenticate');
      const listed = await raw(port, 'GET', '/orders', { Origin: APP, Authorization: `Bearer ${TOKEN}` });
      expect(listed.status).to.equal(200);
      expect(listed.headers['access-control-allow-origin']).to.equal(APP);
      // The public routes' headers only, on a public route.
      const publicPreflight = await preflight(port, '/collections', APP, 'GET', 'authorization');
      expect(list(publicPreflight.headers['access-control-allow-headers'])).to.not.include('Authorization');
    });

    it('decides by the route restify reaches, however the path is spelled', async () => {
      for (const target of ['/orders', '/%6Frders', '/collections/../orders', '/collections/%2e%2e/orders', '/orders/']) {
        const read = await raw(port, 'GET', target, { Origin: MAPS, Authorization: `Bearer ${TOKEN}` });
        expect(read.status, target).to.equal(200);
        expect(read.headers['access-control-allow-origin'], target).to.equal(undefined);
        const pre = await preflight(port, target, MAPS, 'POST', 'authorization');
        expectNoCors(pre.headers, `preflight of POST ${target}`);
      }
    });

    it('a request refused before routing (414) is still readable by an allowed origin', async () => {
      const res = await raw(port, 'GET', `/collections?x=${'a'.repeat(20_000)}`, { Origin: MAPS });
      expect(res.status).to.equal(414);
      expect(res.headers['access-control-allow-origin']).to.equal(MAPS);
    });
  });

  describe('config', () => {
    const load = (cors: object) => loadConfig({ DGGS_CONFIG: path.join(REPO_ROOT, 'config/default.json') }, { server: { cors } });

    it('takes origins as browsers send them, and "*" for the public routes only', () => {
      const config = load({ origins: ['*', 'http://localhost:5173', 'https://[::1]:8443'], securedOrigins: ['https://app.example'] });
      expect(config.server.cors).to.deep.equal({ origins: ['*', 'http://localhost:5173', 'https://[::1]:8443'], securedOrigins: ['https://app.example'], maxAgeSeconds: 600 });
      // Left out: no cross-origin reads at all.
      expect(configSchema.parse({}).server.cors).to.deep.equal({ origins: [], securedOrigins: [], maxAgeSeconds: 600 });
    });

    it('refuses what no browser sends as an origin, naming the key', () => {
      for (const [cors, key] of [
        [{ origins: ['https://maps.example/'] }, 'server.cors.origins'],
        [{ origins: ['https://Maps.example'] }, 'server.cors.origins'],
        [{ origins: ['https://maps.example:443'] }, 'server.cors.origins'],
        [{ origins: ['maps.example'] }, 'server.cors.origins'],
        [{ origins: ['https://maps.example/app'] }, 'server.cors.origins'],
        [{ securedOrigins: ['*'] }, 'server.cors.securedOrigins'],
      ] as const) {
        expect(() => load(cors), JSON.stringify(cors)).to.throw(new RegExp(key.replace(/\./g, '\\.')));
      }
    });
  });
});
