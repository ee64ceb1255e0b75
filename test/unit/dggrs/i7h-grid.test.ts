import { expect } from 'chai';
import { formatZoneId, parseZoneId, zoneFromInt64, zoneToInt64 } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { mulberry32 as rng } from '../../../scripts/lib/prng.js';

for (const create of [createIvea7h, createIsea7h]) {
  const grid = create();
  describe(`${grid.id} grid`, function () {
    this.timeout(60000);

    it('describes itself', () => {
      expect(grid.uri).to.equal(`https://www.opengis.net/def/dggrs/OGC/1.0/${grid.id}`);
      expect(grid.crs).to.equal('http://www.opengis.net/def/crs/OGC/1.3/CRS84');
      expect(grid.maxRefinementLevel).to.equal(19);
      expect(grid.defaultLevel).to.be.within(0, 19);
      expect(grid.defaultDepth).to.be.within(0, grid.maxRelativeDepth);
    });

    it('zone of a zone centroid is that zone, at every level 0..19 for random points everywhere', () => {
      const rand = rng(grid.id === 'IVEA7H' ? 7 : 11);
      for (let level = 0; level <= 19; level++) {
        for (let i = 0; i < 150; i++) {
          const lon = rand() * 360 - 180;
          const lat = (Math.asin(2 * rand() - 1) * 180) / Math.PI;
          const id = grid.zoneFromPoint(lon, lat, level);
          expect(grid.isValidZone(id), id).to.equal(true);
          expect(grid.zoneLevel(id)).to.equal(level);
          const c = grid.describeZone(id).centroid;
          expect(grid.zoneFromPoint(c[0], c[1], level), `${id} from ${lon},${lat}`).to.equal(id);
        }
      }
    });

    it('handles the poles and the antimeridian (lon 180 and -180 give the same zone)', () => {
      for (let level = 0; level <= 19; level++) {
        for (const lat of [90, -90, 89.9999, -89.9999, 0, 45.5, -60]) {
          expect(grid.zoneFromPoint(180, lat, level), `${lat} L${level}`).to.equal(grid.zoneFromPoint(-180, lat, level));
        }
        for (const lon of [-180, -90, 0, 11.2, 45, 137]) {
          const n = grid.zoneFromPoint(lon, 90, level);
          const s = grid.zoneFromPoint(lon, -90, level);
          expect(n).to.equal(grid.zoneFromPoint(0, 90, level));
          expect(s).to.equal(grid.zoneFromPoint(0, -90, level));
          for (const id of [n, s]) {
            const c = grid.describeZone(id).centroid;
            expect(grid.zoneFromPoint(c[0], c[1], level), id).to.equal(id);
          }
        }
      }
    });

    it('parses and formats ids, text and 64-bit, round trip', () => {
      const rand = rng(3);
      for (let level = 0; level <= 19; level++) {
        for (let i = 0; i < 40; i++) {
          const id = grid.zoneFromPoint(rand() * 360 - 180, rand() * 180 - 90, level);
          const z = parseZoneId(id)!;
          expect(formatZoneId(z.k, z.root, z.ix, z.sh)).to.equal(id);
          expect(zoneFromInt64(zoneToInt64(z))).to.deep.equal(z);
        }
      }
      expect(zoneToInt64(parseZoneId('F0-711-F')!)).to.equal(576460752303437965n);
    });

    it('rejects invalid ids without throwing', () => {
      const bad: unknown[] = [
        '', 'A0-0-B', 'B4-0-A', 'A4-1-A', 'AC-0-A', 'AA-1-A', 'U0-0-A', 'V0-0-A', 'A0-00-A', 'B4-00-B', 'f0-711-f',
        'F0-711-f', 'F0-0x711-F', 'F0-711-I', 'F0-711', 'F0--711-F', ' F0-711-F', 'F0-711-F ', 'B1-0-H', 'BA-0-H',
        'C0-31-A', 'T0-' + 'F'.repeat(20) + '-B', 'F0-711-FF', 'F0-711-A', 'G0-1583C-B',
        null, undefined, 42, {},
      ];
      for (const id of bad) {
        expect(() => grid.isValidZone(id as string)).to.not.throw();
        expect(grid.isValidZone(id as string), String(id)).to.equal(false);
      }
      for (const id of ['A0-0-A', 'AB-0-A', 'B9-0-F', 'BA-0-G', 'C0-30-A', 'F0-711-F', 'T0-0-G']) {
        expect(grid.isValidZone(id), id).to.equal(true);
      }
      expect(() => grid.describeZone('B4-0-A')).to.throw();
    });

    it('children are the depth-1 sub-zones, parents contain the zone among their children', () => {
      const rand = rng(5);
      for (let level = 0; level <= 12; level++) {
        for (let i = 0; i < 10; i++) {
          const id = grid.zoneFromPoint(rand() * 360 - 180, rand() * 180 - 90, level);
          expect([...grid.children(id)].sort()).to.deep.equal([...grid.subZones(id, 1)].sort());
          expect(grid.subZoneCount(id, 1)).to.equal(grid.children(id).length);
          expect(grid.subZones(id, 2)).to.have.length(grid.subZoneCount(id, 2));
          for (const p of grid.parents(id)) expect(grid.children(p), `${p} of ${id}`).to.include(id);
          for (const n of grid.neighbours(id)) expect(grid.neighbours(n), `${n} of ${id}`).to.include(id);
        }
      }
    });

    it('outlines are closed rings, plain and refined', () => {
      for (const id of ['A0-0-A', 'AB-0-A', 'F0-711-F', 'D0-3-C', 'E9-40C-A']) {
        for (const refined of [false, true]) {
          const ring = grid.zoneOutline(id, refined);
          expect(ring[0]).to.deep.equal(ring[ring.length - 1]);
          if (!refined) expect(ring).to.have.length(grid.describeZone(id).edgeCount + 1);
        }
      }
    });

    it('levels: counts and areas', () => {
      expect(grid.levelInfo(0).zoneCount).to.equal(12);
      expect(grid.levelInfo(5).zoneCount).to.equal(168072);
      expect(grid.levelInfo(0).zoneAreaMetersSquare * 10).to.be.closeTo(510065621724088.7, 1);
    });

    it('estimates are cheap upper-ish bounds', () => {
      expect(grid.estimateZonesInBBox(19, [-180, -90, 180, 90])).to.be.above(1e16);
      expect(grid.estimateZonesInBBox(3, [-10, -10, 10, 10])).to.be.at.least(grid.zonesInBBox(3, [-10, -10, 10, 10]).length);
    });
  });
}

describe('7H numeric zone keys', () => {
  it('round trip to the same ids as zoneFromPoint up to level 17', () => {
    const grid = createIvea7h();
    const rand = rng(9);
    for (let level = 0; level <= grid.maxZoneKeyLevel; level++) {
      for (let i = 0; i < 50; i++) {
        const lon = rand() * 360 - 180, lat = rand() * 180 - 90;
        const key = grid.zoneKeyFromPoint(lon, lat, level);
        expect(Number.isSafeInteger(key)).to.equal(true);
        expect(grid.zoneIdFromKey(key, level)).to.equal(grid.zoneFromPoint(lon, lat, level));
      }
    }
    expect(() => grid.zoneKeyFromPoint(0, 0, 18)).to.throw(RangeError);
  });
});
