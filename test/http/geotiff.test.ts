/**
 * GeoTIFF zone data (data-geotiff) and zone lists (zone-geotiff), read back with the `geotiff` npm package:
 * per depth an image (the deepest full resolution, the others reduced-resolution subfiles after it), each
 * pixel the DGGS-JSON value of the sub-zone the grid puts its centre in, NaN elsewhere, every sub-zone on a
 * pixel, georeferenced on the zone's bounding box; zone lists as 64-bit zone ids; the pixel bound a 422.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { expectDepthImage, expectZoneIdImage, readGeoTiff, type TiffRaster } from '../support/geotiff-check.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { Dggrs, GridRegistry } from '../../src/ports/grid-registry.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One grid of each family. */
const FAMILIES = ['IVEA7H', 'ISEA3H', 'IVEA9R', 'HEALPix', 'GNOSISGlobalGrid', 'H3', 'A5'];
/** Over the demo raster (the Alps). */
const ALPS: [number, number] = [10.1, 46.1];

/** The first level whose zones are about the size of IVEA7H's level 4 (2e10 m²) or smaller. */
function levelNear(grid: Dggrs, area = 2.5e10): number {
  for (let l = 0; l <= grid.maxRefinementLevel; l++) if (grid.levelInfo(l).zoneAreaMetersSquare <= area) return l;
  return grid.maxRefinementLevel;
}

describe('GeoTIFF zone data and zone lists', function () {
  this.timeout(300_000);
  let s: TestServer;
  let grids: GridRegistry;
  before(async () => {
    s = await startTestServer();
    grids = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
  });
  after(() => s?.close());

  async function tiffOf(url: string): Promise<TiffRaster[]> {
    const r = await s.get(url);
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(r.status, bytes.toString('utf8', 0, 300)).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('image/tiff');
    expect(r.headers.get('content-disposition')).to.match(/^attachment; filename="[^"]+\.tif"$/);
    return readGeoTiff(bytes);
  }
  const json = async (url: string): Promise<Json> => {
    const r = await s.get(url);
    expect(r.status).to.equal(200);
    return r.json();
  };

  /** The GeoTIFF of `url` against its DGGS-JSON: one image per depth, deepest first, each pixel and sub-zone checked. */
  async function expectSameAsDggsJson(grid: Dggrs, zone: string, url: string): Promise<TiffRaster[]> {
    const ref = await json(`${url}&f=json`);
    const images = await tiffOf(`${url}&f=geotiff`);
    const fields = Object.keys(ref.values);
    const depths = [...(ref.depths as number[])].sort((a, b) => b - a);
    expect(images).to.have.length(depths.length);
    const [w, south, e, n] = grid.describeZone(zone).bbox;
    depths.forEach((depth, k) => {
      const image = images[k]!;
      expect(image.reducedResolution, `image ${k}`).to.equal(k > 0);
      // Georeferenced on the zone's bounding rectangle (east unwrapped across the antimeridian).
      const want = [w, south, e < w ? e + 360 : e, n];
      image.bbox.forEach((v, i) => expect(v).to.be.closeTo(want[i]!, 1e-9));
      expect(image.rasterType, 'pixel-is-area').to.equal(1);
      expect(image.geographicType).to.equal(4326);
      expect(image.nodata).to.equal('nan');
      expect(image.bandDescriptions).to.deep.equal(fields);
      expect(image.metadata).to.include({ ZONE_ID: zone, ZONE_DEPTH: String(depth), DGGRS: grid.uri });
      const zones = ref.zones.find((z: Json) => z.depth === depth).zoneIds as string[];
      const values = fields.map((f) => ref.values[f].find((v: Json) => v.depth === depth).data as (number | null)[]);
      expectDepthImage(grid, image, zones, values);
    });
    return images;
  }

  for (const id of FAMILIES) {
    it(`${id}: each depth an image, each sub-zone's elevation on a pixel centred in it`, async () => {
      const grid = grids.get(id)!;
      const zone = grid.zoneFromPoint(...ALPS, levelNear(grid));
      const images = await expectSameAsDggsJson(grid, zone, `/collections/demo-elevation/dggs/${id}/zones/${zone}/data?zone-depth=1,2`);
      expect(images[0]!.bands[0]).to.satisfy((b: ArrayLike<number>) => Array.from(b).some((v) => Number.isFinite(v)));
    });
  }

  it('across the antimeridian and at a pole (bare grid routes have no data: the zone list checks those places)', async () => {
    const grid = grids.get('IVEA7H')!;
    for (const [lon, lat] of [[179.9, -17], [0, 89.9]] as const) {
      const bbox = grid.describeZone(grid.zoneFromPoint(lon, lat, 2)).bbox;
      const q = `/dggs/IVEA7H/zones?zone-level=3&bbox=${bbox.join(',')}`;
      const zones = (await json(`${q}&f=json`)).zones as string[];
      const [image] = await tiffOf(`${q}&f=geotiff`);
      expectZoneIdImage(grid, image!, zones);
    }
  });

  it('properties, exclude-properties and datetime choose the bands and their values', async () => {
    const grid = grids.get('IVEA7H')!;
    const base = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z';
    const [one] = await expectSameAsDggsJson(grid, 'E2-2A-A', `${base}&properties=temperature`);
    expect(one!.bandDescriptions).to.deep.equal(['temperature']);
    expect(one!.metadata).to.have.property('DATETIME', '2024-01-05T00:00:00Z/2024-01-05T03:00:00Z');
    const [two] = await expectSameAsDggsJson(grid, 'E2-2A-A', `${base}&exclude-properties=humidity`);
    expect(two!.bandDescriptions).to.deep.equal(['temperature', 'wind_speed']);
    // Another time, other values: the band follows the datetime asked.
    const later = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-07T00:00:00Z/2024-01-07T03:00:00Z&properties=temperature';
    const [other] = await expectSameAsDggsJson(grid, 'E2-2A-A', later);
    expect(Array.from(other!.bands[0] as Float64Array)).to.not.deep.equal(Array.from(one!.bands[0] as Float64Array));
  });

  it('answers image/tiff; application=geotiff by Accept', async () => {
    const r = await s.get('/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1', { accept: 'image/tiff; application=geotiff' });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('image/tiff');
  });

  for (const id of ['IVEA7H', 'H3', 'A5', 'GNOSISGlobalGrid']) {
    it(`${id} zone list: each listed zone's 64-bit id on a pixel centred in it, NoData 2^64-1 elsewhere`, async () => {
      const grid = grids.get(id)!;
      const level = levelNear(grid, 2e11);
      for (const q of [`/dggs/${id}/zones?zone-level=${level}&bbox=8,45,11,47`, `/collections/demo-elevation/dggs/${id}/zones?zone-level=${level}`]) {
        const zones = (await json(`${q}&f=json`)).zones as string[];
        expect(zones).to.not.be.empty;
        const [image, more] = await tiffOf(`${q}&f=geotiff`);
        expect(more).to.equal(undefined);
        expect(image!.nodata).to.equal('18446744073709551615');
        expect(image!.rasterType).to.equal(1);
        expect(image!.metadata).to.include({ ZONES: String(zones.length), ZONE_LEVEL: String(level) });
        expectZoneIdImage(grid, image!, zones);
      }
    });
  }

  describe('over limits.maxRasterCells', () => {
    let small: TestServer;
    before(async () => {
      small = await startTestServer({ limits: { maxRasterCells: 200 } });
    });
    after(() => small?.close());

    it('is refused with 422 naming the limit, before any value is computed, for zone data and zone lists', async () => {
      for (const url of ['/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1,2,3&f=geotiff', '/dggs/IVEA7H/zones?zone-level=5&bbox=8,45,11,47&f=geotiff']) {
        const r = await small.get(url);
        expect(r.status, url).to.equal(422);
        expect(JSON.stringify(await r.json())).to.include('limits.maxRasterCells');
      }
      // Within the limit the same zone answers.
      expect((await small.get('/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1&f=geotiff')).status).to.equal(200);
    });
  });
});
