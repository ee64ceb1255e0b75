import { expect } from 'chai';
import path from 'node:path';
import proj4 from 'proj4';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { GeoTiffRasterReader } from '../../../src/adapters/rasters/geotiff-raster-reader.js';
import { DEFAULT_SAMPLING_FACTOR, planDepth, zonalDepth, ringCentroid, type DepthPlan, type PixelGrid, type Point, type WindowNeed, type ZonalDepth, type ZonalOptions } from '../../../src/domain/aggregation/index.js';
import { depthStatistics } from '../../../src/app/zone-data/raster-zone-data.js';
import { parseZoneDepth } from '../../../src/domain/zone-depth.js';

const grid = new H3Dggrs();
const FIX = path.resolve(import.meta.dirname, '../../fixtures/rasters');
const reader = new GeoTiffRasterReader({ allowedSchemes: ['https'], allowedHosts: [], allowPrivateNetworks: false, maxBytes: 1e8, timeoutMs: 5000, maxRedirects: 1 });

/** A synthetic geographic raster: value = f(lon, lat) at pixel centres, `res` degrees per pixel. */
function fieldGrid(f: (lon: number, lat: number) => number, res: number, west = 10, north = 46, size = 1000, nodata?: (lon: number, lat: number) => boolean, overview = 0): PixelGrid {
  return {
    width: size,
    height: size,
    bandCount: 1,
    overview,
    dataBounds: [0, 0, size, size],
    toPixel: (lon, lat) => [(lon - west) / res, (north - lat) / res],
    toLonLat: (x, y) => [west + x * res, north - y * res],
    value: (_b, col, row) => {
      if (col < 0 || row < 0 || col >= size || row >= size) return NaN;
      const lon = west + (col + 0.5) * res, lat = north - (row + 0.5) * res;
      return nodata?.(lon, lat) ? NaN : f(lon, lat);
    },
  };
}

/** Runs the stepped computation synchronously, every window read answered by `read` (one grid without overviews by default). */
function zonal(plan: DepthPlan, read: PixelGrid | ((need: WindowNeed) => PixelGrid | null), options: ZonalOptions): ZonalDepth {
  const work = zonalDepth(grid, plan, options);
  let input: PixelGrid | null | undefined;
  for (;;) {
    const step = work.next(input);
    input = undefined;
    if (step.done) return step.value;
    if (step.value) input = typeof read === 'function' ? read(step.value) : read;
  }
}

const linear = (lon: number, lat: number) => 10 * lon + 20 * lat;
const zone = grid.zoneFromPoint(10.5, 45.5, 5);

/** Exact pixel-in-polygon statistics: every pixel whose centre the grid puts in the sub-zone. */
function exactMean(g: PixelGrid, zoneId: string): number {
  return exact(g, zoneId).mean;
}

function exact(g: PixelGrid, zoneId: string): { mean: number; count: number; valid: number } {
  let sum = 0, n = 0, count = 0;
  const [w, s, e, nn] = grid.describeZone(zoneId).bbox;
  const [c0, r0] = g.toPixel(w, nn), [c1, r1] = g.toPixel(e, s);
  for (let row = Math.max(0, Math.floor(r0) - 1); row < Math.min(g.height, r1 + 1); row++) {
    for (let col = Math.max(0, Math.floor(c0) - 1); col < Math.min(g.width, c1 + 1); col++) {
      const [lon, lat] = g.toLonLat(col + 0.5, row + 0.5);
      if (grid.zoneFromPoint(lon, lat, grid.zoneLevel(zoneId)) !== zoneId) continue;
      count++;
      const v = g.value(0, col, row);
      if (!Number.isNaN(v)) { sum += v; n++; }
    }
  }
  return { mean: sum / n, count, valid: n };
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
      const mean = zonal(planDepth(grid, z, 0), g, { stats: ['mean'] }).bands[0]!.mean![0]!;
      expect(mean).to.be.closeTo(linear(cx, cy), 0.01);
    }
  });

  it('converges to the exact pixel-in-polygon statistic as the sampling factor grows (curved field)', () => {
    const curved = (lon: number, lat: number) => 1000 * (lon - 10.5) ** 2 + 500 * Math.sin(lat * 20);
    const g = fieldGrid(curved, 0.001, 9, 47, 3000);
    const zones = grid.subZones(grid.zoneFromPoint(10.5, 45.5, 4), 1);
    const exactMeans = zones.map((z) => exactMean(g, z));
    const errorAt = (f: number) => zones.reduce((sum, z, i) => sum + Math.abs(zonal(planDepth(grid, z, 0, f), g, { stats: ['mean'] }).bands[0]!.mean![0]! - exactMeans[i]!), 0) / zones.length;
    // Lattice samples alias with the sine, so the error is not monotonic factor by factor (8 or 32
    // happen to land well); over a factor of 16 it falls.
    const errors = [1, 16, 256, 1e6].map(errorAt);
    expect(errors[1]!).to.be.below(errors[0]!);
    expect(errors[2]!).to.be.below(errors[1]!);
    expect(errors[3]!).to.be.below(1e-9); // one sample per pixel centre: the exact statistic
  });

  it('matches an exact pixel-in-polygon computation within 0.05 (0.0002 relative) at the default factor, for each sub-zone', () => {
    const g = fieldGrid(linear, 0.004, 10, 46, 250);
    const res = zonal(planDepth(grid, zone, 1), g, { stats: ['mean', 'count'] });
    res.zones.forEach((z, i) => {
      expect(res.bands[0]!.mean![i]!).to.be.closeTo(exactMean(g, z), 0.05);
    });
  });

  it('is the exact pixel-in-polygon statistic when the raster is coarser than the samples', () => {
    const g = fieldGrid(linear, 0.01, 10, 46, 100);
    const mean = zonal(planDepth(grid, zone, 0, 1000), g, { stats: ['mean'] }).bands[0]!.mean![0]!;
    expect(mean).to.be.closeTo(exactMean(g, zone), 1e-9);
  });

  it('gives every sub-zone at least cog-sampling-factor samples with a value, else every pixel centre it holds (then exact)', () => {
    // Coarse pixels (some depth-2 sub-zones hold one pixel centre or none), and fine ones with a
    // nodata disc (sub-zones at its edge have few samples with a value).
    const coarse = fieldGrid(linear, 0.02, 9.5, 46.5, 100);
    const fine = fieldGrid(linear, 0.0005, 10.2, 45.8, 1200, (lon, lat) => (lon - 10.5) ** 2 + (lat - 45.5) ** 2 < 0.01);
    const met = { subPixel: 0, exact: 0, sampled: 0 };
    for (const [g, factor] of [[coarse, DEFAULT_SAMPLING_FACTOR], [coarse, 3], [fine, DEFAULT_SAMPLING_FACTOR], [fine, 30]] as const) {
      const res = zonal(planDepth(grid, zone, 2, factor), g, { stats: ['mean', 'count', 'valid'] });
      res.zones.forEach((z, i) => {
        const valid = res.bands[0]!.valid![i]!;
        const e = exact(g, z);
        if (e.count === 0) {
          // Smaller than a pixel, no pixel centre: the pixel under its centroid.
          const [x, y] = g.toPixel(...grid.describeZone(z).centroid);
          expect({ count: res.bands[0]!.count![i], mean: res.bands[0]!.mean![i] }, z).to.deep.equal({ count: 1, mean: g.value(0, Math.floor(x), Math.floor(y)) });
          met.subPixel++;
        } else if (valid < factor) {
          expect({ valid, count: res.bands[0]!.count![i] }, `${z} at factor ${factor}`).to.deep.equal({ valid: e.valid, count: e.count });
          if (e.valid === 0) expect(res.bands[0]!.mean![i], z).to.equal(null);
          else expect(res.bands[0]!.mean![i]!, z).to.be.closeTo(e.mean, 1e-9);
          met.exact++;
        } else met.sampled++;
      });
    }
    expect(Object.values(met).every((k) => k > 0), JSON.stringify(met)).to.equal(true);
  });

  it('never answers null for a sub-zone with data, however little (a sliver at the raster edge)', () => {
    const [cx] = grid.describeZone(zone).centroid;
    const [w, , e] = grid.describeZone(zone).bbox;
    // Data only on a strip of about a twentieth of the zone's width along its eastern side.
    const edge = e - (e - w) / 20;
    const g = fieldGrid(linear, 0.001, 10, 46, 1000, (lon) => lon < edge);
    const r = zonal(planDepth(grid, zone, 0), g, { stats: ['mean', 'valid', 'count'] });
    const ex = exact(g, zone);
    expect(ex.valid, 'the fixture leaves some data in the zone').to.be.above(0);
    expect(r.bands[0]!.mean![0]).to.not.equal(null);
    expect(r.bands[0]!.valid![0]!).to.be.at.least(Math.min(DEFAULT_SAMPLING_FACTOR, ex.valid));
    expect(r.bands[0]!.mean![0]!).to.be.above(linear(cx, 44)); // only eastern values
  });

  it('excludes nodata, reports count/valid, and gives null to sub-zones without valid samples', () => {
    const [cx] = grid.describeZone(zone).centroid;
    const g = fieldGrid(linear, 0.002, 10, 46, 500, (lon) => lon < cx + 1);
    const stats = ['count', 'valid', 'mean', 'min', 'max', 'median', 'stdDev'] as const;
    const d0 = zonal(planDepth(grid, zone, 0), g, { stats });
    const d1 = zonal(planDepth(grid, zone, 1), g, { stats });
    expect(d0.bands[0]!.valid![0]).to.equal(0);
    // All nodata: every pixel centre was looked at before answering null.
    expect(d0.bands[0]!.count![0]).to.equal(exact(g, zone).count);
    expect(d0.bands[0]!.mean![0]).to.equal(null);
    expect(d1.bands[0]!.mean!.every((v) => v === null)).to.equal(true);
    const g2 = fieldGrid(linear, 0.002, 10, 46, 500, (lon) => lon < cx);
    const s = zonal(planDepth(grid, zone, 0), g2, { stats: ['count', 'valid', 'mean', 'min'] }).bands[0]!;
    expect(s.valid![0]!).to.be.above(0).and.below(s.count![0]!);
    expect(s.min![0]!).to.be.at.least(linear(cx, 44));
  });

  it('counts only samples on the raster: a sub-zone off the raster has count 0 and null values', () => {
    const g = fieldGrid(linear, 0.002, 10, 46, 500);
    const away = grid.zoneFromPoint(12.5, 45.5, 5); // east of the raster's 10..11
    const r = zonal(planDepth(grid, away, 1), g, { stats: ['count', 'valid', 'mean'] });
    expect(r.bands[0]!.count!.every((c) => c === 0)).to.equal(true);
    expect(r.bands[0]!.mean!.every((v) => v === null)).to.equal(true);
  });

  it('reads a finer level for sub-zones short of samples, and keeps what it has when that read is refused', () => {
    // A two-level pyramid: an overview of 0.008 degree pixels (averages, here the field at the
    // centre) over a full resolution of 0.002; nodata west of 10.62 makes edge sub-zones short.
    const nodata = (lon: number) => lon < 10.62;
    const coarse = fieldGrid(linear, 0.008, 10, 46, 125, nodata, 1), fine = fieldGrid(linear, 0.002, 10, 46, 500, nodata);
    const plan = planDepth(grid, zone, 2);
    const reads: WindowNeed[] = [];
    const pyramid = (need: WindowNeed) => (reads.push(need), need.maxPixelSizeDegrees >= 0.008 ? coarse : fine);
    const r = zonal(plan, pyramid, { stats: ['mean', 'valid', 'count'] });
    expect(reads[0]!.optional).to.equal(false);
    expect(reads.slice(1).every((n) => n.optional && n.maxPixelSizeDegrees < reads[0]!.maxPixelSizeDegrees)).to.equal(true);
    expect(reads.some((n) => n.maxPixelSizeDegrees < 0.008), 'a finer level was read').to.equal(true);
    r.zones.forEach((z, i) => {
      const e = exact(fine, z);
      if (e.valid === 0) expect(r.bands[0]!.mean![i], z).to.equal(null);
      else expect(r.bands[0]!.valid![i]!, z).to.be.at.least(Math.min(DEFAULT_SAMPLING_FACTOR, e.valid));
    });
    // The same with every refinement read refused: the first pass's values stay.
    const refused = zonal(plan, (need) => (need.optional ? null : coarse), { stats: ['mean', 'valid'] });
    const firstPassOnly = refused.bands[0]!.valid!.filter((v) => v! > 0 && v! < DEFAULT_SAMPLING_FACTOR).length;
    expect(firstPassOnly, 'some sub-zones were left short').to.be.above(0);
    expect(refused.bands[0]!.mean!.some((v) => v !== null)).to.equal(true);
  });

  it('all-touched adds the pixels crossing sub-zone edges', () => {
    const g = fieldGrid(() => 1, 0.02, 10, 46, 50);
    const plan = planDepth(grid, zone, 1);
    const plain = zonal(plan, g, { stats: ['count'] }).bands[0]!.count!;
    const touched = zonal(plan, g, { stats: ['count'], allTouched: true }).bands[0]!.count!;
    touched.forEach((t, i) => expect(t!).to.be.above(plain[i]!));
  });
});

describe('zonal statistics on raster files', () => {
  it('reads several bands of a tiled COG and picks an overview for coarse sampling', async () => {
    const ds = await reader.open(path.join(FIX, 'linear-4326.tif'), { trusted: true });
    expect(ds.info.bandCount).to.equal(2);
    expect(ds.info.overviewCount).to.be.above(0);
    const plan = planDepth(grid, zone, 0, 8);
    const win = await ds.readWindow({ bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands: [2, 1] });
    expect(win.overview).to.be.above(0);
    const r = await depthStatistics(grid, plan, [ds], { bands: [2, 1], stats: ['mean'] });
    const [cx, cy] = ringCentroid(plan.outline as Point[]);
    expect(r.bands[1]!.mean![0]!).to.be.closeTo(linear(cx, cy), 0.15);
    expect(r.bands[0]!.mean![0]!).to.be.closeTo(1000 - 5 * cx + 3 * cy, 0.15);
  });

  it('applies file nodata and scale/offset', async () => {
    const nd = await reader.open(path.join(FIX, 'nodata-4326.tif'), { trusted: true });
    expect(nd.info.noData).to.equal(-9999);
    const west = grid.zoneFromPoint(10.2, 45.5, 5);
    const r = await depthStatistics(grid, planDepth(grid, west, 0), [nd], { bands: [1], stats: ['mean', 'valid'] });
    expect(r.bands[0]!.mean![0]).to.equal(null);
    const sc = await reader.open(path.join(FIX, 'scaled-int16.tif'), { trusted: true });
    const plan2 = planDepth(grid, zone, 0);
    const r2 = await depthStatistics(grid, plan2, [sc], { bands: [1], stats: ['mean'] });
    const [cx, cy] = ringCentroid(plan2.outline as Point[]);
    expect(r2.bands[0]!.mean![0]!).to.be.closeTo(linear(cx, cy), 0.3);
  });

  it('samples a UTM raster through its projection', async () => {
    const ds = await reader.open(path.join(FIX, 'linear-utm32.tif'), { trusted: true });
    expect(ds.info.isGeographic).to.equal(false);
    const z = grid.zoneFromPoint(10.0, 45.5, 5);
    const plan = planDepth(grid, z, 0, 32);
    const mean = (await depthStatistics(grid, plan, [ds], { bands: [1], stats: ['mean'] })).bands[0]!.mean![0]!;
    const conv = proj4('+proj=longlat +datum=WGS84 +no_defs', '+proj=utm +zone=32 +datum=WGS84 +units=m +no_defs');
    const ringUtm = plan.outline.map((p) => conv.forward(p as [number, number]) as Point);
    const [x, y] = ringCentroid(ringUtm);
    const expected = (x - 500000) / 100 + (y - 5000000) / 200;
    expect(mean).to.be.closeTo(expected, 2); // field gradient ~11 per km; zone ~20 km across
  });
});
