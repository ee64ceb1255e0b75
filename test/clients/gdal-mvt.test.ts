import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { columnLongitude, rowLatitude } from '../../src/domain/tiles/web-mercator-quad.js';

const run = promisify(execFile);

interface GeoJsonFeature {
  properties: Record<string, unknown>;
  geometry: { type: string; coordinates: number[][][] | number[][][][] };
}

/**
 * GDAL's MVT driver (ogr2ogr) as the client of a downloaded tile, named `{z}-{x}-{y}.pbf` so that
 * GDAL places it in Web Mercator: it finds the layer `zones`, each feature's `zoneId` and values
 * (the ones @mapbox/vector-tile decodes), and puts every zone where the grid says it is.
 * ogr2ogr missing fails the suite.
 */
describe('GDAL reads the vector tiles of zones', function () {
  this.timeout(180_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-mvt-'));
  before(async () => {
    await ensureDemoLake(path.join(REPO_ROOT, 'data/demo/lake'));
    s = await startTestServer();
  });
  after(() => s?.close());

  for (const [c, g, z, x, y, fields] of [
    ['demo-elevation', 'IVEA7H', 6, 33, 22, ['elevation']],
    ['demo-stations', 'H3', 5, 16, 10, ['temperature', 'humidity']],
  ] as const) {
    it(`${c} on ${g}, tile ${z}/${y}/${x}: zoneId and ${fields.join(', ')} as the tile holds them, each zone in its place`, async () => {
      const res = await s.get(`/collections/${c}/dggs/${g}/tiles/WebMercatorQuad/${z}/${y}/${x}?properties=${fields.join(',')}`);
      expect(res.status).to.equal(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const file = path.join(dir, `${z}-${x}-${y}.pbf`);
      writeFileSync(file, bytes);

      const { stdout: info } = await run('ogrinfo', ['-ro', '-so', '-al', file], { timeout: 60_000 });
      expect(info).to.match(/Layer name: zones/);
      expect(info).to.match(/zoneId: String/);
      for (const f of fields) expect(info).to.match(new RegExp(`${f}: Real`));
      expect(info).to.match(/Pseudo-Mercator|3857/);

      const { stdout } = await run('ogr2ogr', ['-f', 'GeoJSON', '-oo', 'CLIP=NO', '-t_srs', 'EPSG:4326', '/vsistdout/', file], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
      // CLIP=NO: GDAL keeps the features of the tile's buffer too (by default it clips them away).
      const read = (JSON.parse(stdout) as { features: GeoJsonFeature[] }).features;

      const layer = new VectorTile(new PbfReader(bytes)).layers.zones!;
      const decoded = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties);
      expect(read.length).to.equal(decoded.length);
      const byZone = new Map(decoded.map((p) => [String(p.zoneId), p]));
      const grid = GRID_FACTORIES[g]!();
      // The tile with its buffer, in lon/lat.
      const pad = 64 / 4096;
      const [west, east] = [columnLongitude(z, x - pad), columnLongitude(z, x + 1 + pad)];
      const [south, north] = [rowLatitude(z, y + 1 + pad), rowLatitude(z, y - pad)];
      for (const f of read) {
        const zid = String(f.properties.zoneId);
        const expected = byZone.get(zid);
        expect(expected, zid).to.be.an('object');
        for (const field of fields) {
          if (expected![field] === undefined) expect(f.properties[field] ?? undefined, `${zid} ${field}`).to.equal(undefined);
          else expect(f.properties[field], `${zid} ${field}`).to.be.closeTo(expected![field] as number, 1e-9);
        }
        expect(['Polygon', 'MultiPolygon']).to.include(f.geometry.type);
        const points = (f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates) as number[][][][];
        const lons = points.flat(2).map((p) => p[0]!);
        const lats = points.flat(2).map((p) => p[1]!);
        // Within the tile and its buffer...
        expect(Math.min(...lons), zid).to.be.at.least(west - 1e-6);
        expect(Math.max(...lons), zid).to.be.at.most(east + 1e-6);
        expect(Math.min(...lats), zid).to.be.at.least(south - 1e-6);
        expect(Math.max(...lats), zid).to.be.at.most(north + 1e-6);
        // ...and about where the grid puts the zone (a zone is a few pixels: within a few tile pixels of its centroid).
        const [clon, clat] = grid.describeZone(zid).centroid;
        const slack = ((east - west) * 24) / 256;
        if (clon > west && clon < east && clat > south && clat < north) {
          expect(clon, `${zid} centroid lon`).to.be.within(Math.min(...lons) - slack, Math.max(...lons) + slack);
          expect(clat, `${zid} centroid lat`).to.be.within(Math.min(...lats) - slack, Math.max(...lats) + slack);
        }
      }
    });
  }
});
