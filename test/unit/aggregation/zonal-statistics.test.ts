import { expect } from 'chai';
import path from 'node:path';
import proj4 from 'proj4';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { GeoTiffRasterReader } from '../../../src/adapters/rasters/geotiff-raster-reader.js';
import { planSampling, zonalStatistics, ringCentroid, type PixelGrid, type Point } from '../../../src/domain/aggregation/index.js';
import { parseZoneDepth } from '../../../src/domain/zone-depth.js';

const grid = new H3Dggrs();
const FIX = path.resolve(import.meta.dirname, '../../fixtures/rasters');
const reader = new GeoTiffRasterReader({ allowedSchemes: ['https'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1e8, timeoutMs: 5000, maxRedirects: 1 });

/** A synthetic geographic raster: value = f(lon, lat) at pixel centres, `res` degrees per pixel. */
function fieldGrid(f: (lon: number, lat: number) => number, res: number, west = 10, north = 46, size = 1000, nodata?: (lon: number, lat: number) => boolean): PixelGrid {
  return {
    width: size,
    height: size,
    bandCount: 1,
    toPixel: (lon, lat) => [(lon - west) / res, (north - lat) / res],
    toLonLat: (x, y) => [west + x * res, north - y * res],
    value: (_b, col, row) => {
      if (col < 0 || row < 0 || col >= size || row >= size) return NaN;
      const lon = west + (col + 0.5) * res, lat = north - (row + 0.5) * res;
      return nodata?.(lon, lat) ? NaN : f(lon, lat);
    },
  };
}

const linear = (lon: number, lat: number) => 10 * lon + 20 * lat;
const zone = grid.zoneFromPoint(10.5, 45.5, 5);

/** Exact pixel-in-polygon mean: every pixel whose centre lies in the sub-zone outline. */
function exactMean(g: PixelGrid, zoneId: string): number {
  let sum = 0, n = 0;
  const [w, s, e, nn] = grid.describeZone(zoneId).bbox;
  const [c0, r0] = g.toPixel(w, nn), [c1, r1] = g.toPixel(e, s);
  for (let row = Math.max(0, Math.floor(r0) - 1); row < Math.min(g.height, r1 + 1); row++) {
    for (let col = Math.max(0, Math.floor(c0) - 1); col < Math.min(g.width, c1 + 1); col++) {
      const [lon, lat] = g.toLonLat(col + 0.5, row + 0.5);
      if (grid.zoneFromPoint(lon, lat, grid.zoneLevel(zoneId)) !== zoneId) continue;
      const v = g.value(0, col, row);
      if (!Number.isNaN(v)) { sum += v; n++; }
    }
  }
  return sum / n;
}

describe('zonal statistics (domain)', () => {
  it('parses zone-depth forms', () => {
    expect(parseZoneDepth('2')).to.deep.equal([2]);
    expect(parseZoneDepth('3,1')).to.deep.equal([1, 3]);
    expect(parseZoneDepth('1-3')).to.deep.equal([1, 2, 3]);
    expect(parseZoneDepth('0,2-3')).to.deep.equal([0, 2, 3]);
    expect(() => parseZoneDepth('a')).to.throw();
    expect(() => parseZoneDepth('3-1')).to.throw();
  });

  it('on a linear field, gives the value at each zone area centroid within 0.01 at the default factor', () => {
    const g = fieldGrid(linear, 0.0002, 9, 47, 15000);
    // Gradient is ~22 per degree and a zone ~0.25 degrees across: 0.01 is a centroid within ~50 m.
    for (const z of grid.subZones(grid.zoneFromPoint(10.5, 45.5, 4), 1)) {
      const [cx, cy] = ringCentroid(grid.zoneOutline(z, false) as Point[]);
      const mean = zonalStatistics(grid, planSampling(grid, z, [0]), g, { stats: ['mean'] })[0]!.bands[0]!.mean![0]!;
      expect(mean).to.be.closeTo(linear(cx, cy), 0.01);
    }
  });

  it('converges to the exact pixel-in-polygon statistic as the sampling factor grows (curved field)', () => {
    const curved = (lon: number, lat: number) => 1000 * (lon - 10.5) ** 2 + 500 * Math.sin(lat * 20);
    const g = fieldGrid(curved, 0.001, 9, 47, 3000);
    const zones = grid.subZones(grid.zoneFromPoint(10.5, 45.5, 4), 1);
    const exact = zones.map((z) => exactMean(g, z));
    const errorAt = (f: number) => zones.reduce((sum, z, i) => sum + Math.abs(zonalStatistics(grid, planSampling(grid, z, [0], f), g, { stats: ['mean'] })[0]!.bands[0]!.mean![0]! - exact[i]!), 0) / zones.length;
    const errors = [1, 8, 64, 1e6].map(errorAt);
    expect(errors[1]!).to.be.below(errors[0]!);
    expect(errors[2]!).to.be.below(errors[1]!);
    expect(errors[3]!).to.be.below(1e-9); // one sample per pixel centre: the exact statistic
  });

  it('matches an exact pixel-in-polygon computation within 0.05 (0.0002 relative) at the default factor, for each sub-zone', () => {
    const g = fieldGrid(linear, 0.004, 10, 46, 250);
    const plan = planSampling(grid, zone, [1]);
    const res = zonalStatistics(grid, plan, g, { stats: ['mean', 'count'] })[0]!;
    res.zones.forEach((z, i) => {
      const exact = exactMean(g, z);
      expect(res.bands[0]!.mean![i]!).to.be.closeTo(exact, 0.05);
    });
  });

  it('is the exact pixel-in-polygon statistic when the raster is coarser than the samples', () => {
    const g = fieldGrid(linear, 0.01, 10, 46, 100);
    const plan = planSampling(grid, zone, [0], 1000);
    const mean = zonalStatistics(grid, plan, g, { stats: ['mean'] })[0]!.bands[0]!.mean![0]!;
    expect(mean).to.be.closeTo(exactMean(g, zone), 1e-9);
  });

  it('excludes nodata, reports count/valid, and gives null to sub-zones without valid samples', () => {
    const [cx] = grid.describeZone(zone).centroid;
    const g = fieldGrid(linear, 0.002, 10, 46, 500, (lon) => lon < cx + 1);
    const plan = planSampling(grid, zone, [0, 1]);
    const [d0, d1] = zonalStatistics(grid, plan, g, { stats: ['count', 'valid', 'mean', 'min', 'max', 'median', 'stdDev'] });
    expect(d0!.bands[0]!.valid![0]).to.equal(0);
    expect(d0!.bands[0]!.count![0]).to.be.above(0);
    expect(d0!.bands[0]!.mean![0]).to.equal(null);
    expect(d1!.bands[0]!.mean!.every((v) => v === null)).to.equal(true);
    const g2 = fieldGrid(linear, 0.002, 10, 46, 500, (lon) => lon < cx);
    const s = zonalStatistics(grid, planSampling(grid, zone, [0]), g2, { stats: ['count', 'valid', 'mean', 'min'] })[0]!.bands[0]!;
    expect(s.valid![0]!).to.be.above(0).and.below(s.count![0]!);
    expect(s.min![0]!).to.be.at.least(linear(cx, 44));
  });

  it('all-touched adds the pixels crossing sub-zone edges', () => {
    const g = fieldGrid(() => 1, 0.02, 10, 46, 50);
    const plan = planSampling(grid, zone, [1]);
    const plain = zonalStatistics(grid, plan, g, { stats: ['count'] })[0]!.bands[0]!.count!;
    const touched = zonalStatistics(grid, plan, g, { stats: ['count'], allTouched: true })[0]!.bands[0]!.count!;
    touched.forEach((t, i) => expect(t!).to.be.above(plain[i]!));
  });
});

describe('zonal statistics on raster files', () => {
  it('reads several bands of a tiled COG and picks an overview for coarse sampling', async () => {
    const ds = await reader.open(path.join(FIX, 'linear-4326.tif'), { trusted: true });
    expect(ds.info.bandCount).to.equal(2);
    expect(ds.info.overviewCount).to.be.above(0);
    const plan = planSampling(grid, zone, [0], 8);
    const win = await ds.readWindow({ bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands: [2, 1] });
    expect(win.overview).to.be.above(0);
    const r = zonalStatistics(grid, plan, win, { stats: ['mean'] })[0]!;
    const [cx, cy] = ringCentroid(plan.outline as Point[]);
    expect(r.bands[1]!.mean![0]!).to.be.closeTo(linear(cx, cy), 0.15);
    expect(r.bands[0]!.mean![0]!).to.be.closeTo(1000 - 5 * cx + 3 * cy, 0.15);
  });

  it('applies file nodata and scale/offset', async () => {
    const nd = await reader.open(path.join(FIX, 'nodata-4326.tif'), { trusted: true });
    expect(nd.info.noData).to.equal(-9999);
    const west = grid.zoneFromPoint(10.2, 45.5, 5);
    const plan = planSampling(grid, west, [0]);
    const r = zonalStatistics(grid, plan, await nd.readWindow({ bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands: [1] }), { stats: ['mean', 'valid'] })[0]!;
    expect(r.bands[0]!.mean![0]).to.equal(null);
    const sc = await reader.open(path.join(FIX, 'scaled-int16.tif'), { trusted: true });
    const plan2 = planSampling(grid, zone, [0]);
    const r2 = zonalStatistics(grid, plan2, await sc.readWindow({ bbox: plan2.extent, maxPixelSizeDegrees: plan2.spacingDegrees, bands: [1] }), { stats: ['mean'] })[0]!;
    const [cx, cy] = ringCentroid(plan2.outline as Point[]);
    expect(r2.bands[0]!.mean![0]!).to.be.closeTo(linear(cx, cy), 0.3);
  });

  it('samples a UTM raster through its projection', async () => {
    const ds = await reader.open(path.join(FIX, 'linear-utm32.tif'), { trusted: true });
    expect(ds.info.isGeographic).to.equal(false);
    const z = grid.zoneFromPoint(10.0, 45.5, 5);
    const plan = planSampling(grid, z, [0], 32);
    const win = await ds.readWindow({ bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands: [1] });
    const mean = zonalStatistics(grid, plan, win, { stats: ['mean'] })[0]!.bands[0]!.mean![0]!;
    const conv = proj4('+proj=longlat +datum=WGS84 +no_defs', '+proj=utm +zone=32 +datum=WGS84 +units=m +no_defs');
    const ringUtm = plan.outline.map((p) => conv.forward(p as [number, number]) as Point);
    const [x, y] = ringCentroid(ringUtm);
    const expected = (x - 500000) / 100 + (y - 5000000) / 200;
    expect(mean).to.be.closeTo(expected, 2); // field gradient ~11 per km; zone ~20 km across
  });
});
