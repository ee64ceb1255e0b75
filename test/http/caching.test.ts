/**
 * HTTP caching: entity tags and Last-Modified derived from the request, the configuration and the
 * data's version; 304 Not Modified for a matching If-None-Match or If-Modified-Since, on GET and
 * HEAD; the same tags from two replicas of one configuration; new tags (and new data) once a
 * source changes; Cache-Control by kind of answer; nothing of it on the secured routes.
 */
import { expect } from 'chai';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

const server = (extra: Record<string, unknown> = {}) => ({ host: '127.0.0.1', port: 0, logLevel: 'silent', ...extra });
/** Replicas behind one proxy name one public base URL; each listens on a port of its own. */
const REPLICA = server({ publicBaseUrl: 'https://dggs.example.org' });

const ZONE_INFO = '/dggs/ISEA3H/zones/D4-69-A';
const ZONE_LIST = '/dggs/IVEA7H/zones?zone-level=2&limit=20';
const ZONE_DATA = '/collections/demo-elevation/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=3';
const ITEMS = '/collections/demo-stations/items?limit=3';
const DEMO_TOKEN = 'demo-token-change-me';
const DEMO = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: object[] };

async function bodyOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

/** GET `path` until its entity tag is no longer `old` (a source is looked at again about once a second). */
async function untilTagChanges(s: TestServer, p: string, old: string): Promise<Response> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await s.get(p);
    if (res.headers.get('etag') !== old || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('HTTP caching: validators and 304', function () {
  this.timeout(120_000);
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    await ensureDemoLake(path.join(REPO_ROOT, 'data/demo/lake'));
    [a, b] = await Promise.all([startTestServer({ server: REPLICA }), startTestServer({ server: REPLICA })]);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  for (const [what, p] of [['zone info', ZONE_INFO], ['zone list', ZONE_LIST], ['zone data', ZONE_DATA], ['items page', ITEMS], ['landing page', '/']] as const) {
    it(`answers a repeated ${what} with If-None-Match by 304 without a body, GET and HEAD alike`, async () => {
      const first = await a.get(p);
      expect(first.status).to.equal(200);
      const body = await bodyOf(first);
      const etag = first.headers.get('etag')!;
      expect(etag, 'entity tag').to.match(/^(W\/)?"[A-Za-z0-9_-]+"$/);
      for (const method of ['GET', 'HEAD']) {
        const again = await fetch(a.base + p, { method, headers: { 'If-None-Match': etag } });
        expect(again.status, method).to.equal(304);
        expect((await bodyOf(again)).length, `${method} body`).to.equal(0);
        expect(again.headers.get('etag')).to.equal(etag);
        expect(again.headers.get('cache-control')).to.equal(first.headers.get('cache-control'));
      }
      const third = await a.get(p);
      expect(third.headers.get('etag'), 'the same answer, the same tag').to.equal(etag);
      // A strong tag promises the same bytes (a weak one, on GeoJSON pages with their timeStamp, does not).
      if (!etag.startsWith('W/')) expect((await bodyOf(third)).equals(body), 'same bytes').to.equal(true);
      else await third.arrayBuffer();
    });
  }

  it('gives the same tags on two replicas of one configuration (other ports), which each honour', async () => {
    for (const p of [ZONE_INFO, ZONE_LIST, ZONE_DATA, ITEMS, '/', '/collections', '/collections/demo-stations-remote', '/dggs/ISEA3H', '/api/openapi.json']) {
      const [ra, rb] = await Promise.all([a.get(p), b.get(p)]);
      expect([ra.status, rb.status], p).to.deep.equal([200, 200]);
      const tag = ra.headers.get('etag');
      expect(tag, p).to.be.a('string');
      expect(rb.headers.get('etag'), p).to.equal(tag);
      if (!tag!.startsWith('W/')) expect((await bodyOf(ra)).equals(await bodyOf(rb)), `${p}: same bytes`).to.equal(true);
      const cross = await b.get(p, { 'If-None-Match': tag! });
      expect(cross.status, `${p} revalidated on the other replica`).to.equal(304);
    }
  });

  it('tags each representation: other formats and other parameters differ, the order of parameters does not', async () => {
    const tag = async (p: string, headers: Record<string, string> = {}) => {
      const res = await a.get(p, headers);
      await res.arrayBuffer();
      expect(res.status, p).to.equal(200);
      return res.headers.get('etag');
    };
    const list = await tag(ZONE_LIST);
    expect(await tag('/dggs/IVEA7H/zones?limit=20&zone-level=2')).to.equal(list);
    expect(await tag(`${ZONE_LIST}&f=html`)).to.not.equal(list);
    expect(await tag(ZONE_LIST, { Accept: 'text/html' })).to.not.equal(list);
    expect(await tag('/dggs/IVEA7H/zones?zone-level=2&limit=21')).to.not.equal(list);
    expect(await tag(`${ZONE_DATA}&f=geo%2Bjson`)).to.not.equal(await tag(ZONE_DATA));
  });

  it('compares If-None-Match weakly: W/ forms, lists and * match; other tags do not', async () => {
    // Uncompressed: a compressed answer carries the weak form of its tag.
    const first = await a.get(ZONE_INFO, { 'Accept-Encoding': 'identity' });
    await first.arrayBuffer();
    const strong = first.headers.get('etag')!;
    expect(strong.startsWith('"'), 'grid answers have strong tags').to.equal(true);
    const status = async (inm: string, p = ZONE_INFO) => {
      const res = await a.get(p, { 'If-None-Match': inm });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await status(`W/${strong}`), 'weak form of a strong tag (as a compressing proxy sends it)').to.equal(304);
    expect(await status(`"elsewhere", ${strong}`)).to.equal(304);
    expect(await status('*')).to.equal(304);
    expect(await status('"elsewhere"')).to.equal(200);
    expect(await status(strong.slice(0, -2) + '"')).to.equal(200);
    // GeoJSON item pages carry the time they were written: their tag is weak, and matches in either form.
    const page = await a.get(ITEMS);
    await page.arrayBuffer();
    const weak = page.headers.get('etag')!;
    expect(weak.startsWith('W/"'), 'GeoJSON items page tag').to.equal(true);
    expect(await status(weak, ITEMS)).to.equal(304);
    expect(await status(weak.slice(2), ITEMS)).to.equal(304);
  });

  it('sets Cache-Control by what the answer depends on, and Last-Modified and If-Modified-Since on data', async () => {
    const grid = await a.get(ZONE_INFO);
    await grid.arrayBuffer();
    expect(grid.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(grid.headers.get('last-modified'), 'no time for configuration answers').to.equal(null);
    const data = await a.get(ZONE_DATA);
    await data.arrayBuffer();
    expect(data.headers.get('cache-control'), 'data is revalidated on every use by default').to.equal('public, no-cache');
    const modified = data.headers.get('last-modified')!;
    expect(Date.parse(modified)).to.be.a('number').and.not.NaN;
    const since = await a.get(ZONE_DATA, { 'If-Modified-Since': modified });
    expect(since.status).to.equal(304);
    const older = await a.get(ZONE_DATA, { 'If-Modified-Since': new Date(Date.parse(modified) - 86_400_000).toUTCString() });
    expect(older.status).to.equal(200);
    await older.arrayBuffer();
  });

  it('keeps the secured routes private and unstored, with no validators', async () => {
    const auth = { Authorization: `Bearer ${DEMO_TOKEN}` };
    const list = await a.get('/orders', auth);
    await list.arrayBuffer();
    expect(list.status).to.equal(200);
    expect(list.headers.get('cache-control')).to.equal('private, no-store');
    expect(list.headers.get('etag')).to.equal(null);
    const again = await a.get('/orders', { ...auth, 'If-None-Match': '*' });
    await again.arrayBuffer();
    expect(again.status, 'never 304').to.equal(200);
  });
});

describe('HTTP caching: a changed source gives new tags and new data', function () {
  this.timeout(180_000);

  it('a raster file replaced on disk: its zone data and source file get new tags, and the new values', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-cache-raster-'));
    const file = path.join(dir, 'values.tif');
    copyFileSync(path.join(REPO_ROOT, 'test/fixtures/rasters/linear-4326.tif'), file);
    const changing = { id: 'changing', title: 'A raster that changes', backing: { kind: 'raster-url', url: file, fields: { v: { title: 'V', type: 'number', svc_band_index: 1 } } } };
    const s = await startTestServer({ server: server({ caching: { gridMaxAgeSeconds: 60, dataMaxAgeSeconds: 5, public: false } }), collections: [...DEMO.collections, changing] });
    try {
      // A zone straddling lon 10.5: the second file has no data west of it.
      const zones = (await (await s.get('/dggs/IVEA7H/zones?bbox=10.49,45.49,10.51,45.51&zone-level=6')).json()) as { zones: string[] };
      const data = `/collections/changing/dggs/IVEA7H/zones/${zones.zones[0]}/data?zone-depth=2`;
      const source = '/collections/changing/source/values.tif';
      const before = await s.get(data);
      expect(before.status).to.equal(200);
      expect(before.headers.get('cache-control'), 'configured data policy').to.equal('private, max-age=5');
      const beforeTag = before.headers.get('etag')!;
      const beforeBody = (await before.json()) as { values: Record<string, { data: (number | null)[] }[]> };
      const sourceBefore = await s.get(source);
      await sourceBefore.arrayBuffer();
      const grid = await s.get('/dggs/IVEA7H');
      await grid.arrayBuffer();
      expect(grid.headers.get('cache-control')).to.equal('private, max-age=60');
      // Data the service cannot version (an OGC API Features backend, here this service's own items): no validators.
      const remote = await s.get('/collections/demo-stations-remote/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=1&datetime=2024-01-05T00:00:00Z');
      await remote.arrayBuffer();
      expect(remote.status).to.equal(200);
      expect(remote.headers.get('etag')).to.equal(null);
      expect(remote.headers.get('cache-control')).to.equal('private, max-age=5');

      // Replaced as operators should: written aside, then renamed over the old one.
      copyFileSync(path.join(REPO_ROOT, 'test/fixtures/rasters/nodata-4326.tif'), `${file}.new`);
      const later = new Date(Date.now() + 5_000);
      utimesSync(`${file}.new`, later, later);
      renameSync(`${file}.new`, file);

      const after = await untilTagChanges(s, data, beforeTag);
      expect(after.status).to.equal(200);
      expect(after.headers.get('etag'), 'new tag').to.not.equal(beforeTag);
      const afterBody = (await after.json()) as typeof beforeBody;
      const values = (b: typeof beforeBody) => b.values.v!.flatMap((d) => d.data);
      expect(values(beforeBody).every((v) => v !== null), 'the first file has values everywhere').to.equal(true);
      expect(values(afterBody).some((v) => v === null), 'the second file has none west of 10.5').to.equal(true);
      expect(values(afterBody)).to.not.deep.equal(values(beforeBody));
      const stale = await s.get(data, { 'If-None-Match': beforeTag });
      await stale.arrayBuffer();
      expect(stale.status, 'the old tag no longer matches').to.equal(200);

      const sourceAfter = await s.get(source);
      await sourceAfter.arrayBuffer();
      expect(sourceAfter.headers.get('etag')).to.not.equal(sourceBefore.headers.get('etag'));
      expect(Number(sourceAfter.headers.get('content-length'))).to.equal(readFileSync(file).length);
    } finally {
      await s.close();
    }
  });

  it('a lake collection given another file: its items get a new tag and the new rows', async () => {
    const demo = path.join(REPO_ROOT, 'data/demo/lake/demo-stations/data');
    await ensureDemoLake(path.join(REPO_ROOT, 'data/demo/lake'));
    const root = mkdtempSync(path.join(tmpdir(), 'dggs-cache-lake-'));
    mkdirSync(path.join(root, 'demo-stations/data'), { recursive: true });
    cpSync(path.join(demo, 'week=01'), path.join(root, 'demo-stations/data/week=01'), { recursive: true });
    const s = await startTestServer({ server: server(), lake: { root } });
    try {
      const before = await s.get(ITEMS);
      const beforeTag = before.headers.get('etag')!;
      const matched = ((await before.json()) as { numberMatched: number }).numberMatched;
      cpSync(path.join(demo, 'week=02'), path.join(root, 'demo-stations/data/week=02'), { recursive: true });
      const after = await untilTagChanges(s, ITEMS, beforeTag);
      expect(after.headers.get('etag')).to.not.equal(beforeTag);
      expect(((await after.json()) as { numberMatched: number }).numberMatched, 'rows of both files').to.be.above(matched);
    } finally {
      await s.close();
    }
  });
});
