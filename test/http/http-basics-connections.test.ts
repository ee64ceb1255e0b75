import { expect } from 'chai';
import type { Socket } from 'node:net';
import pino from 'pino';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { createHttpServer } from '../../src/http/server.js';
import { defineRoute, json } from '../../src/http/route.js';
import { ForbiddenError } from '../../src/ports/errors.js';
import { idleSocket, rawExchange, untilClosed } from './http-basics-raw-client.js';

const PER_PEER = 8;
const TOTAL = 12;

/** Connection caps and timeouts: one peer's idle sockets cannot lock others out. */
describe('HTTP basics: connections', function () {
  this.timeout(30_000);

  describe('caps', () => {
    let s: TestServer;
    let port: number;
    const open: Socket[] = [];
    before(async () => {
      s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', maxConnectionsPerPeer: PER_PEER, maxConnections: TOTAL } });
      port = Number(new URL(s.base).port);
    });
    afterEach(() => {
      for (const socket of open.splice(0)) socket.destroy();
    });
    after(() => s.close());

    const connections = () => new Promise<number>((resolve, reject) => s.app.http.server.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    const settle = async (expected: number) => {
      for (let i = 0; i < 100 && (await connections()) !== expected; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await connections()).to.equal(expected);
    };

    it('refuses a peer past its cap with 429 ApiError while another address is still served', async () => {
      // far more idle sockets than the cap from 127.0.0.1
      const attempts = await Promise.all(Array.from({ length: 200 }, () => idleSocket(port, '127.0.0.1')));
      open.push(...attempts);
      const outcomes = await Promise.all(attempts.map((socket) => Promise.race([untilClosed(socket, 3000).then((r) => r.response), new Promise<undefined>((r) => setTimeout(() => r(undefined), 1500))])));
      const refused = outcomes.filter((r) => r !== undefined);
      expect(attempts.length - refused.length).to.equal(PER_PEER);
      for (const response of refused) {
        expect(response!.status).to.equal(429);
        expect(JSON.parse(response!.body)).to.include({ code: 429, message: 'Too many connections' });
        expect(JSON.parse(response!.body).hint).to.contain(`${PER_PEER}`);
      }
      // the held ones are idle; a different loopback address is served at once
      const other = await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.2' });
      expect(other.status).to.equal(200);
      // and 127.0.0.1 itself is refused until it lets go
      expect((await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.1' })).status).to.equal(429);
      for (const socket of open.splice(0)) socket.destroy();
      await settle(0);
      expect((await rawExchange(port, 'GET /conformance HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.1' })).status).to.equal(200);
    });

    // The total cap (503, and which connection gives up its slot) is tested in hardening-connections.test.ts.
  });

  describe('timeouts', () => {
    let s: TestServer;
    let port: number;
    before(async () => {
      s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200, idleTimeoutMs: 400 } });
      port = Number(new URL(s.base).port);
    });
    after(() => s.close());

    it('answers a connection that never sends its head with 408 ApiError and closes it', async () => {
      const { response, ms } = await untilClosed(await idleSocket(port), 5000);
      expect(response.status).to.equal(408);
      expect(JSON.parse(response.body)).to.include({ code: 408, message: 'Request timeout' });
      expect(ms).to.be.within(250, 2500);
    });

    it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
      const socket = await idleSocket(port);
      socket.write('GET /conformance HTTP/1.1\r\nHost: a\r\n\r\n');
      const { response, ms } = await untilClosed(socket, 5000);
      expect(response.status).to.equal(200);
      expect(ms).to.be.below(2000);
    });
  });

  describe('route kit order and idle timeout (a server with its own routes)', () => {
    let base: string;
    let port: number;
    let close: () => Promise<void>;
    let computed = 0;
    before(async () => {
      const { server } = createHttpServer({
        logger: pino({ level: 'silent' }),
        limits: { maxBodyBytes: 1024, maxConnections: 100, maxConnectionsPerPeer: 100, headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 1000, idleTimeoutMs: 300, maxUrlBytes: 1024, maxHeaderBytes: 4096 },
        authenticate: () => {},
        routes: [
          defineRoute({
            method: 'post', path: '/guarded', operationId: 'guarded', summary: 'x', tags: [], responses: {}, body: z.object({ a: z.number() }),
            authorize: () => {
              throw new ForbiddenError('Forbidden', 'not from here');
            },
            handler: async () => json({ reached: true }),
          }),
          defineRoute({
            method: 'post', path: '/echo', operationId: 'echo', summary: 'x', tags: [], responses: {}, body: z.object({ a: z.number() }),
            handler: async ({ body }) => json(body),
          }),
          defineRoute({
            method: 'get', path: '/slow', operationId: 'slow', summary: 'x', tags: [], responses: {},
            handler: async () => {
              await new Promise((r) => setTimeout(r, 1200));
              computed++;
              return json({ done: true });
            },
          }),
        ],
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = server.address().port;
      base = `http://127.0.0.1:${port}`;
      close = () => new Promise((resolve) => server.close(() => resolve()));
    });
    after(() => close());

    it('runs authorize before reading the body (the refusal does not wait for it)', async () => {
      const res = await rawExchange(port, 'POST /guarded HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n{', { timeoutMs: 2000 });
      expect(res.status).to.equal(403);
      expect(res.headers.connection).to.equal('close');
    });

    it('answers a body that stops arriving with 408 ApiError once requestTimeoutMs passes, and closes', async () => {
      const started = Date.now();
      const res = await rawExchange(port, 'POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{', { timeoutMs: 5000 });
      expect(res.status).to.equal(408);
      expect(JSON.parse(res.body)).to.include({ code: 408 });
      expect(JSON.parse(res.body).hint).to.contain('1500 ms').and.to.contain('server.requestTimeoutMs');
      expect(Date.now() - started).to.be.within(1400, 3500);
      const whole = await fetch(`${base}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
      expect(await whole.json()).to.deep.equal({ a: 1 });
    });

    it('lets a request whose handler computes longer than idleTimeoutMs finish', async () => {
      const res = await fetch(`${base}/slow`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ done: true });
      expect(computed).to.equal(1);
    });

    it('limits the URL and headers by its own bounds', async () => {
      expect((await fetch(`${base}/slow?x=${'a'.repeat(1100)}`)).status).to.equal(414);
      expect((await fetch(`${base}/slow`, { headers: { 'X-Pad': 'a'.repeat(5000) } })).status).to.equal(431);
    });
  });
});
