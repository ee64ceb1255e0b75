import { expect } from 'chai';
import * as a5 from 'a5-js';
import { A5Dggrs } from '../../../src/adapters/grids/a5-dggrs.js';
import { A5_DESCENDANT_REACH } from '../../../src/adapters/grids/a5-box-zones.js';
import { runToEnd, type BBox } from '../../../src/domain/dggrs/dggrs.js';
import { extentsIntersect } from '../../../src/domain/dggrs/core/box-cover.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

/**
 * A5 behind the Dggrs interface, held to a5-js (the reference: the package ships no test vectors) and to
 * the definitions: sub-zones are every zone of the target level whose centre zone-from-point puts in the
 * parent, children and parents are each other's inverse, bbox lists are every zone whose extent meets the
 * box, each checked against a brute-force search that does not use the code under test.
 */

const DEG = Math.PI / 180;
type LL = Parameters<typeof a5.lonLatToCell>[0];
const grid = new A5Dggrs();
const hex = (c: bigint) => a5.u64ToHex(c);
const randomPoint = (rand: () => number): [number, number] => [rand() * 360 - 180, Math.asin(2 * rand() - 1) / DEG];
/** Every cell of a level, in ascending id order. */
const everyCell = (level: number): string[] => a5.getRes0Cells().flatMap((c) => (level === 0 ? [c] : a5.cellToChildren(c, level))).map(hex);
const byId = (a: string, b: string) => (BigInt(`0x${a}`) < BigInt(`0x${b}`) ? -1 : 1);

/** Every zone of `level` whose centre lies within `radius` (radians) of the point: a gridDisk at that level grown until a whole ring lies beyond. */
function zonesNear(lon: number, lat: number, radius: number, level: number): string[] {
  const start = a5.lonLatToCell([lon, lat] as LL, level);
  const p = unit(lon, lat);
  const dist = (c: bigint) => angle(p, unit(...(a5.cellToLonLat(c) as unknown as [number, number])));
  for (let k = 2; ; k += Math.max(2, k >> 1)) {
    const disk = a5.uncompact(a5.gridDisk(start, k));
    const inner = new Set(a5.uncompact(a5.gridDisk(start, k - 1)));
    if (Array.from(disk).filter((c) => !inner.has(c)).every((c) => dist(c) > radius)) return Array.from(disk).filter((c) => dist(c) <= radius).map(hex);
  }
}
type V = [number, number, number];
const unit = (lon: number, lat: number): V => [Math.cos(lat * DEG) * Math.cos(lon * DEG), Math.cos(lat * DEG) * Math.sin(lon * DEG), Math.sin(lat * DEG)];
const angle = (a: V, b: V) => Math.acos(Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]));

describe('A5 through a5-js', function () {
  this.timeout(600_000);

  it('names zones by their a5 cell id in hexadecimal, one id per zone', () => {
    const rand = mulberry32(5);
    for (let level = 0; level <= grid.maxRefinementLevel; level++) {
      for (let i = 0; i < 20; i++) {
        const [lon, lat] = randomPoint(rand);
        const id = grid.zoneFromPoint(lon, lat, level);
        expect(id).to.equal(hex(a5.lonLatToCell([lon, lat] as LL, level)));
        expect(grid.isValidZone(id), id).to.equal(true);
        expect(grid.zoneLevel(id)).to.equal(level);
        expect(grid.zoneToUint64(id)).to.equal(a5.lonLatToCell([lon, lat] as LL, level));
        expect(id).to.match(/^[1-9a-f][0-9a-f]{0,15}$/);
        expect(hex(a5.hexToU64(id))).to.equal(id);
      }
    }
    const id = grid.zoneFromPoint(8.5, 46.5, 9);
    const level30 = [[8.5, 46.5], [-100, -40], [120, 10], [30, 60]].map(([lon, lat]) => a5.lonLatToCell([lon, lat] as LL, 30)).find((c) => a5.getResolution(c) === 30);
    expect(level30, 'a point with a level-30 cell').to.not.equal(undefined);
    for (const bad of ['', '0', `0${id}`, id.toUpperCase(), `${id}0`, `0x${id}`, 'not-a-zone', 'g'.repeat(16), 'ffffffffffffffffff',
      hex(level30!), // level 30 covers only part of the world: not served
      hex(a5.compact([a5.hexToU64(id)]).at(-1)!), // a compaction marker is not a cell
      (a5.hexToU64(id) + 1n).toString(16)]) {
      expect(grid.isValidZone(bad), bad).to.equal(false);
    }
    expect(grid.zoneIdForm).to.contain('hexadecimal').and.contain(grid.zoneFromPoint(2.3522, 48.8566, 12));
  });

  it('describes zones as a5-js does: centre, five corners, equal areas, an extent that holds the outline', () => {
    const rand = mulberry32(8);
    const R = Math.sqrt(a5.cellArea(-1) / (4 * Math.PI));
    for (let level = 0; level <= grid.maxRefinementLevel; level++) {
      expect(grid.levelInfo(level)).to.deep.equal({ level, zoneCount: a5.getNumCells(level), zoneAreaMetersSquare: a5.cellArea(level) });
      for (let i = 0; i < 10; i++) {
        const id = grid.zoneFromPoint(...randomPoint(rand), level);
        const cell = a5.hexToU64(id);
        const d = grid.describeZone(id);
        expect(d.centroid).to.deep.equal(a5.cellToLonLat(cell));
        expect(d.shape).to.equal('pentagon');
        expect(d.vertices).to.have.length(5);
        a5.cellToBoundary(cell, { closedRing: false, segments: 1 }).forEach(([lon, lat], k) => {
          expect(Math.abs(((d.vertices[k]![0] - lon + 540) % 360) - 180)).to.be.below(1e-9);
          expect(d.vertices[k]![1]).to.equal(lat);
        });
        expect(d.areaMetersSquare).to.equal(a5.cellArea(level)).and.equal(grid.zoneArea(id));
        const [w, s, e, n] = d.bbox;
        for (const refined of [false, true]) {
          const ring = grid.zoneOutline(id, refined);
          // Closed: the last point is the first, shifted by a whole turn when the ring winds round a pole.
          expect(ring.at(-1)![1]).to.equal(ring[0]![1]);
          expect(Math.abs(ring.at(-1)![0] - ring[0]![0]) % 360).to.be.below(1e-9);
          const span = e - w === 360 ? 360 : (e - w + 360) % 360;
          for (const [lon, lat] of ring) {
            expect(lat).to.be.within(s - 1e-12, n + 1e-12);
            if (Math.abs(lat) === 90) continue;
            // Eastward from the extent's west edge, within its width.
            expect((lon - w + 1e-9 + 720) % 360, `${id} ${lon}`).to.be.at.most(span + 2e-9);
          }
        }
      }
      // Equal area on the authalic sphere: the level's zones make up the whole sphere.
      expect(a5.getNumCells(level) * grid.levelInfo(level).zoneAreaMetersSquare / (4 * Math.PI * R * R)).to.be.closeTo(1, 1e-12);
    }
    // Zones on a pole reach it all round the extent's latitude; a zone across the antimeridian has west > east.
    const north = grid.describeZone(grid.zoneFromPoint(0, 90, 0));
    expect(north.bbox).to.deep.equal([-180, north.bbox[1], 180, 90]);
    for (const level of [1, 4, 9]) expect(grid.describeZone(grid.zoneFromPoint(10, 90, level)).bbox[3]).to.equal(90);
    const across = grid.describeZone(grid.zoneFromPoint(180, 10, 5)).bbox;
    expect(across[0]).to.be.greaterThan(across[2]);
  });

  it('refined outlines follow the curved edges: points of a5 split four times finer lie within 2e-4 of a zone of them', () => {
    const rand = mulberry32(12);
    for (const level of [0, 1, 2, 4, 6, 8, 10, 14, 20]) {
      const size = Math.sqrt(a5.cellArea(level)) / 111_195;
      for (let i = 0; i < 12; i++) {
        const [lon, lat] = i < 3 ? [rand() * 360 - 180, [89.95, -89.9, 88][i]!] : randomPoint(rand);
        const id = grid.zoneFromPoint(lon, lat, level);
        const ring = grid.zoneOutline(id, true);
        const pieces = (ring.length - 1) / 5;
        const truth = a5.cellToBoundary(a5.hexToU64(id), { closedRing: false, segments: pieces * 4 });
        for (let q = 0; q < 60; q++) {
          const [tx, ty] = truth[Math.floor(rand() * truth.length)]!;
          if (Math.abs(ty) > 89.999999) continue;
          const k = Math.cos(ty * DEG);
          let best = Infinity;
          for (let j = 0; j + 1 < ring.length; j++) {
            const sx = (x: number) => (((x - tx + 540) % 360) - 180) * k;
            const a = ring[j]!, b = ring[j + 1]!;
            // A corner on a pole: the edge runs along the meridian of its other end.
            const ax = Math.abs(a[1]) === 90 ? sx(b[0]) : sx(a[0]), bx = Math.abs(b[1]) === 90 ? sx(a[0]) : sx(b[0]);
            const ay = a[1] - ty, by = b[1] - ty, dx = bx - ax, dy = by - ay, l = dx * dx + dy * dy;
            const t = l === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / l));
            best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
          }
          expect(best / size, `${id} level ${level}`).to.be.below(2e-4);
        }
      }
    }
  });

  describe('sub-zones: every zone of the target level whose centre falls in the parent', () => {
    const parents = (): string[] => {
      const rand = mulberry32(21);
      const out = [...a5.getRes0Cells().slice(0, 4).map(hex)];
      for (let i = 0; i < 30; i++) out.push(grid.zoneFromPoint(...randomPoint(rand), 1 + (i % 9)));
      for (const [lon, lat, level] of [[0, 90, 2], [0, -90, 3], [45, 89.9, 6], [180, 0, 4], [-179.99, -16, 6], [179.99, 65, 3], [-93, 52.6, 1]] as const) out.push(grid.zoneFromPoint(lon, lat, level));
      return out;
    };

    for (const depth of [1, 2, 3]) {
      it(`depth ${depth}: exactly the zones whose centres zone-from-point puts in the parent, in ascending id order`, () => {
        for (const parent of parents()) {
          const level = grid.zoneLevel(parent);
          const listed = grid.subZones(parent, depth);
          expect(listed).to.have.length(grid.subZoneCount(parent, depth));
          expect([...listed].sort(byId), `${parent}: curve order`).to.deep.equal(listed);
          const [lon, lat] = grid.describeZone(parent).centroid;
          // Centres in the parent lie within its farthest corner (plus the edges' bulge) of its centre.
          const corners = grid.zoneOutline(parent, true).map(([x, y]) => angle(unit(lon, lat), unit(x, y)));
          const expected = zonesNear(lon, lat, Math.max(...corners) * 1.05, level + depth)
            .filter((z) => {
              const [x, y] = grid.describeZone(z).centroid;
              return grid.zoneFromPoint(x, y, level) === parent;
            })
            .sort(byId);
          expect(listed, `${parent} depth ${depth}`).to.deep.equal(expected);
        }
      });
    }

    it('the sub-zones of all the zones of a level share out each finer level, each zone once', () => {
      for (const [level, depth] of [[0, 1], [0, 3], [1, 2], [2, 3]] as const) {
        const seen = new Set<string>();
        let total = 0;
        for (const z of everyCell(level)) {
          total += grid.subZoneCount(z, depth);
          for (const s of grid.subZones(z, depth)) {
            expect(seen.has(s), s).to.equal(false);
            seen.add(s);
          }
        }
        expect(total).to.equal(a5.getNumCells(level + depth));
        expect(seen.size).to.equal(a5.getNumCells(level + depth));
      }
    });

    it('pages are slices of the whole list; depth 0 is the zone; depths past the finest level are refused', () => {
      for (const [zone, depth] of [[grid.zoneFromPoint(8.5, 46.5, 5), 5], [grid.zoneFromPoint(0, 90, 3), 4], [hex(a5.getRes0Cells()[7]!), 4], [grid.zoneFromPoint(-179.9, 5, 20), 6]] as const) {
        const all = grid.subZones(zone, depth);
        expect(all).to.have.length(grid.subZoneCount(zone, depth));
        for (const [offset, limit] of [[0, 1], [0, 10], [5, 40], [all.length - 2, 10], [all.length, 5], [Math.floor(all.length / 3), all.length], [17, 300]] as const) {
          expect(grid.subZones(zone, depth, { offset, limit }), `${zone} d${depth} ${offset}+${limit}`).to.deep.equal(all.slice(offset, offset + limit));
        }
      }
      const z = grid.zoneFromPoint(8.5, 46.5, 27);
      expect(grid.subZones(z, 0)).to.deep.equal([z]);
      expect(grid.subZones(z, 2)).to.have.length(grid.subZoneCount(z, 2));
      expect(() => grid.subZones(z, 3)).to.throw(RangeError);
      expect(grid.children(grid.zoneFromPoint(8.5, 46.5, 29))).to.deep.equal([]);
    });

    it("children are the depth-1 sub-zones and parents the zone holding the centre: each other's inverse (a5's index children differ)", () => {
      let differ = 0;
      for (const level of [0, 1, 2, 3]) {
        for (const z of everyCell(level)) {
          const children = grid.children(z);
          expect(children).to.deep.equal(grid.subZones(z, 1));
          for (const c of children) expect(grid.parents(c)).to.deep.equal([z]);
          if (children.join() !== a5.cellToChildren(a5.hexToU64(z)).map(hex).join()) differ++;
        }
      }
      expect(differ, "zones whose children are not a5's index children").to.be.greaterThan(100);
      const rand = mulberry32(4);
      for (let i = 0; i < 200; i++) {
        const level = 1 + (i % 29);
        const [lon, lat] = randomPoint(rand);
        const z = grid.zoneFromPoint(lon, lat, level);
        const [parent] = grid.parents(z);
        expect(grid.children(parent!), z).to.include(z);
        const [x, y] = grid.describeZone(z).centroid;
        expect(grid.zoneFromPoint(x, y, level - 1)).to.equal(parent);
      }
      expect(grid.parents(hex(a5.getRes0Cells()[0]!))).to.deep.equal([]);
    });
  });

  it('neighbours: the five zones sharing an edge, each the other way round too', () => {
    const rand = mulberry32(9);
    for (let i = 0; i < 120; i++) {
      const z = grid.zoneFromPoint(...randomPoint(rand), i % 20);
      const ns = grid.neighbours(z);
      expect(ns, z).to.have.length(5);
      for (const n of ns) expect(grid.neighbours(n), `${n} of ${z}`).to.include(z);
    }
  });

  describe('zones of a bbox, counted and paged', () => {
    const zoneDeg = (level: number) => Math.sqrt(a5.cellArea(level)) / 111_195;
    const meets = ([w, s, e, n]: BBox, box: BBox): boolean => extentsIntersect([s * DEG, w * DEG, n * DEG, e * DEG], [box[1] * DEG, box[0] * DEG, box[3] * DEG, box[2] * DEG]);
    const boxes = (seed: number, level: number): BBox[] => {
      const rand = mulberry32(seed);
      const z = zoneDeg(level);
      const out: BBox[] = [[-180, 90 - 3 * z, 180, 90], [-180, -90, 180, -90 + 2 * z]];
      for (let i = 0; i < 12; i++) {
        const w = z * (1 + rand() * 12), h = z * (1 + rand() * 12);
        let lon = rand() * 360 - 180, lat = rand() * (180 - h) - 90;
        if (i % 4 === 1) lon = 180 - w * rand();
        if (i % 4 === 2) lat = 90 - h;
        const east = lon + w > 180 ? lon + w - 360 : lon + w;
        out.push([lon, lat, east, Math.min(90, lat + h)]);
      }
      return out;
    };
    const check = (level: number, box: BBox, rand: () => number): string[] => {
      const sel = grid.selectZonesInBBox(level, box);
      const count = runToEnd(sel.count());
      const all = runToEnd(grid.selectZonesInBBox(level, box).page({ offset: 0, limit: Infinity }));
      expect(count, `${level} ${box}`).to.equal(all.length);
      const size = 1 + Math.floor(rand() * Math.max(1, all.length / 3));
      const pages: string[] = [];
      for (let offset = 0; offset < all.length + size; offset += size) pages.push(...runToEnd(sel.page({ offset, limit: size })));
      expect(pages).to.deep.equal(all);
      return all;
    };

    it('the whole world lists every zone of the level in ascending id order', () => {
      for (const level of [0, 1, 2, 3]) {
        const all = grid.zonesInBBox(level, [-180, -90, 180, 90]);
        expect(all).to.deep.equal(everyCell(level));
        expect(all).to.deep.equal([...all].sort(byId));
        expect(runToEnd(grid.selectZonesInBBox(level, [-180, -90, 180, 90]).count())).to.equal(a5.getNumCells(level));
      }
    });

    for (const level of [0, 1, 2, 3, 4]) {
      it(`level ${level}: count = whole list = every zone of the level whose extent meets the box`, () => {
        const zones = everyCell(level).map((z) => [z, grid.describeZone(z).bbox] as const);
        const rand = mulberry32(40 + level);
        for (const box of boxes(400 + level, level)) expect(check(level, box, rand), `${box}`).to.deep.equal(zones.filter(([, b]) => meets(b, box)).map(([z]) => z));
      });
    }

    it('finer levels: the zones a5 finds overlapping a wider box, tested, in id order', () => {
      const rand = mulberry32(77);
      for (const level of [6, 8, 11]) {
        for (let i = 0; i < 3; i++) {
          const z = zoneDeg(level);
          const w = z * (2 + rand() * 10), h = z * (2 + rand() * 10);
          const lon = rand() * 300 - 150, lat = rand() * 120 - 60;
          const box: BBox = [lon, lat, lon + w, lat + h];
          const m = 3 * z;
          const ring = [[lon - m, lat - m], [lon + w + m, lat - m], [lon + w + m, lat + h + m], [lon - m, lat + h + m], [lon - m, lat - m]] as unknown as LL[];
          const candidates = Array.from(a5.uncompact(a5.polygonToCells(ring, level, { containment: 'overlapping' })), hex);
          const expected = candidates.filter((c) => meets(grid.describeZone(c).bbox, box)).sort(byId);
          expect(check(level, box, rand), `${level} ${box}`).to.deep.equal(expected);
          expect(expected.length).to.be.greaterThan(2);
        }
      }
    });

    it(`index descendants stay within ${A5_DESCENDANT_REACH} square roots of a zone's area of its centre`, () => {
      const rand = mulberry32(31);
      const R = Math.sqrt(a5.cellArea(-1) / (4 * Math.PI));
      let worst = 0;
      const cells = [...a5.getRes0Cells()];
      for (let i = 0; i < 100; i++) cells.push(a5.lonLatToCell(randomPoint(rand) as unknown as LL, 1 + (i % 10)));
      for (const [lon, lat] of [[0, 90], [0, -90], [180, 0], [-93, 52.6]]) for (let r = 1; r < 6; r++) cells.push(a5.lonLatToCell([lon, lat] as LL, r));
      for (const cell of cells) {
        const r = a5.getResolution(cell);
        const c = a5.cellToLonLat(cell) as unknown as [number, number];
        const scale = Math.sqrt(a5.cellArea(r)) / R;
        for (let d = 1; d <= (r === 0 ? 3 : 4); d++) {
          for (const k of a5.cellToChildren(cell, r + d)) {
            for (const v of a5.cellToBoundary(k, { closedRing: false, segments: 2 })) worst = Math.max(worst, angle(unit(c[0], c[1]), unit(v[0], v[1])) / scale);
          }
        }
      }
      expect(worst).to.be.above(1).and.below(A5_DESCENDANT_REACH / 1.15);
    });
  });
});
