import { expect } from 'chai';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createRtea7h } from '../../../src/domain/dggrs/grids/rtea-grids.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

const DEG = Math.PI / 180;

/** The point `dist` radians from (lon, lat) along `bearing`, on the sphere of geodetic latitude and longitude. */
function destination(lon: number, lat: number, dist: number, bearing: number): [number, number] {
  const p1 = lat * DEG, l1 = lon * DEG;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(dist) + Math.cos(p1) * Math.sin(dist) * Math.cos(bearing));
  const l2 = l1 + Math.atan2(Math.sin(bearing) * Math.sin(dist) * Math.cos(p1), Math.cos(dist) - Math.sin(p1) * Math.sin(p2));
  return [((((l2 / DEG + 180) % 360) + 360) % 360) - 180, p2 / DEG];
}

/**
 * The clearance a 7H grid gives with a zone key: every point of the cap it names lies in the same zone, so
 * bulk binning may give a whole patch of points the key found for its centre.
 */
for (const [name, create] of [['IVEA7H', createIvea7h], ['ISEA7H', createIsea7h], ['RTEA7H', createRtea7h]] as const) {
  describe(`${name} zone keys with clearance`, () => {
    const grid = create();
    const out = new Float64Array(2);

    it('every point of the cap has the key of its centre (points on the cap\'s rim, in 16 directions)', function () {
      this.timeout(60_000);
      const rnd = mulberry32(name.length * 7919);
      let tested = 0, cleared = 0;
      for (const level of [0, 1, 2, 5, 8, 9, 12, 15, 16, 17]) {
        for (let i = 0; i < 1500; i++) {
          const lon = rnd() * 360 - 180, lat = Math.asin(2 * rnd() - 1) / DEG;
          grid.zoneKeyClearance(lon, lat, level, out);
          const [key, room] = [out[0]!, out[1]!];
          expect(key, `${lon},${lat} L${level}`).to.equal(grid.zoneKeyFromPoint(lon, lat, level));
          tested++;
          if (room <= 0) continue;
          cleared++;
          for (let b = 0; b < 16; b++) {
            const [x, y] = destination(lon, lat, room * (1 - 1e-9), (b / 16) * 2 * Math.PI + rnd() * 0.3);
            expect(grid.zoneKeyFromPoint(x, y, level), `${x},${y}: ${room} rad from ${lon},${lat} at level ${level}`).to.equal(key);
          }
        }
      }
      // Useful as well as safe: most points away from edges get room.
      expect(cleared / tested, 'share of points with room').to.be.above(0.3);
    });

    it('the room is a fair share of the zone: points near a zone\'s centre get more than half its radius', () => {
      const level = 6;
      const radius = Math.sqrt(grid.levelInfo(level).zoneAreaMetersSquare / Math.PI) / 6_371_007;
      for (const id of grid.zonesInBBox(level, [10, 40, 12, 42]).slice(0, 50)) {
        const [lon, lat] = grid.describeZone(id).centroid;
        grid.zoneKeyClearance(lon, lat, level, out);
        expect(out[1], id).to.be.within(0.5 * radius, radius);
      }
    });

    it('no room for pentagons, polar zones and points off the net', () => {
      // The twelve zones of level 0 are pentagons, and so are their centre children at every level.
      const centres = grid.zonesInBBox(0, [-180, -90, 180, 90]).map((z) => grid.describeZone(z).centroid);
      expect(centres).to.have.length(12);
      for (const level of [0, 1, 2, 3, 4, 9]) {
        for (const [lon, lat] of centres) {
          grid.zoneKeyClearance(lon, lat, level, out);
          expect(grid.describeZone(grid.zoneIdFromKey(out[0]!, level)).shape, `${lon},${lat} L${level}`).to.equal('pentagon');
          expect(out[1]).to.equal(0);
        }
        grid.zoneKeyClearance(0, 90, level, out);
        expect(out[1], 'north pole').to.equal(0);
      }
      grid.zoneKeyClearance(0, 91, 3, out);
      expect(out[0]).to.be.NaN;
      expect(out[1]).to.equal(0);
    });
  });
}
