import { expect } from 'chai';
import http from 'node:http';
import zlib from 'node:zlib';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturedLogs, type CapturedLogs } from '../support/captured-logs.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (fetch would decode them). */
  body: Buffer;
}

/** One request over node:http, its body left as sent. */
function raw(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });
}

const decode = (a: RawAnswer): Buffer => {
  const coding = a.headers['content-encoding'];
  if (coding === 'gzip') return zlib.gunzipSync(a.body);
  if (coding === 'br') return zlib.brotliDecompressSync(a.body);
  expect(coding, 'content-encoding').to.equal(undefined);
  return a.body;
};

const varyOf = (a: RawAnswer) => String(a.headers.vary ?? '').split(/\s*,\s*/).filter(Boolean);

const ZONE_PAGE = '/dggs/IVEA7H/zones?zone-level=3&f=geo+json&limit=300';

describe('HTTP: compression (gzip, br) negotiated by Accept-Encoding', function () {
  this.timeout(60_000);
  let s: TestServer;
  let port: number;
  let logs: CapturedLogs;
  before(async () => {
    logs = capturedLogs('info');
    // minBytes between the queryables (about 440 bytes) and a STAC catalog served from source (about 820).
    s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', compression: { minBytes: 600 } } }, logs.logger);
    port = Number(new URL(s.base).port);
  });
  after(() => s.close());

  it('a streamed zone-list GeoJSON page arrives gzip- and br-encoded and decodes to the very bytes of the identity answer', async () => {
    const identity = await raw(port, ZONE_PAGE, { 'Accept-Encoding': 'identity' });
    expect(identity.status).to.equal(200);
    expect(identity.headers['content-encoding']).to.equal(undefined);
    expect(identity.body.length).to.be.greaterThan(100_000);
    for (const coding of ['gzip', 'br']) {
      const a = await raw(port, ZONE_PAGE, { 'Accept-Encoding': coding });
      expect(a.status, coding).to.equal(200);
      expect(a.headers['content-encoding'], coding).to.equal(coding);
      expect(a.headers['content-length'], `${coding}: the identity length no longer applies`).to.equal(undefined);
      expect(a.headers['ogc-zones-total'], coding).to.equal(identity.headers['ogc-zones-total']);
      expect(a.body.length, `${coding} is smaller`).to.be.below(identity.body.length / 2);
      expect(decode(a).equals(identity.body), `${coding} decodes to the identity body`).to.equal(true);
      expect(varyOf(a)).to.include.members(['Accept', 'Accept-Encoding']);
    }
    // The identity answer varies on Accept-Encoding too: a cache must not hand it to a client that asked for gzip, nor the reverse.
    expect(varyOf(identity)).to.include('Accept-Encoding');
  });

  it('a JSON answer built in memory is compressed and sent with the compressed length', async () => {
    const identity = await raw(port, '/dggs', { 'Accept-Encoding': 'identity' });
    const a = await raw(port, '/dggs', { 'Accept-Encoding': 'gzip' });
    expect(a.headers['content-encoding']).to.equal('gzip');
    expect(Number(a.headers['content-length'])).to.equal(a.body.length);
    expect(decode(a).equals(identity.body)).to.equal(true);
    expect(Number(identity.headers['content-length'])).to.equal(identity.body.length);
  });

  it('honours q-values, identity and *, and prefers br among equals', async () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['', undefined],
      ['identity', undefined],
      ['gzip', 'gzip'],
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip;q=0.2', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['identity;q=0, gzip', 'gzip'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['deflate, compress', undefined],
      ['GZIP', 'gzip'],
    ];
    for (const [header, expected] of cases) {
      const a = await raw(port, '/dggs', header === undefined ? {} : { 'Accept-Encoding': header });
      expect(a.status, String(header)).to.equal(200);
      expect(a.headers['content-encoding'], `Accept-Encoding: ${header}`).to.equal(expected);
      JSON.parse(decode(a).toString('utf8'));
    }
  });

  it('never compresses parquet, GeoParquet or GeoTIFF, nor bodies under minBytes', async () => {
    for (const path of ['/dggs/IVEA7H/zones?zone-level=3&f=parquet&limit=300', '/dggs/IVEA7H/zones?zone-level=3&f=geoparquet&limit=300', '/collections/demo-stations/items?limit=200&f=parquet', '/collections/demo-elevation/source/elevation.tif']) {
      const a = await raw(port, path, { 'Accept-Encoding': 'gzip, br' });
      expect(a.status, path).to.equal(200);
      expect(a.headers['content-encoding'], path).to.equal(undefined);
      expect(varyOf(a), path).to.not.include('Accept-Encoding');
      if (a.headers['content-length']) expect(Number(a.headers['content-length']), path).to.equal(a.body.length);
    }
    const small = await raw(port, '/collections/demo-elevation/queryables', { 'Accept-Encoding': 'gzip, br' });
    expect(small.status).to.equal(200);
    expect(small.body.length).to.be.below(600);
    expect(small.headers['content-encoding']).to.equal(undefined);
    // An ApiError is small and never compressed.
    const error = await raw(port, '/no/such/route', { 'Accept-Encoding': 'gzip, br' });
    expect(error.status).to.equal(404);
    expect(error.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(error.body.toString('utf8'))).to.include({ code: 404 });
  });

  it('a served source file: compressed whole, its strong ETag made weak and its ranges dropped; a range, a 304 and HEAD never compressed', async () => {
    const path = '/collections/demo-ndvi/source/catalog.json';
    const identity = await raw(port, path, { 'Accept-Encoding': 'identity' });
    expect(identity.status).to.equal(200);
    const etag = String(identity.headers.etag);
    expect(etag).to.match(/^"/);
    expect(identity.headers['accept-ranges']).to.equal('bytes');

    const gz = await raw(port, path, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).to.equal('gzip');
    expect(gz.headers.etag).to.equal(`W/${etag}`);
    expect(gz.headers['content-length']).to.equal(undefined);
    expect(gz.headers['accept-ranges'], 'byte ranges of the identity bytes do not apply to the gzip ones').to.equal(undefined);
    expect(decode(gz).equals(identity.body)).to.equal(true);

    const range = await raw(port, path, { 'Accept-Encoding': 'gzip', Range: 'bytes=0-9' });
    expect(range.status).to.equal(206);
    expect(range.headers['content-encoding']).to.equal(undefined);
    expect(range.headers.etag).to.equal(etag);
    expect(range.body.equals(identity.body.subarray(0, 10))).to.equal(true);

    const notModified = await raw(port, path, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    expect(notModified.status).to.equal(304);
    expect(notModified.headers['content-encoding']).to.equal(undefined);
    expect(notModified.body.length).to.equal(0);

    const head = await raw(port, path, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['content-encoding']).to.equal(undefined);
    expect(Number(head.headers['content-length'])).to.equal(identity.body.length);
    expect(varyOf(head), 'HEAD says what GET varies on').to.include('Accept-Encoding');
  });

  it('HEAD of a streamed page: no body, no coding, the headers GET would carry otherwise', async () => {
    const head = await raw(port, ZONE_PAGE, { 'Accept-Encoding': 'gzip, br' }, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.body.length).to.equal(0);
    expect(head.headers['content-encoding']).to.equal(undefined);
    expect(head.headers['content-type']).to.match(/geo\+json/);
    expect(varyOf(head)).to.include.members(['Accept', 'Accept-Encoding']);
  });

  it('a client that leaves mid-stream stops the compressed stream, which went no further than the client read; the service serves on', async () => {
    // Level 4 zones in full: tens of MB of GeoJSON (over 10 MB compressed), far more than the client reads.
    for (const coding of ['gzip', 'br']) {
      const requestId = `leaves-mid-stream-${coding}`;
      const got = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/dggs/IVEA7H/zones?zone-level=4&f=geo+json', headers: { 'Accept-Encoding': coding, 'X-Request-Id': requestId }, agent: false }, (res) => {
          expect(res.headers['content-encoding']).to.equal(coding);
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            if (bytes > 64 * 1024) {
              req.destroy();
              resolve(bytes);
            }
          });
          res.on('error', () => {});
        });
        req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
        req.end();
      });
      expect(got).to.be.greaterThan(64 * 1024);
      // Backpressure held the compressor to what the socket took: what it wrote is a small part of the answer.
      const line = await logs.first((l) => l.msg === 'request' && l.requestId === requestId);
      expect(line).to.include({ status: 200, clientGone: true });
      expect(line.bytes, 'compressed bytes written before the client left').to.be.below(4 * 2 ** 20);
      const after = await raw(port, '/dggs', { 'Accept-Encoding': coding });
      expect(after.status).to.equal(200);
      JSON.parse(decode(after).toString('utf8'));
    }
  });

  it('server.compression.enabled false: every answer as it is', async () => {
    const off = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', compression: { enabled: false } } });
    try {
      const offPort = Number(new URL(off.base).port);
      for (const path of [ZONE_PAGE, '/dggs']) {
        const a = await raw(offPort, path, { 'Accept-Encoding': 'gzip, br' });
        expect(a.headers['content-encoding'], path).to.equal(undefined);
        expect(varyOf(a), path).to.not.include('Accept-Encoding');
      }
    } finally {
      await off.close();
    }
  });
});
