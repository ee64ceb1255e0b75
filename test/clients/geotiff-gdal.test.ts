/**
 * The GeoTIFF answers as GDAL and rasterio see them: `gdalinfo -json` lists one band per field named
 * after it, the shallower depths as overviews of the deepest, NaN nodata, EPSG:4326, pixel-is-area
 * (AREA_OR_POINT=Area) and a geotransform spanning the zone's bounding box; rasterio reads, at each
 * sub-zone's centroid, in the full image and in each overview, the DGGS-JSON value of the sub-zone the
 * grid puts that pixel's centre in. A zone-list GeoTIFF is a UInt64 band of the zones' 64-bit ids.
 *
 * Needs gdalinfo and /usr/bin/python3 with rasterio (Debian: gdal-bin, python3-rasterio); fails when missing.
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON, requirePython } from './python.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { Dggrs, GridRegistry } from '../../src/ports/grid-registry.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const run = promisify(execFile);

/**
 * rasterio at points: for each request {overview, points}, opens the file (the full image, or overview
 * `overview` - 1 through overview_level) and gives per point the pixel's centre and its band values as
 * text (UInt64 ids exactly; NaN as "nan"), null for a point off the image.
 */
const RASTERIO_AT_POINTS = `
import json, sys, rasterio
req = json.load(sys.stdin)
out = []
for layer in req["layers"]:
    kw = {} if layer["overview"] == 0 else {"overview_level": layer["overview"] - 1}
    with rasterio.open(req["path"], **kw) as ds:
        data = ds.read()
        points = []
        for lon, lat in layer["points"]:
            row, col = ds.index(lon, lat)
            if not (0 <= row < ds.height and 0 <= col < ds.width):
                points.append(None)  # a sub-zone reaching past the zone's box, its centroid outside
                continue
            x, y = ds.xy(row, col)
            points.append({"centre": [x, y], "values": [str(data[b][row][col]) for b in range(ds.count)]})
        out.append({"size": [ds.width, ds.height], "dtypes": list(ds.dtypes), "nodata": str(ds.nodata), "points": points})
print(json.dumps(out))
`;

function rasterioAt(file: string, layers: { overview: number; points: number[][] }[]): Promise<Json[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', RASTERIO_AT_POINTS], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`rasterio exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify({ path: file, layers }));
  });
}

describe('GeoTIFF answers read by GDAL (gdalinfo) and rasterio', function () {
  this.timeout(300_000);
  let s: TestServer;
  let dir: string;
  let grids: GridRegistry;

  before(async () => {
    await run('gdalinfo', ['--version']).catch((err: Error) => {
      throw new Error(`gdalinfo missing (apt-get install -y gdal-bin): ${err.message}`);
    });
    await requirePython('import rasterio', 'python3-rasterio');
    s = await startTestServer();
    grids = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
    dir = mkdtempSync(path.join(tmpdir(), 'geotiff-gdal-'));
  });
  after(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function save(url: string, name: string): Promise<string> {
    const r = await s.get(url);
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(r.status, bytes.toString('utf8', 0, 300)).to.equal(200);
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  }
  const gdalinfo = async (file: string): Promise<Json> => JSON.parse((await run('gdalinfo', ['-json', file], { maxBuffer: 1 << 26 })).stdout);
  const json = async (url: string): Promise<Json> => (await s.get(url)).json();

  const cases: Array<{ grid: string; collection: string; zone: string; depths: string; extra: string }> = [
    { grid: 'IVEA7H', collection: 'demo-elevation', zone: 'E4-120-A', depths: '1-3', extra: '' },
    { grid: 'H3', collection: 'demo-elevation', zone: '831f8dfffffffff', depths: '1,2', extra: '' },
    { grid: 'IVEA7H', collection: 'demo-stations', zone: 'E2-2A-A', depths: '1,2', extra: '&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z' },
  ];
  for (const c of cases) {
    it(`${c.collection} ${c.grid} ${c.zone} depths ${c.depths}: gdalinfo and rasterio agree with DGGS-JSON`, async () => {
      const grid: Dggrs = grids.get(c.grid)!;
      const base = `/collections/${c.collection}/dggs/${c.grid}/zones/${c.zone}/data?zone-depth=${c.depths}${c.extra}`;
      const ref = await json(`${base}&f=json`);
      const file = await save(`${base}&f=geotiff`, `${c.zone}.tif`);
      const fields = Object.keys(ref.values);
      const depths = [...(ref.depths as number[])].sort((a, b) => b - a);

      const info = await gdalinfo(file);
      expect(info.driverShortName).to.equal('GTiff');
      expect(info.bands.map((b: Json) => b.description)).to.deep.equal(fields);
      for (const b of info.bands) {
        expect(b.type).to.equal('Float64');
        expect(b.noDataValue).to.equal('NaN');
        expect(b.overviews ?? []).to.have.length(depths.length - 1);
      }
      expect(info.coordinateSystem.wkt).to.include('ID["EPSG",4326]');
      expect(info.metadata[''].AREA_OR_POINT).to.equal('Area');
      expect(info.metadata['']).to.include({ ZONE_ID: c.zone, DGGRS: grid.uri });
      const [west, south, east, north] = grid.describeZone(c.zone).bbox;
      const [x0, dx, rx, y0, ry, dy] = info.geoTransform as number[];
      expect([rx, ry]).to.deep.equal([0, 0]);
      expect(x0).to.be.closeTo(west, 1e-9);
      expect(y0).to.be.closeTo(north, 1e-9);
      expect(x0 + dx! * info.size[0]).to.be.closeTo(east, 1e-9);
      expect(y0! + dy! * info.size[1]).to.be.closeTo(south, 1e-9);

      // rasterio at every sub-zone's centroid, in the full image (deepest depth) and each overview.
      const zonesOf = (depth: number) => ref.zones.find((z: Json) => z.depth === depth).zoneIds as string[];
      const layers = depths.map((depth, k) => ({ overview: k, points: zonesOf(depth).map((z) => grid.describeZone(z).centroid) }));
      const read = await rasterioAt(file, layers);
      depths.forEach((depth, k) => {
        const zones = zonesOf(depth);
        const position = new Map(zones.map((z, i) => [z, i]));
        const level = grid.zoneLevel(c.zone) + depth;
        expect(read[k].dtypes).to.deep.equal(fields.map(() => 'float64'));
        if (k > 0) expect(read[k].size).to.deep.equal(info.bands[0].overviews[k - 1].size);
        let own = 0;
        const inside = read[k].points.filter((p: Json) => p !== null).length;
        // Only sub-zones of the 7H grids reaching past their parent may have a centroid off the parent's box.
        expect(inside).to.be.greaterThan(0.5 * zones.length);
        read[k].points.forEach((p: Json, i: number) => {
          if (p === null) return;
          const [lon, lat] = p.centre as [number, number];
          const at = position.get(grid.zoneFromPoint(lon > 180 ? lon - 360 : lon, lat, level));
          if (at === i) own++;
          fields.forEach((f, b) => {
            const want = at === undefined ? null : ref.values[f].find((v: Json) => v.depth === depth).data[at];
            const got = Number(p.values[b]); // Python's float text ("4.0", "nan") read back exactly
            if (want === null) expect(got, `${zones[i]} ${f} at depth ${depth}`).to.be.NaN;
            else expect(got, `${zones[i]} ${f} at depth ${depth}`).to.equal(want);
          });
        });
        // A zone is about three pixels across: its centroid's pixel is nearly always its own.
        expect(own, `centroid pixels in their own sub-zone at depth ${depth}`).to.be.greaterThan(0.9 * inside);
      });
    });
  }

  for (const id of ['IVEA7H', 'H3']) {
    it(`${id} zone list: a UInt64 band of the zones' 64-bit ids, as GDAL and rasterio read it`, async () => {
      const grid = grids.get(id)!;
      const q = `/dggs/${id}/zones?zone-level=${id === 'H3' ? 3 : 4}&bbox=5,44,12,48`;
      const zones = (await json(`${q}&f=json`)).zones as string[];
      const file = await save(`${q}&f=geotiff`, `${id}-zones.tif`);
      const info = await gdalinfo(file);
      expect(info.bands).to.have.length(1);
      expect(info.bands[0].type).to.equal('UInt64');
      expect(info.bands[0].noDataValue).to.equal('18446744073709551615'); // GDAL writes 64-bit nodata as text in its JSON
      expect(info.metadata[''].AREA_OR_POINT).to.equal('Area');
      expect(info.coordinateSystem.wkt).to.include('ID["EPSG",4326]');
      const [read] = await rasterioAt(file, [{ overview: 0, points: zones.map((z) => grid.describeZone(z).centroid) }]);
      // rasterio 1.3 has no uint64 type: it reads GDAL's UInt64 band as int64, the same 64 bits.
      expect(['uint64', 'int64']).to.include(read.dtypes[0]);
      const asUint64 = (text: string) => BigInt.asUintN(64, BigInt(text)).toString();
      let own = 0;
      read.points.forEach((p: Json, i: number) => {
        const z = grid.zoneFromPoint(p.centre[0], p.centre[1], grid.zoneLevel(zones[0]!));
        const want = zones.includes(z) ? grid.zoneToUint64!(z).toString() : '18446744073709551615';
        expect(asUint64(p.values[0]), zones[i]).to.equal(want);
        if (z === zones[i]) own++;
      });
      expect(own).to.be.greaterThan(0.9 * zones.length);
    });
  }
});
