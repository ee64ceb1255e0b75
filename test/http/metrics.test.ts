import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { parsePrometheusText, type Exposition } from '../support/prometheus-text.js';
import { rawExchange } from './http-basics-raw-client.js';

const ZONE_INFO = '/dggs/{dggrs_id}/zones/{zone_id}';
const ZONE_DATA = '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data';
/** Uncompressed answers, so the bytes counted are the bytes of the body read. */
const IDENTITY = { 'Accept-Encoding': 'identity' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function scrape(base: string): Promise<Exposition> {
  const res = await fetch(`${base}/metrics`, { headers: IDENTITY });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await res.text());
}

/** Scrapes until `done` accepts one, for at most `ms` (counts settle once responses have closed). */
async function scrapeUntil(base: string, done: (m: Exposition) => boolean, ms = 10_000): Promise<Exposition> {
  const until = performance.now() + ms;
  for (;;) {
    const m = await scrape(base);
    if (done(m) || performance.now() > until) return m;
    await sleep(50);
  }
}

const n = (m: Exposition, name: string, labels: Record<string, string> = {}) => m.value(name, labels) ?? 0;

describe('HTTP: /metrics', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    // Room for one depth-3 zone-data computation of IVEA7H (some 350 sub-zones) at a time, and no queue.
    s = await startTestServer({ limits: { maxSubZones: 400, maxSubZonesInFlight: 400, zoneDataQueueSeconds: 0 }, server: { host: '127.0.0.1', port: 0, logLevel: 'silent', metrics: { datastoreTimeoutMs: 300 } } });
  });
  after(() => s?.close());

  const zonesAt = async (level: number, count: number) =>
    ((await (await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=${level}&limit=${count}`)).json()) as { zones: string[] }).zones;

  it('is the Prometheus text format, and every series family of the service is in docs/operations.md', async () => {
    const m = await scrape(s.base);
    const expected: Record<string, string> = {
      http_requests_total: 'counter',
      http_request_duration_seconds: 'histogram',
      http_response_bytes_total: 'counter',
      http_requests_in_flight: 'gauge',
      dggs_cache_hits_total: 'counter',
      dggs_cache_misses_total: 'counter',
      dggs_zone_data_admission_refusals_total: 'counter',
      dggs_connection_refusals_total: 'counter',
      dggs_jobs: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_heap_size_used_bytes: 'gauge',
      process_resident_memory_bytes: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) expect(m.types.get(name), name).to.equal(type);
    const docs = readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    for (const name of m.types.keys()) if (/^(http|dggs)_/.test(name)) expect(docs, `docs/operations.md names ${name}`).to.contain(`\`${name}\``);
    // The job counts come from the datastore, read at the scrape.
    expect(m.value('dggs_jobs', { state: 'accepted' })).to.equal(0);
    expect(m.value('dggs_jobs', { state: 'running' })).to.equal(0);
  });

  it('counts requests by method, route template and status, with their bytes and durations; a request no route took is `unmatched`', async () => {
    const [zone] = await zonesAt(3, 1);
    const before = await scrape(s.base);
    let bytes = 0;
    for (let i = 0; i < 2; i++) {
      const res = await s.get(`/dggs/IVEA7H/zones/${zone}`, IDENTITY);
      expect(res.status).to.equal(200);
      bytes += (await res.arrayBuffer()).byteLength;
    }
    expect((await s.get('/dggs/IVEA7H/zones/N0-nosuchzone-A')).status).to.equal(404);
    expect((await s.get('/no/such/route-xyzzy')).status).to.equal(404);
    expect((await fetch(`${s.base}/conformance`, { method: 'HEAD' })).status).to.equal(200);
    const after = await scrape(s.base);

    const delta = (name: string, labels: Record<string, string>) => n(after, name, labels) - n(before, name, labels);
    expect(delta('http_requests_total', { method: 'GET', route: ZONE_INFO, status: '200' })).to.equal(2);
    expect(delta('http_requests_total', { method: 'GET', route: ZONE_INFO, status: '404' })).to.equal(1);
    expect(delta('http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
    expect(delta('http_requests_total', { method: 'HEAD', route: '/conformance', status: '200' })).to.equal(1);
    expect(delta('http_response_bytes_total', { method: 'GET', route: ZONE_INFO, status: '200' })).to.equal(bytes);
    expect(delta('http_response_bytes_total', { method: 'HEAD', route: '/conformance', status: '200' })).to.equal(0);
    expect(delta('http_request_duration_seconds_count', { method: 'GET', route: ZONE_INFO, status_class: '2xx' })).to.equal(2);
    expect(delta('http_request_duration_seconds_sum', { method: 'GET', route: ZONE_INFO, status_class: '2xx' })).to.be.above(0);
    // The previous scrape is counted once its response ended.
    expect(delta('http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).to.be.at.least(1);
    // Labels name templates, never what a client wrote.
    const labelValues = after.samples.flatMap((x) => Object.values(x.labels));
    for (const raw of [zone!, 'nosuchzone', 'xyzzy']) expect(labelValues.some((v) => v.includes(raw)), raw).to.equal(false);
  });

  it('counts an answer written straight to the socket (a request the HTTP parser refuses) as unmatched, with no method', async () => {
    const before = await scrape(s.base);
    const res = await rawExchange(Number(new URL(s.base).port), 'GET /conformance HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n');
    expect(res.status).to.equal(400);
    const after = await scrapeUntil(s.base, (m) => n(m, 'http_requests_total', { method: 'none', route: 'unmatched', status: '400' }) > n(before, 'http_requests_total', { method: 'none', route: 'unmatched', status: '400' }));
    expect(n(after, 'http_requests_total', { method: 'none', route: 'unmatched', status: '400' }) - n(before, 'http_requests_total', { method: 'none', route: 'unmatched', status: '400' })).to.equal(1);
  });

  it('counts zone info answers kept and computed: a repeated request is a hit', async () => {
    const [, zone] = await zonesAt(3, 2);
    const before = await scrape(s.base);
    for (let i = 0; i < 3; i++) expect((await s.get(`/dggs/IVEA7H/zones/${zone}`)).status).to.equal(200);
    const after = await scrape(s.base);
    expect(n(after, 'dggs_cache_misses_total', { cache: 'zone_info' }) - n(before, 'dggs_cache_misses_total', { cache: 'zone_info' })).to.equal(1);
    expect(n(after, 'dggs_cache_hits_total', { cache: 'zone_info' }) - n(before, 'dggs_cache_hits_total', { cache: 'zone_info' })).to.equal(2);
    expect(n(after, 'dggs_cache_bytes', { cache: 'zone_info' })).to.be.above(n(before, 'dggs_cache_bytes', { cache: 'zone_info' }));
    expect(n(after, 'dggs_cache_entries', { cache: 'zone_info' })).to.equal(n(before, 'dggs_cache_entries', { cache: 'zone_info' }) + 1);
  });

  it('shows zone-data admission: the work held and in flight, a refusal with 503, a client that left, all back to idle after', async () => {
    const [held, other] = await zonesAt(3, 2);
    // The raster source waits for the gate: the first computation holds its sub-zones until then.
    const sources = s.app.container.get<Record<string, { zoneData: (...a: unknown[]) => Promise<unknown> }>>(Symbol.for('ZoneDataSources'));
    const raster = sources['raster-url']!;
    const zoneData = raster.zoneData;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    raster.zoneData = async (...args: unknown[]) => {
      entered();
      await gate;
      return zoneData.apply(raster, args);
    };
    const before = await scrape(s.base);
    try {
      const leaving = new AbortController();
      const first = fetch(`${s.base}/collections/demo-elevation/dggs/IVEA7H/zones/${held}/data?zone-depth=3`, { signal: leaving.signal }).catch(() => 'aborted');
      await inside;
      const during = await scrape(s.base);
      // Over half the room: the same request for another zone cannot fit beside it.
      expect(n(during, 'dggs_zone_data_admission_capacity')).to.equal(400);
      expect(n(during, 'dggs_zone_data_admission_in_use')).to.be.within(201, 400);
      // The held request and the scrape itself.
      expect(n(during, 'http_requests_in_flight')).to.equal(2);

      const refused = await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones/${other}/data?zone-depth=3`);
      expect(refused.status).to.equal(503);
      expect(((await refused.json()) as { message: string }).message).to.equal('Service busy');
      // The first client leaves before its answer.
      leaving.abort();
      expect(await first).to.equal('aborted');
    } finally {
      open();
      raster.zoneData = zoneData;
    }
    const idle = await scrapeUntil(s.base, (m) => n(m, 'http_requests_in_flight') === 1 && n(m, 'dggs_zone_data_admission_in_use') === 0);
    // Only the scrape reading it is in flight.
    expect(n(idle, 'http_requests_in_flight')).to.equal(1);
    expect(n(idle, 'dggs_zone_data_admission_in_use')).to.equal(0);
    expect(n(idle, 'dggs_zone_data_admission_queued')).to.equal(0);
    const delta = (name: string, labels: Record<string, string> = {}) => n(idle, name, labels) - n(before, name, labels);
    // limits.zoneDataQueueSeconds 0: the second computation waited no time and was refused.
    expect(delta('dggs_zone_data_admission_refusals_total', { reason: 'timeout' })).to.equal(1);
    expect(delta('dggs_zone_data_admission_refusals_total', { reason: 'queue_full' })).to.equal(0);
    expect(delta('dggs_zone_data_admission_waits_total')).to.equal(1);
    expect(delta('dggs_zone_data_admissions_total')).to.equal(1);
    expect(delta('http_requests_total', { method: 'GET', route: ZONE_DATA, status: '503' })).to.equal(1);
    // The client that left got no answer: status "none".
    expect(delta('http_requests_total', { method: 'GET', route: ZONE_DATA, status: 'none' })).to.equal(1);
  });

  it('leaves the job series out of a scrape whose datastore read does not answer in time, and counts it', async () => {
    const ledger = s.app.container.get<{ openJobCounts(): Promise<unknown> }>(Symbol.for('JobLedger'));
    const openJobCounts = ledger.openJobCounts;
    ledger.openJobCounts = () => new Promise(() => {});
    try {
      const before = await scrape(s.base);
      const started = performance.now();
      const m = await scrape(s.base);
      expect(performance.now() - started).to.be.below(10_000);
      expect(m.select('dggs_jobs')).to.deep.equal([]);
      expect(n(m, 'dggs_jobs_read_failures_total')).to.be.at.least(n(before, 'dggs_jobs_read_failures_total'));
      const later = await scrape(s.base);
      expect(n(later, 'dggs_jobs_read_failures_total')).to.be.above(n(before, 'dggs_jobs_read_failures_total'));
    } finally {
      ledger.openJobCounts = openJobCounts;
    }
  });
});

describe('HTTP: /metrics per app, refusals of connections, and turned off', function () {
  this.timeout(60_000);

  /** A GET on a connection of its own, closed after the answer (no pooled connection holds a slot). */
  const get = (port: number, p: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode!, body }));
      }).on('error', reject);
    });

  it('counts connections refused at server.maxConnectionsPerPeer; each app counts its own', async () => {
    const a = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', maxConnectionsPerPeer: 2 } });
    const b = await startTestServer();
    try {
      const port = Number(new URL(a.base).port);
      const held = await Promise.all([0, 1].map(() => new Promise<net.Socket>((resolve) => { const c = net.connect(port, '127.0.0.1', () => resolve(c)); })));
      const refused = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(refused.status).to.equal(429);
      for (const c of held) c.destroy();
      // Until the server has seen the two close, a scrape may be refused too: each such is counted.
      let refusals = 1;
      let text = '';
      for (let i = 0; i < 100 && !text; i++) {
        const r = await get(port, '/metrics');
        if (r.status === 200) text = r.body;
        else {
          expect(r.status).to.equal(429);
          refusals++;
          await sleep(50);
        }
      }
      const m = parsePrometheusText(text);
      expect(n(m, 'dggs_connection_refusals_total', { scope: 'peer' })).to.equal(refusals);
      expect(n(m, 'dggs_connection_refusals_total', { scope: 'server' })).to.equal(0);
      expect(n(m, 'http_requests_total', { method: 'none', route: 'unmatched', status: '429' })).to.equal(refusals);
      const other = await scrape(b.base);
      expect(n(other, 'dggs_connection_refusals_total', { scope: 'peer' })).to.equal(0);
      expect(other.select('http_requests_total', { route: 'unmatched', status: '429' })).to.deep.equal([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('server.metrics.enabled false: no /metrics route, none in the API document; the probes stay', async () => {
    const s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', metrics: { enabled: false } } });
    try {
      expect((await s.get('/metrics')).status).to.equal(404);
      const doc = (await (await s.get('/api/openapi.json')).json()) as { paths: Record<string, unknown> };
      expect(doc.paths).to.not.have.property('/metrics');
      expect(doc.paths).to.have.property('/health/ready');
      expect((await s.get('/health/ready')).status).to.equal(200);
    } finally {
      await s.close();
    }
  });
});
