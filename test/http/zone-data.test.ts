import { expect } from 'chai';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';
import { dggsJsonValidator } from '../support/dggs-json-schema.js';
import { checkUrl, isNonPublicAddress, type FetchPolicy } from '../../src/adapters/rasters/url-guard.js';
import { guardedGet } from '../../src/adapters/rasters/guarded-http.js';
import { httpStatus } from '../support/http-status.js';

const ZONE = '831f8afffffffff'; // level 3, inside the demo raster
const PATH = `/collections/demo-elevation/dggs/H3/zones/${ZONE}/data`;

describe('zone data over HTTP', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  it('answers DGGS-JSON by default, valid against the DGGS-JSON schema, with values in sub-zone order', async () => {
    const res = await s.get(PATH);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/application\/vnd\.ogc\.dggs\+json/);
    const body = await res.json();
    const validate = dggsJsonValidator();
    expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
    expect(body.dggrs).to.equal('[ogc-dggrs:H3]');
    expect(body.zoneId).to.equal(ZONE);
    expect(body.depths).to.deep.equal([2]);
    const v = body.values.elevation[0];
    expect(v.depth).to.equal(2);
    expect(v.shape).to.deep.equal({ count: 49, subZones: 49 });
    expect(v.data).to.have.length(49);
    expect(body.zones[0].zoneIds[0]).to.be.a('string');
    expect(Object.keys(body.data)).to.have.length(49);
    expect(body.schema.properties.elevation.svc_unit).to.equal('m');
    expect(body.links.some((l: { rel: string }) => l.rel === 'source')).to.equal(true);
  });

  it('answers f=json as application/json with the same body, and honours zone-depth lists and ranges', async () => {
    const res = await s.get(`${PATH}?f=json&zone-depth=0-1,3`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const body = await res.json();
    expect(body.depths).to.deep.equal([0, 1, 3]);
    expect(body.values.elevation.map((d: { shape: { count: number } }) => d.shape.count)).to.deep.equal([1, 7, 343]);
    expect(dggsJsonValidator()(body)).to.equal(true);
  });

  it('rejects bad requests: depth beyond max (422), unknown field (400 naming the valid ones), bad datetime (422), unknown zone (404)', async () => {
    expect((await s.get(`${PATH}?zone-depth=9`)).status).to.equal(422);
    const unknown = await s.get(`${PATH}?properties=height`);
    expect(unknown.status).to.equal(400);
    expect((await unknown.json()).hint).to.contain('elevation');
    expect((await s.get(`${PATH}?datetime=yesterday`)).status).to.equal(422);
    expect((await s.get(`${PATH}?cog-sampling-factor=abc`)).status).to.equal(422);
    expect((await s.get(`/collections/demo-elevation/dggs/H3/zones/zzz/data`)).status).to.equal(404);
    expect((await s.get(`${PATH}?exclude-properties=elevation`)).status).to.equal(400);
  });

  it('reports other statistics with cog-stat (extension) and applies cog-no-data-value', async () => {
    const body = await (await s.get(`${PATH}?zone-depth=0&cog-stat=count,valid,min,max,median,stdDev`)).json();
    expect(Object.keys(body.values)).to.deep.equal(['elevation_count', 'elevation_valid', 'elevation_min', 'elevation_max', 'elevation_median', 'elevation_stdDev']);
    const all = (await (await s.get(`${PATH}?zone-depth=0&cog-stat=valid`)).json()).values.elevation_valid[0].data[0];
    expect(all).to.be.above(0);
  });

  it('ad-hoc GET without cog-url is 400 advising cog-url or a POST body', async () => {
    const res = await s.get(`/dggs/H3/zones/${ZONE}/data`);
    expect(res.status).to.equal(400);
    const body = await res.json();
    expect(body.code).to.equal(400);
    expect(body.hint).to.contain('cog-url').and.to.contain('POST');
  });

  it('ad-hoc GET refuses loopback, private, link-local and file: URLs with 4xx ApiError', async () => {
    for (const url of ['http://127.0.0.1/x.tif', 'http://[::1]/x.tif', 'http://10.1.2.3/x.tif', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/a.tif', 'http://[fd00::1]/a.tif', 'http://localhost/a.tif', 'file:///etc/passwd', 'ftp://example.com/a.tif']) {
      const res = await s.get(`/dggs/H3/zones/${ZONE}/data?cog-url=${encodeURIComponent(url)}`);
      expect(res.status, url).to.be.within(400, 499);
      const body = await res.json();
      expect(body.code).to.equal(res.status);
    }
  });
});

describe('ad-hoc rasters from an allowed private network', function () {
  this.timeout(60_000);
  let s: TestServer;
  let files: http.Server;
  let port = 0;
  before(async () => {
    const tif = readFileSync(path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif'));
    files = http.createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/elevation.tif` });
        res.end();
        return;
      }
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) {
        res.writeHead(200, { 'content-length': tif.length });
        res.end(tif);
        return;
      }
      const start = Number(m[1]), end = Math.min(Number(m[2]), tif.length - 1);
      res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${tif.length}`, 'content-length': end - start + 1 });
      res.end(tif.subarray(start, end + 1));
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    port = (files.address() as { port: number }).port;
    s = await startTestServer({ rasterFetch: { allowPrivateNetworks: true } });
  });
  after(async () => {
    await s.close();
    files.close();
  });

  it('reads a COG over http range requests when private networks are allowed', async () => {
    const res = await s.get(`/dggs/H3/zones/${ZONE}/data?cog-url=${encodeURIComponent(`http://127.0.0.1:${port}/elevation.tif`)}&cog-stat=mean,max&cog-band=1`);
    expect(res.status).to.equal(200);
    const body = await res.json();
    expect(Object.keys(body.values)).to.deep.equal(['band1_mean', 'band1_max']);
    const local = await (await s.get(`${PATH}`)).json();
    expect(body.values.band1_mean[0].data).to.deep.equal(local.values.elevation[0].data);
  });

  it('follows a redirect only while each hop passes the policy', async () => {
    const open: FetchPolicy = { allowedSchemes: ['http'], allowedHosts: [], allowPrivateNetworks: true, maxBytes: 1e8, timeoutMs: 5000, maxRedirects: 2 };
    const ok = await guardedGet(`http://127.0.0.1:${port}/redirect`, open, { headers: { range: 'bytes=0-15' } });
    expect(ok.status).to.equal(206);
    // A public-looking first hop that redirects to loopback: the redirect target is checked again.
    const strict: FetchPolicy = { ...open, allowPrivateNetworks: false };
    let err: unknown;
    try {
      await guardedGet(`http://127.0.0.1:${port}/redirect`, strict);
    } catch (e) {
      err = e;
    }
    expect(httpStatus(err)).to.equal(403);
    const noRedirects: FetchPolicy = { ...open, maxRedirects: 0 };
    err = undefined;
    try {
      await guardedGet(`http://127.0.0.1:${port}/redirect`, noRedirects);
    } catch (e) {
      err = e;
    }
    expect(httpStatus(err)).to.equal(400);
  });

  it('bounds the bytes read', async () => {
    const tiny: FetchPolicy = { allowedSchemes: ['http'], allowedHosts: [], allowPrivateNetworks: true, maxBytes: 1000, timeoutMs: 5000, maxRedirects: 0 };
    let err: unknown;
    try {
      await guardedGet(`http://127.0.0.1:${port}/elevation.tif`, tiny);
    } catch (e) {
      err = e;
    }
    expect(httpStatus(err)).to.equal(413);
  });
});

describe('url guard', () => {
  const policy: FetchPolicy = { allowedSchemes: ['https', 'http'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1, timeoutMs: 1, maxRedirects: 0 };
  it('classifies non-public addresses, IPv4 and IPv6, including IPv4-mapped and NAT64', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd12:3456::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::1', 'ff02::1']) {
      expect(isNonPublicAddress(a), a).to.equal(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isNonPublicAddress(a), a).to.equal(false);
  });
  it('refuses other schemes, hosts off the allow-list and numeric loopback spellings', async () => {
    const status = async (url: string, p: FetchPolicy = policy) => {
      try {
        await checkUrl(url, p);
        return 200;
      } catch (e) {
        return httpStatus(e);
      }
    };
    expect(await status('file:///etc/passwd')).to.equal(403);
    expect(await status('gopher://example.com/')).to.equal(403);
    expect(await status('http://2130706433/')).to.equal(403); // 127.0.0.1 in decimal
    expect(await status('http://0x7f.1/')).to.equal(403);
    expect(await status('http://localhost:8080/')).to.equal(403);
    expect(await status('https://example.com/a.tif', { ...policy, allowedHosts: ['*.example.org'] })).to.equal(403);
    expect(await status('http://127.0.0.1/', { ...policy, allowPrivateNetworks: true })).to.equal(200);
  });
});

describe('zone data as GeoJSON', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  it('answers f=geo+json with one RFC 7946 Feature per sub-zone', async () => {
    const { rfc7946Problems } = await import('../../src/domain/geometry/rfc7946.js');
    const res = await s.get(`${PATH}?f=geo%2Bjson&zone-depth=1`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/application\/geo\+json/);
    const fc = await res.json();
    expect(fc.type).to.equal('FeatureCollection');
    expect(fc.features).to.have.length(7);
    for (const f of fc.features) {
      expect(f.type).to.equal('Feature');
      expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
      expect(f.properties).to.have.keys('zone_id', 'depth', 'elevation');
    }
  });
});
