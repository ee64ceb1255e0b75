/**
 * Makes sure the embedded demo's data is in place before the service starts (npm start runs it):
 * the parquet lake is generated deterministically when missing or stale; the rasters and the
 * STAC catalog are committed files made by scripts/demo/make-rasters.py (GDAL), checked here.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ensureDemoLake } from './demo/make-lake.js';

const root = path.resolve(import.meta.dirname, '..');
const wrote = await ensureDemoLake(path.join(root, 'data/demo/lake'));
console.log(wrote ? 'demo-data: wrote the demo lake' : 'demo-data: demo lake up to date');
const missing = ['data/demo/rasters/elevation.tif', 'data/demo/stac/catalog.json'].filter((f) => !existsSync(path.join(root, f)));
if (missing.length > 0) {
  console.error(`demo-data: missing ${missing.join(', ')}; re-make them with: python3 scripts/demo/make-rasters.py (needs GDAL's Python bindings)`);
  process.exit(1);
}
