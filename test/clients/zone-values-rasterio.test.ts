/**
 * Raster zone values against rasterio (GDAL's rasterizer, all_touched=false: a pixel belongs to
 * the zone polygon holding its centre), an exact reference that shares no code with the service:
 * the zones of test/http/zone-values-consistency.test.ts on the demo COG and on the PMTiles
 * copy of its field, depths 0-4, within the documented tolerance at the default sampling factor
 * and equal to the exact statistics once the factor reaches the pixels per sub-zone.
 *
 * Needs python3 with rasterio (Debian: apt-get install -y python3-rasterio); fails when missing.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PYTHON, requirePython } from './python.js';
import { REPO_ROOT, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';
import {
  COG, expectWithinTolerance, pmtilesPixels, startElevationServer, writeElevationPmtiles, zoneData, ZONE_CASES, type AnsweredDepth, type Collection, type ExactStats,
} from '../http/zone-values-exact.js';

const SCRIPT = path.join(REPO_ROOT, 'test/clients/zone-stats-rasterio.py');
const EARTH = 20037508.342789244; // half the Web Mercator world, metres

type RasterioStats = Omit<ExactStats, 'mean' | 'min' | 'max' | 'stdDev' | 'median'> & Record<'mean' | 'min' | 'max' | 'stdDev' | 'median', number | null>;
type RasterSpec = { path: string } | { raw: string; width: number; height: number; transform: number[]; crs: string };

/** Runs the rasterio script on one request. */
function rasterio(raster: RasterSpec, layers: { key: string; zones: { id: string; rings: number[][][]; centroid: number[] }[] }[]): Promise<Record<string, Record<string, RasterioStats | null>>> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${SCRIPT} exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify({ raster, layers }));
  });
}

const asExact = (r: RasterioStats | null | undefined): ExactStats | undefined =>
  r ? { count: r.count, valid: r.valid, mean: r.mean ?? NaN, min: r.min ?? NaN, max: r.max ?? NaN, stdDev: r.stdDev ?? NaN, median: r.median ?? NaN } : undefined;

describe('raster zone values against rasterio (GDAL rasterizing the zone polygons)', function () {
  this.timeout(300_000);
  let s: TestServer;
  let rasters: Record<Collection, RasterSpec>;

  before(async () => {
    await requirePython('import rasterio, numpy', 'python3-rasterio');
    const dir = mkdtempSync(path.join(tmpdir(), 'zone-values-rasterio-'));
    s = await startElevationServer(writeElevationPmtiles(dir));
    // The archive's max-zoom pixels as rasterio reads them: float32, NaN for nodata, EPSG:3857.
    const px = pmtilesPixels();
    const [c0, c1] = px.cols, [r0, r1] = px.rows;
    const values = new Float32Array((c1 - c0) * (r1 - r0));
    for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) values[(r - r0) * (c1 - c0) + c - c0] = px.value(c, r);
    const raw = path.join(dir, 'elevation-pmtiles.f32');
    writeFileSync(raw, new Uint8Array(values.buffer));
    const size = (2 * EARTH) / px.world;
    rasters = {
      'demo-elevation': { path: COG },
      'elevation-pmtiles': { raw, width: c1 - c0, height: r1 - r0, transform: [size, 0, -EARTH + c0 * size, 0, -size, EARTH - r0 * size], crs: 'EPSG:3857' },
    };
  });
  after(async () => s?.close());

  const grid = (id: string): Dggrs => s.app.container.get<GridRegistry>(TOKENS.GridRegistry).get(id)!;

  /** rasterio's statistics of every sub-zone of an answer, by depth; polygons are the refined outlines (DGGAL's geometry). */
  async function reference(g: Dggrs, collection: Collection, answer: AnsweredDepth[]): Promise<Record<string, Record<string, RasterioStats | null>>> {
    const layers = answer.map((a) => ({
      key: String(a.depth),
      zones: a.zones.map((z) => ({ id: z, rings: [g.zoneOutline(z, true)], centroid: g.describeZone(z).centroid })),
    }));
    return rasterio(rasters[collection], layers);
  }

  for (const c of ZONE_CASES) {
    it(`${c.collection}, ${c.dggrs}, ${c.name}: depths ${c.depths.join(',')} within the tolerance`, async () => {
      const g = grid(c.dggrs);
      const zone = c.zone(g);
      const answer = await zoneData(s, c.collection, c.dggrs, zone, `zone-depth=${c.depths[0]}-${c.depths.at(-1)}&cog-stat=mean,valid,count`);
      const ref = await reference(g, c.collection, answer);
      for (const a of answer) {
        expectWithinTolerance(`${zone} depth ${a.depth}`, a.zones, a.values.elevation_mean!, (z) => asExact(ref[String(a.depth)]![z]), c.collection === 'demo-elevation' ? 0 : 1 / 256);
      }
    });
  }

  it('equals the rasterized statistics, every statistic of every sub-zone, when cog-sampling-factor reaches the pixels per sub-zone', async () => {
    const stats = ['mean', 'valid', 'count', 'min', 'max', 'stdDev', 'median'] as const;
    const g = grid('IVEA7H');
    for (const [collection, zone] of [
      ['demo-elevation', g.zoneFromPoint(9.0, 45.3, 5)],
      ['elevation-pmtiles', g.zoneFromPoint(10.55, 45.55, 7)],
    ] as const) {
      const answer = await zoneData(s, collection, 'IVEA7H', zone, `zone-depth=0-2&cog-stat=${stats.join(',')}&cog-sampling-factor=4096`);
      const ref = await reference(g, collection, answer);
      let mixed = 0;
      for (const a of answer) {
        a.zones.forEach((z, i) => {
          const r = ref[String(a.depth)]![z] ?? { count: 0, valid: 0, mean: null, min: null, max: null, stdDev: null, median: null };
          for (const st of stats) {
            const got = a.values[`elevation_${st}`]![i]!, want = r[st];
            if (got === null || want === null) expect(got, `${collection} ${z} ${st}`).to.equal(want);
            else expect(got, `${collection} ${z} ${st}`).to.be.closeTo(want, 1e-6 * Math.max(1, Math.abs(want)));
          }
          if (r.valid > 0 && r.valid < r.count) mixed++;
        });
      }
      expect(mixed, `${collection}: some sub-zones hold both data and nodata`).to.be.above(0);
    }
  });
});
