/**
 * No request can crash, stall or swamp the service. The service runs as a child process
 * (a crash is an exit we can see; memory is the child's own VmRSS). Every request once known to
 * crash or stall the service is sent, and each test shows that the process is alive afterwards, that a
 * concurrent GET /conformance answers within CANARY_BOUND_MS while the heavy request runs, and
 * that eight heavy requests in parallel grow the child's RSS by less than RSS_BOUND.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { blockedMs, describePing, ping, type Ping } from '../../scripts/fuzz/canary.js';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { send, type FuzzRequest, type SendResult } from '../../scripts/fuzz/http-client.js';
import { freePort, startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { UPSTREAM_ADDRESS, startUpstream, type Upstream } from '../../scripts/fuzz/upstream.js';
import { CANARY_BOUND_MS, slowestProbe, underLoad as probedWhile } from '../support/under-load.js';

/** Eight heavy requests in parallel grow the child's RSS by less than this. */
const RSS_BOUND = 300 * 2 ** 20;
/** How long a heavy request is watched before the client gives up on it (the service must live on). */
const WINDOW_MS = 3000;
const TOKEN = 'hardening-token-0123456789';
const AUTH: [string, string] = ['Authorization', `Bearer ${TOKEN}`];
const JSON_CT: [string, string] = ['Content-Type', 'application/json'];
const ZONE = 'E4-120-A'; // a level-4 IVEA7H zone over the Alps, inside demo-elevation
/** The heaviest known deep GeoJSON request (19,607 refined outlines), and its neighbours that stay under the geometry bound. */
const DEEP_GEOJSON = ['zone-depth=1-5&f=geo%2Bjson&refined-geometry=true', 'zone-depth=1-4&f=geo%2Bjson&refined-geometry=true', 'zone-depth=1-5&f=geo%2Bjson'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

describe('HTTP: hardening — no request can crash, stall or swamp the service', function () {
  this.timeout(120_000);
  let srv: ServerProcess;
  let base: URL;
  let upstream: Upstream;
  let adminPort: number;

  const serviceOptions = () => ({
    config: {
      server: { admin: { port: adminPort } },
      auth: { tokenSha256: [createHash('sha256').update(TOKEN).digest('hex')] },
      // The local raster host has a loopback address of its own: the one private address this service may fetch from.
      rasterFetch: { allowedPrivateRanges: [`${UPSTREAM_ADDRESS}/32`], timeoutMs: 5000 },
      // Many open orders for the listing test; their jobs do not run here (see 'running jobs').
      orders: { maxOpenOrders: 1000, runInServer: false },
    },
  });

  before(async function () {
    this.timeout(90_000);
    upstream = await startUpstream();
    adminPort = await freePort();
    srv = await startServerProcess(serviceOptions());
    base = new URL(srv.base);
  });
  after(async () => {
    await srv?.stop();
    await upstream?.close();
  });
  afterEach(async function () {
    if (srv && !srv.alive()) {
      // The test that killed it has failed on its own checks; later tests get a fresh service.
      this.timeout(90_000);
      console.error(`      (the service died during "${this.currentTest?.title}"; its last lines:\n${srv.logTail().slice(-8).join('\n')})`);
      await srv.stop();
      srv = await startServerProcess(serviceOptions());
      base = new URL(srv.base);
    }
  });

  const get = (p: string, headers: [string, string][] = []): FuzzRequest => ({ method: 'GET', path: p, headers });
  const exchange = (req: FuzzRequest, timeoutMs = 30_000) => send(base, req, { timeoutMs });

  function expectAnswer(r: SendResult, statuses: number[], what: string): void {
    expect(r.error, `${what}: no answer (${r.error?.message})`).to.equal(undefined);
    const res = r.response!;
    expect(statuses, `${what}: status ${res.status}, body ${res.body.subarray(0, 300).toString()}`).to.include(res.status);
    if (res.status >= 400) expect(apiErrorProblem(res.status, String(res.headers['content-type'] ?? ''), res.body, res.bodyBytes), `${what}: ApiError body`).to.equal(undefined);
  }
  function expectNot5xx(r: SendResult, what: string): void {
    if (r.error) {
      expect(r.error.kind, `${what}: ${r.error.message}`).to.equal('client'); // only our own give-up after the window
      return;
    }
    const res = r.response!;
    expect(res.status, `${what}: body ${res.body.subarray(0, 300).toString()}`).to.be.below(500);
    if (res.status >= 400) expect(apiErrorProblem(res.status, String(res.headers['content-type'] ?? ''), res.body, res.bodyBytes), `${what}: ApiError body`).to.equal(undefined);
  }

  /** Runs one heavy request while probing GET /conformance back to back; gives up on it after `windowMs`. */
  const underLoad = (req: FuzzRequest, windowMs = WINDOW_MS): Promise<{ pings: Ping[]; result: SendResult }> => probedWhile(srv, req, windowMs);

  /** The probe kept waiting longest by the service (see scripts/fuzz/canary.ts) stays under CANARY_BOUND_MS. */
  function expectNoStall(pings: Ping[], what: string): void {
    const worst = slowestProbe(pings);
    expect(blockedMs(worst), `${what}: slowest of ${pings.length} concurrent GET /conformance: ${describePing(worst)}`).to.be.below(CANARY_BOUND_MS);
  }

  async function expectResponsive(what: string, req: FuzzRequest, windowMs = WINDOW_MS): Promise<SendResult> {
    const { pings, result } = await underLoad(req, windowMs);
    expect(srv.alive(), `${what}: the process died`).to.equal(true);
    expectNoStall(pings, what);
    expectNot5xx(result, what);
    return result;
  }

  /** Peak RSS growth of the child while `n` copies of a heavy request run (given up on after `windowMs`). */
  async function rssGrowth(make: (i: number) => FuzzRequest, n = 8, windowMs = 8000): Promise<{ growth: number; results: SendResult[] }> {
    await sleep(300);
    const before = srv.rss()!;
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, srv.rss() ?? 0)), 20);
    const ctl = new AbortController();
    const all = Promise.all(Array.from({ length: n }, (_, i) => send(base, make(i), { timeoutMs: 120_000, signal: ctl.signal })));
    await Promise.race([all, sleep(windowMs)]);
    ctl.abort();
    const results = await all;
    await sleep(500); // work the service still finishes after the clients left
    clearInterval(sample);
    return { growth: peak - before, results };
  }

  async function expectBoundedMemory(what: string, make: (i: number) => FuzzRequest, windowMs?: number): Promise<void> {
    const { growth, results } = await rssGrowth(make, 8, windowMs);
    expect(srv.alive(), `${what}: the process died`).to.equal(true);
    expect(growth, `${what}: RSS growth for 8 in parallel (${MiB(growth)})`).to.be.below(RSS_BOUND);
    results.forEach((r, i) => expectNot5xx(r, `${what} #${i}`));
  }

  describe('crashes', () => {
    const MALFORMED_HOSTS = ['localhost:abc', 'a b', '[', '%', '@', '|', 'localhost:99999', 'a:65536'];

    for (const host of MALFORMED_HOSTS) {
      it(`a malformed Host ${JSON.stringify(host)} is a 400 ApiError and the process lives`, async () => {
        expectAnswer(await exchange(get('/', [['Host', host]])), [400], `Host ${host}`);
        expect(srv.alive()).to.equal(true);
        expectAnswer(await exchange(get('/conformance')), [200], 'GET /conformance afterwards');
      });
    }

    it('an empty Host is no 500: a 400, or links from the listening address', async () => {
      const r = await exchange(get('/collections', [['Host', '']]));
      expectAnswer(r, [200, 400], 'empty Host');
      if (r.response!.status === 200) {
        const links = (JSON.parse(r.response!.body.toString()) as { links: { href: string }[] }).links;
        for (const l of links) expect(l.href.startsWith(srv.base), l.href).to.equal(true);
      }
    });

    it('the Host header cannot change the routed path (x/admin/status? on GET /collections is a 400)', async () => {
      for (const host of ['x/admin/status?', 'x/admin/status#', `127.0.0.1:${base.port}/admin/status?`]) {
        const r = await exchange(get('/collections', [['Host', host]]));
        expectAnswer(r, [400], `Host ${host}`);
        expect(r.response!.body.toString()).not.to.match(/migrations|initialized/);
      }
    });

    it('a body that is not valid gzip/deflate/br is a 4xx, and /orders asks for a token before reading it', async () => {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const body = Buffer.from('this is not compressed');
        const anonymous = await exchange({ method: 'POST', path: '/orders', headers: [JSON_CT, ['Content-Encoding', encoding]], body });
        expectAnswer(anonymous, [401], `anonymous ${encoding}`);
        expect(anonymous.response!.headers['www-authenticate'], 'WWW-Authenticate').to.match(/^Bearer/);
        expectAnswer(await exchange({ method: 'POST', path: '/orders', headers: [AUTH, JSON_CT, ['Content-Encoding', encoding]], body }), [400, 415], `token, bad ${encoding}`);
        // /admin/initialize (admin listener) takes no body: leaving it unread is as good as refusing it.
        const admin = await send(new URL(`http://127.0.0.1:${adminPort}`), { method: 'POST', path: '/admin/initialize', headers: [JSON_CT, ['Content-Encoding', encoding]], body }, { timeoutMs: 30_000 });
        expectAnswer(admin, [200, 400, 415], `admin, bad ${encoding}`);
      }
      const truncated = gzipSync(Buffer.from(JSON.stringify({ collection: 'demo-elevation', zones: [ZONE] }))).subarray(0, 12);
      expectAnswer(await exchange({ method: 'POST', path: '/orders', headers: [AUTH, JSON_CT, ['Content-Encoding', 'gzip']], body: truncated }), [400, 415], 'truncated gzip');
      expect(srv.alive()).to.equal(true);
    });

    it('a gzip bomb is refused on its inflated size (413) and 8 in parallel stay under the RSS bound', async () => {
      const bomb = gzipSync(Buffer.alloc(300 * 2 ** 20), { level: 9 }); // ~300 KB on the wire
      const req = (): FuzzRequest => ({ method: 'POST', path: '/orders', headers: [AUTH, JSON_CT, ['Content-Encoding', 'gzip']], body: bomb });
      expectAnswer(await exchange(req()), [413], 'gzip bomb');
      await expectResponsive('gzip bomb', req());
      await expectBoundedMemory('gzip bomb', req);
    });

    it('URLs and header blocks over 16 KiB get an ApiError (414/431), not an empty body', async () => {
      expectAnswer(await exchange(get(`/collections?x=${'a'.repeat(17 * 1024)}`)), [414, 431], 'URL over 16 KiB');
      expectAnswer(await exchange(get('/collections', [['X-Big', 'a'.repeat(17 * 1024)]])), [431], 'headers over 16 KiB');
      expect(srv.alive()).to.equal(true);
    });
  });

  describe('500s', () => {
    it('items with an empty column selection (properties=, and similar) are no 500', async () => {
      for (const q of ['properties=,', 'properties=', 'properties=,,', 'exclude-properties=,', 'properties=%20,%20', 'properties=,&exclude-properties=,']) {
        expectAnswer(await exchange(get(`/collections/demo-stations/items?${q}`)), [200, 400], q);
      }
    });

    it('H3 zone info of a finest-resolution cell is a 200', async () => {
      expectAnswer(await exchange(get('/dggs/H3/zones/8f2830828052d25')), [200], 'H3 resolution 15');
    });

    it('CQL2 nested 1000 deep is a 400 (text and JSON)', async () => {
      const text = `${'('.repeat(1000)}station_id = 'x'${')'.repeat(1000)}`;
      const nested = (n: number) => {
        let json = '{"op":"=","args":[{"property":"station_id"},"x"]}';
        for (let i = 0; i < n; i++) json = `{"op":"not","args":[${json}]}`;
        return `/collections/demo-stations/items?filter-lang=cql2-json&filter=${encodeURIComponent(json)}`;
      };
      expectAnswer(await exchange(get(`/collections/demo-stations/items?filter=${encodeURIComponent(text)}`)), [400], 'cql2-text 1000 deep');
      // 1000 JSON levels do not fit in a URL (414); 250 do, and are past any sane depth bound.
      expectAnswer(await exchange(get(nested(1000))), [400, 414], 'cql2-json 1000 deep');
      expectAnswer(await exchange(get(nested(250))), [400], 'cql2-json 250 deep');
      expectAnswer(await exchange(get(`/collections/demo-stations/items?filter=${encodeURIComponent(`${'NOT '.repeat(1000)}station_id = 'x'`)}`)), [400], '1000 NOTs');
    });
  });

  describe('stalls: GET /conformance stays fast while each heavy request runs', () => {
    it('zone list of level 8 in bbox 0,0,25,25 with limit=1', async () => {
      const r = await expectResponsive('zone list', get('/dggs/IVEA7H/zones?zone-level=8&bbox=0,0,25,25&limit=1'));
      if (r.response?.status === 200) expect((JSON.parse(r.response.body.toString()) as { zones: unknown[] }).zones).to.have.length(1);
    });

    it('items with a bbox on the demo lake', async () => {
      await expectResponsive('items bbox', get('/collections/demo-stations/items?bbox=0,40,20,55&limit=10'));
      await expectResponsive('items bbox, item 185000', get('/collections/demo-stations/items/185000?bbox=-10,35,30,60'));
    });

    it('CQL2 nested 1000 deep', async () => {
      await expectResponsive('cql2', get(`/collections/demo-stations/items?filter=${encodeURIComponent(`${'('.repeat(1000)}station_id = 'x'${')'.repeat(1000)}`)}`));
    });

    it('deep zone data as GeoJSON: the 19,607-outline request and the largest ones under the bounds', async () => {
      for (const q of DEEP_GEOJSON) await expectResponsive(`deep zone data ${q}`, get(`/collections/demo-elevation/dggs/IVEA7H/zones/${ZONE}/data?${q}`));
    });

    it('ad-hoc raster zone data that the fuzzer found stalling (level-2 zone at zone-depth 1-5, an H3 resolution-1 zone)', async () => {
      const cog = encodeURIComponent(`${upstream.base}/elevation.tif`);
      await expectResponsive('cog-url depth 1-5', get(`/dggs/IVEA7H/zones/D2-6-F/data?cog-url=${cog}&zone-depth=1-5`));
      await expectResponsive('cog-url H3', get(`/dggs/H3/zones/81007ffffffffff/data?cog-url=${cog}&cog-all-touched=true`));
    });

    it('cog-url on an upstream that ignores Range and sends 600 MiB', async () => {
      const served = upstream.served();
      const r = await expectResponsive('cog-url large', get(`/dggs/IVEA7H/zones/${ZONE}/data?cog-url=${encodeURIComponent(`${upstream.base}/big.tif`)}`), 20_000);
      if (r.response) expect(r.response.status, 'refused past the per-request bound').to.equal(413);
      expect(upstream.served() - served, 'bytes the service read from the host (else this test shows nothing)').to.be.greaterThan(2 ** 20);
    });
  });

  describe('memory: 8 heavy requests in parallel grow RSS by less than the bound', () => {
    for (const q of DEEP_GEOJSON) {
      it(`deep zone data as GeoJSON (${q})`, async () => {
        await expectBoundedMemory('deep zone data', () => get(`/collections/demo-elevation/dggs/IVEA7H/zones/${ZONE}/data?${q}`), 30_000);
      });
    }

    it('cog-url on an upstream that ignores Range', async () => {
      const served = upstream.served();
      await expectBoundedMemory('cog-url large', (i) => get(`/dggs/IVEA7H/zones/${ZONE}/data?cog-url=${encodeURIComponent(`${upstream.base}/big.tif?${i}`)}`), 20_000);
      expect(upstream.served() - served, 'bytes the service read from the host (else this test shows nothing)').to.be.greaterThan(8 * 2 ** 20);
    });

    it('items with a bbox on the demo lake', async () => {
      await expectBoundedMemory('items bbox', (i) => get(`/collections/demo-stations/items?bbox=${i},40,${i + 15},55&limit=1000`));
    });

    it('zone lists of level 8', async () => {
      await expectBoundedMemory('zone list', (i) => get(`/dggs/IVEA7H/zones?zone-level=8&bbox=${i},0,${25 + i},25&limit=1000&f=geojson`));
    });
  });

  describe('orders: listing many large orders', function () {
    this.timeout(180_000);
    let created = 0;

    before(async function () {
      this.timeout(120_000);
      const list = await exchange(get('/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=6&limit=1000'));
      const zones = (JSON.parse(list.response!.body.toString()) as { zones: string[] }).zones;
      const body = Buffer.from(JSON.stringify({ collection: 'demo-elevation', dggrs: 'IVEA7H', zones }));
      // As many ~1000-job orders as 30 s allow (at most 300): enough that an unpaged listing is heavy.
      const until = performance.now() + 30_000;
      while (created < 300 && performance.now() < until) {
        const batch = await Promise.all(Array.from({ length: 4 }, () => exchange({ method: 'POST', path: '/orders', headers: [AUTH, JSON_CT], body }, 60_000)));
        for (const r of batch) {
          expectAnswer(r, [201], 'POST /orders');
          created++;
        }
      }
    });

    it('POST /orders with 1000 zones', async () => {
      const list = await exchange(get('/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=7&limit=1000'));
      const zones = (JSON.parse(list.response!.body.toString()) as { zones: string[] }).zones;
      await expectResponsive('POST /orders', { method: 'POST', path: '/orders', headers: [AUTH, JSON_CT], body: Buffer.from(JSON.stringify({ collection: 'demo-elevation', zones })) });
    });

    it(`GET /orders answers a page, fast`, async () => {
      expect(created, 'orders made for the test').to.be.greaterThan(10);
      const r = await expectResponsive(`GET /orders over ${created} orders`, get('/orders', [AUTH]));
      expectAnswer(r, [200], 'GET /orders');
      const paged = await expectResponsive(`GET /orders?limit=10 over ${created} orders`, get('/orders?limit=10', [AUTH]));
      const page = JSON.parse(paged.response!.body.toString()) as { orders: unknown[]; links: { rel: string }[] };
      expect(page.orders, 'a page, not everything').to.have.length(10);
      expect(page.links.map((l) => l.rel)).to.include('next');
    });

    it('8 GET /orders in parallel stay under the RSS bound', async () => {
      await expectBoundedMemory('GET /orders', () => get('/orders', [AUTH]));
    });
  });

  describe('a second service: descriptors limited, jobs running in the server', () => {
    let small: ServerProcess;
    before(async function () {
      this.timeout(90_000);
      // Scaled from 20,000 sockets against a 20,000-descriptor limit: 1,500 against 1,024.
      small = await startServerProcess({ fdLimit: 1024, config: { auth: { tokenSha256: [createHash('sha256').update(TOKEN).digest('hex')] } } });
    });
    after(() => small?.stop());

    it('one peer holding 1,500 idle sockets (reopening any the service closes) does not lock another peer out', async function () {
      this.timeout(90_000);
      const held = new Set<net.Socket>();
      let attacking = true;
      // Another loopback address is another peer. Like a real one, it opens a new socket for each closed one.
      const open = (): Promise<void> =>
        new Promise((resolve) => {
          const s = net.connect({ host: '127.0.0.1', port: small.port, localAddress: '127.0.0.2' });
          held.add(s);
          s.on('error', () => resolve());
          s.on('connect', () => resolve());
          s.on('close', () => {
            held.delete(s);
            if (attacking) setTimeout(() => void open(), 50);
            resolve();
          });
        });
      try {
        await Promise.all(Array.from({ length: 1500 }, open));
        await sleep(1000);
        // Five requests of the other peer, spread over a few seconds, each answered within 2 s.
        for (let i = 0; i < 5; i++) {
          const r = await send(new URL(small.base), get('/conformance'), { timeoutMs: 2000 });
          expect(small.alive(), 'process alive').to.equal(true);
          expect(r.response?.status, `GET /conformance #${i} from another peer while ${held.size} sockets are held: ${r.error?.message ?? r.response?.status}`).to.equal(200);
          await sleep(500);
        }
      } finally {
        attacking = false;
        for (const s of held) s.destroy();
      }
    });

    it('running jobs leave GET /conformance fast', async function () {
      this.timeout(60_000);
      const b = new URL(small.base);
      const list = await send(b, get('/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=5&limit=60'), { timeoutMs: 30_000 });
      const zones = (JSON.parse(list.response!.body.toString()) as { zones: string[] }).zones;
      for (let i = 0; i < 3; i++) {
        const r = await send(b, { method: 'POST', path: '/orders', headers: [AUTH, JSON_CT], body: Buffer.from(JSON.stringify({ collection: 'demo-elevation', zones: zones.slice(i * 20, i * 20 + 20), zone_depth: 3 })) }, { timeoutMs: 30_000 });
        expectAnswer(r, [201], 'POST /orders');
      }
      const pings: Ping[] = [];
      const until = performance.now() + 5000;
      while (performance.now() < until) {
        pings.push(await ping(small));
        await sleep(20);
      }
      expect(small.alive(), 'process alive').to.equal(true);
      const list2 = await send(b, get('/orders', [AUTH]), { timeoutMs: 30_000 });
      const counts = (JSON.parse(list2.response!.body.toString()) as { orders: { job_counts?: Record<string, number> }[] }).orders.map((o) => o.job_counts ?? {});
      const worked = counts.reduce((n, c) => n + (c.running ?? 0) + (c.successful ?? 0) + (c.failed ?? 0), 0);
      expect(worked, 'jobs that ran during the probes (else this test shows nothing)').to.be.greaterThan(0);
      expectNoStall(pings, 'jobs running');
    });
  });
});
