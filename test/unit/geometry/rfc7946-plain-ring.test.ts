import { expect } from 'chai';
import { outlineToRings, outlineToRingsByClipping } from '../../../src/domain/geometry/rfc7946.js';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

type P = [number, number];

/**
 * outlineToRings answers most outlines through a shortcut (plainRing) meant to give exactly the numbers of
 * the general clipping steps: the two are compared bit for bit (chai's deep equality tells -0 from 0) on
 * real zone outlines of every grid, near the antimeridian and the poles included, and on edge cases.
 */
describe('RFC 7946 rings: the plain-ring shortcut gives exactly the general result', () => {
  const same = (ring: readonly P[]): void => {
    let general: unknown, err: unknown;
    try {
      general = outlineToRingsByClipping(ring);
    } catch (e) {
      err = e;
    }
    if (err) expect(() => outlineToRings(ring), JSON.stringify(ring)).to.throw((err as Error).message);
    else expect(outlineToRings(ring), JSON.stringify(ring)).to.deep.equal(general);
  };

  for (const [id, make] of Object.entries(GRID_FACTORIES)) {
    it(`${id}: zone outlines, plain and refined, all over the globe`, () => {
      const grid = make();
      const rand = mulberry32(7);
      const levels = [0, 1, 2, 3, 5, 8].filter((l) => l <= grid.maxRefinementLevel);
      for (let i = 0; i < 120; i++) {
        // A third of the points near the antimeridian, a third near a pole.
        const lon = i % 3 === 0 ? 180 - rand() * 4 * (rand() < 0.5 ? 1 : -1) : rand() * 360 - 180;
        const lat = i % 3 === 1 ? (88 + rand() * 2) * (rand() < 0.5 ? 1 : -1) : (Math.asin(2 * rand() - 1) * 180) / Math.PI;
        const zone = grid.zoneFromPoint(lon, lat, levels[i % levels.length]!);
        same(grid.zoneOutline(zone, false) as P[]);
        if (i % 4 === 0) same(grid.zoneOutline(zone, true) as P[]);
      }
      for (const zone of grid.zonesInBBox(0, [-180, -90, 180, 90])) same(grid.zoneOutline(zone, false) as P[]);
    });
  }

  it('edge cases: clockwise, open, repeated and shifted closing points, near-duplicates, on ±180, degenerate', () => {
    const rings: P[][] = [
      [[0, 0], [0, 1], [1, 1], [1, 0]],
      [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0], [0, 0]],
      [[10, 5], [11, 5], [11, 6], [370, 5]],
      [[0, 0], [1e-13, 0], [1, 0], [1, 1], [0, 1], [5e-13, 1e-13]],
      [[179, 0], [180, 0], [180, 1], [179, 1]],
      [[-180, 0], [-179, 0], [-179, 1], [-180, 1]],
      [[-179.5, 10], [179.5, 10], [179.5, 11], [-179.5, 11]],
      [[0, 89], [1, 89], [1, 90.000001], [0, 90.000001]],
      [[0, 0], [1, 0], [2, 0]],
      [[0, 0], [1, 1]],
      [[0, 0], [0, 0], [0, 0], [0, 0]],
      [[-0, 0], [1, -0], [1, 1], [-0, 1]],
    ];
    rings.forEach(same);
  });
});
