import { expect } from 'chai';
import zlib from 'node:zlib';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { rawExchange } from './http-basics-raw-client.js';

const TOKEN = 'http-basics-body-token-0123456789';
const MAX_BODY = 1_048_576;

/** Request bodies: content codings decoded with a bound on the decoded size, auth before reading. */
describe('HTTP basics: request bodies', function () {
  this.timeout(60_000);
  let s: TestServer;
  let port: number;
  before(async () => {
    s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', admin: { port: 0 } }, auth: { tokenSha256: [sha256Hex(TOKEN)] } });
    port = Number(new URL(s.base).port);
  });
  after(() => s.close());

  const auth = { Authorization: `Bearer ${TOKEN}` };
  const postOrder = (body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${s.base}/orders`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
  const apiError = async (res: Response, status: number, message?: string) => {
    const body = (await res.json()) as { code: number; message: string; hint?: string };
    expect(res.status, JSON.stringify(body)).to.equal(status);
    expect(body.code).to.equal(status);
    if (message) expect(body.message).to.equal(message);
    return body;
  };
  const alive = async () => expect((await s.get('/conformance')).status).to.equal(200);
  /** A body that reached the order schema: proves it was decoded and parsed. */
  const unknownCollection = JSON.stringify({ collection: 'no-such-collection', zones: ['x'] });

  it('decodes gzip, x-gzip, deflate and br bodies, and identity', async () => {
    const encoded: [string, Buffer][] = [
      ['gzip', zlib.gzipSync(unknownCollection)],
      ['x-gzip', zlib.gzipSync(unknownCollection)],
      ['deflate', zlib.deflateSync(unknownCollection)],
      ['br', zlib.brotliCompressSync(unknownCollection)],
      ['identity', Buffer.from(unknownCollection)],
      ['GZIP, identity', zlib.gzipSync(unknownCollection)],
    ];
    for (const [coding, body] of encoded) {
      const res = await postOrder(body, { ...auth, 'Content-Encoding': coding });
      // 422: the decoded JSON reached the order schema (a decoding failure is 400, a refused coding 415)
      await apiError(res, 422);
    }
  });

  it('answers a corrupt compressed body with 400 ApiError, after authentication, and keeps serving', async () => {
    for (const coding of ['gzip', 'deflate', 'br']) {
      const unauthenticated = await postOrder(Buffer.from('this is not compressed'), { 'Content-Encoding': coding });
      await apiError(unauthenticated, 401);
      const corrupt = await postOrder(Buffer.from('this is not compressed'), { ...auth, 'Content-Encoding': coding });
      const err = await apiError(corrupt, 400, 'Invalid request body');
      expect(err.hint).to.contain(coding);
      const truncated = await postOrder(zlib.gzipSync(unknownCollection).subarray(0, 20), { ...auth, 'Content-Encoding': 'gzip' });
      await apiError(truncated, 400, 'Invalid request body');
    }
    await alive();
  });

  it('bounds the decoded size: a 300 KB gzip bomb is 413 naming the bound, without growing memory', async () => {
    // gzip members concatenate: 300 members of 1 MiB of spaces each, about 300 KB in all
    const member = zlib.gzipSync(Buffer.alloc(1024 * 1024, 0x20), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 300 }, () => member));
    expect(bomb.length).to.be.within(250_000, 400_000);
    expect(zlib.gunzipSync(bomb.subarray(0, member.length * 3)).length).to.equal(3 * 1024 * 1024);
    global.gc?.();
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => postOrder(bomb, { ...auth, 'Content-Encoding': 'gzip' })));
    const ms = Date.now() - started;
    const grown = process.memoryUsage().rss - before;
    for (const res of results) {
      const err = await apiError(res, 413, 'Request body too large');
      expect(err.hint).to.contain(String(MAX_BODY)).and.to.contain('after decoding');
    }
    // four bombs in parallel would be 1.2 GB inflated; bounded decoding keeps it to a few MB each
    expect(grown, `RSS grew ${(grown / 1e6).toFixed(1)} MB`).to.be.below(64 * 1024 * 1024);
    expect(ms).to.be.below(5000);
    await alive();
  });

  it('refuses a body over the bound with 413 before reading it (declared length) and while reading it (chunked)', async () => {
    const declared = await rawExchange(port, `POST /orders HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY + 1}\r\n\r\n`);
    expect(declared.status).to.equal(413);
    expect(declared.headers.connection).to.equal('close');
    expect(JSON.parse(declared.body).hint).to.contain(String(MAX_BODY));
    const chunk = Buffer.alloc(64 * 1024, 0x20).toString('latin1');
    const chunked = await rawExchange(port, `POST /orders HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, {
      more: Array.from({ length: 40 }, () => `${(64 * 1024).toString(16)}\r\n${chunk}\r\n`),
      gapMs: 1,
    });
    expect(chunked.status).to.equal(413);
    expect(JSON.parse(chunked.body).code).to.equal(413);
    await alive();
  });

  it('authenticates before reading: an unauthenticated POST is answered without its body being sent', async () => {
    // the headers announce 1 MB that never comes: the 401 must not wait for it
    const res = await rawExchange(port, 'POST /orders HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 1000000\r\n\r\n', { timeoutMs: 3000 });
    expect(res.status).to.equal(401);
    expect(res.headers.connection).to.equal('close');
    expect(res.headers['www-authenticate']).to.equal('Bearer realm="dggs-api"');
  });

  it('sends 100 Continue only once the body may come (after auth), and 417 ApiError for other expectations', async () => {
    const head = (authz: string) => `POST /orders HTTP/1.1\r\nHost: a\r\n${authz}Content-Type: application/json\r\nContent-Length: ${unknownCollection.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const refused = await rawExchange(port, head(''), { timeoutMs: 3000 });
    expect(refused.raw).to.not.contain('100 Continue');
    expect(refused.status).to.equal(401);
    const allowed = await rawExchange(port, head(`Authorization: Bearer ${TOKEN}\r\n`), { more: [unknownCollection], gapMs: 200, timeoutMs: 3000 });
    expect(allowed.raw).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 422 /);
    const other = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
    expect(other.status).to.equal(417);
    expect(JSON.parse(other.body)).to.include({ code: 417, message: 'Expectation failed' });
  });

  it('answers 415 for content codings and media types it does not read', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'Content-Encoding': 'compress' }, /gzip, x-gzip, deflate, br/],
      [{ 'Content-Encoding': 'gzip, br' }, /one coding/],
      [{ 'Content-Type': 'text/plain' }, /application\/json/],
      [{ 'Content-Type': 'application/x-www-form-urlencoded' }, /application\/json/],
      [{ 'Content-Type': 'application/json; charset=latin1' }, /UTF-8/],
    ];
    for (const [headers, hint] of cases) {
      const res = await postOrder(Buffer.from(unknownCollection), { ...auth, ...headers });
      const codingRefused = headers['Content-Encoding'] !== undefined;
      expect(res.headers.get('accept-encoding'), JSON.stringify(headers)).to.equal(codingRefused ? 'gzip, x-gzip, deflate, br' : null);
      const err = await apiError(res, 415, 'Unsupported media type');
      expect(err.hint, JSON.stringify(headers)).to.match(hint);
    }
    const untyped = await fetch(`${s.base}/orders`, { method: 'POST', headers: auth, body: new Uint8Array(Buffer.from(unknownCollection)) });
    await apiError(untyped, 415);
    const vendorJson = await postOrder(unknownCollection, { ...auth, 'Content-Type': 'application/vnd.example+json; charset=UTF-8' });
    await apiError(vendorJson, 422);
  });

  it('answers bad UTF-8, bad JSON, deep nesting and an empty body with 4xx ApiErrors, never 500', async () => {
    await apiError(await postOrder(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), auth), 400, 'Invalid request body');
    await apiError(await postOrder('{"collection":', auth), 400, 'Invalid request body');
    const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    const deepRes = await postOrder(deep, auth);
    expect(deepRes.status).to.be.within(400, 499);
    expect(((await deepRes.json()) as { code: number }).code).to.equal(deepRes.status);
    const empty = await postOrder('', auth);
    expect(empty.status).to.be.within(400, 499);
    await alive();
  });

  it('POST /admin/initialize (admin listener) works with no body and no Content-Type, and ignores a body it does not take', async () => {
    const bare = await rawExchange(Number(new URL(s.admin!).port), 'POST /admin/initialize HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(bare.status).to.equal(200);
    expect(JSON.parse(bare.body).initialized).to.equal(true);
    const noLength = await fetch(`${s.admin}/admin/initialize`, { method: 'POST' });
    expect(noLength.status).to.equal(200);
    const withJson = await fetch(`${s.admin}/admin/migrate`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(withJson.status).to.equal(200);
  });
});
