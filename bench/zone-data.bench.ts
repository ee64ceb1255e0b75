/**
 * Zone data over HTTP beside the raster read it needs: the demo COG (collection demo-elevation),
 * a level-4 IVEA7H zone over the Alps, at the default depth and one deeper. The HTTP figure is a
 * real request on a booted server (config/default.json, throwaway SQLite), its decoded-tile cache
 * warm. The reference is reading the raster window the request needs: the same box
 * and overview through a reader that decodes its tiles (rasters.tileCacheBytes 0), the work a zone
 * data request did before the cache. The window read through the server's own reader, from its
 * cache, is printed beside it: what planning, zonal statistics, encoding and HTTP add to a read.
 * Run: sh scripts/node.sh --import tsx bench/run.ts zone-data
 */
import path from 'node:path';
import { TOKENS } from '../src/app/tokens.js';
import { planDepth, DEFAULT_SAMPLING_FACTOR } from '../src/domain/aggregation/index.js';
import type { RasterReader } from '../src/ports/raster-reader.js';
import { GeoTiffRasterReader } from '../src/adapters/rasters/geotiff-raster-reader.js';
import { DecodedTileCache } from '../src/adapters/rasters/decoded-tile-cache.js';
import type { GridRegistry } from '../src/ports/grid-registry.js';
import { reportRow } from './summary-table.js';
import { medianMs } from './measure.js';
import { withDemoApp } from './demo-app.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const COLLECTION = 'demo-elevation';
const RASTER = 'data/demo/rasters/elevation.tif';
const GRID = 'IVEA7H';
/** Level-4 zone around 10.5E 46N (about 21,000 km², well inside the raster). */
const LON = 10.5, LAT = 46, LEVEL = 4;
const RUNS = 25;

export async function run(): Promise<void> {
  await withDemoApp(async (app, base, config) => {
    const reader = app.container.get<RasterReader>(TOKENS.RasterReader);
    const grid = app.container.get<GridRegistry>(TOKENS.GridRegistry).get(GRID)!;
    const zone = grid.zoneFromPoint(LON, LAT, LEVEL);
    const ds = await reader.open(RASTER, { trusted: true });
    const decoding = await new GeoTiffRasterReader(config.rasterFetch, ROOT, config.limits.maxRasterWindowSamples, new DecodedTileCache(0)).open(RASTER, { trusted: true });
    console.log(`zone ${zone} (level ${LEVEL}) of ${GRID}, ${COLLECTION}; median of ${RUNS} runs`);
    console.log('depth  sub-zones  pixels      http ms   window read ms (decoding / cached)  ratio to decoding');
    for (const depth of [grid.defaultDepth, grid.defaultDepth + 1]) {
      const row = depth === grid.defaultDepth;
      const url = `${base}/collections/${COLLECTION}/dggs/${GRID}/zones/${encodeURIComponent(zone)}/data?zone-depth=${depth}`;
      const http = await medianMs(RUNS, async () => {
        const res = await fetch(url);
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      });
      // The first window the raster-url source reads: the plan's box at the plan's sample spacing.
      const plan = planDepth(grid, zone, depth, DEFAULT_SAMPLING_FACTOR);
      let pixels = 0;
      const window = { bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands: [1], noData: -9999 };
      const read = await medianMs(RUNS, async () => {
        const w = await decoding.readWindow(window);
        pixels = w.width * w.height;
      });
      const cached = await medianMs(RUNS, () => ds.readWindow(window));
      console.log(
        `${String(depth).padStart(5)}  ${String(plan.subZones.length).padStart(9)}  ${String(pixels).padStart(9)}  ${http.toFixed(2).padStart(8)}  ${read.toFixed(2).padStart(14)} / ${cached.toFixed(2).padStart(6)}  ${(http / read).toFixed(2).padStart(5)}x`,
      );
      if (row) reportRow({ work: `Raster zone data (${COLLECTION}, default depth ${depth}) vs reading the raster window, warm`, threads: 1, ours: `${http.toFixed(1)} ms over HTTP`, reference: `${read.toFixed(1)} ms window read decoding its tiles (${cached.toFixed(2)} ms from the tile cache)`, ratio: `${(http / read).toFixed(2)}x`, target: '<= 1.2x warm' });
    }
  });
}
