import { expect } from 'chai';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { planDepth, rectTouchesRing, zonalDepth, type PixelGrid, type Point, type ZonalDepth } from '../../../src/domain/aggregation/index.js';

/**
 * `cog-all-touched`: a sub-zone counts every pixel whose centre the grid puts in it, plus every
 * pixel whose square touches its outline, each once. Checked pixel by pixel where every pixel
 * centre is a sample (a sampling factor above the pixels per sub-zone), on pixel coordinates
 * large enough that the pixel keys once passed 2^53 and neighbouring pixels shared one (a pixel
 * beside a counted one was then skipped).
 */
const grid = new H3Dggrs();
const RES = 0.01;
const WEST = 10, NORTH = 46, SIZE = 120;
/** The raster's pixel (0, 0) sits at this offset in a larger image, as in a window read from a big file. */
const OFFSET = 3_000_000;

const raster: PixelGrid = {
  width: SIZE,
  height: SIZE,
  bandCount: 1,
  overview: 0,
  dataBounds: [OFFSET, OFFSET, OFFSET + SIZE, OFFSET + SIZE],
  toPixel: (lon, lat) => [OFFSET + (lon - WEST) / RES, OFFSET + (NORTH - lat) / RES],
  toLonLat: (x, y) => [WEST + (x - OFFSET) * RES, NORTH - (y - OFFSET) * RES],
  value: () => 1,
};

function run(zoneId: string, depth: number): ZonalDepth {
  const work = zonalDepth(grid, planDepth(grid, zoneId, depth, 4096), { stats: ['count'], allTouched: true });
  for (let step = work.next(); ; step = work.next(step.value ? raster : undefined)) if (step.done) return step.value;
}

/** What all-touched means, pixel by pixel. */
function expected(subZone: string): number {
  const level = grid.zoneLevel(subZone);
  const ring = grid.zoneOutline(subZone, false).map(([lon, lat]) => raster.toPixel(lon, lat) as Point);
  let n = 0;
  for (let row = OFFSET; row < OFFSET + SIZE; row++) {
    for (let col = OFFSET; col < OFFSET + SIZE; col++) {
      const [lon, lat] = raster.toLonLat(col + 0.5, row + 0.5);
      if (grid.zoneFromPoint(lon, lat, level) === subZone || rectTouchesRing(col, row, col + 1, row + 1, ring)) n++;
    }
  }
  return n;
}

describe('zonal statistics: all-touched counts each touching pixel once', () => {
  it('equals the pixel-by-pixel count for every sub-zone (H3 resolution 6 → 7, far from the image origin)', () => {
    const zone = grid.zoneFromPoint(10.6, 45.4, 6);
    const r = run(zone, 1);
    expect(r.zones.length).to.equal(7);
    r.zones.forEach((z, i) => expect(r.bands[0]!.count![i], z).to.equal(expected(z)));
  });
});
