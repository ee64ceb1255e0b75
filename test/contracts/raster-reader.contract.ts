/**
 * What every RasterReader adapter must do, run against a raster of a known linear field
 * (band 1 = 10*lon + 20*lat over lon 10..11, lat 45..46): metadata, values equal to the field
 * within the format's precision, resolution (overview / zoom) selection, nodata outside the data,
 * and typed errors for files that are not rasters.
 */
import { expect } from 'chai';
import type { BBox } from '../../src/domain/dggrs/dggrs.js';
import { AppError } from '../../src/ports/errors.js';
import type { RasterDataset, RasterReader, RasterWindow } from '../../src/ports/raster-reader.js';
import { httpStatus } from '../support/http-status.js';

export interface RasterReaderFixture {
  reader: RasterReader;
  /** The linear-field raster (trusted, as from config). */
  href: string;
  /** Band 1 at a lon/lat. */
  field: (lon: number, lat: number) => number;
  /** Where the field has data, and how far the reported extent may stray from it (degrees). */
  dataBounds: BBox;
  boundsTolerance: number;
  crs: RegExp;
  isGeographic: boolean;
  bandCount: number;
  /** Largest allowed |read - field| (the encoding's precision). */
  tolerance: number;
  /** A file with the adapter's extension that is not a raster of its format. */
  invalidHref: string;
  missingHref: string;
  /** The same kind of reader with a window bound (samples) that the full-resolution window of the inner box passes. */
  bounded: { reader: RasterReader; maxWindowSamples: number };
}

export const linearField = (lon: number, lat: number): number => 10 * lon + 20 * lat;

/** Grid of points inside a box, inset so pixel centres near them stay inside too. */
function samplePoints([w, s, e, n]: BBox, steps = 12): [number, number][] {
  const pts: [number, number][] = [];
  for (let i = 0; i <= steps; i++) for (let j = 0; j <= steps; j++) pts.push([w + ((e - w) * i) / steps, s + ((n - s) * j) / steps]);
  return pts;
}

/** Value of the pixel holding a lon/lat, and the lon/lat of that pixel's centre. */
function at(win: RasterWindow, lon: number, lat: number, band = 0): { v: number; centre: [number, number] } {
  const [x, y] = win.toPixel(lon, lat);
  const col = Math.floor(x), row = Math.floor(y);
  return { v: win.value(band, col, row), centre: win.toLonLat(col + 0.5, row + 0.5) };
}

function expectField(fx: RasterReaderFixture, win: RasterWindow, box: BBox): void {
  let checked = 0;
  for (const [lon, lat] of samplePoints(box)) {
    const { v, centre } = at(win, lon, lat);
    expect(v, `value at ${lon},${lat}`).to.be.a('number').and.not.be.NaN;
    expect(Math.abs(v - fx.field(...centre)), `|read - field| at pixel centre ${centre}`).to.be.at.most(fx.tolerance);
    checked++;
  }
  expect(checked).to.be.greaterThan(100);
}

async function rejectsTyped(p: Promise<unknown>, status = 400): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(AppError);
    expect(httpStatus(err)).to.equal(status);
    return err as AppError;
  }
  expect.fail('expected a rejection');
}

export function rasterReaderContract(name: string, make: () => Promise<RasterReaderFixture>): void {
  describe(`RasterReader contract: ${name}`, function () {
    this.timeout(30_000);
    let fx: RasterReaderFixture;
    let ds: RasterDataset;
    const inner: BBox = [10.3, 45.3, 10.7, 45.7];

    before(async () => {
      fx = await make();
      ds = await fx.reader.open(fx.href, { trusted: true });
    });
    after(async () => ds?.close());

    it('reports bounds, CRS, bands, nodata and levels', () => {
      const { info } = ds;
      expect(info.href).to.equal(fx.href);
      info.bboxLonLat.forEach((v, i) => expect(Math.abs(v - fx.dataBounds[i]!), `bbox[${i}] ${info.bboxLonLat}`).to.be.at.most(fx.boundsTolerance));
      expect(info.crs).to.match(fx.crs);
      expect(info.isGeographic).to.equal(fx.isGeographic);
      expect(info.bandCount).to.equal(fx.bandCount);
      expect(info.noData).to.equal(undefined);
      expect(info.overviewCount).to.be.at.least(1);
      expect(info.width).to.be.greaterThan(0);
      expect(info.height).to.be.greaterThan(0);
      expect(info.pixelSizeDegrees).to.be.greaterThan(0).and.lessThan(0.01);
      expect(info.dataType).to.be.a('string').and.not.equal('');
    });

    it('reads a window at full resolution with the field values', async () => {
      const win = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] });
      expect(win.overview).to.equal(0);
      expect(win.bandCount).to.equal(1);
      expect(win.pixelSizeDegrees).to.be.closeTo(ds.info.pixelSizeDegrees, ds.info.pixelSizeDegrees * 0.05);
      expectField(fx, win, inner);
    });

    it('maps pixel coordinates to lon/lat and back', async () => {
      const win = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] });
      for (const [lon, lat] of samplePoints(inner, 4)) {
        const [x, y] = win.toPixel(lon, lat);
        const [lon2, lat2] = win.toLonLat(x, y);
        expect(lon2).to.be.closeTo(lon, 1e-9);
        expect(lat2).to.be.closeTo(lat, 1e-9);
      }
      // Rows grow southwards, columns eastwards.
      const [x0, y0] = win.toPixel(10.5, 45.5), [x1, y1] = win.toPixel(10.6, 45.4);
      expect(x1).to.be.greaterThan(x0);
      expect(y1).to.be.greaterThan(y0);
    });

    it('picks a coarser level for a coarse request, still with the field values', async () => {
      const max = 0.02;
      const win = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: max, bands: [1] });
      expect(win.overview).to.be.greaterThan(0);
      expect(win.pixelSizeDegrees).to.be.at.most(max).and.greaterThan(ds.info.pixelSizeDegrees * 1.5);
      expectField(fx, win, inner);
      const coarsest = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: 50, bands: [1] });
      expect(coarsest.overview).to.equal(ds.info.overviewCount);
      expect(coarsest.pixelSizeDegrees).to.be.at.least(win.pixelSizeDegrees);
    });

    it('falls back to full resolution when no level is fine enough', async () => {
      const win = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: ds.info.pixelSizeDegrees / 10, bands: [1] });
      expect(win.overview).to.equal(0);
    });

    it('gives nodata (NaN) outside the data', async () => {
      const far = await ds.readWindow({ bbox: [20, 20, 20.5, 20.5], maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] });
      for (const [lon, lat] of samplePoints([20, 20, 20.5, 20.5], 4)) expect(at(far, lon, lat).v).to.be.NaN;
      // A window straddling the east edge: data west of it, nodata east of it.
      const edge = await ds.readWindow({ bbox: [10.8, 45.4, 11.2, 45.6], maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] });
      for (const [lon, lat] of samplePoints([10.8, 45.4, 11.2, 45.6], 20)) {
        const { v, centre } = at(edge, lon, lat);
        if (lon < 10.98) expect(Math.abs(v - fx.field(...centre)), `west of the edge at ${lon}`).to.be.at.most(fx.tolerance);
        else if (lon > 11.02) expect(v, `east of the edge at ${lon}`).to.be.NaN;
      }
    });

    it('reads in the pixel space of its level and says which pixels it read (dataBounds)', async () => {
      // Zonal statistics rely on both: samples stay inside dataBounds, and a pixel read again in
      // another window of the same level has the same coordinates and value.
      const a = await ds.readWindow({ bbox: inner, maxPixelSizeDegrees: 0.02, bands: [1] });
      const b = await ds.readWindow({ bbox: [10.45, 45.45, 10.9, 45.9], maxPixelSizeDegrees: 0.02, bands: [1] });
      expect(b.overview).to.equal(a.overview);
      const [c0, r0, c1, r1] = a.dataBounds;
      expect(c1).to.be.greaterThan(c0);
      expect(r1).to.be.greaterThan(r0);
      for (const [lon, lat] of samplePoints(inner, 6)) {
        const [x, y] = a.toPixel(lon, lat);
        expect(x >= c0 && x <= c1 && y >= r0 && y <= r1, `${lon},${lat} -> ${x},${y} outside ${a.dataBounds}`).to.equal(true);
      }
      for (let c = c0 - 1; c <= c1; c++) {
        expect(a.value(0, c, r0 - 1)).to.be.NaN;
        expect(a.value(0, c, r1)).to.be.NaN;
      }
      for (let r = r0; r < r1; r++) {
        expect(a.value(0, c0 - 1, r)).to.be.NaN;
        expect(a.value(0, c1, r)).to.be.NaN;
      }
      for (const [lon, lat] of samplePoints([10.5, 45.5, 10.68, 45.68], 6)) {
        const pa = a.toPixel(lon, lat), pb = b.toPixel(lon, lat);
        expect(pb[0]).to.be.closeTo(pa[0], 1e-6);
        expect(pb[1]).to.be.closeTo(pa[1], 1e-6);
        const [col, row] = [Math.floor(pa[0]), Math.floor(pa[1])];
        expect(b.value(0, col, row)).to.equal(a.value(0, col, row));
      }
      const far = await ds.readWindow({ bbox: [20, 20, 20.5, 20.5], maxPixelSizeDegrees: 0.02, bands: [1] });
      const [f0, g0, f1, g1] = far.dataBounds;
      expect(f1 <= f0 || g1 <= g0, `off the raster, dataBounds ${far.dataBounds} should be empty`).to.equal(true);
    });

    it('refuses a band the raster does not have', async () => {
      await rejectsTyped(ds.readWindow({ bbox: inner, maxPixelSizeDegrees: 1, bands: [fx.bandCount + 1] }));
      await rejectsTyped(ds.readWindow({ bbox: inner, maxPixelSizeDegrees: 1, bands: [0] }));
    });

    it('refuses (413) a window over its sample bound, naming it, and still reads one within it', async () => {
      const bounded = await fx.bounded.reader.open(fx.href, { trusted: true });
      try {
        const err = await rejectsTyped(bounded.readWindow({ bbox: inner, maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] }), 413);
        expect(err.hint).to.contain(`at most ${fx.bounded.maxWindowSamples} (limits.maxRasterWindowSamples)`);
        const small: BBox = [10.501, 45.501, 10.531, 45.531];
        expectField(fx, await bounded.readWindow({ bbox: small, maxPixelSizeDegrees: ds.info.pixelSizeDegrees, bands: [1] }), small);
      } finally {
        await bounded.close();
      }
    });

    it('fails with a typed error, not a crash, on a file that is not a raster', async () => {
      // A configured raster's failure is the operator's (503), and its answer names no server path.
      for (const href of [fx.invalidHref, fx.missingHref]) {
        const err = await rejectsTyped(fx.reader.open(href, { trusted: true }), 503);
        expect(`${err.message} ${err.hint}`).to.not.contain(href).and.not.contain('ENOENT');
      }
    });

    it('refuses a local path from an untrusted caller', async () => {
      await rejectsTyped(fx.reader.open(fx.href, { trusted: false }));
    });
  });
}
