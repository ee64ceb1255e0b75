import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { featureSourceContract, TRUTH, type FeatureBackend } from './feature-source.contract.js';
import { startCapabilityProxy, type CapabilityProxy } from '../support/remote/capability-proxy.js';
import { startFaultyBackend, zigzag, type FaultyBackend } from '../support/remote/faulty-features.js';
import { featureSource, ogcFeaturesCollection, remoteHttp, startFixtureService } from '../support/remote/backends.js';
import type { TestServer } from '../support/test-server.js';
import type { FeatureQuery, FeatureSource } from '../../src/ports/feature-source.js';
import type { Collection } from '../../src/domain/collection.js';
import { AppError } from '../../src/ports/errors.js';
import { parseCql2Json, parseCql2Text } from '../../src/domain/cql2/index.js';
import { remoteReads } from '../../src/domain/remote-reads.js';
import { HOLD_RERUNS, loopHolds } from '../support/loop-holds.js';
import { InFlightBytesBudget } from '../../src/app/zone-data/in-flight-bytes.js';
import { httpStatus } from '../support/http-status.js';

// MapServer 8's run of this contract is in test/clients/mapserver.test.ts (npm run test:clients).

// Our own /collections/{id}/items over the fixture lake: Part 3 filtering with CQL2, behind a
// recording pass-through proxy.
let own: TestServer, ownProxy: CapabilityProxy;
featureSourceContract(
  'our items endpoint (Part 3 filtering)',
  async () => {
    own = await startFixtureService();
    ownProxy = await startCapabilityProxy(own.base, { keep: () => true });
    return {
      collection: (layer) => ogcFeaturesCollection(`own-${layer}`, ownProxy.origin, `remote-${layer}`),
      source: featureSource([ownProxy.origin]),
      requests: () => ownProxy.requests,
      filters: true,
      honoursDatetime: true,
      pageSize: 40,
    } satisfies FeatureBackend;
  },
  async () => {
    await ownProxy?.close();
    await own?.close();
  },
);

// The same endpoint declaring no filtering: every filter is evaluated here, answers unchanged.
let plain: TestServer, plainProxy: CapabilityProxy;
featureSourceContract(
  'our items endpoint declaring Part 1 only',
  async () => {
    plain = await startFixtureService();
    plainProxy = await startCapabilityProxy(plain.base, { keep: (c) => !c.includes('ogcapi-features-3') && !c.includes('/cql2/') });
    return {
      collection: (layer) => ogcFeaturesCollection(`plain-${layer}`, plainProxy.origin, `remote-${layer}`),
      source: featureSource([plainProxy.origin]),
      requests: () => plainProxy.requests,
      filters: false,
      honoursDatetime: true,
      pageSize: 40,
    } satisfies FeatureBackend;
  },
  async () => {
    await plainProxy?.close();
    await plain?.close();
  },
);

async function drain(source: FeatureSource, collection: Collection, q: FeatureQuery = {}) {
  const features: unknown[] = [];
  const report = await source.scan(collection, q, (p) => {
    features.push(...p);
  });
  return { features, report };
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a failure');
}

describe('OGC API Features source: partial pushdown and property selection', function () {
  this.timeout(60_000);
  let s: TestServer, proxy: CapabilityProxy;
  before(async () => {
    s = await startFixtureService();
    // Declares Part 3 with basic CQL2 only (no IN/BETWEEN/LIKE), plus Part 6 property selection.
    proxy = await startCapabilityProxy(s.base, {
      keep: (c) => !c.includes('/cql2/') || /\/(cql2-text|cql2-json|basic-cql2)$/.test(c),
      add: ['http://www.opengis.net/spec/ogcapi-features-6/1.0/conf/properties'],
    });
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
  });

  it('pushes the terms the server declares, evaluates the rest here, and asks only for the properties needed', async () => {
    const source = featureSource([proxy.origin]);
    const filter = parseCql2Text("temperature > 5 AND kind LIKE 'alp%'");
    const { features, report } = await drain(source, ogcFeaturesCollection('p', proxy.origin, 'remote-stations'), { filter, properties: ['elevation'] });
    const truth = TRUTH.stations.filter((f) => (f.properties.temperature as number | null) !== null && (f.properties.temperature as number) > 5 && f.properties.kind === 'alpine');
    expect((features as { properties: Record<string, unknown> }[]).map((f) => f.properties.station ?? f.properties.elevation).length).to.equal(truth.length);
    expect(report.pushed).to.include.members(['filter', 'properties']);
    expect(report.local).to.include('filter');
    const items = proxy.requests.filter((r) => r.includes('/items')).map((r) => new URL(r, 'http://x').searchParams);
    expect(items.length).to.be.greaterThan(0);
    for (const q of items) {
      expect(q.get('filter-lang')).to.equal('cql2-text');
      expect(parseCql2Text(q.get('filter')!)).to.deep.equal(parseCql2Text('temperature > 5'));
      expect(q.get('properties')!.split(',').sort()).to.deep.equal(['elevation', 'kind']);
    }
    // The properties pushed are all the features carry: elevation (asked) and kind (the local term).
    for (const f of features as { properties: Record<string, unknown> }[]) expect(Object.keys(f.properties).sort()).to.deep.equal(['elevation', 'kind']);
  });

  it('refuses a filter it cannot evaluate anywhere with 400, before reading the backend', async () => {
    const source = featureSource([proxy.origin]);
    const before = proxy.requests.length;
    const err = await failure(drain(source, ogcFeaturesCollection('p', proxy.origin, 'remote-stations'), { filter: parseCql2Text('my_function(temperature) > 1') }));
    expect(httpStatus(err)).to.equal(400);
    expect(err.hint).to.match(/my_function/);
    expect(proxy.requests.length).to.equal(before);
  });
});

describe('OGC API Features source: filters a backend declares but cannot take', function () {
  this.timeout(60_000);
  let s: TestServer, proxy: CapabilityProxy;
  before(async () => {
    s = await startFixtureService();
    proxy = await startCapabilityProxy(s.base, { keep: () => true });
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
  });
  const stations = () => ogcFeaturesCollection('full', proxy.origin, 'remote-stations');
  const truth = () => TRUTH.stations.filter((f) => (f.properties.temperature as number | null) !== null && (f.properties.temperature as number) > 5).length;

  it('a pushed filter the backend refuses (400: nested past its bound) is evaluated here instead, and answered', async () => {
    // 32 NOTs in CQL2-JSON pass here; written as CQL2-Text for the backend, each NOT takes a group too,
    // past the backend's 64 levels.
    let json: Record<string, unknown> = { op: '>', args: [{ property: 'temperature' }, 5] };
    for (let i = 0; i < 32; i++) json = { op: 'not', args: [json] };
    const before = proxy.requests.length;
    const { features, report } = await drain(featureSource([proxy.origin]), stations(), { filter: parseCql2Json(json) });
    expect(features).to.have.length(truth());
    expect(report.pushed).to.not.include('filter');
    expect(report.local).to.include('filter');
    const items = proxy.requests.slice(before).filter((r) => r.includes('/items')).map((r) => new URL(r, 'http://x').searchParams);
    expect(items[0]!.has('filter'), 'the filter was offered first').to.equal(true);
    expect(items.slice(1).every((q) => !q.has('filter')), 'then the pages were read without it').to.equal(true);
  });

  it('a filter that would make the URL longer than 8,000 characters is evaluated here, never sent', async () => {
    const values = Array.from({ length: 900 }, (_, i) => `'station-${i}'`).join(', ');
    const before = proxy.requests.length;
    const { features, report } = await drain(featureSource([proxy.origin]), stations(), { filter: parseCql2Text(`temperature > 5 AND NOT (station IN (${values}))`) });
    expect(features).to.have.length(truth());
    expect(report.pushed).to.not.include('filter');
    expect(proxy.requests.slice(before).filter((r) => r.includes('/items')).every((r) => !new URL(r, 'http://x').searchParams.has('filter') && r.length < 8000)).to.equal(true);
  });
});

describe('OGC API Features source: backend faults', function () {
  this.timeout(60_000);
  let bad: FaultyBackend, closedPort: number;
  before(async () => {
    bad = await startFaultyBackend({ hugeBytes: 200_000 });
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  after(async () => {
    await bad?.close();
  });

  const at = (fault: string) => ogcFeaturesCollection(`bad-${fault.split('~')[0]}`, `${bad.origin}/${fault}`, 'c');

  it('reads a well-behaved backend (control)', async () => {
    const { features, report } = await drain(featureSource([bad.origin]), at('ok'));
    expect(features).to.have.length(4);
    expect(report.pages).to.equal(2);
  });

  it('unreachable: 502 naming the backend', async () => {
    const url = `http://127.0.0.1:${closedPort}`;
    const err = await failure(drain(featureSource([url]), ogcFeaturesCollection('gone', url, 'c')));
    expect(httpStatus(err)).to.equal(502);
    expect(err.hint).to.include('collection "gone"').and.include(`backend ${url}`);
  });

  it('slower than the timeout: 504 naming the backend', async () => {
    const source = featureSource([bad.origin], {}, remoteHttp([bad.origin], { timeoutMs: 300 }));
    const started = Date.now();
    const err = await failure(drain(source, at('slow')));
    expect(httpStatus(err)).to.equal(504);
    expect(err.hint).to.include('collection "bad-slow"');
    expect(Date.now() - started).to.be.below(5000);
  });

  for (const [fault, pattern] of [
    ['garbage', /not JSON/],
    ['not-fc', /not a GeoJSON FeatureCollection/],
    ['error', /HTTP 500/],
    ['loop', /paging (loops|does not advance)/],
  ] as const) {
    it(`bad payload (${fault}): 502 naming the backend`, async () => {
      const err = await failure(drain(featureSource([bad.origin]), at(fault)));
      expect(httpStatus(err)).to.equal(502);
      expect(err.hint).to.match(pattern).and.include(`backend ${bad.origin}`);
    });
  }

  it('an answer over the byte bound: 502 naming the bound', async () => {
    const source = featureSource([bad.origin], {}, remoteHttp([bad.origin], { maxBytes: 100_000 }));
    const err = await failure(drain(source, at('huge')));
    expect(httpStatus(err)).to.equal(502);
    expect(err.hint).to.include('remoteBackends.maxResponseBytes');
  });

  it('more features than maxFeatures (as numberMatched says): 422 before the second page', async () => {
    const before = bad.requests.length;
    const err = await failure(drain(featureSource([bad.origin], { maxFeatures: 1000 }), at('many')));
    expect(httpStatus(err)).to.equal(422);
    expect(err.hint).to.include('remoteBackends.maxFeatures');
    expect(bad.requests.slice(before).filter((r) => r.includes('/items'))).to.have.length(1);
  });

  it('filtering a page here gives the event loop turns: 200 features, each costly to test against the literal', async function () {
    this.retries(HOLD_RERUNS);
    const filter = parseCql2Text(`S_CROSSES(geometry, LINESTRING(${zigzag(400, 0).map((p) => p.join(' ')).join(', ')}))`);
    const { result, tookMs, longestMs } = await loopHolds(() => drain(featureSource([bad.origin]), at('zigzag~200'), { filter }), 1);
    expect(result.features).to.have.length(200);
    expect(tookMs, 'the filtering takes long enough to show anything').to.be.above(300);
    expect(longestMs, `longest hold of the event loop during ${tookMs.toFixed(0)} ms of scanning`).to.be.below(150);
  });

  it('more pages than maxPages: 422 naming the bound', async () => {
    const err = await failure(drain(featureSource([bad.origin], { maxPages: 5 }), at('endless')));
    expect(httpStatus(err)).to.equal(422);
    expect(err.hint).to.include('remoteBackends.maxPages');
    const err2 = await failure(drain(featureSource([bad.origin], { maxFeatures: 7 }), at('endless')));
    expect(httpStatus(err2)).to.equal(422);
    expect(err2.hint).to.include('remoteBackends.maxFeatures');
  });

  it('holds maxPages and maxFeatures for all the scans of one request together (their shared reads), before reading past them', async () => {
    const source = featureSource([bad.origin], { maxPages: 5 });
    // Scans alone: each of any number of them may read its 2 pages.
    for (let i = 0; i < 3; i++) expect((await drain(source, at('ok'))).report.pages).to.equal(2);
    const reads = remoteReads();
    const before = bad.requests.length;
    await drain(source, at('ok'), { reads });
    await drain(source, at('ok'), { reads });
    const err = await failure(drain(source, at('ok'), { reads }));
    expect(httpStatus(err)).to.equal(422);
    expect(err.hint).to.include('remoteBackends.maxPages');
    expect(bad.requests.slice(before).filter((r) => r.includes('/items')), 'pages read').to.have.length(5);
    const features = featureSource([bad.origin], { maxFeatures: 6 });
    const shared = remoteReads();
    await drain(features, at('ok'), { reads: shared });
    const err2 = await failure(drain(features, at('ok'), { reads: shared }));
    expect(httpStatus(err2)).to.equal(422);
    expect(err2.hint).to.include('remoteBackends.maxFeatures');
  });

  it('an answer past the in-flight budget of all bodies: 503 with Retry-After naming rasterFetch.maxInFlightBytes, its bytes given back', async () => {
    const inFlight = new InFlightBytesBudget(100_000, 'rasterFetch.maxInFlightBytes');
    const source = featureSource([bad.origin], {}, remoteHttp([bad.origin], { inFlight }));
    const err = await failure(drain(source, at('huge')));
    expect(httpStatus(err)).to.equal(503);
    expect(err.hint).to.include('rasterFetch.maxInFlightBytes');
    expect((err as AppError & { retryAfterSeconds?: number }).retryAfterSeconds).to.be.greaterThan(0);
    expect(inFlight.held, 'bytes still counted').to.equal(0);
    // Smaller answers go on being read, and give their bytes back too.
    expect((await drain(source, at('ok'))).features).to.have.length(4);
    expect(inFlight.held).to.equal(0);
  });

  it('a scan whose client left stops at once: the page being read is dropped, the reason is what it rejects with', async () => {
    const ctl = new AbortController();
    const reason = new Error('the client left');
    setTimeout(() => ctl.abort(reason), 200);
    // The backend never answers: without the abort this would be the 504 of the client's timeout.
    const err = await drain(featureSource([bad.origin]), at('slow'), { signal: ctl.signal }).then(() => undefined, (e: unknown) => e);
    expect(err).to.equal(reason);
    const before = bad.requests.length;
    const err2 = await drain(featureSource([bad.origin]), at('ok'), { signal: ctl.signal }).then(() => undefined, (e: unknown) => e);
    expect(err2).to.equal(reason);
    expect(bad.requests.slice(before).filter((r) => r.includes('/items')), 'pages asked once aborted').to.have.length(0);
  });

  describe('SSRF policy', () => {
    it('refuses a backend on a non-public address unless its origin is allowlisted, without connecting', async () => {
      const before = bad.requests.length;
      const err = await failure(drain(featureSource([]), at('ok')));
      expect(httpStatus(err)).to.equal(502);
      expect(err.message).to.match(/refused by the fetch policy/);
      expect(err.hint).to.include('remoteBackends.allowedOrigins');
      expect(bad.requests.length).to.equal(before);
    });

    for (const target of ['http://127.0.0.2:{port}/x', 'http://[::ffff:127.0.0.1]:{port}/x', 'http://localhost:{port}/x', 'http://2130706434:{port}/x', 'file:///etc/passwd']) {
      it(`refuses a next link to ${target.replace('{port}', 'PORT')}`, async () => {
        const to = target.replace('{port}', new URL(bad.origin).port);
        const err = await failure(drain(featureSource([bad.origin]), at(`next-to~${encodeURIComponent(to)}`)));
        expect(httpStatus(err)).to.equal(502);
        expect(err.message).to.match(/refused|invalid/i);
      });
    }

    it('refuses a redirect to a non-allowlisted origin', async () => {
      const to = `http://127.0.0.2:${new URL(bad.origin).port}/ok/collections/c/items`;
      const err = await failure(drain(featureSource([bad.origin]), at(`redirect~${encodeURIComponent(to)}`)));
      expect(httpStatus(err)).to.equal(502);
      expect(err.message).to.match(/refused by the fetch policy/);
    });

    it('sends configured headers to the backend origin only', async () => {
      const seen: (string | undefined)[] = [];
      const spy = http.createServer((req, res) => {
        seen.push(req.headers['x-api-key'] as string | undefined);
        res.writeHead(404);
        res.end();
      });
      await new Promise<void>((r) => spy.listen(0, '127.0.0.1', r));
      const spyOrigin = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
      try {
        const c = ogcFeaturesCollection('hdr', `${bad.origin}/next-to~${encodeURIComponent(`${spyOrigin}/page2`)}`, 'c', { headers: { 'x-api-key': 'secret' } });
        await failure(drain(featureSource([bad.origin, spyOrigin]), c));
        expect(seen).to.deep.equal([undefined]);
        const own = bad.requests.length;
        await drain(featureSource([bad.origin]), ogcFeaturesCollection('hdr2', `${bad.origin}/ok`, 'c', { headers: { 'x-api-key': 'secret' } }));
        expect(bad.requests.length).to.be.greaterThan(own);
      } finally {
        await new Promise<void>((r) => spy.close(() => r()));
      }
    });
  });
});
