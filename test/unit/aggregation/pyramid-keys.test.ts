/**
 * Pyramid keys (src/domain/aggregation/pyramid-keys.ts): zone ids to numeric keys and back on every
 * grid with keys (exact from the id on the 7H and 3H grids and their renamings, through the
 * centroid elsewhere), the cheap centroids equal to the descriptions' to the bit, and the coarse
 * key the same whether computed from a row's cell key (the ingest) or from a sub-zone id (the reader).
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { coarseKey, coarseKeyOfZone, hasZoneKeys, zoneCentroidOf, zoneKeyOfId, zoneKeysOf, type KeyedGrid } from '../../../src/domain/aggregation/pyramid-keys.js';
import { runToEnd } from '../../../src/domain/dggrs/dggrs.js';

/** Points over land and sea, both hemispheres, near the antimeridian and a pole. */
const POINTS: [number, number][] = [[10.3, 50.1], [-73.9, 40.7], [151.2, -33.9], [179.9, 0.5], [-179.95, -12], [0.001, 0.001], [45, 89.5], [-120, -75]];
const EXACT = ['IVEA7H', 'ISEA7H', 'IVEA7H_Z7', 'ISEA7H_Z7', 'IGEO7', 'IVEA3H', 'ISEA3H', 'ISEA3H_Z3', 'RTEA3H', 'RTEA7H', 'RTEA7H_Z7'];
const KEYED = Object.keys(GRID_FACTORIES).filter((id) => hasZoneKeys(GRID_FACTORIES[id]!()));

describe('pyramid keys', () => {
  it('every grid with keys is tested; the 7H and 3H grids read keys from ids exactly', () => {
    expect(KEYED).to.include.members(EXACT);
    expect(KEYED.length).to.be.greaterThan(EXACT.length);
    for (const id of EXACT) expect(GRID_FACTORIES[id]!().zoneKeyFromId, id).to.be.a('function');
  });

  for (const id of KEYED) {
    it(`${id}: id -> key -> id and key -> id -> key for the zones of points and their sub-zones`, () => {
      const grid = GRID_FACTORIES[id]!() as KeyedGrid;
      for (const level of [0, 1, 2, 5, Math.min(9, grid.maxZoneKeyLevel)]) {
        for (const [lon, lat] of POINTS) {
          const key = grid.zoneKeyFromPoint(lon, lat, level);
          const zone = grid.zoneIdFromKey(key, level);
          expect(zone, `${lon},${lat} level ${level}`).to.equal(grid.zoneFromPoint(lon, lat, level));
          expect(zoneKeyOfId(grid, zone), zone).to.equal(key);
        }
      }
      const zone = grid.zoneFromPoint(10.3, 50.1, 3);
      const subs = grid.subZones(zone, 2);
      for (const z of subs) expect(grid.zoneIdFromKey(zoneKeyOfId(grid, z), grid.zoneLevel(z)), z).to.equal(z);
      const { keys } = runToEnd(zoneKeysOf(grid, subs, 3));
      expect(keys).to.deep.equal(subs.map((z) => zoneKeyOfId(grid, z)));
      expect(new Set(keys).size, 'keys unique').to.equal(subs.length);
    });
  }

  it('cheap centroids are the descriptions\' centroids to the bit', () => {
    for (const id of KEYED) {
      const grid = GRID_FACTORIES[id]!();
      for (const [lon, lat] of POINTS) {
        for (const level of [0, 3, 6]) {
          const zone = grid.zoneFromPoint(lon, lat, level);
          expect(zoneCentroidOf(grid, zone), `${id} ${zone}`).to.deep.equal(grid.describeZone(zone).centroid);
        }
      }
    }
  });

  it('a cell\'s coarse key is its own key at or above the coarse level, else the key of the coarse zone holding its centroid, the same from key or id', () => {
    for (const id of ['IVEA7H', 'ISEA3H', 'IVEA7H_Z7', 'IGEO7', 'rHEALPix']) {
      const grid = GRID_FACTORIES[id]! () as KeyedGrid;
      const coarse = 3;
      for (const [lon, lat] of POINTS) {
        for (const level of [1, 3, 4, 7]) {
          const key = grid.zoneKeyFromPoint(lon, lat, level);
          const zone = grid.zoneIdFromKey(key, level);
          const c = coarseKey(grid, level, key, coarse);
          expect(coarseKeyOfZone(grid, zone, coarse), `${id} ${zone}`).to.equal(c);
          if (level <= coarse) expect(c).to.equal(key);
          else {
            const [x, y] = grid.describeZone(zone).centroid;
            expect(c, `${id} ${zone}`).to.equal(grid.zoneKeyFromPoint(x, y, coarse));
          }
        }
      }
      // The read of a zone's sub-zones names each sub-zone's coarse zone.
      const parent = grid.zoneFromPoint(10.3, 50.1, 2);
      const subs = grid.subZones(parent, 3);
      const { coarse: ranges } = runToEnd(zoneKeysOf(grid, subs, coarse));
      expect(ranges).to.deep.equal([...ranges].sort((a, b) => a - b));
      for (const z of subs) expect(ranges, z).to.include(coarseKeyOfZone(grid, z, coarse));
      expect(ranges.length, 'few coarse zones').to.be.below(20);
    }
  });
});
