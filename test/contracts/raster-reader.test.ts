import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GeoTiffRasterReader } from '../../src/adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../../src/adapters/rasters/pmtiles-raster-reader.js';
import { encodePng, fieldTiles, pmtilesBytes, writeLinearFieldPmtiles } from '../support/pmtiles-writer.js';
import { decodePng, PngDecodeError } from '../../src/adapters/rasters/png-decoder.js';
import { decodeValues } from '../../src/adapters/rasters/pmtiles-value-encoding.js';
import { AppError } from '../../src/ports/errors.js';
import type { FetchPolicy } from '../../src/adapters/rasters/url-guard.js';
import { expect } from 'chai';
import { cellToLatLng, latLngToCell } from 'h3-js';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { linearField, rasterReaderContract } from './raster-reader.contract.js';
import { httpStatus } from '../support/http-status.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/rasters');
const POLICY: FetchPolicy = { allowedSchemes: ['https'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1 << 24, timeoutMs: 5_000, maxRedirects: 2 };

/** A scratch folder with a file of the given extension holding bytes of no raster format. */
function garbage(ext: string): { invalid: string; missing: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'raster-contract-'));
  const invalid = path.join(dir, `garbage.${ext}`);
  writeFileSync(invalid, Buffer.from('this is not a raster at all, just some text '.repeat(40)));
  return { invalid, missing: path.join(dir, `missing.${ext}`) };
}

rasterReaderContract('GeoTiffRasterReader (linear-4326.tif)', async () => {
  const { invalid, missing } = garbage('tif');
  return {
    reader: new GeoTiffRasterReader(POLICY, REPO_ROOT),
    href: path.join(FIXTURES, 'linear-4326.tif'),
    field: linearField,
    dataBounds: [10, 45, 11, 46],
    boundsTolerance: 1e-9,
    crs: /\+proj=longlat/,
    isGeographic: true,
    bandCount: 2,
    tolerance: 1e-3, // float32 around 1000
    invalidHref: invalid,
    missingHref: missing,
    // Tiles of 128 x 128 pixels x 2 bands fit; the inner box's 200 x 200 full-resolution pixels do not.
    bounded: { reader: new GeoTiffRasterReader(POLICY, REPO_ROOT, 32_768), maxWindowSamples: 32_768 },
  };
});

rasterReaderContract('PmtilesRasterReader (terrarium PNG tiles, zooms 5..8)', async () => {
  const { invalid, missing } = garbage('pmtiles');
  const dir = mkdtempSync(path.join(tmpdir(), 'pmtiles-contract-'));
  // No `encoding` in the metadata: the configured encoding is what decodes the tiles.
  const href = writeLinearFieldPmtiles(dir, { metadata: { name: 'linear field' } });
  return {
    reader: new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, encodingFor: (h) => (h === href ? 'terrarium' : undefined) }),
    href,
    field: linearField,
    dataBounds: [10, 45, 11, 46],
    boundsTolerance: 1e-6, // the header stores bounds in 1e-7 degrees
    crs: /\+proj=merc/,
    isGeographic: false,
    bandCount: 1,
    tolerance: 1 / 256, // terrarium quantum
    invalidHref: invalid,
    missingHref: missing,
    bounded: { reader: new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, encodingFor: () => 'terrarium', maxWindowSamples: 1_000 }), maxWindowSamples: 1_000 },
  };
});

describe('raster-url wiring: a .pmtiles collection is read by the PMTiles reader', function () {
  this.timeout(60_000);
  let s: TestServer;
  let bare: string;
  const field = { value: { title: 'Value', type: 'number', svc_band_index: 1, svc_dggs_stat: 'mean' } };
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pmtiles-wiring-'));
    const pmtiles = writeLinearFieldPmtiles(dir, { metadata: {} });
    // Readers look settings up by url, so the unconfigured collection gets its own file (named without the extension).
    bare = writeLinearFieldPmtiles(dir, { metadata: {}, name: 'linear-terrarium-archive' });
    s = await startTestServer({
      collections: [
        { id: 'linear-tif', title: 'Linear (GeoTIFF)', backing: { kind: 'raster-url', url: path.join(FIXTURES, 'linear-4326.tif'), fields: field } },
        { id: 'linear-pmtiles', title: 'Linear (PMTiles)', backing: { kind: 'raster-url', url: pmtiles, valueEncoding: 'terrarium', fields: field } },
      ],
    });
  });
  after(async () => s?.close());

  it('gives the same zone means from the GeoTIFF and the PMTiles copy of one field', async () => {
    const zone = latLngToCell(45.5, 10.5, 5);
    const mean = async (id: string, factor = '') => {
      const res = await s.get(`/collections/${id}/dggs/H3/zones/${zone}/data?zone-depth=0&f=json${factor}`);
      expect(res.status, await res.clone().text()).to.equal(200);
      return (await res.json()).values.value[0].data[0] as number;
    };
    const [tif, pm] = [await mean('linear-tif'), await mean('linear-pmtiles')];
    const [lat, lon] = cellToLatLng(zone);
    expect(tif).to.be.closeTo(linearField(lon, lat), 0.2); // a linear field's zone mean is about its value at the centre
    // Sampled at the default factor, each format from its own levels (an averaged overview, a zoom level).
    expect(pm).to.be.closeTo(tif, 0.1);
    // Every full-resolution pixel centre of each: two pixel grids of one field, nearly the same mean.
    const [tifExact, pmExact] = [await mean('linear-tif', '&cog-sampling-factor=4096'), await mean('linear-pmtiles', '&cog-sampling-factor=4096')];
    expect(pmExact).to.be.closeTo(tifExact, 0.005);
  });

  it('labels each source link with its raster format', async () => {
    const zone = latLngToCell(45.5, 10.5, 5);
    const sourceType = async (id: string) => {
      const body = await (await s.get(`/collections/${id}/dggs/H3/zones/${zone}/data?zone-depth=0&f=json`)).json();
      return body.links.find((l: { rel: string }) => l.rel === 'source').type as string;
    };
    expect(await sourceType('linear-pmtiles')).to.equal('application/vnd.pmtiles');
    expect(await sourceType('linear-tif')).to.match(/^image\/tiff; application=geotiff/);
  });

  it('refuses to start, with a hint, on an archive whose encoding is neither configured nor in its metadata', async () => {
    // Configured rasters are opened at start, so the mistake stops the start rather than failing requests.
    const refused = await startTestServer({ collections: [{ id: 'no-encoding', title: 'PMTiles without encoding', backing: { kind: 'raster-url', url: bare, rasterFormat: 'pmtiles', fields: field } }] }).then(
      (started) => started.close().then(() => undefined),
      (err: unknown) => err as Error,
    );
    expect(refused?.message).to.match(/^collection "no-encoding" \(collections\[0\]\.backing\.url\): .*valueEncoding/);
  });
});

describe('PMTiles adapter specifics', function () {
  this.timeout(30_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'pmtiles-specific-'));
  const reader = new PmtilesRasterReader(POLICY);
  const failsWith = async (p: Promise<unknown>, hint: RegExp) => {
    try {
      await p;
    } catch (err) {
      expect(err).to.be.instanceOf(AppError);
      expect(`${(err as AppError).message} ${(err as AppError).hint}`).to.match(hint);
      return;
    }
    expect.fail('expected a rejection');
  };

  it('decodes 8-bit gray, gray+alpha, RGB and RGBA PNGs under every row filter', () => {
    const px = (n: number, ch: number) => Uint8Array.from({ length: n * ch }, (_, i) => (i * 37 + (i >> 3)) & 255);
    for (const ch of [1, 2, 3, 4] as const) {
      const src = px(7 * 6, ch);
      const img = decodePng(encodePng(7, 6, src, ch));
      expect([img.width, img.height]).to.deep.equal([7, 6]);
      for (let i = 0; i < 42; i++) {
        const o = i * 4;
        const want = ch >= 3 ? [src[i * ch]!, src[i * ch + 1]!, src[i * ch + 2]!, ch === 4 ? src[i * ch + 3]! : 255] : [src[i * ch]!, src[i * ch]!, src[i * ch]!, ch === 2 ? src[i * ch + 1]! : 255];
        expect([...img.rgba.subarray(o, o + 4)], `channels ${ch} pixel ${i}`).to.deep.equal(want);
      }
    }
  });

  it('refuses 16-bit, palette, interlaced and corrupt PNGs clearly', () => {
    const rgba = new Uint8Array(4 * 4 * 4);
    expect(() => decodePng(encodePng(4, 4, rgba, 4, { bitDepth: 16 }))).to.throw(PngDecodeError, /bit depth 16/);
    expect(() => decodePng(encodePng(4, 4, rgba, 1, { colourType: 3 }))).to.throw(PngDecodeError, /palette/);
    expect(() => decodePng(encodePng(4, 4, rgba, 4, { interlace: 1 }))).to.throw(PngDecodeError, /interlaced/);
    const bad = encodePng(4, 4, rgba, 4);
    bad[40] = bad[40]! ^ 0xff;
    expect(() => decodePng(bad)).to.throw(PngDecodeError, /CRC/);
    expect(() => decodePng(new Uint8Array([1, 2, 3]))).to.throw(PngDecodeError, /signature/);
  });

  it('decodes terrarium, mapbox-terrain-rgb and gray, alpha 0 as nodata', () => {
    const px = Uint8Array.from([128, 10, 128, 255, 1, 134, 160, 255, 200, 0, 0, 0]);
    const t = decodeValues(px, 'terrarium');
    expect(t[0]).to.equal(10.5);
    expect(decodeValues(px, 'mapbox-terrain-rgb')[1]).to.be.closeTo(-10000 + (65536 + 134 * 256 + 160) * 0.1, 1e-3);
    expect(decodeValues(px, 'gray')[1]).to.equal(1);
    expect(t[2]).to.be.NaN;
  });

  it("takes the encoding from the archive's metadata, with gzip-compressed directories", async () => {
    const href = writeLinearFieldPmtiles(dir, { name: 'meta.pmtiles', metadata: { encoding: 'terrarium' }, gzipInternal: true });
    const ds = await reader.open(href, { trusted: true });
    const win = await ds.readWindow({ bbox: [10.4, 45.4, 10.6, 45.6], maxPixelSizeDegrees: 0.01, bands: [1] });
    const [x, y] = win.toPixel(10.5, 45.5);
    const [lon, lat] = win.toLonLat(Math.floor(x) + 0.5, Math.floor(y) + 0.5);
    expect(win.value(0, Math.floor(x), Math.floor(y))).to.be.closeTo(linearField(lon, lat), 1 / 256);
    expect(ds.info.overviewCount).to.equal(3);
    await ds.close();
  });

  it('refuses WebP (no decoder installed) and vector tiles with a clear error', async () => {
    const tiles = new Map([['5/16/11', new Uint8Array([82, 73, 70, 70])]]);
    const webp = path.join(dir, 'webp.pmtiles');
    writeFileSync(webp, pmtilesBytes({ tiles, bounds: [10, 45, 11, 46], tileType: 4, metadata: { encoding: 'terrarium' } }));
    await failsWith(reader.open(webp, { trusted: true }), /WebP/);
    const mvt = path.join(dir, 'mvt.pmtiles');
    writeFileSync(mvt, pmtilesBytes({ tiles, bounds: [10, 45, 11, 46], tileType: 1 }));
    await failsWith(reader.open(mvt, { trusted: true }), /Mvt tiles/);
  });

  it('reports a corrupt tile as a typed error when the window is read', async () => {
    const tiles = fieldTiles(linearField, [10, 45, 11, 46], 5, 5);
    for (const [k, v] of tiles) tiles.set(k, v.subarray(0, v.length - 30));
    const href = path.join(dir, 'corrupt.pmtiles');
    writeFileSync(href, pmtilesBytes({ tiles, bounds: [10, 45, 11, 46], metadata: { encoding: 'terrarium', tileSize: 256 } }));
    const ds = await reader.open(href, { trusted: true });
    await failsWith(ds.readWindow({ bbox: [10.4, 45.4, 10.6, 45.6], maxPixelSizeDegrees: 1, bands: [1] }), /could not be decoded/);
  });

  it('reads an archive over http range requests through the fetch policy', async () => {
    const bytes = readFileSync(writeLinearFieldPmtiles(dir, { name: 'remote.pmtiles' }));
    let ranged = 0;
    const server = http.createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return void res.end(bytes);
      ranged++;
      const a = Number(m[1]), b = Math.min(Number(m[2]), bytes.length - 1);
      res.writeHead(206, { 'content-range': `bytes ${a}-${b}/${bytes.length}` });
      res.end(bytes.subarray(a, b + 1));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/remote.pmtiles`;
      await failsWith(reader.open(url, { trusted: false }), /./); // loopback refused by the default policy
      const open = new PmtilesRasterReader({ ...POLICY, allowedSchemes: ['http'], allowPrivateNetworks: true });
      const ds = await open.open(url, { trusted: false });
      const win = await ds.readWindow({ bbox: [10.4, 45.4, 10.6, 45.6], maxPixelSizeDegrees: 0.01, bands: [1] });
      const [x, y] = win.toPixel(10.5, 45.5);
      const [lon, lat] = win.toLonLat(Math.floor(x) + 0.5, Math.floor(y) + 0.5);
      expect(win.value(0, Math.floor(x), Math.floor(y))).to.be.closeTo(linearField(lon, lat), 1 / 256);
      expect(ranged).to.be.greaterThan(1);
      await ds.close();
    } finally {
      server.close();
    }
  });

  it('over http: reads a host that ignores Range once, and keeps the class of a refused fetch (413, 504, 400 for a file the host does not serve)', async () => {
    const bytes = readFileSync(writeLinearFieldPmtiles(dir, { name: 'whole.pmtiles' }));
    let sent = 0;
    const server = http.createServer((req, res) => {
      if (req.url === '/silent.pmtiles') return; // never answers
      if (req.url !== '/whole.pmtiles') {
        res.statusCode = 404;
        return void res.end();
      }
      sent += bytes.length;
      res.end(bytes); // Range ignored: the whole archive every time
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const policy: FetchPolicy = { ...POLICY, allowedSchemes: ['http'], allowedPrivateRanges: ['127.0.0.1/32'], timeoutMs: 500 };
    try {
      const ds = await new PmtilesRasterReader(policy, { encodingFor: () => 'terrarium' }).open(`${base}/whole.pmtiles`, { trusted: false });
      const win = await ds.readWindow({ bbox: [10.4, 45.4, 10.6, 45.6], maxPixelSizeDegrees: 0.01, bands: [1] });
      const [x, y] = win.toPixel(10.5, 45.5);
      const [lon, lat] = win.toLonLat(Math.floor(x) + 0.5, Math.floor(y) + 0.5);
      expect(win.value(0, Math.floor(x), Math.floor(y))).to.be.closeTo(linearField(lon, lat), 1 / 256);
      expect(sent, 'the archive came once; later ranges were cut from it').to.equal(bytes.length);
      await ds.close();
      const status = async (p: FetchPolicy, route: string) => {
        try {
          const d = await new PmtilesRasterReader(p, { encodingFor: () => 'terrarium' }).open(`${base}${route}`, { trusted: false });
          await d.readWindow({ bbox: [10.4, 45.4, 10.6, 45.6], maxPixelSizeDegrees: 0.01, bands: [1] });
          return 200;
        } catch (err) {
          expect(err).to.be.instanceOf(AppError);
          return httpStatus(err);
        }
      };
      expect(await status({ ...policy, maxRequestBytes: bytes.length - 1 }, '/whole.pmtiles')).to.equal(413);
      expect(await status(policy, '/silent.pmtiles')).to.equal(504);
      expect(await status(policy, '/missing.pmtiles')).to.equal(400);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
