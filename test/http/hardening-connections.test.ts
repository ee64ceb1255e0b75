/**
 * Slow requests that never finish their head, from many addresses, cannot take every
 * connection slot. The service runs as a child (its own event loop, as in production) with a small
 * `server.maxConnections` so the flood is quick; the other tests use an in-process server with
 * routes of their own.
 */
import { expect } from 'chai';
import net from 'node:net';
import pino from 'pino';
import { createHttpServer, type HttpLimits } from '../../src/http/server.js';
import { defineRoute, json, type AnyRoute } from '../../src/http/route.js';
import { startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { idleSocket, rawExchange, untilClosed, type RawResponse } from './http-basics-raw-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GET_CONFORMANCE = 'GET /conformance HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n';

const LIMITS: HttpLimits = { maxBodyBytes: 1024, maxConnections: 100, maxConnectionsPerPeer: 100, headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 10_000, idleTimeoutMs: 20_000, maxUrlBytes: 1024, maxHeaderBytes: 4096 };

/** An HTTP server of our route kit with routes of its own, on loopback. */
async function listen(limits: Partial<HttpLimits>, routes: AnyRoute[]): Promise<{ port: number; close: () => Promise<void> }> {
  const { server } = createHttpServer({ logger: pino({ level: 'silent' }), limits: { ...LIMITS, ...limits }, authenticate: () => {}, routes });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Ten peers (loopback has all of 127/8), each holding `perAddress` requests that never finish their head. */
function slowFlood(port: number, perAddress: number) {
  const sockets = new Set<net.Socket>();
  const stats = { opened: 0, answered: new Map<number, number>() };
  let running = true;
  const open = (address: string) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: address });
    sockets.add(socket);
    stats.opened++;
    const head = 'GET /conformance HTTP/1.1\r\nHost: a\r\nX-Slow: ' + 'a'.repeat(4096);
    let sent = 20;
    let dribble: NodeJS.Timeout | undefined;
    let received = '';
    socket.on('connect', () => {
      // One byte a second: the head never completes.
      dribble = setInterval(() => socket.write(head[sent++ % head.length]!), 1000);
      socket.write(head.slice(0, 20));
    });
    socket.on('data', (d) => (received += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(dribble);
      sockets.delete(socket);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      stats.answered.set(status, (stats.answered.get(status) ?? 0) + 1);
      // Like the attack this guards against: every closed request is opened again at once.
      if (running) setTimeout(() => open(address), 20);
    });
  };
  for (let a = 2; a <= 11; a++) for (let i = 0; i < perAddress; i++) open(`127.0.0.${a}`);
  return {
    stats,
    /** Connected flood sockets the service has not answered or closed. */
    held: () => [...sockets].filter((s) => !s.connecting && s.bytesRead === 0).length,
    stop: () => {
      running = false;
      for (const s of sockets) s.destroy();
    },
  };
}

describe('HTTP: connection slots under a slow-request flood', function () {
  this.timeout(120_000);
  const MAX = 64;
  const PER_PEER = 16;
  let srv: ServerProcess;

  before(async function () {
    this.timeout(90_000);
    // The original attack's ratios scaled down: 1,100 slow requests from 10 addresses against 1,024 slots
    // (128 per address) become 100 against 64 (16 per address). headersTimeoutMs stays at its
    // default (10 s), longer than the flood: the slots must come back without waiting for it.
    srv = await startServerProcess({ config: { server: { maxConnections: MAX, maxConnectionsPerPeer: PER_PEER } } });
  });
  after(() => srv?.stop());

  it('keeps serving a legitimate client while 10 addresses hold more slow requests than there are slots', async () => {
    const flood = slowFlood(srv.port, 10);
    const outcomes: (RawResponse | Error)[] = [];
    try {
      await sleep(1500);
      // The flood fills the server: its surplus is refused (or takes the slot of another of its requests).
      expect(flood.stats.answered.get(503) ?? 0, 'flood requests answered 503 before the client comes').to.be.greaterThan(0);
      expect(flood.held(), 'flood requests held before the client comes').to.be.at.least(MAX * 0.9);
      // A new connection per request: each must win a slot, the hardest case for the client.
      const until = Date.now() + 5000;
      while (Date.now() < until) {
        outcomes.push(await rawExchange(srv.port, GET_CONFORMANCE, { localAddress: '127.0.0.1', timeoutMs: 5000 }).catch((err: Error) => err));
        await sleep(10);
      }
    } finally {
      flood.stop();
    }
    expect(srv.alive(), 'service alive').to.equal(true);
    const ok = outcomes.filter((o) => !(o instanceof Error) && o.status === 200).length;
    const others = outcomes.filter((o) => o instanceof Error || o.status !== 200).map((o) => (o instanceof Error ? o.message : o.status));
    // Nothing in the design refuses the client (a slot of the address holding the most idle
    // connections is taken for it); the 5 % margin covers requests the shared test machine delays
    // past the client's timeout. Without the fix the client got 503 on 94.7 % of its requests.
    expect(ok / outcomes.length, `${ok} of ${outcomes.length} answered 200; others: ${others.slice(0, 10).join(', ')}`).to.be.at.least(0.95);
    // The flood's requests were refused to make room, with the ApiError of a full server.
    expect(flood.stats.answered.get(503) ?? 0, `flood answers: ${[...flood.stats.answered].map(([s, n]) => `${s}×${n}`).join(' ')}`).to.be.at.least(outcomes.length / 2);
  });
});

describe('HTTP: which connection gives up its slot at the cap', function () {
  this.timeout(30_000);
  const MAX = 6;
  let port: number;
  let close: () => Promise<void>;
  const waiting: (() => void)[] = [];
  const release = () => waiting.splice(0).forEach((resolve) => resolve());
  const open: net.Socket[] = [];

  before(async () => {
    ({ port, close } = await listen({ maxConnections: MAX, maxConnectionsPerPeer: MAX }, [
      defineRoute({ method: 'get', path: '/quick', operationId: 'quick', summary: 'x', tags: [], responses: {}, handler: async () => json({ quick: true }) }),
      defineRoute({
        method: 'get', path: '/held', operationId: 'held', summary: 'x', tags: [], responses: {},
        handler: async () => {
          await new Promise<void>((resolve) => waiting.push(resolve));
          return json({ held: true });
        },
      }),
    ]));
  });
  afterEach(() => {
    release();
    for (const s of open.splice(0)) s.destroy();
  });
  after(() => close());

  const connectedFrom = async (address: string, n: number) => {
    const sockets: net.Socket[] = [];
    for (let i = 0; i < n; i++) sockets.push(await idleSocket(port, address));
    open.push(...sockets);
    await sleep(50);
    return sockets;
  };

  it('a new connection at the cap takes the slot of the oldest idle connection of the address holding the most', async () => {
    const few = await connectedFrom('127.0.0.3', 2);
    const many = await connectedFrom('127.0.0.4', 4);
    const closed = untilClosed(many[0]!, 5000);
    const res = await rawExchange(port, 'GET /quick HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.5' });
    expect(res.status).to.equal(200);
    const evicted = (await closed).response;
    expect(evicted.status).to.equal(503);
    expect(JSON.parse(evicted.body)).to.include({ code: 503, message: 'Too many connections' });
    expect(JSON.parse(evicted.body).hint).to.contain(`${MAX}`);
    for (const s of [...few, ...many.slice(1)]) expect(s.destroyed || s.readableEnded, 'the other idle connections are kept').to.equal(false);
  });

  it('a connection whose head is complete keeps its slot; with every slot serving a request, a new one is refused 503', async () => {
    const serving = await connectedFrom('127.0.0.6', MAX);
    const answers = serving.map((s) => untilClosed(s, 10_000));
    for (const s of serving) s.write('GET /held HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    await sleep(200);
    const refused = await rawExchange(port, 'GET /quick HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.7' });
    expect(refused.status).to.equal(503);
    expect(JSON.parse(refused.body)).to.include({ code: 503, message: 'Too many connections' });
    release();
    for (const a of await Promise.all(answers)) expect(a.response.status).to.equal(200);
  });
});

describe('HTTP: the head deadline', function () {
  this.timeout(30_000);
  const HEADERS_MS = 800;
  let port: number;
  let close: () => Promise<void>;
  before(async () => {
    ({ port, close } = await listen({ headersTimeoutMs: HEADERS_MS }, [defineRoute({ method: 'get', path: '/quick', operationId: 'quick', summary: 'x', tags: [], responses: {}, handler: async () => json({ quick: true }) })]));
  });
  after(() => close());

  it('answers a head dribbled a byte at a time 408 and closes it once headersTimeoutMs has passed since the connection opened', async () => {
    const socket = await idleSocket(port);
    const head = 'GET /quick HTTP/1.1\r\nHost: a\r\nX-Slow: ' + 'a'.repeat(1000);
    let sent = 0;
    const dribble = setInterval(() => socket.writable && socket.write(head[sent++]!), 50);
    try {
      const { response, ms } = await untilClosed(socket, 10_000);
      expect(response.status).to.equal(408);
      expect(JSON.parse(response.body)).to.include({ code: 408, message: 'Request timeout' });
      expect(JSON.parse(response.body).hint).to.contain(`${HEADERS_MS} ms`).and.to.contain('server.headersTimeoutMs');
      // Node checks the deadline every headersTimeoutMs / 4 (server.connectionsCheckingInterval).
      expect(ms, 'closed at the deadline, not kept open by the bytes').to.be.within(HEADERS_MS - 100, HEADERS_MS * 1.25 + 1500);
      expect(sent, 'bytes were still arriving').to.be.greaterThan(5);
    } finally {
      clearInterval(dribble);
    }
  });
});
