/**
 * A filtered zone list walks its zones in slices of the event loop's time: another callback gets a
 * turn while the zones are tested, however few they are and however long each test takes.
 */
import { expect } from 'chai';
import { createIvea7h } from '../../src/domain/dggrs/grids/ivea-grids.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import type { CollectionsService } from '../../src/app/collections/collections-service.js';
import { ZonesService } from '../../src/app/zones/zones-service.js';
import { HOLD_RERUNS, loopHolds } from '../support/loop-holds.js';

describe('zone lists: a filtered list gives the event loop turns while it tests zones', () => {
  const grid = createIvea7h();
  const registry: GridRegistry = { list: () => [grid], get: () => grid, require: () => grid, defaultGrid: grid };
  const service = new ZonesService(registry, {} as CollectionsService, 10_000);

  it('timers run between the tests of 49 zones taking a few milliseconds each, and the kept page is the one asked for', async () => {
    const parent = grid.zonesInBBox(0, [-180, -90, 180, 90])[0]!;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const seen: number[] = [];
    try {
      const page = await service.listZones(grid, {
        parentZone: parent,
        zoneLevel: 2,
        limit: 5,
        offset: 3,
        keep: async () => (z) => {
          seen.push(ticks);
          const until = performance.now() + 3;
          while (performance.now() < until); // a costly test
          return z.charCodeAt(z.length - 1) % 2 === 0;
        },
      });
      const all = grid.subZones(parent, 2, { offset: 0, limit: 1000 });
      const kept = all.filter((z) => z.charCodeAt(z.length - 1) % 2 === 0);
      expect(seen).to.have.length(all.length);
      expect(page.total).to.equal(kept.length);
      expect(page.zones).to.deep.equal(kept.slice(3, 8));
    } finally {
      clearInterval(timer);
    }
    expect(seen[seen.length - 1], 'a timer ran while the zones were tested').to.be.above(seen[0]!);
  });

  it('a walk of hundreds of pages, each well under a slice, keeping no zone, still gives turns (found by npm run fuzz: 1.2 s held)', async function () {
    this.retries(HOLD_RERUNS);
    const box: [number, number, number, number] = [-5, 35, 30, 60]; // about 905,000 zones of level 8
    const { result, tookMs, longestMs } = await loopHolds(() => service.listZones(grid, { bbox: box, zoneLevel: 8, limit: 10, keep: async () => () => false }));
    expect(result.zones).to.deep.equal([]);
    expect(result.total).to.equal(0);
    expect(tookMs, 'a walk of many slices (else it shows nothing)').to.be.above(100);
    // Before, the pages chained in promise callbacks held the loop for about half the walk.
    expect(longestMs, `longest hold while ${tookMs.toFixed(0)} ms of pages were walked`).to.be.below(Math.min(60, tookMs / 4));
  });
});
