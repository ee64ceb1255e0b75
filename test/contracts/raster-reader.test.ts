import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GeoTiffRasterReader } from '../../src/adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../../src/adapters/rasters/pmtiles-raster-reader.js';
import { writeLinearFieldPmtiles } from '../support/pmtiles-writer.js';
import type { FetchPolicy } from '../../src/adapters/rasters/url-guard.js';
import { expect } from 'chai';
import { cellToLatLng, latLngToCell } from 'h3-js';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
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

describe('raster-url wiring: a .pmtiles collection is read by the PMTiles reader', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pmtiles-wiring-'));
    const pmtiles = writeLinearFieldPmtiles(dir, { metadata: {} });
    // Readers look settings up by url, so the unconfigured collection gets its own file (named without the extension).
    const bare = writeLinearFieldPmtiles(dir, { metadata: {}, name: 'linear-terrarium-archive' });
    const field = { value: { title: 'Value', type: 'number', svc_band_index: 1, svc_dggs_stat: 'mean' } };
    s = await startTestServer({
      collections: [
        { id: 'linear-tif', title: 'Linear (GeoTIFF)', backing: { kind: 'raster-url', url: path.join(FIXTURES, 'linear-4326.tif'), fields: field } },
        { id: 'linear-pmtiles', title: 'Linear (PMTiles)', backing: { kind: 'raster-url', url: pmtiles, valueEncoding: 'terrarium', fields: field } },
        { id: 'no-encoding', title: 'PMTiles without encoding', backing: { kind: 'raster-url', url: bare, rasterFormat: 'pmtiles', fields: field } },
      ],
    });
  });
  after(async () => s?.close());

  it('gives the same zone means from the GeoTIFF and the PMTiles copy of one field', async () => {
    const zone = latLngToCell(45.5, 10.5, 5);
    const mean = async (id: string) => {
      const res = await s.get(`/collections/${id}/dggs/H3/zones/${zone}/data?zone-depth=0&f=json`);
      expect(res.status, await res.clone().text()).to.equal(200);
      return (await res.json()).values.value[0].data[0] as number;
    };
    const [tif, pm] = [await mean('linear-tif'), await mean('linear-pmtiles')];
    const [lat, lon] = cellToLatLng(zone);
    expect(tif).to.be.closeTo(linearField(lon, lat), 0.2); // a linear field's zone mean is about its value at the centre
    expect(pm).to.be.closeTo(tif, 0.05);
  });

  it('refuses, with a hint, an archive whose encoding is neither configured nor in its metadata', async () => {
    const res = await s.get(`/collections/no-encoding/dggs/H3/zones/${latLngToCell(45.5, 10.5, 5)}/data?zone-depth=0`);
    expect(res.status).to.equal(400);
    expect((await res.json()).hint).to.contain('valueEncoding');
  });
});
