/**
 * Remote reads are bounded per client request and across requests. The
 * service runs as a child process (scripts/fuzz/server-process.ts): its request log counts the
 * pages its remote collection `demo-stations-remote` reads from its own items endpoint (`{self}`),
 * and its VmRSS is what a flood of upstream bodies leaves behind.
 *
 * Backend fan-out: a zone-list `filter` on an OGC Features collection made 452 backend GETs for one client GET
 * (each zone value of the raster path a full scan, the page bound per scan). Now it is one scan
 * with the filter pushed, giving the zones that hold a matching row, as the lake does for the
 * same rows (demo-stations); and the page bound holds for the whole client request.
 *
 * Unbounded upstream bodies: `cog-url` on a host that ignores Range and sends a chunked body with no length buffered up
 * to 64 MiB per request with no bound across requests, and the process stayed hundreds of MB
 * above idle afterwards. Now all bodies in flight share one budget (503 with Retry-After past it)
 * and the memory comes back.
 */
import { expect } from 'chai';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { startUpstream, UPSTREAM_ADDRESS, type Upstream } from '../../scripts/fuzz/upstream.js';

/** Pages one client request may read from feature backends in this service (remoteBackends.maxPages). */
const MAX_PAGES = 10;
/** A level-1 IVEA7H zone over Europe: one day of its stations is 6 pages of 1,000 features. */
const BIG_ZONE = 'BA-0-B';
const DAY = '2024-01-10T00:00:00Z/2024-01-10T23:59:59Z';
/** Bytes of each chunked upstream body (the demo COG, then zeros), as in the flood that once left hundreds of MB behind. */
const FLOOD_BODY_BYTES = 60 * 2 ** 20;
const FLOOD = 8;
const RSS_BACK_BOUND = 100 * 2 ** 20;
const REMOTE_ZONES = '/collections/demo-stations-remote/dggs/IVEA7H/zones';
const MiB = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** RSS of the child once earlier work has settled: two readings half a second apart within 4 MiB (or after 15 s). */
async function settledRss(srv: ServerProcess): Promise<number> {
  let last = srv.rss()!;
  for (const deadline = performance.now() + 15_000; performance.now() < deadline; ) {
    await sleep(500);
    const now = srv.rss()!;
    if (Math.abs(now - last) < 4 * 2 ** 20) return now;
    last = now;
  }
  return last;
}

describe('HTTP: hardening of remote reads — backend fan-out and chunked upstream bodies', function () {
  this.timeout(180_000);
  let srv: ServerProcess;

  /** A fresh child service for each group: the chunked-body group measures its memory from idle. */
  const startService = async (config: Record<string, unknown>) => {
    await srv?.stop();
    srv = await startServerProcess({ config, logLines: 20_000 });
  };
  after(async () => {
    await srv?.stop();
  });

  /**
   * GETs the service made to its own items endpoint (the backend of demo-stations-remote) for one
   * client request to `pathname`. The service logs a request when it has answered it, so once the
   * client request's line is in the log, the lines of its backend requests are too.
   */
  async function backendGets<T>(pathname: string, work: () => Promise<T>): Promise<{ result: T; gets: number }> {
    const start = srv.logTail().length;
    const result = await work();
    const since = () => srv.logTail().slice(start);
    for (const deadline = performance.now() + 10_000; !since().some((l) => l.includes(`"url":"${pathname}`)) && performance.now() < deadline; ) await sleep(20);
    return { result, gets: since().filter((l) => l.includes('"url":"/collections/demo-stations/items')).length };
  }

  async function call(p: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(`${srv.base}${p}`, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON: the assertions say so */
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  function expectApiError(a: Answer, status: number, bound: RegExp, what: string): void {
    expect(a.status, `${what}: ${a.text.slice(0, 300)}`).to.equal(status);
    expect(apiErrorProblem(a.status, a.headers.get('content-type') ?? undefined, Buffer.from(a.text), Buffer.byteLength(a.text)), `${what}: ApiError body`).to.equal(undefined);
    expect(String(a.json.hint), what).to.match(bound);
  }

  const zones = (collection: string, query: string) => call(`/collections/${collection}/dggs/IVEA7H/zones?${query}`);

  describe('backend fan-out: a zone query filter on an OGC Features collection', () => {
    before(async function () {
      this.timeout(90_000);
      // Request lines are logged at info: the backend GETs of demo-stations-remote are counted there.
      await startService({ server: { logLevel: 'info' }, remoteBackends: { maxPages: MAX_PAGES } });
    });

    it("the zone list that once made 452 backend GETs: a handful of them, refused with a 4xx naming the bound its matches pass", async () => {
      const { result, gets } = await backendGets(REMOTE_ZONES, () => zones('demo-stations-remote', `zone-level=5&limit=10&filter=${encodeURIComponent('temperature > 0')}`));
      expect(gets, 'backend GETs for one client GET').to.be.within(1, 3);
      // 120,018 stations-hours match: more than a request may read (remoteBackends.maxFeatures, 20,000), as the first page's numberMatched says.
      expectApiError(result, 422, /remoteBackends\.maxFeatures/, 'temperature > 0 over the whole month');
    });

    it('a list over a wide area reads one ancestor zone at a time, refused with a 4xx naming remoteBackends.maxPages past it', async () => {
      // Each zone's own values come from the zone data of its ancestors: one backend scan per ancestor.
      const { result, gets } = await backendGets(REMOTE_ZONES, () => zones('demo-stations-remote', `zone-level=5&bbox=5,45,12,50&limit=1000&datetime=2024-01-15T12:00:00Z&filter=${encodeURIComponent('temperature > 0')}`));
      expect(gets, 'backend GETs').to.be.within(1, MAX_PAGES + 1);
      expectApiError(result, 422, /remoteBackends\.maxPages/, 'one hour over a wide box');
    });

    for (const [what, query] of [
      ['the sub-zones of a parent, three hours', `parent-zone=${BIG_ZONE}&zone-level=3&limit=1000&datetime=${encodeURIComponent('2024-01-10T00:00:00Z/2024-01-10T02:59:59Z')}&filter=${encodeURIComponent('temperature > -2 OR humidity < 80')}`],
    ] as const) {
      // The filter tests each zone's own values, computed from the features of the interval: the
      // same rows give the lake's zones. One backend read per ancestor zone, within remoteBackends.maxPages.
      it(`keeps the zones whose own values match, the lake's zones for the same rows: ${what}`, async () => {
        const lake = await zones('demo-stations', query);
        expect(lake.status, lake.text.slice(0, 300)).to.equal(200);
        const { result: remote, gets } = await backendGets(REMOTE_ZONES, () => zones('demo-stations-remote', query));
        expect(remote.status, remote.text.slice(0, 300)).to.equal(200);
        const kept = lake.json.zones as string[];
        expect(kept.length, 'zones kept (else this compares nothing)').to.be.greaterThan(5);
        expect(remote.json.zones).to.deep.equal(kept);
        expect(remote.headers.get('OGC-Zones-Total')).to.equal(lake.headers.get('OGC-Zones-Total'));
        // Fewer than all zones are kept: the filter did select.
        const all = await zones('demo-stations-remote', query.replace(/&filter=[^&]*/, '').replace(/&datetime=[^&]*/, ''));
        expect(Number(all.headers.get('OGC-Zones-Total'))).to.be.greaterThan(Number(remote.headers.get('OGC-Zones-Total')));
        expect(gets, 'backend GETs').to.be.within(1, MAX_PAGES);
      });
    }

    it('counts the pages of all the scans of one client request against remoteBackends.maxPages', async () => {
      const post = (selections: number) =>
        backendGets(`/dggs/IVEA7H/zones/${BIG_ZONE}/data`, () =>
          call(`/dggs/IVEA7H/zones/${BIG_ZONE}/data?zone-depth=1&datetime=${encodeURIComponent(DAY)}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ collections: Array.from({ length: selections }, (_, i) => ({ id: 'demo-stations-remote', alias: `copy${i}`, fields: ['temperature'] })) }),
          }),
        );
      const one = await post(1);
      expect(one.result.status, one.result.text.slice(0, 300)).to.equal(200);
      // One selection fits; two of them together need more pages than one request may read.
      expect(one.gets, 'pages of one selection').to.be.within(2, MAX_PAGES);
      expect(2 * one.gets, 'pages of two selections').to.be.greaterThan(MAX_PAGES);
      const two = await post(2);
      expectApiError(two.result, 422, /remoteBackends\.maxPages/, 'two selections');
      expect(two.gets, 'backend GETs of the refused request').to.be.at.most(MAX_PAGES);
    });
  });

  describe('unbounded upstream bodies: chunked cog-url bodies with no length, from a host that ignores Range', () => {
    let host: Upstream;
    before(async function () {
      this.timeout(90_000);
      host = await startUpstream({ bigBytes: FLOOD_BODY_BYTES });
      await startService({ rasterFetch: { allowedPrivateRanges: [`${UPSTREAM_ADDRESS}/32`] } });
    });
    after(async () => {
      await host?.close();
    });

    it(`${FLOOD} in parallel: 503 with Retry-After past rasterFetch.maxInFlightBytes, no other 5xx, and RSS back within ${MiB(RSS_BACK_BOUND)} of idle`, async () => {
      const idle = await settledRss(srv);
      let peak = idle;
      const sample = setInterval(() => (peak = Math.max(peak, srv.rss() ?? 0)), 20);
      const served = host.served();
      const answers = await Promise.all(Array.from({ length: FLOOD }, (_, i) => call(`/dggs/IVEA7H/zones/E4-120-A/data?cog-url=${encodeURIComponent(`${host.base}/chunked.tif?${i}`)}`)));
      clearInterval(sample);
      expect(host.served() - served, 'bytes the host sent (else this shows nothing)').to.be.greaterThan(2 * FLOOD_BODY_BYTES);
      // The process gives its memory back once the flood is over (buffers freed, idle release).
      let after = srv.rss()!;
      for (const deadline = performance.now() + 20_000; after - idle >= RSS_BACK_BOUND && performance.now() < deadline; after = srv.rss()!) await sleep(250);
      expect(after - idle, `RSS after the flood: idle ${MiB(idle)}, peak ${MiB(peak)}, now ${MiB(after)}`).to.be.below(RSS_BACK_BOUND);
      for (const [i, a] of answers.entries()) {
        expect([200, 503], `#${i}: ${a.text.slice(0, 300)}`).to.include(a.status);
        if (a.status === 503) {
          expectApiError(a, 503, /rasterFetch\.maxInFlightBytes/, `#${i}`);
          expect(Number(a.headers.get('retry-after')), `#${i} Retry-After`).to.be.greaterThan(0);
        }
      }
      const refused = answers.filter((a) => a.status === 503).length;
      expect(refused, 'requests refused past the in-flight budget').to.be.within(1, FLOOD - 1);
      expect((await call('/conformance')).status, 'the service still answers').to.equal(200);
    });
  });
});
