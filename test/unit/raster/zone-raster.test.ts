/**
 * The zone rasterizer: for one zone of each grid family (7H, 3H, rhombic 9R, HEALPix, GNOSIS, H3, A5), an
 * equatorial one, a polar one and one across the antimeridian, at depths 1-3, on the frame itself (never
 * finer), every sub-zone gets at least one pixel: pixels whose centre the grid itself places in that
 * sub-zone, or else the one pixel holding its centroid; no other pixel names a zone its centre is not in.
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import type { Dggrs } from '../../../src/domain/dggrs/dggrs.js';
import { runToEnd } from '../../../src/domain/dggrs/dggrs.js';
import { rasterizeZones, zoneRasterFrame, zonesBBox, ZoneRasterBoundError, type ZoneRaster } from '../../../src/domain/raster/zone-raster.js';

const FAMILIES: Array<[string, number]> = [
  ['IVEA7H', 2],
  ['ISEA3H', 3],
  ['ISEA9R', 1],
  ['HEALPix', 2],
  ['GNOSISGlobalGrid', 3],
  ['H3', 2],
  ['A5', 3],
];
/** Points naming the test zones: an ordinary one, one at the north pole, one across the antimeridian. */
const PLACES: Array<[string, number, number]> = [
  ['mid-latitude', 10.3, 46.2],
  ['polar', 0, 89.99],
  ['antimeridian', 179.999, -20.3],
];

function centreOf(r: ZoneRaster, pixel: number): [number, number] {
  const col = pixel % r.width, row = Math.floor(pixel / r.width);
  const lon = r.west + ((col + 0.5) * (r.east - r.west)) / r.width;
  return [lon > 180 ? lon - 360 : lon, r.north - ((row + 0.5) * (r.north - r.south)) / r.height];
}

/**
 * Checks the raster against the grid: every zone has a pixel, and a pixel naming a zone its centre
 * is not in is the one centroid pixel of a zone no pixel centre falls in. Returns how many zones have
 * only such a centroid pixel.
 */
function checkRaster(grid: Dggrs, zones: string[], r: ZoneRaster): number {
  expect(r.index.length).to.equal(r.width * r.height);
  const level = grid.zoneLevel(zones[0]!);
  const centred = new Set<number>();
  const offCentre = new Map<number, number>();
  r.index.forEach((i, pixel) => {
    if (i < 0) return;
    const [lon, lat] = centreOf(r, pixel);
    if (grid.zoneFromPoint(lon, lat, level) === zones[i]) centred.add(i);
    else offCentre.set(i, (offCentre.get(i) ?? 0) + 1);
  });
  const missing = zones.filter((_, i) => !centred.has(i) && !offCentre.has(i));
  expect(missing, `sub-zones with no pixel`).to.deep.equal([]);
  for (const [i, n] of offCentre) {
    expect(centred.has(i), `${zones[i]} has pixels centred in it and a centroid pixel`).to.equal(false);
    expect(n, `centroid pixels of ${zones[i]}`).to.equal(1);
  }
  return offCentre.size;
}

describe('zone rasterizer', function () {
  this.timeout(300_000);
  for (const [gridId, level] of FAMILIES) {
    const grid = GRID_FACTORIES[gridId]!();
    for (const [place, lon, lat] of PLACES) {
      const zone = grid.zoneFromPoint(lon, lat, level);
      for (const depth of [1, 2, 3]) {
        it(`${gridId} ${place} zone ${zone}, depth ${depth}: every sub-zone has a pixel, centred in it but for a few centroid pixels`, () => {
          const d = grid.describeZone(zone);
          const zones = grid.subZones(zone, depth);
          const frame = zoneRasterFrame(grid, d.bbox, level + depth);
          expect(frame.west).to.equal(d.bbox[0]);
          expect(frame.north).to.equal(d.bbox[3]);
          expect(frame.east).to.be.greaterThan(frame.west);
          const r = runToEnd(rasterizeZones(grid, zones, frame));
          expect([r.width, r.height, r.west]).to.deep.equal([frame.width, frame.height, frame.west]);
          // The frame's pixels (a third of a zone's side) leave few zones to a centroid pixel.
          expect(checkRaster(grid, zones, r)).to.be.at.most(Math.max(1, zones.length / 10));
        });
      }
    }
  }

  it('rasterizes a zone list of mixed levels on its union box, across the antimeridian', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const west = grid.zoneFromPoint(179.5, -20, 3);
    const east = grid.zoneFromPoint(-179.5, -20, 3);
    const zones = [...new Set([west, east, ...grid.children(grid.zoneFromPoint(179.9, 24, 3))])];
    expect(new Set(zones.map((z) => grid.zoneLevel(z))).size).to.equal(2);
    const bbox = zonesBBox(grid, zones);
    expect(bbox[0]).to.be.greaterThan(bbox[2]); // crossing: west > east
    const r = runToEnd(rasterizeZones(grid, zones, zoneRasterFrame(grid, bbox, 4)));
    const seen = new Set(r.index);
    zones.forEach((_, i) => expect(seen.has(i), zones[i]).to.equal(true));
  });

  it('gives a zone too small for the pixels the pixel at its centroid, or refuses when two zones need one pixel', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const zone = grid.zoneFromPoint(10, 46, 2);
    const zones = grid.subZones(zone, 2);
    // 100 pixels for 49 sub-zones (the frame has 35 x 25): a few get no pixel centre and take their centroid's pixel.
    const coarse = { ...zoneRasterFrame(grid, grid.describeZone(zone).bbox, 4), width: 10, height: 10 };
    const r = runToEnd(rasterizeZones(grid, zones, coarse));
    expect([r.width, r.height]).to.deep.equal([coarse.width, coarse.height]);
    expect(checkRaster(grid, zones, r)).to.be.greaterThan(0);
    expect(() => runToEnd(rasterizeZones(grid, grid.subZones(zone, 3), { ...coarse, width: 2, height: 2 }))).to.throw(ZoneRasterBoundError, /2 x 2 raster is too coarse/);
  });

  it('yields while it works, so callers can take turns', () => {
    const grid = GRID_FACTORIES.IVEA7H!();
    const zone = grid.zoneFromPoint(10, 46, 2);
    const frame = zoneRasterFrame(grid, grid.describeZone(zone).bbox, 6);
    expect(frame.width * frame.height).to.be.greaterThan(10_000);
    const work = rasterizeZones(grid, grid.subZones(zone, 4), frame);
    let pauses = 0;
    while (!work.next().done) pauses++;
    expect(pauses).to.be.greaterThan(1);
  });
});
