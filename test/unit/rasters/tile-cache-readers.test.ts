/**
 * The raster readers through the shared decoded-tile cache: a repeated window decodes nothing and
 * gives the very same samples as a reader without the cache; a client's URL (cog-url) never
 * fills nor reads it; rasters sharing it never see each other's tiles.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { BaseDecoder } from 'geotiff';
import type { BBox } from '../../../src/domain/dggrs/dggrs.js';
import type { RasterReader, RasterWindow } from '../../../src/ports/raster-reader.js';
import { DecodedTileCache } from '../../../src/adapters/rasters/decoded-tile-cache.js';
import { GeoTiffRasterReader } from '../../../src/adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../../../src/adapters/rasters/pmtiles-raster-reader.js';
import type { FetchPolicy } from '../../../src/adapters/rasters/url-guard.js';
import { writeLinearFieldPmtiles } from '../../support/pmtiles-writer.js';
import { parseConfig } from '../../../src/app/config/load-config.js';
import { buildContainer } from '../../../src/app/container.js';
import { TOKENS } from '../../../src/app/tokens.js';
import { REPO_ROOT } from '../../support/test-server.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/rasters');
const LINEAR = path.join(FIXTURES, 'linear-4326.tif');
const NODATA = path.join(FIXTURES, 'nodata-4326.tif');
/** A client policy that lets cog-url name local files, so untrusted opens can be tested without a server. */
const POLICY: FetchPolicy = { allowedSchemes: ['file'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1 << 24, timeoutMs: 5_000, maxRedirects: 0 };
/** Windows over several tiles: full resolution (128-pixel tiles of 0.002 degrees) and a coarser level. */
const WINDOWS: { bbox: BBox; maxPixelSizeDegrees: number }[] = [
  { bbox: [10.2, 45.3, 10.7, 45.6], maxPixelSizeDegrees: 0.002 },
  { bbox: [10.05, 45.05, 10.95, 45.95], maxPixelSizeDegrees: 0.004 },
];

/** Counts geotiff.js block decodes (inflate + predictor) while `fn` runs. */
async function countDecodes(fn: () => Promise<void>): Promise<number> {
  const proto = BaseDecoder.prototype as { decode: (b: ArrayBufferLike) => Promise<ArrayBufferLike> };
  const decode = proto.decode;
  let n = 0;
  proto.decode = function (this: BaseDecoder, buffer: ArrayBufferLike) {
    n++;
    return decode.call(this, buffer);
  };
  try {
    await fn();
  } finally {
    proto.decode = decode;
  }
  return n;
}

/** Every sample of every band in a window's data bounds, in order (NaN kept as NaN). */
function samples(win: RasterWindow): number[] {
  const [c0, r0, c1, r1] = win.dataBounds;
  const out: number[] = [];
  for (let b = 0; b < win.bandCount; b++) for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) out.push(win.value(b, c, r));
  return out;
}

async function readAll(reader: RasterReader, href: string, trusted: boolean, bands: number[]): Promise<number[][]> {
  const ds = await reader.open(href, { trusted });
  const got: number[][] = [];
  for (const w of WINDOWS) got.push(samples(await ds.readWindow({ ...w, bands })));
  if (!trusted) await ds.close();
  return got;
}

/** Bit-identical: same length, every sample the same number (NaN where NaN). */
function expectIdentical(a: number[][], b: number[][]): void {
  expect(a.map((w) => w.length)).to.deep.equal(b.map((w) => w.length));
  a.forEach((w, i) => {
    const differs = w.findIndex((v, k) => !Object.is(v, b[i]![k]));
    expect(differs, `window ${i}: first differing sample`).to.equal(-1);
  });
}

describe('decoded-tile cache in the raster readers', () => {
  describe('GeoTIFF (geotiff.js)', () => {
    it('decodes nothing for a second read over the same tiles, and gives the samples of an uncached read', async () => {
      const cache = new DecodedTileCache(16 << 20);
      const reader = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, cache);
      let first: number[][] = [], second: number[][] = [];
      const decodedFirst = await countDecodes(async () => { first = await readAll(reader, LINEAR, true, [1, 2]); });
      const decodedSecond = await countDecodes(async () => { second = await readAll(reader, LINEAR, true, [1, 2]); });
      expect(decodedFirst, 'the first reads decode their tiles').to.be.greaterThan(4);
      expect(decodedSecond, 'the repeated reads decode nothing').to.equal(0);
      expect(cache.stats.misses).to.equal(decodedFirst);
      expect(cache.bytes).to.be.greaterThan(0).and.at.most(cache.maxBytes);

      const uncached = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, new DecodedTileCache(0));
      let reference: number[][] = [];
      const decodedUncached = await countDecodes(async () => { reference = await readAll(uncached, LINEAR, true, [1, 2]); });
      expect(decodedUncached).to.equal(decodedFirst);
      expect(first[0]!.filter(Number.isFinite).length).to.be.greaterThan(10_000);
      expectIdentical(first, reference);
      expectIdentical(second, reference);
    });

    it('never caches a client URL (cog-url): each open decodes, the shared cache stays empty', async () => {
      const cache = new DecodedTileCache(16 << 20);
      const reader = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, cache);
      const url = pathToFileURL(LINEAR).href;
      const once = await countDecodes(async () => { await readAll(reader, url, false, [1]); });
      const twice = await countDecodes(async () => { await readAll(reader, url, false, [1]); });
      expect(once).to.be.greaterThan(0);
      expect(twice).to.equal(once);
      expect(cache.size).to.equal(0);
      expect(cache.stats).to.deep.equal({ hits: 0, misses: 0 });
      // Nor does a trusted read of the same file then answer from anything a client's read left.
      const trusted = await countDecodes(async () => { await readAll(reader, LINEAR, true, [1]); });
      expect(trusted).to.equal(once);
    });

    it('keeps the tiles of two rasters of the same layout apart', async () => {
      const cache = new DecodedTileCache(16 << 20);
      const reader = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, cache);
      const uncached = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, new DecodedTileCache(0));
      const linear = await readAll(reader, LINEAR, true, [1]);
      const nodata = await readAll(reader, NODATA, true, [1]);
      expectIdentical(linear, await readAll(uncached, LINEAR, true, [1]));
      expectIdentical(nodata, await readAll(uncached, NODATA, true, [1]));
      expectIdentical(await readAll(reader, NODATA, true, [1]), nodata);
      expect(linear[0]!.some((v, k) => !Object.is(v, nodata[0]![k])), 'the two rasters differ').to.equal(true);
    });

    it('holds no more than its bound when the windows need more tiles than fit', async () => {
      // Two 128x128 tiles of 2 float32 bands (128 KiB each) fit; the windows read a dozen.
      const cache = new DecodedTileCache(300_000);
      const reader = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, cache);
      const small = await readAll(reader, LINEAR, true, [1, 2]);
      expect(cache.stats.misses).to.be.greaterThan(2);
      expect(cache.size).to.equal(2);
      expect(cache.bytes).to.be.at.most(300_000);
      expectIdentical(small, await readAll(new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, new DecodedTileCache(0)), LINEAR, true, [1, 2]));
    });
  });

  describe('PMTiles', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tile-cache-pmtiles-'));
    const href = writeLinearFieldPmtiles(dir, { metadata: { encoding: 'terrarium' } });

    it('decodes nothing for a second read over the same tiles, and gives the samples of an uncached read', async () => {
      const cache = new DecodedTileCache(16 << 20);
      const reader = new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, tileCache: cache });
      const first = await readAll(reader, href, true, [1]);
      const decoded = cache.stats.misses;
      expect(decoded).to.be.greaterThan(1);
      const second = await readAll(reader, href, true, [1]);
      expect(cache.stats.misses, 'the repeated reads decode nothing').to.equal(decoded);
      expect(cache.stats.hits).to.be.at.least(decoded);
      const reference = await readAll(new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, tileCache: new DecodedTileCache(0) }), href, true, [1]);
      expect(first[0]!.filter(Number.isFinite).length).to.be.greaterThan(1000);
      expectIdentical(first, reference);
      expectIdentical(second, reference);
    });

    it('never puts a client URL (cog-url) archive in the shared cache', async () => {
      const cache = new DecodedTileCache(16 << 20);
      const reader = new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, tileCache: cache });
      const url = pathToFileURL(href).href;
      const got = await readAll(reader, url, false, [1]);
      await readAll(reader, url, false, [1]);
      expect(got[0]!.filter(Number.isFinite).length).to.be.greaterThan(1000);
      expect(cache.size).to.equal(0);
      expect(cache.stats).to.deep.equal({ hits: 0, misses: 0 });
    });
  });

  it('one cache serves both formats without mixing their tiles', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tile-cache-both-'));
    const archive = writeLinearFieldPmtiles(dir, { metadata: { encoding: 'terrarium' } });
    const cache = new DecodedTileCache(16 << 20);
    const tif = new GeoTiffRasterReader(POLICY, REPO_ROOT, undefined, cache);
    const pm = new PmtilesRasterReader(POLICY, { cwd: REPO_ROOT, tileCache: cache });
    const a = await readAll(tif, LINEAR, true, [1]);
    const b = await readAll(pm, archive, true, [1]);
    const misses = cache.stats.misses;
    expectIdentical(await readAll(tif, LINEAR, true, [1]), a);
    expectIdentical(await readAll(pm, archive, true, [1]), b);
    expect(cache.stats.misses).to.equal(misses);
  });

  describe('rasters.tileCacheBytes', () => {
    /** Decodes of a second identical read through the app's own RasterReader, built from config. */
    async function decodesOfRepeat(rasters: unknown): Promise<number> {
      const config = parseConfig({ datastore: { kind: 'sqlite', file: ':memory:' }, ...(rasters === undefined ? {} : { rasters }) });
      const reader = buildContainer(config).get<RasterReader>(TOKENS.RasterReader);
      await readAll(reader, LINEAR, true, [1]);
      return countDecodes(async () => { await readAll(reader, LINEAR, true, [1]); });
    }

    it('caches by default (64 MiB) and decodes every read at 0', async () => {
      expect(parseConfig({}).rasters.tileCacheBytes).to.equal(64 * 1024 * 1024);
      expect(await decodesOfRepeat(undefined)).to.equal(0);
      expect(await decodesOfRepeat({ tileCacheBytes: 0 })).to.be.greaterThan(0);
    });

    it('refuses a negative or fractional bound', () => {
      expect(() => parseConfig({ rasters: { tileCacheBytes: -1 } })).to.throw(/rasters\.tileCacheBytes/);
      expect(() => parseConfig({ rasters: { tileCacheBytes: 0.5 } })).to.throw(/rasters\.tileCacheBytes/);
    });
  });
});
