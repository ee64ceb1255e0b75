import { expect } from 'chai';
import pino from 'pino';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { createHttpServer } from '../../src/http/server.js';
import { defineRoute } from '../../src/http/route.js';

/** What Chromium and Firefox send when a page is opened. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const varyOf = (a: Answer) => (a.headers.get('vary') ?? '').split(/\s*,\s*/).filter(Boolean);
const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];

/** An HTML error page: its status first in the title and the heading, its message, hint and way home; HTML-escaped. */
function expectPage(a: Answer, status: number, message: string, hint: RegExp | undefined, home: string) {
  expect(a.status, a.text.slice(0, 300)).to.equal(status);
  expect(a.headers.get('content-type')).to.equal('text/html; charset=utf-8');
  expect(titleOf(a.text)).to.equal(`${status} ${message} · dggs-api`);
  expect(a.text).to.include(`<h1>${status} ${message}</h1>`);
  if (hint) expect(a.text).to.match(hint);
  expect(a.text).to.include(`<a href="${home}">Home</a>`);
  expect(varyOf(a)).to.include('Accept');
}

function expectJson(a: Answer, status: number) {
  expect(a.status).to.equal(status);
  expect(a.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  const body = JSON.parse(a.text) as { code: number; message: string };
  expect(body.code).to.equal(status);
  expect(Object.keys(body).every((k) => ['code', 'message', 'hint'].includes(k))).to.equal(true);
  expect(varyOf(a)).to.include('Accept');
}

describe('HTTP: errors in browsers (HTML error pages) and for programs (ApiError)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let home: string;
  before(async () => {
    s = await startTestServer();
    home = `${s.base}/`;
  });
  after(() => s.close());

  const ask = async (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> => {
    const res = await fetch(s.base + path, { method, headers });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  it('an unknown route: a page for a browser, the ApiError for anyone else', async () => {
    expectPage(await ask('/no/such/route', { Accept: BROWSER }), 404, 'Not found', /See the landing page/, home);
    for (const accept of [undefined, '*/*', 'application/json', 'application/geo+json', 'text/html;q=0.5, application/json']) {
      expectJson(await ask('/no/such/route', accept ? { Accept: accept } : {}), 404);
    }
    expectPage(await ask('/no/such/route?f=html'), 404, 'Not found', undefined, home);
  });

  it('405, 400, 422, 401 and 406 as pages, keeping the headers of each', async () => {
    const wrongMethod = await ask('/collections', { Accept: BROWSER }, 'PUT');
    expectPage(wrongMethod, 405, 'Method not allowed', /PUT is not allowed/, home);
    expect(wrongMethod.headers.get('allow')).to.equal('GET, HEAD');

    expectPage(await ask('/collections/demo-stations/items?limit=abc', { Accept: BROWSER }), 400, 'Invalid query parameter', /query parameter &quot;limit&quot;: must be an integer/, home);
    expectPage(await ask('/dggs/IVEA7H/zones?zone-level=abc&f=html'), 422, 'Invalid query parameter', /zone-level/, home);

    const unauthenticated = await ask('/orders', { Accept: BROWSER });
    expectPage(unauthenticated, 401, 'Missing or invalid bearer token', undefined, home);
    expect(unauthenticated.headers.get('www-authenticate')).to.match(/^Bearer /);

    // An `f` naming no format: the browser that typed it still gets a page; a program gets JSON.
    expectPage(await ask('/collections?f=nonsense', { Accept: BROWSER }), 406, 'Requested format is not supported', /Use f= one of/, home);
    expectJson(await ask('/collections?f=nonsense'), 406);
  });

  it('an `f` naming another format wins over a browser\'s Accept, as it does on routes', async () => {
    expectJson(await ask('/dggs/IVEA7H/zones?zone-level=abc&f=json', { Accept: BROWSER }), 422);
    expectJson(await ask('/dggs/IVEA7H/zones?zone-level=abc&f=geo%2Bjson', { Accept: BROWSER }), 422);
  });

  it('escapes what the request put in the message or hint', async () => {
    const page = await ask('/collections/%3Cscript%3Ealert(1)%3C%2Fscript%3E', { Accept: BROWSER });
    expectPage(page, 404, 'Collection not found', /No collection &quot;&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;/, home);
    expect(page.text).to.not.include('<script>alert');
  });

  it('HEAD: the page\'s headers without its body', async () => {
    const res = await fetch(`${s.base}/no/such/route`, { method: 'HEAD', headers: { Accept: BROWSER } });
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).to.be.greaterThan(500);
    expect(await res.text()).to.equal('');
  });

  it('a 500: the page names the request id under which the failure was logged', async () => {
    const faulty = defineRoute({
      method: 'get',
      path: '/faulty',
      operationId: 'faulty',
      summary: 'fails',
      tags: [],
      responses: {},
      handler: async () => {
        throw new Error('a fault inside the service, with /secret/paths');
      },
    });
    const limits = { maxBodyBytes: 1024, maxConnections: 100, maxConnectionsPerPeer: 100, headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 10_000, idleTimeoutMs: 20_000, maxUrlBytes: 1024, maxHeaderBytes: 4096 };
    const { server } = createHttpServer({ logger: pino({ level: 'silent' }), limits, authenticate: () => {}, routes: [faulty] });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${server.address().port}`;
      const res = await fetch(`${base}/faulty`, { headers: { Accept: BROWSER } });
      const page: Answer = { status: res.status, headers: res.headers, text: await res.text() };
      expectPage(page, 500, 'Internal server error', /X-Request-Id/, `${base}/`);
      const id = res.headers.get('x-request-id')!;
      expect(page.text).to.include(`Request id <code>${id}</code>`);
      expect(page.text).to.not.include('/secret/paths');
      const json = await fetch(`${base}/faulty`);
      expectJson({ status: json.status, headers: json.headers, text: await json.text() }, 500);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
