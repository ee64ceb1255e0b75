/**
 * The zone-data admission control (limits.maxSubZonesInFlight): eight parallel requests for the
 * deepest zone data a grid serves by default (3H grids: depth 10, up to 59,293 sub-zones each with
 * limits.maxSubZones raised to 60,000) grow the service's RSS by less than RSS_BOUND, and every
 * one is answered: 200, or 503 "Service busy" with Retry-After when it could not get room within
 * limits.zoneDataQueueSeconds. Without the budget the same eight requests took the child from
 * about 320 MiB to 570-890 MiB (the 49,411 sub-zones of A1-0-B lie off the raster, so every one
 * is refined and its outline kept: the fuzzer's `memory` finding, +565 MiB).
 */
import { expect } from 'chai';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { send, type SendResult } from '../../scripts/fuzz/http-client.js';
import { startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { UPSTREAM_ADDRESS, startUpstream, type Upstream } from '../../scripts/fuzz/upstream.js';

/** The hardening suite's bound for eight heavy requests in parallel (test/http/hardening.test.ts). */
const RSS_BOUND = 300 * 2 ** 20;
/**
 * The cog-url case fetches and decodes its raster per request, and how much of that garbage is still
 * resident depends on when V8 collects: 144-398 MiB measured on the same code (2 cores, with and
 * without other load). Its bound tells the budget's work from the finding it fixes (+565 MiB; 570-890
 * MiB without the budget).
 */
const COG_URL_RSS_BOUND = 450 * 2 ** 20;
const MiB = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The raster host of the cog-url case (scripts/fuzz/upstream.ts). */
let upstream: Upstream;

/** Deepest default zone data: [what, path]; D4-69-A is over the demo raster, A1-0-B (a pentagon, 49,411 sub-zones) off it. */
const HEAVY: [string, (i: number) => string, number?][] = [
  ['IVEA3H A1-0-B depth 10, off the raster', () => '/collections/demo-elevation/dggs/IVEA3H/zones/A1-0-B/data'],
  ['ISEA3H D4-69-A depth 10 (59,293 sub-zones)', () => '/collections/demo-elevation/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=10'],
  ['ISEA3H A1-0-B depth 10 as GeoJSON', () => '/collections/demo-elevation/dggs/ISEA3H/zones/A1-0-B/data?f=geo%2Bjson'],
  ['the fuzzer\'s cog-url finding (ISEA3H A1-0-B, default depth)', (i) => `/dggs/ISEA3H/zones/A1-0-B/data?cog-url=${encodeURIComponent(`${upstream.base}/elevation.tif`)}&f=dggs%2Bjson&i=${i}`, COG_URL_RSS_BOUND],
];

describe('HTTP: zone-data memory under parallel deep requests (admission control)', function () {
  this.timeout(240_000);
  let srv: ServerProcess;

  before(async () => {
    upstream = await startUpstream();
  });
  // Each case on a service of its own: what one case leaves in the heap would blur the next one's growth.
  beforeEach(async function () {
    this.timeout(90_000);
    srv = await startServerProcess({
      config: {
        limits: { maxSubZones: 60_000, maxGeometryVertices: 2_000_000 },
        rasterFetch: { allowedPrivateRanges: [`${UPSTREAM_ADDRESS}/32`], timeoutMs: 5000 },
      },
    });
  });
  afterEach(() => srv?.stop());
  after(() => upstream?.close());

  /** Peak RSS growth of the child while eight requests run; every one must be answered. */
  async function eightInParallel(path: (i: number) => string): Promise<{ growth: number; results: SendResult[] }> {
    const base = new URL(srv.base);
    // Warm: code paths and grid tables built once are not what the bound is about.
    const warm = await send(base, { method: 'GET', path: path(0), headers: [] }, { timeoutMs: 120_000 });
    expect(warm.response?.status, `warm-up: ${warm.error?.message ?? warm.response?.body.subarray(0, 300).toString()}`).to.equal(200);
    await sleep(300);
    const before = srv.rss()!;
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, srv.rss() ?? 0)), 20);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(base, { method: 'GET', path: path(i), headers: [] }, { timeoutMs: 120_000 })));
    await sleep(300);
    clearInterval(sample);
    return { growth: peak - before, results };
  }

  function expectServedOrBusy(r: SendResult, what: string): boolean {
    expect(r.error, `${what}: no answer (${r.error?.message})`).to.equal(undefined);
    const res = r.response!;
    expect([200, 503], `${what}: status ${res.status}, body ${res.body.subarray(0, 300).toString()}`).to.include(res.status);
    if (res.status === 200) return true;
    expect(apiErrorProblem(res.status, String(res.headers['content-type'] ?? ''), res.body, res.bodyBytes), `${what}: ApiError body`).to.equal(undefined);
    expect(JSON.parse(res.body.toString()).message).to.equal('Service busy');
    expect(Number(res.headers['retry-after']), `${what}: Retry-After`).to.be.at.least(1);
    return false;
  }

  for (const [what, path, bound = RSS_BOUND] of HEAVY) {
    it(`8 × ${what}: RSS grows by less than ${MiB(bound)}, all answered`, async () => {
      const { growth, results } = await eightInParallel(path);
      expect(srv.alive(), 'the process died').to.equal(true);
      const served = results.filter((r, i) => expectServedOrBusy(r, `${what} #${i}`)).length;
      expect(growth, `RSS growth for 8 in parallel (${MiB(growth)}; ${served} served)`).to.be.below(bound);
      // The queue wait (20 s) covers eight such computations on an idle machine: most are served.
      expect(served, 'requests served').to.be.at.least(2);
    });
  }
});

describe('HTTP: zone data on a service that does not queue (limits.zoneDataQueueSeconds 0, room for one request)', function () {
  this.timeout(120_000);
  let busy: ServerProcess;
  before(async function () {
    this.timeout(90_000);
    busy = await startServerProcess({ config: { limits: { maxSubZones: 60_000, maxSubZonesInFlight: 60_000, zoneDataQueueSeconds: 0 } } });
  });
  after(() => busy?.stop());

  it('refuses what does not fit with 503, Retry-After and an ApiError naming the bound; small requests still run', async () => {
    const base = new URL(busy.base);
    const path = '/collections/demo-elevation/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=10';
    const results = await Promise.all(Array.from({ length: 4 }, () => send(base, { method: 'GET', path, headers: [] }, { timeoutMs: 120_000 })));
    const statuses = results.map((r) => r.response?.status ?? r.error?.message);
    expect(statuses, 'one runs, the others find no room').to.include(200).and.to.include(503);
    const refused = results.find((r) => r.response?.status === 503)!.response!;
    expect(apiErrorProblem(503, String(refused.headers['content-type']), refused.body, refused.bodyBytes)).to.equal(undefined);
    expect(refused.headers['retry-after']).to.equal('1');
    expect(JSON.parse(refused.body.toString()).hint).to.contain('limits.maxSubZonesInFlight');
    const small = await send(base, { method: 'GET', path: '/collections/demo-elevation/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=2', headers: [] }, { timeoutMs: 30_000 });
    expect(small.response?.status).to.equal(200);
  });
});
