import { expect } from 'chai';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { cellToLatLng, latLngToCell } from 'h3-js';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { HOLD_RERUNS, loopHolds } from '../support/loop-holds.js';

/*
 * The cog-url read path against a loopback "raster host" started here. It serves a large GeoTIFF
 * that exists only virtually: an uncompressed, 512 x 512 tiled float32 COG of the linear field
 * 10 * lon + 20 * lat whose tiles are computed when asked for, so a 1 GiB file costs no disk and
 * no memory. Its routes model the hosts the service must survive: with and without Range
 * support, chunked, slow, redirecting, broken. Every byte it sends is counted.
 *
 * The guard refuses loopback; the service under test allows exactly 127.0.0.1/32
 * (rasterFetch.allowedPrivateRanges), so a redirect to any other private address, 127.0.0.2
 * included, is still refused.
 */

const ELEVATION = readFileSync(path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif'));

const COG = { west: 0, north: 60, res: 0.0005, size: 16_384, tile: 512 };
const field = (lon: number, lat: number): number => 10 * lon + 20 * lat;

const TILES_ACROSS = COG.size / COG.tile;
const TILE_BYTES = COG.tile * COG.tile * 4;
/** Tile data starts after the header, whose directory and arrays fit well within this. */
const DATA_OFFSET = 65_536;
const COG_BYTES = DATA_OFFSET + TILES_ACROSS * TILES_ACROSS * TILE_BYTES;

/** Classic little-endian TIFF header and one IFD with GeoTIFF keys for EPSG:4326. */
function header(): Buffer {
  const buf = Buffer.alloc(DATA_OFFSET);
  const count = TILES_ACROSS * TILES_ACROSS;
  buf.write('II', 0, 'latin1');
  buf.writeUInt16LE(42, 2);
  buf.writeUInt32LE(8, 4);
  type Entry = [tag: number, type: 3 | 4 | 12, values: number[]];
  const entries: Entry[] = [
    [256, 4, [COG.size]],
    [257, 4, [COG.size]],
    [258, 3, [32]],
    [259, 3, [1]],
    [262, 3, [1]],
    [277, 3, [1]],
    [284, 3, [1]],
    [322, 4, [COG.tile]],
    [323, 4, [COG.tile]],
    [324, 4, Array.from({ length: count }, (_, i) => DATA_OFFSET + i * TILE_BYTES)],
    [325, 4, Array.from({ length: count }, () => TILE_BYTES)],
    [339, 3, [3]],
    [33550, 12, [COG.res, COG.res, 0]],
    [33922, 12, [0, 0, 0, COG.west, COG.north, 0]],
    [34735, 3, [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326]],
  ];
  const size = { 3: 2, 4: 4, 12: 8 } as const;
  let at = 8;
  buf.writeUInt16LE(entries.length, at);
  at += 2;
  let extra = 8 + 2 + entries.length * 12 + 4;
  for (const [tag, type, values] of entries) {
    buf.writeUInt16LE(tag, at);
    buf.writeUInt16LE(type, at + 2);
    buf.writeUInt32LE(values.length, at + 4);
    const bytes = values.length * size[type];
    let where = at + 8;
    if (bytes > 4) {
      buf.writeUInt32LE(extra, at + 8);
      where = extra;
      extra += bytes + (bytes % 2);
    }
    values.forEach((v, i) => {
      if (type === 3) buf.writeUInt16LE(v, where + i * 2);
      else if (type === 4) buf.writeUInt32LE(v, where + i * 4);
      else buf.writeDoubleLE(v, where + i * 8);
    });
    at += 12;
  }
  buf.writeUInt32LE(0, at); // no next IFD
  if (extra > DATA_OFFSET) throw new Error('header overflows');
  return buf;
}

const HEADER = header();
/** Tiles computed lately: the zones of these tests touch a few dozen. */
const recent = new Map<number, Buffer>();

/** Tile `index` (row-major), the field sampled at its pixel centres. */
function tile(index: number): Buffer {
  let t = recent.get(index);
  if (t) return t;
  const tx = index % TILES_ACROSS, ty = Math.floor(index / TILES_ACROSS);
  const values = new Float32Array(COG.tile * COG.tile);
  for (let r = 0; r < COG.tile; r++) {
    const lat = COG.north - (ty * COG.tile + r + 0.5) * COG.res;
    for (let c = 0; c < COG.tile; c++) values[r * COG.tile + c] = field(COG.west + (tx * COG.tile + c + 0.5) * COG.res, lat);
  }
  t = Buffer.from(values.buffer);
  recent.set(index, t);
  if (recent.size > 64) recent.delete(recent.keys().next().value!);
  return t;
}

/** Bytes [start, end] of the virtual file, as views of the header and tiles (no copy). */
function bytes(start: number, end: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = start; at <= end; ) {
    if (at < DATA_OFFSET) {
      const stop = Math.min(end + 1, DATA_OFFSET);
      parts.push(HEADER.subarray(at, stop));
      at = stop;
      continue;
    }
    const index = Math.floor((at - DATA_OFFSET) / TILE_BYTES);
    const base = DATA_OFFSET + index * TILE_BYTES;
    const stop = Math.min(end + 1, base + TILE_BYTES);
    parts.push(tile(index).subarray(at - base, stop - base));
    at = stop;
  }
  return parts;
}

interface Upstream {
  port: number;
  url(path: string): string;
  /** Body bytes written so far, per route. */
  sent: Map<string, number>;
  close(): Promise<void>;
}

/** Writes the whole virtual file, honouring back-pressure, until done or the peer goes away. */
async function streamWhole(res: http.ServerResponse, count: (n: number) => void): Promise<void> {
  let wake: (() => void) | undefined;
  res.on('drain', () => wake?.());
  res.on('close', () => wake?.());
  for (let at = 0; at < COG_BYTES && !res.destroyed; ) {
    const stop = Math.min(COG_BYTES, at + (1 << 20));
    let flowing = true;
    for (const part of bytes(at, stop - 1)) {
      count(part.length);
      flowing = res.write(part);
    }
    at = stop;
    if (!flowing) await new Promise<void>((r) => (wake = r));
  }
  res.end();
}

/**
 * Routes: /cog.tif (Range honoured), /norange.tif (whole file with Content-Length),
 * /elevation-norange.tif (the small demo COG, whole, Range ignored),
 * /chunked.tif (whole file, no length), /trickle.tif (a byte every 200 ms), /silent.tif (never
 * answers), /html (a web page), /missing (404), /redirect (to /cog.tif), /to-metadata (to
 * 169.254.169.254), /to/<url> (to any URL).
 */
async function startUpstream(host = '127.0.0.1'): Promise<Upstream> {
  const sent = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '/').split('?')[0]!;
    const count = (n: number) => sent.set(route, (sent.get(route) ?? 0) + n);
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (route === '/cog.tif' && range) {
      const start = Number(range[1]), end = Math.min(range[2] ? Number(range[2]) : COG_BYTES - 1, COG_BYTES - 1);
      res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${COG_BYTES}`, 'content-length': end - start + 1, 'accept-ranges': 'bytes' });
      for (const part of bytes(start, end)) {
        count(part.length);
        res.write(part);
      }
      res.end();
    } else if (route === '/cog.tif' || route === '/norange.tif') {
      res.writeHead(200, { 'content-length': COG_BYTES });
      void streamWhole(res, count);
    } else if (route === '/chunked.tif') {
      res.writeHead(200, { 'content-type': 'image/tiff' });
      void streamWhole(res, count);
    } else if (route === '/trickle.tif') {
      res.writeHead(206, { 'content-range': `bytes 0-65535/${COG_BYTES}`, 'content-length': 65_536 });
      const timer = setInterval(() => {
        count(1);
        res.write(HEADER.subarray(0, 1));
      }, 200);
      res.on('close', () => clearInterval(timer));
    } else if (route === '/silent.tif') {
      // Holds the connection and says nothing.
    } else if (route === '/elevation-norange.tif') {
      count(ELEVATION.length);
      res.writeHead(200, { 'content-length': ELEVATION.length });
      res.end(ELEVATION);
    } else if (route === '/html') {
      const body = Buffer.from('<!doctype html><title>Not a raster</title><p>Hello</p>');
      count(body.length);
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length });
      res.end(body);
    } else if (route === '/redirect') {
      res.writeHead(302, { location: '/cog.tif' });
      res.end();
    } else if (route === '/to-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    } else if (route.startsWith('/to/')) {
      res.writeHead(302, { location: decodeURIComponent(route.slice(4)) });
      res.end();
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (p) => `http://${host}:${port}${p}`,
    sent,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const MiB = 1 << 20;

/**
 * What an upstream may have handed to its socket before a cut reaches it: loopback send and receive
 * buffers (Linux grows the receive side up to tcp_rmem's maximum, 32 MiB on some machines), plus a
 * chunk of the upstream's own and of the client's stream. The upstream counts what it writes, not
 * what the service read.
 */
function inFlightBound(): number {
  const max = (file: string): number => {
    try {
      return Number(readFileSync(file, 'utf8').trim().split(/\s+/).pop()) || 0;
    } catch {
      return 0;
    }
  };
  return Math.max(16 * MiB, max('/proc/sys/net/ipv4/tcp_rmem') + max('/proc/sys/net/ipv4/tcp_wmem') + 2 * MiB);
}
/** The timeout of the server that meets slow hosts; the main one has time for 64 MiB on a busy machine. */
const TIMEOUT_MS = 1000;

interface ApiError {
  code: number;
  message: string;
  hint?: string;
}

describe('cog-url hardening: range reads, per-request bounds, error classes', function () {
  this.timeout(120_000);
  let s: TestServer;
  let quick: TestServer;
  let up: Upstream;
  /** A host on 127.0.0.2, a loopback address outside the allowed range: it must never be reached. */
  let other: http.Server;
  let otherHits = 0;
  let otherPort = 0;

  before(async () => {
    up = await startUpstream();
    other = http.createServer((_req, res) => {
      otherHits++;
      res.end('secret');
    });
    other.on('connection', () => otherHits++);
    await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
    otherPort = (other.address() as AddressInfo).port;
    s = await startTestServer({ rasterFetch: { allowedPrivateRanges: ['127.0.0.1/32'], timeoutMs: 20_000 } });
    quick = await startTestServer({ rasterFetch: { allowedPrivateRanges: ['127.0.0.1/32'], timeoutMs: TIMEOUT_MS } });
  });
  after(async () => {
    await s?.close();
    await quick?.close();
    await up?.close();
    other?.close();
  });

  const zoneData = (zone: string, cogUrl: string, query = 'zone-depth=0', server = s) => server.get(`/dggs/H3/zones/${zone}/data?cog-url=${encodeURIComponent(cogUrl)}&${query}`);
  async function refusal(zone: string, cogUrl: string, server = s): Promise<{ status: number; body: ApiError; ms: number }> {
    const t0 = performance.now();
    const res = await zoneData(zone, cogUrl, undefined, server);
    const body = (await res.json()) as ApiError;
    expect(body.code, JSON.stringify(body)).to.equal(res.status);
    return { status: res.status, body, ms: performance.now() - t0 };
  }
  const sentSince = (route: string, before: number) => (up.sent.get(route) ?? 0) - before;

  it('reads a 1 GiB COG with range requests of only the tiles a zone needs, with the right values', async () => {
    for (const [res, most] of [[5, 4 * MiB], [4, 12 * MiB]] as const) {
      const zone = latLngToCell(56, 4, res);
      const before = up.sent.get('/cog.tif') ?? 0;
      const r = await zoneData(zone, up.url('/cog.tif'), 'zone-depth=0,1&cog-stat=mean,count');
      expect(r.status, await r.clone().text()).to.equal(200);
      const body = (await r.json()) as { values: Record<string, { depth: number; data: number[] }[]> };
      const [lat, lon] = cellToLatLng(zone);
      // A linear field's zone mean is close to its value at the zone's centre.
      expect(body.values.band1_mean![0]!.data[0]).to.be.closeTo(field(lon, lat), 0.5);
      expect(body.values.band1_count![1]!.data).to.have.length(7);
      const sent = sentSince('/cog.tif', before);
      expect(sent, `bytes fetched for a level-${res} zone`).to.be.at.most(most);
      expect(sent / COG_BYTES).to.be.below(0.012);
    }
  });

  it('reads a small COG from a host that ignores Range once, within the budget, with the values of a ranged read', async () => {
    const zone = '831f8afffffffff'; // inside the demo raster
    const before = up.sent.get('/elevation-norange.tif') ?? 0;
    const r = await zoneData(zone, up.url('/elevation-norange.tif'));
    expect(r.status, await r.clone().text()).to.equal(200);
    const local = (await (await s.get(`/collections/demo-elevation/dggs/H3/zones/${zone}/data?zone-depth=0`)).json()) as { values: { elevation: { data: number[] }[] } };
    expect(((await r.json()) as { values: { band1_mean: { data: number[] }[] } }).values.band1_mean[0]!.data).to.deep.equal(local.values.elevation[0]!.data);
    // The whole file came once; later ranges were cut from it.
    expect(sentSince('/elevation-norange.tif', before)).to.equal(ELEVATION.length);
  });

  it('refuses (413) a host that ignores Range as soon as its declared length passes the request budget', async () => {
    const before = up.sent.get('/norange.tif') ?? 0;
    const { status, body } = await refusal(latLngToCell(56, 4, 5), up.url('/norange.tif'));
    expect(status).to.equal(413);
    expect(body.hint).to.contain('rasterFetch.maxRequestBytes');
    // Cut at once: what was sent is what sat in socket buffers, not the 1 GiB.
    expect(sentSince('/norange.tif', before)).to.be.below(inFlightBound());
  });

  it('streams a whole-file answer without a length and cuts it (413) the moment it passes the request budget', async () => {
    const before = up.sent.get('/chunked.tif') ?? 0;
    const { status, body } = await refusal(latLngToCell(56, 4, 5), up.url('/chunked.tif'));
    expect(status).to.equal(413);
    expect(body.hint).to.contain(`${s.config.rasterFetch.maxRequestBytes} bytes for one request`);
    const sent = sentSince('/chunked.tif', before);
    expect(sent).to.be.at.least(s.config.rasterFetch.maxRequestBytes);
    expect(sent).to.be.below(s.config.rasterFetch.maxRequestBytes + inFlightBound());
  });

  it('answers 504 when the host trickles or stays silent past rasterFetch.timeoutMs', async () => {
    for (const route of ['/trickle.tif', '/silent.tif']) {
      const { status, body, ms } = await refusal(latLngToCell(56, 4, 5), up.url(route), quick);
      expect(status, route).to.equal(504);
      expect(body.hint).to.contain(`${TIMEOUT_MS} ms`);
      expect(ms).to.be.within(TIMEOUT_MS - 50, TIMEOUT_MS + 5_000);
    }
  });

  it('follows a redirect to an allowed address, and refuses (403) one to a private address or a file, without connecting', async () => {
    const zone = latLngToCell(56, 4, 5);
    expect((await zoneData(zone, up.url('/redirect'))).status).to.equal(200);
    for (const target of ['http://169.254.169.254/latest/meta-data/', `http://127.0.0.2:${otherPort}/x.tif`, 'http://[::1]/x.tif', 'http://10.0.0.1/x.tif', 'file:///etc/passwd']) {
      const { status, body } = await refusal(zone, up.url(`/to/${encodeURIComponent(target)}`));
      expect(status, target).to.equal(403);
      expect(body.message).to.match(/non-public address|scheme not allowed/);
    }
    expect((await refusal(zone, up.url('/to-metadata'))).status).to.equal(403);
    expect(otherHits, 'connections to the refused private host').to.equal(0);
  });

  it('answers 400 for a file the host does not serve, 502 for an unreachable host and a payload that is not a GeoTIFF', async () => {
    const zone = latLngToCell(56, 4, 5);
    const html = await refusal(zone, up.url('/html'));
    expect([html.status, html.body.message]).to.deep.equal([502, 'Raster could not be read']);
    const missing = await refusal(zone, up.url('/missing'));
    expect([missing.status, missing.body.message]).to.deep.equal([400, 'Raster not found']);
    expect(missing.body.hint).to.contain('HTTP 404');
    // A port nothing listens on: take one from the system and close it.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const refused = await refusal(zone, `http://127.0.0.1:${closedPort}/cog.tif`);
    expect([refused.status, refused.body.message]).to.deep.equal([502, 'Raster fetch failed']);
    // https to a plain-http host: the scheme is wrong (400), and OpenSSL's own words stay out of the body.
    const tls = await refusal(zone, up.url('/cog.tif').replace(/^http:/, 'https:'));
    expect([tls.status, tls.body.message]).to.deep.equal([400, 'Raster host refused TLS']);
    expect(JSON.stringify(tls.body)).not.to.match(/routines|ssl3|wrong version/i);
  });

  it('refuses (413) a window over limits.maxRasterWindowSamples before reading any tile', async () => {
    const before = up.sent.get('/cog.tif') ?? 0;
    const { status, body } = await refusal(latLngToCell(56, 4, 3), up.url('/cog.tif'));
    expect(status).to.equal(413);
    expect(body.hint).to.contain(`at most ${s.config.limits.maxRasterWindowSamples} (limits.maxRasterWindowSamples)`);
    expect(sentSince('/cog.tif', before), 'only the header was read').to.be.at.most(64 * 1024);
  });

  it('keeps the event loop responsive while large windows are read', async function () {
    this.retries(HOLD_RERUNS);
    const zones = [latLngToCell(56, 4, 4), latLngToCell(55, 2, 4)];
    const latencies: number[] = [];
    const { result: statuses, tookMs, longestMs } = await loopHolds(async () => {
      let done = false;
      const heavy = Promise.all(zones.map((z) => zoneData(z, up.url('/cog.tif')).then((r) => r.status))).finally(() => (done = true));
      while (!done) {
        const t0 = performance.now();
        expect((await s.get('/conformance')).status).to.equal(200);
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
      return heavy;
    }, 5);
    expect(statuses).to.deep.equal([200, 200]);
    console.log(`      during 2 level-4 reads (${tookMs.toFixed(0)} ms): longest hold of the loop ${longestMs.toFixed(0)} ms; /conformance answered ${latencies.length} times, worst ${Math.max(...latencies).toFixed(0)} ms`);
    expect(latencies.length).to.be.greaterThan(2);
    expect(longestMs).to.be.below(100);
  });

  it('bounds RSS for 4 parallel requests on the 1 GiB COG, ranged and not', async () => {
    const zones = [latLngToCell(56, 4, 4), latLngToCell(55, 2, 4), latLngToCell(58, 6, 4), latLngToCell(54, 7, 4)];
    const peakDuring = async (run: () => Promise<number[]>) => {
      const base = process.memoryUsage().rss;
      let peak = base;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const statuses = await run();
      clearInterval(timer);
      return { statuses, growth: (Math.max(peak, process.memoryUsage().rss) - base) / MiB };
    };
    // The raster host runs in this process too: let it compute these zones' tiles before measuring.
    for (const z of zones) expect((await zoneData(z, up.url('/cog.tif'))).status).to.equal(200);
    const ranged = await peakDuring(() => Promise.all(zones.map((z) => zoneData(z, up.url('/cog.tif')).then((r) => r.status))));
    expect(ranged.statuses).to.deep.equal([200, 200, 200, 200]);
    const whole = await peakDuring(() => Promise.all(zones.map((z) => zoneData(z, up.url('/chunked.tif')).then((r) => r.status))));
    // Each is cut at its own budget (413), or before, when the bodies in flight together pass theirs (503).
    for (const status of whole.statuses) expect([413, 503]).to.include(status);
    console.log(`      RSS growth, 4 parallel: ranged ${ranged.growth.toFixed(0)} MiB, Range ignored ${whole.growth.toFixed(0)} MiB (budget ${s.config.rasterFetch.maxRequestBytes / MiB} MiB each, ${s.config.rasterFetch.maxInFlightBytes / MiB} MiB in flight)`);
    expect(ranged.growth).to.be.below(120);
    // The requests together hold at most the in-flight budget of body bytes.
    expect(whole.growth).to.be.below(s.config.rasterFetch.maxInFlightBytes / MiB + 100);
  });
});
