import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GeoTiffRasterReader } from '../../src/adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../../src/adapters/rasters/pmtiles-raster-reader.js';
import { writeLinearFieldPmtiles } from '../support/pmtiles-writer.js';
import type { FetchPolicy } from '../../src/adapters/rasters/url-guard.js';
import { REPO_ROOT } from '../support/test-server.js';
import { linearField, rasterReaderContract } from './raster-reader.contract.js';

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
  };
});
