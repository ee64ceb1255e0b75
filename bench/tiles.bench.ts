/**
 * Vector tiles of a collection beside zone data for the same zones: the lake collection
 * demo-stations on IVEA7H over Europe, at three zooms, each a block of tiles asked one after
 * another over HTTP (a booted server, config/default.json, throwaway SQLite). The reference is
 * what a client without tiles asks for the same values: the zone data of the ancestors the tile
 * read (the zones of the decoded tile grouped by the zone holding their centroid, at the depth the
 * tile names in X-Zone-Data-Depth), as many at once as the tile reads them (4). Both are timed
 * after one warm-up round, in the same run, medians of several rounds.
 * Run: npm run bench tiles
 */
import path from 'node:path';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { TOKENS } from '../src/app/tokens.js';
import type { GridRegistry } from '../src/ports/grid-registry.js';
import { latitudeRow, longitudeColumn } from '../src/domain/tiles/web-mercator-quad.js';
import { ensureDemoLake } from '../scripts/demo/make-lake.js';
import { reportRow } from './summary-table.js';
import { medianMs } from './measure.js';
import { withDemoApp } from './demo-app.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const COLLECTION = 'demo-stations';
const GRID = 'IVEA7H';
/** Around 10E 48N (central Europe), a block of tiles a side at each zoom. */
const LON = 10, LAT = 48;
const ZOOMS = [4, 6, 8];
const SIDE = 2;
const ROUNDS = 5;
const AT_ONCE = 4;

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function get(url: string): Promise<Response> {
  const res = await fetch(url);
  if (res.status !== 200 && res.status !== 204) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res;
}

export async function run(): Promise<void> {
  await ensureDemoLake(path.join(ROOT, 'data/demo/lake'));
  await withDemoApp(async (app, base) => {
    const grid = app.container.get<GridRegistry>(TOKENS.GridRegistry).require(GRID);
    console.log(`${COLLECTION} on ${GRID}, ${SIDE}x${SIDE} tiles around ${LON}E ${LAT}N at each zoom, one tile at a time; zone data of the same zones ${AT_ONCE} at once; median of ${ROUNDS} rounds`);
    console.log('zoom  level  depth  zones  ancestors  tiles/s  tile ms   zone data ms (same zones)  ratio');
    for (const z of ZOOMS) {
      const x0 = Math.floor(longitudeColumn(z, LON)), y0 = Math.floor(latitudeRow(z, LAT));
      const tiles: string[] = [];
      for (let dy = 0; dy < SIDE; dy++) for (let dx = 0; dx < SIDE; dx++) tiles.push(`${base}/collections/${COLLECTION}/dggs/${GRID}/tiles/WebMercatorQuad/${z}/${y0 + dy}/${x0 + dx}`);
      // The zone data a client would ask for the same values: each tile's ancestors at the tile's depth.
      const asks: string[] = [];
      let zones = 0, level = 0, depth = 0;
      for (const t of tiles) {
        const res = await get(t);
        level = Number(res.headers.get('x-zone-level'));
        depth = Number(res.headers.get('x-zone-data-depth'));
        const bytes = new Uint8Array(await res.arrayBuffer());
        if (res.status === 204) continue;
        const layer = new VectorTile(new PbfReader(bytes)).layers.zones!;
        const ancestors = new Set<string>();
        for (let i = 0; i < layer.length; i++) {
          const zid = String(layer.feature(i).properties.zoneId);
          const [lon, lat] = grid.describeZone(zid).centroid;
          ancestors.add(grid.zoneFromPoint(lon, lat, level - depth));
          zones++;
        }
        for (const a of ancestors) asks.push(`${base}/collections/${COLLECTION}/dggs/${GRID}/zones/${encodeURIComponent(a)}/data?zone-depth=${depth}&f=json`);
      }
      const tileMs = await medianMs(ROUNDS, async () => {
        for (const t of tiles) await (await get(t)).arrayBuffer();
      });
      const dataMs = await medianMs(ROUNDS, () => inParallel(asks, AT_ONCE, async (u) => void (await (await get(u)).arrayBuffer())));
      const perSecond = (tiles.length * 1000) / tileMs;
      console.log(
        `${String(z).padStart(4)}  ${String(level).padStart(5)}  ${String(depth).padStart(5)}  ${String(zones).padStart(5)}  ${String(asks.length).padStart(9)}  ${perSecond.toFixed(1).padStart(7)}  ${(tileMs / tiles.length).toFixed(1).padStart(7)}  ${(dataMs / tiles.length).toFixed(1).padStart(25)}  ${(tileMs / dataMs).toFixed(2).padStart(5)}x`,
      );
      reportRow({
        work: `Vector tiles of ${COLLECTION} (${GRID}), zoom ${z} (level ${level}, ${Math.round(zones / tiles.length)} zones a tile) vs zone data of the same zones`,
        threads: 1,
        ours: `${perSecond.toFixed(1)} tiles/s (${(tileMs / tiles.length).toFixed(1)} ms a tile)`,
        reference: `zone data of the tiles' ${asks.length} ancestors at depth ${depth}: ${(dataMs / tiles.length).toFixed(1)} ms a tile`,
        ratio: `${(tileMs / dataMs).toFixed(2)}x`,
        target: '<= 1.5x',
      });
    }
  });
}
