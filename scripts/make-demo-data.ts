/**
 * `npm run demo-data`: re-makes the embedded demo's data. The parquet lake is generated
 * deterministically (byte for byte, by the pinned DuckDB on one thread), so re-making it restores
 * the committed files, also after `npm run ingest` rewrote them. `--if-missing` (npm start runs it
 * so) writes the lake only when it is missing or from an older generator, and so keeps zone-key
 * columns an ingest stored. The rasters and the STAC catalog are committed files made by
 * scripts/demo/make-rasters.py (GDAL), checked here.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDemoLake } from './demo/make-lake.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { 'if-missing': { type: 'boolean', default: false } } });
const root = path.resolve(import.meta.dirname, '..');
const wrote = await ensureDemoLake(path.join(root, 'data/demo/lake'), { remake: !values['if-missing'] });
console.log(wrote ? 'demo-data: wrote the demo lake' : 'demo-data: demo lake up to date');
const missing = ['data/demo/rasters/elevation.tif', 'data/demo/stac/catalog.json'].filter((f) => !existsSync(path.join(root, f)));
if (missing.length > 0) {
  console.error(`demo-data: missing ${missing.join(', ')}; re-make them with: python3 scripts/demo/make-rasters.py (needs GDAL's Python bindings)`);
  process.exit(1);
}
