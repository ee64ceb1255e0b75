import { expect } from 'chai';
import net from 'node:net';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturedLogs, type CapturedLogs, type LogLine } from '../support/captured-logs.js';
import { createHttpServer, type HttpLimits } from '../../src/http/server.js';
import { defineRoute, type AnyRoute } from '../../src/http/route.js';
import { idleSocket, rawExchange } from './http-basics-raw-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const requestLines = (logs: CapturedLogs, requestId: string) => logs.lines.filter((l) => l.msg === 'request' && l.requestId === requestId);

/**
 * The line of the request with this id, once the response has ended; then, after a later request
 * on a fresh connection has been logged too, that it is the only one.
 */
async function onlyLineOf(logs: CapturedLogs, port: number, requestId: string): Promise<LogLine> {
  const line = await logs.first((l) => l.msg === 'request' && l.requestId === requestId);
  const barrier = `barrier-${requestId.slice(0, 40)}`;
  await rawExchange(port, `GET /conformance HTTP/1.1\r\nHost: a\r\nX-Request-Id: ${barrier}\r\nConnection: close\r\n\r\n`);
  await logs.first((l) => l.msg === 'request' && l.requestId === barrier);
  expect(requestLines(logs, requestId), 'one line per request').to.have.length(1);
  return line;
}

function expectTimes(line: LogLine) {
  expect(line.ttfbMs).to.be.a('number').at.least(0);
  expect(line.totalMs).to.be.a('number').at.least(line.ttfbMs);
}

const LIMITS: HttpLimits = { maxBodyBytes: 1024, maxConnections: 100, maxConnectionsPerPeer: 100, headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 10_000, idleTimeoutMs: 20_000, maxUrlBytes: 1024, maxHeaderBytes: 4096 };

/** Our route kit on loopback with routes of its own, logging into `logs`. */
async function listen(logs: CapturedLogs, routes: AnyRoute[], limits: Partial<HttpLimits> = {}) {
  const { server } = createHttpServer({ logger: logs.logger, limits: { ...LIMITS, ...limits }, authenticate: () => {}, routes });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port as number, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('request log', function () {
  this.timeout(30_000);

  describe('on the service', () => {
    let s: TestServer;
    let logs: CapturedLogs;
    let port: number;
    before(async () => {
      logs = capturedLogs('info');
      s = await startTestServer({}, logs.logger);
      port = Number(new URL(s.base).port);
    });
    after(async () => s.close());

    it('logs a routed answer once with its route template, and gives it an id', async () => {
      const res = await s.get('/dggs/IVEA7H/zones/F4-120-B?f=json', { 'Accept-Encoding': 'gzip' });
      await res.arrayBuffer();
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-encoding')).to.equal('gzip');
      const id = res.headers.get('x-request-id')!;
      expect(id).to.match(UUID);
      const line = await onlyLineOf(logs, port, id);
      // The bytes sent, compressed as they went (fetch hands the test the decoded body).
      expect(line).to.include({ level: 30, client: '127.0.0.1', method: 'GET', route: '/dggs/{dggrs_id}/zones/{zone_id}', url: '/dggs/IVEA7H/zones/F4-120-B?f=json', status: 200, bytes: Number(res.headers.get('content-length')), clientGone: false });
      expectTimes(line);
    });

    it('logs an unknown route (404) once, with no route template', async () => {
      const res = await s.get('/no/such/thing');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.status).to.equal(404);
      const id = res.headers.get('x-request-id')!;
      expect(id).to.match(UUID);
      const line = await onlyLineOf(logs, port, id);
      expect(line).to.include({ client: '127.0.0.1', method: 'GET', route: null, url: '/no/such/thing', status: 404, bytes: body.length, clientGone: false });
      expect(body.length).to.be.greaterThan(0);
      expectTimes(line);
    });

    it('logs a wrong method (405) once', async () => {
      const res = await fetch(`${s.base}/collections`, { method: 'DELETE' });
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.status).to.equal(405);
      const id = res.headers.get('x-request-id')!;
      expect(id).to.match(UUID);
      const line = await onlyLineOf(logs, port, id);
      expect(line).to.include({ method: 'DELETE', route: null, url: '/collections', status: 405, bytes: body.length, client: '127.0.0.1' });
      expectTimes(line);
    });

    it('logs a bad Host (400 before restify sees the request) once, with the id in the answer', async () => {
      const res = await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: bad host!\r\nConnection: close\r\n\r\n');
      expect(res.status).to.equal(400);
      const id = res.headers['x-request-id']!;
      expect(id).to.match(UUID);
      const line = await onlyLineOf(logs, port, id);
      expect(line).to.include({ client: '127.0.0.1', method: 'GET', route: null, url: '/conformance', status: 400, bytes: Buffer.byteLength(res.body), clientGone: false });
      expectTimes(line);
    });

    it('logs a request the HTTP parser refuses (written straight to the socket) once, with the id in the answer', async () => {
      const res = await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n');
      expect(res.status).to.equal(400);
      const id = res.headers['x-request-id']!;
      expect(id).to.match(UUID);
      const line = await onlyLineOf(logs, port, id);
      expect(line).to.include({ client: '127.0.0.1', method: null, route: null, url: null, status: 400, bytes: Buffer.byteLength(res.body), clientGone: false });
      expectTimes(line);
    });

    it('keeps a sane incoming X-Request-Id: echoed and logged', async () => {
      const res = await s.get('/conformance', { 'X-Request-Id': 'lb-7f3a.42_x~1' });
      await res.arrayBuffer();
      expect(res.headers.get('x-request-id')).to.equal('lb-7f3a.42_x~1');
      const line = await onlyLineOf(logs, port, 'lb-7f3a.42_x~1');
      expect(line).to.include({ route: '/conformance', status: 200 });
    });

    it('replaces an incoming X-Request-Id that is too long or not a token with a fresh one', async () => {
      for (const sent of ['a'.repeat(129), 'two words', 'é-accent', 'a:b']) {
        const res = await s.get('/conformance', { 'X-Request-Id': sent });
        await res.arrayBuffer();
        const id = res.headers.get('x-request-id')!;
        expect(id, sent).to.match(UUID);
        await logs.first((l) => l.msg === 'request' && l.requestId === id);
        expect(logs.lines.filter((l) => l.requestId === sent)).to.have.length(0);
      }
    });
  });

  describe('on streamed answers', () => {
    const CHUNK = Buffer.alloc(64 * 1024, 'x');
    const GAP_MS = 100;
    let logs: CapturedLogs;
    let port: number;
    let close: () => Promise<void>;

    /** `count` chunks, each after a pause; `failAt` makes the read fail there instead. */
    const slow = (count: number, failAt?: number) =>
      Readable.from(
        (async function* () {
          for (let i = 0; i < count; i++) {
            if (i > 0) await sleep(GAP_MS);
            if (i === failAt) throw new Error('the source failed mid-answer');
            yield CHUNK;
          }
        })(),
      );
    const routes: AnyRoute[] = [
      defineRoute({
        method: 'get',
        path: '/slow/{chunks}',
        operationId: 'slow',
        summary: 'slow',
        tags: [],
        params: z.object({ chunks: z.coerce.number().int() }),
        responses: {},
        handler: async ({ params }) => ({ contentType: 'application/octet-stream', body: slow(params.chunks) }),
      }),
      defineRoute({
        method: 'get',
        path: '/broken',
        operationId: 'broken',
        summary: 'broken',
        tags: [],
        responses: {},
        handler: async () => ({ contentType: 'application/octet-stream', body: slow(3, 2) }),
      }),
      defineRoute({
        method: 'get',
        path: '/faulty',
        operationId: 'faulty',
        summary: 'faulty',
        tags: [],
        responses: {},
        handler: async () => {
          throw new Error('a fault inside the service');
        },
      }),
    ];

    before(async () => {
      logs = capturedLogs('info');
      ({ port, close } = await listen(logs, routes));
    });
    after(async () => close());

    it('logs the time to the last byte, not the first, and the body bytes the client received', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/slow/4`);
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.length).to.equal(4 * CHUNK.length);
      const line = await onlyLineOf(logs, port, res.headers.get('x-request-id')!);
      expect(line).to.include({ route: '/slow/{chunks}', status: 200, bytes: body.length, clientGone: false });
      expectTimes(line);
      // Three pauses lie between the first byte and the last.
      expect(line.totalMs - line.ttfbMs).to.be.at.least(3 * GAP_MS * 0.9);
    });

    it('logs no body bytes for HEAD, whose answer has none', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/slow/2`, { method: 'HEAD' });
      const line = await onlyLineOf(logs, port, res.headers.get('x-request-id')!);
      expect(line).to.include({ method: 'HEAD', status: 200, bytes: 0, clientGone: false });
    });

    it('logs a client that left mid-answer as gone, with what was written until then', async () => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.write('GET /slow/1000 HTTP/1.1\r\nHost: a\r\nX-Request-Id: leaves-early\r\n\r\n');
      let received = 0;
      await new Promise<void>((resolve) =>
        socket.on('data', (d: Buffer) => {
          received += d.length;
          if (received > CHUNK.length) resolve();
        }),
      );
      socket.destroy();
      const line = await onlyLineOf(logs, port, 'leaves-early');
      expect(line).to.include({ route: '/slow/{chunks}', status: 200, clientGone: true });
      expect(line.bytes).to.be.at.least(CHUNK.length).and.below(1000 * CHUNK.length);
      expectTimes(line);
    });

    it('logs a 500 under the id its answer carries, so a reported id finds the failure', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/faulty`);
      const id = res.headers.get('x-request-id')!;
      expect(res.status).to.equal(500);
      expect(((await res.json()) as { hint: string }).hint).to.include('X-Request-Id');
      const failure = await logs.first((l) => l.msg === 'request failed' && l.requestId === id);
      expect(failure.err.message).to.equal('a fault inside the service');
      expect(await onlyLineOf(logs, port, id)).to.include({ route: '/faulty', status: 500 });
    });

    it('logs an answer the server had to cut short as cut, not as a client that left', async () => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.write('GET /broken HTTP/1.1\r\nHost: a\r\nX-Request-Id: cut-short\r\nConnection: close\r\n\r\n');
      socket.on('data', () => {});
      socket.on('error', () => {});
      const line = await onlyLineOf(logs, port, 'cut-short');
      socket.destroy();
      expect(line).to.include({ route: '/broken', status: 200, clientGone: false, cut: true, bytes: 2 * CHUNK.length });
    });
  });

  describe('on refusals', () => {
    let logs: CapturedLogs;
    let port: number;
    let close: () => Promise<void>;
    const echo = defineRoute({
      method: 'post',
      path: '/echo',
      operationId: 'echo',
      summary: 'echo',
      tags: [],
      body: z.object({}).passthrough(),
      responses: {},
      handler: async ({ body }) => ({ contentType: 'application/json', body }),
    });
    before(async () => {
      logs = capturedLogs('info');
      ({ port, close } = await listen(logs, [echo], { maxUrlBytes: 200, maxHeaderBytes: 400, maxBodyBytes: 16, maxConnectionsPerPeer: 2, headersTimeoutMs: 1000, requestTimeoutMs: 1000 }));
    });
    after(async () => close());

    const cases: [string, string, Record<string, unknown>][] = [
      ['a too long target (414, from the request-target check)', `GET /${'a'.repeat(300)} HTTP/1.1\r\nHost: a\r\nX-Request-Id: r414\r\nConnection: close\r\n\r\n`, { status: 414, method: 'GET', route: null }],
      ['headers past the parser bound (431, answered on the socket)', `GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ${'p'.repeat(800)}\r\n\r\n`, { status: 431, method: null, route: null }],
      ['a body over the limit (413, from a route)', `POST /echo HTTP/1.1\r\nHost: a\r\nX-Request-Id: r413\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{"a":"${'b'.repeat(32)}"}`, { status: 413, method: 'POST', route: '/echo' }],
      ['CONNECT (405, answered on the socket)', 'CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\nX-Request-Id: r405\r\n\r\n', { status: 405, method: 'CONNECT', url: 'example.org:443', route: null }],
    ];
    for (const [what, request, expected] of cases) {
      it(`logs ${what} once, with the id in the answer`, async () => {
        const res = await rawExchange(port, request);
        expect(res.status).to.equal(expected.status);
        const id = res.headers['x-request-id']!;
        expect(id).to.be.a('string');
        const line = await onlyLineOf(logs, port, id);
        expect(line).to.include({ ...expected, client: '127.0.0.1', bytes: Buffer.byteLength(res.body), clientGone: false });
        expectTimes(line);
      });
    }

    it('logs a body that times out (408, answered on the socket) once, under the id and route of its request', async () => {
      const res = await rawExchange(port, 'POST /echo HTTP/1.1\r\nHost: a\r\nX-Request-Id: slow-body\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a');
      expect(res.status).to.equal(408);
      expect(res.headers['x-request-id']).to.equal('slow-body');
      const line = await onlyLineOf(logs, port, 'slow-body');
      expect(line).to.include({ status: 408, method: 'POST', route: '/echo', url: '/echo', client: '127.0.0.1', bytes: Buffer.byteLength(res.body), clientGone: false });
      expectTimes(line);
    });

    it('logs a connection refused at the per-peer cap (429), with the id in the answer', async () => {
      const held = [await idleSocket(port), await idleSocket(port)];
      try {
        const res = await rawExchange(port, 'GET /echo HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
        expect(res.status).to.equal(429);
        const id = res.headers['x-request-id']!;
        expect(id).to.match(UUID);
        const line = await logs.first((l) => l.requestId === id);
        // Refused as it connected, before its request was read.
        expect(line).to.include({ status: 429, method: null, route: null, url: null, client: '127.0.0.1', bytes: Buffer.byteLength(res.body), clientGone: false });
      } finally {
        for (const socket of held) socket.destroy();
      }
    });
  });
});
