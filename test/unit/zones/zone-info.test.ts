/**
 * The zone-info use case, called directly (no HTTP): its answer is the grid's own account of the
 * zone, and a collection's statistics join it only when they come in time.
 */
import { expect } from 'chai';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { outlineToGeoJson } from '../../../src/domain/geometry/rfc7946.js';
import type { Collection } from '../../../src/domain/collection.js';
import type { GridRegistry } from '../../../src/ports/grid-registry.js';
import type { CollectionsService } from '../../../src/app/collections/collections-service.js';
import { ZonesService } from '../../../src/app/zones/zones-service.js';
import { ZoneInfoService, type ZoneStatistics } from '../../../src/app/zones/zone-info.js';

describe('zone info use case', () => {
  const grid = createIvea7h();
  const registry: GridRegistry = { list: () => [grid], get: () => grid, require: () => grid, defaultGrid: grid };
  const collection = { id: 'c', title: 'C' } as Collection;
  const collections = { get: (id: string) => (id === 'c' ? collection : (() => { throw new Error('unknown'); })()) } as unknown as CollectionsService;
  const zones = new ZonesService(registry, collections, 10_000);
  const zoneId = grid.zonesInBBox(3, [5, 44, 6, 45])[0]!;

  it('describes the zone as the grid does: parents, children, neighbours, area, geometry', async () => {
    const info = await new ZoneInfoService(zones).zoneInfo({ dggrsId: grid.id, zoneId, refined: false });
    expect(info.grid).to.equal(grid);
    expect(info.zone).to.deep.equal(grid.describeZone(zoneId));
    expect(info.zone.areaMetersSquare).to.equal(grid.zoneArea(zoneId));
    expect(info.parents).to.deep.equal(grid.parents(zoneId));
    expect(info.children).to.deep.equal(grid.children(zoneId));
    expect(info.neighbours).to.deep.equal(grid.neighbours(zoneId));
    expect(info.geometry).to.deep.equal(outlineToGeoJson(grid.zoneOutline(zoneId, false)));
    expect(info.children.length).to.be.above(0);
    expect(info).not.to.have.property('statistics');
  });

  it('adds a collection\'s statistics, and leaves out those not ready in time', async () => {
    const ready: ZoneStatistics = { zoneStatistics: async () => ({ elevation: { mean: 1 } }) as never };
    const late: ZoneStatistics = { zoneStatistics: (_c, _g, _z, _d, signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))) };
    const got = await new ZoneInfoService(zones, ready).zoneInfo({ dggrsId: grid.id, zoneId, collectionId: 'c', refined: true });
    expect(got.collection).to.equal(collection);
    expect(got.statistics).to.deep.equal({ elevation: { mean: 1 } });
    const left = await new ZoneInfoService(zones, late, 20).zoneInfo({ dggrsId: grid.id, zoneId, collectionId: 'c', refined: true });
    expect(left).not.to.have.property('statistics');
  });

  it('refuses a zone the grid does not have', async () => {
    const err = await new ZoneInfoService(zones).zoneInfo({ dggrsId: grid.id, zoneId: 'Z9-9-Z', refined: true }).catch((e: unknown) => e);
    expect(err).to.have.property('kind', 'not-found');
  });
});
