import { expect } from 'chai';
import * as h3 from 'h3-js';
import { runToEnd, type BBox, type Dggrs } from '../../../src/domain/dggrs/dggrs.js';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { iveaProjection } from '../../../src/domain/dggrs/projections/ivea-projection.js';
import { iseaProjection } from '../../../src/domain/dggrs/projections/isea-projection.js';
import { rteaProjection } from '../../../src/domain/dggrs/projections/rtea-projection.js';
import type { SliceAndDiceProjection } from '../../../src/domain/dggrs/projections/slice-and-dice-projection.js';
import { extentsIntersect, type RadExtent } from '../../../src/domain/dggrs/core/box-cover.js';
import { centroidOf, parseZoneId } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { extentRadians } from '../../../src/domain/dggrs/lattices/7h/i7h-outline.js';
import { SCALE_MAX, SCALE_MIN } from '../../../src/domain/dggrs/lattices/7h/i7h-box-zones.js';
import { DESCENDANT_REACH } from '../../../src/adapters/grids/h3-box-zones.js';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';
import { descentZonesInBBox } from './bbox-descent-reference.js';

/**
 * Zones of a bbox counted and paged without listing them: the count equals the length of the whole
 * list, pages put together give the whole list, and the whole list equals an independent reference
 * (7H: DGGAL's level-by-level descent as it was implemented before; H3: every candidate cell tested).
 */

const DEG = Math.PI / 180;

/** Boxes of every kind at `level`, sized to hold tens to a few thousand zones of a grid with `perLevel` aperture. */
function boxes(seed: number, count: number, level: number, zoneDeg: (level: number) => number): BBox[] {
  const rand = mulberry32(seed);
  const z = zoneDeg(level);
  const out: BBox[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 6;
    const w = z * (2 + rand() * 25), h = z * (2 + rand() * 25);
    let lon = rand() * 360 - 180, lat = rand() * (180 - h) - 90;
    let width = w, height = h;
    if (kind === 1) lon = 180 - w * rand(); // crosses the antimeridian
    if (kind === 2) lat = 90 - h; // touches the north pole
    if (kind === 3) lat = -90; // touches the south pole
    if (kind === 4) width = z * 1e-3 * rand(); // thinner than a zone
    if (kind === 5) height = z * 1e-3 * rand();
    const east = lon + width > 180 ? lon + width - 360 : lon + width;
    out.push([lon, lat, east, Math.min(90, lat + height)]);
  }
  // Polar caps all round, at the level's scale.
  out.push([-180, 90 - 4 * z, 180, 90], [-180, -90, 180, -90 + 3 * z]);
  return out;
}

/** Count, whole list and pages of a selection agree, and the whole list is in the grid's order. */
function checkSelection(grid: Dggrs, level: number, box: BBox, rand: () => number): string[] {
  const all = runToEnd(grid.selectZonesInBBox(level, box).page({ offset: 0, limit: Infinity }));
  const count = runToEnd(grid.selectZonesInBBox(level, box).count());
  expect(count, `count ${grid.id} L${level} ${box}`).to.equal(all.length);
  // One selection counted, then paged at random places and sizes (pages reuse what counting learnt).
  const sel = grid.selectZonesInBBox(level, box);
  expect(runToEnd(sel.count())).to.equal(all.length);
  const size = 1 + Math.floor(rand() * Math.max(1, all.length / 3));
  const pages: string[] = [];
  for (let offset = 0; offset < all.length + size; offset += size) pages.push(...runToEnd(sel.page({ offset, limit: size })));
  expect(pages, `pages of ${size} ${grid.id} L${level} ${box}`).to.deep.equal(all);
  const offset = Math.floor(rand() * (all.length + 1));
  expect(runToEnd(grid.selectZonesInBBox(level, box).page({ offset, limit: 7 }))).to.deep.equal(all.slice(offset, offset + 7));
  // A count stopped early says only that it passed the bound.
  if (all.length > 2) expect(runToEnd(grid.selectZonesInBBox(level, box).count(1))).to.be.above(1);
  return all;
}

for (const [name, create, proj] of [['IVEA7H', createIvea7h, iveaProjection], ['ISEA7H', createIsea7h, iseaProjection]] as const) {
  describe(`${name} zones of a bbox, counted and paged`, function () {
    this.timeout(120_000);
    const grid = create();
    const zoneDeg = (level: number) => Math.sqrt(41253 / (10 * 7 ** level));

    for (let level = 0; level <= 7; level++) {
      it(`level ${level}: count = whole list = the level-by-level descent, and pages concatenate to it`, () => {
        const rand = mulberry32(100 + level);
        let zones = 0;
        for (const box of boxes(level * 31 + (name === 'IVEA7H' ? 1 : 2), level < 2 ? 18 : 8, level, zoneDeg)) {
          const all = checkSelection(grid, level, box, rand);
          expect(all, `${name} L${level} ${box}`).to.deep.equal(descentZonesInBBox(proj, level, box));
          zones += all.length;
        }
        expect(zones).to.be.above(0);
      });
    }

    it('the whole world: the level count, ids in order, and the same list as boxes cut at the antimeridian', () => {
      for (const level of [0, 1, 2, 3]) {
        const sel = grid.selectZonesInBBox(level, [-180, -90, 180, 90]);
        const all = runToEnd(sel.page({ offset: 0, limit: Infinity }));
        expect(runToEnd(sel.count())).to.equal(grid.levelInfo(level).zoneCount).and.equal(all.length);
        expect(all).to.deep.equal(descentZonesInBBox(proj, level, [-180, -90, 180, 90]));
        expect(runToEnd(sel.page({ offset: 40, limit: 9 }))).to.deep.equal(all.slice(40, 49));
      }
      expect(runToEnd(grid.selectZonesInBBox(19, [-180, -90, 180, 90]).count())).to.equal(grid.levelInfo(19).zoneCount);
    });

    it('deep levels: a count stops soon after its bound; small boxes agree with the descent at level 9', () => {
      const box: BBox = [8.3, 46.1, 8.5, 46.2];
      expect(checkSelection(grid, 9, box, mulberry32(9))).to.deep.equal(descentZonesInBBox(proj, 9, box));
      const big = grid.selectZonesInBBox(19, [0, 0, 25, 25]);
      const t0 = performance.now();
      expect(runToEnd(big.count(1_000_000))).to.be.above(1_000_000);
      expect(performance.now() - t0).to.be.below(5000);
      // Along the net lines y = 0 and x = 5 DGGAL snaps centroids by up to 1e-6 net units, many cells at
      // fine levels: snapped zones pile up on the line, and the level-by-level descent misses some that
      // meet the box (no listed parent has them as a child). The selection lists every zone meeting the box.
      let piled = 0;
      for (const [x, y] of [[0.3, 0], [0.71, 1e-8], [5, 4.3], [5 - 1e-8, 5.6]] as const) {
        const g = { lat: 0, lon: 0 };
        proj.inverse(x, y, false, g);
        for (const level of [14, 17]) {
          const d = 3 * zoneDeg(level);
          const near: BBox = [g.lon - d / Math.cos(g.lat * DEG), g.lat - d, g.lon + d / Math.cos(g.lat * DEG), Math.min(90, g.lat + d)];
          const all = checkSelection(grid, level, near, mulberry32(level));
          const descent = descentZonesInBBox(proj, level, near);
          expect(all, `${x},${y} L${level}`).to.include.members(descent);
          const boxRad: RadExtent = [near[1] * DEG, near[0] * DEG, near[3] * DEG, near[2] * DEG];
          for (const id of all.filter((z) => !descent.includes(z))) {
            const z = parseZoneId(id)!;
            const c = centroidOf(z);
            expect(c.y === 0 || c.x === 0 || c.x === 5, `${id} at ${c.x},${c.y}`).to.equal(true);
            expect(extentsIntersect(extentRadians(z, proj), boxRad), id).to.equal(true);
            piled++;
          }
        }
      }
      expect(piled).to.be.above(0);
      // The tiniest zones: a box of a few centimetres.
      const tiny: BBox = [8.5, 46.5, 8.5000005, 46.5000005];
      const ids = checkSelection(grid, 19, tiny, mulberry32(19));
      expect(ids.length).to.be.within(1, 200);
      for (const id of ids) expect(grid.zoneLevel(id)).to.equal(19);
    });

    it('a union of boxes: the zones meeting any, each once, in the grid order', () => {
      const a: BBox = [10, 40, 12, 42], b: BBox = [11.5, 41, 14, 43];
      const level = 5;
      const union = runToEnd(grid.selectZonesInBBox(level, [a, b]).page({ offset: 0, limit: Infinity }));
      const expected = [...new Set([...grid.zonesInBBox(level, a), ...grid.zonesInBBox(level, b)])];
      expect(new Set(union)).to.deep.equal(new Set(expected));
      expect(union).to.have.length(expected.length);
      expect(runToEnd(grid.selectZonesInBBox(level, [a, b]).count())).to.equal(expected.length);
      expect(runToEnd(grid.selectZonesInBBox(level, []).count())).to.equal(0);
    });

    it(`the projection's scale stays within the bounds the caps rely on (${SCALE_MIN}..${SCALE_MAX})`, () => {
      const [lo, hi] = measureScale(proj, 120);
      expect(hi, 'largest scale').to.be.below(SCALE_MAX / 1.1);
      expect(lo, 'smallest scale').to.be.above(SCALE_MIN * 1.1);
    });

    it('zone areas without describing zones', () => {
      for (const id of grid.zonesInBBox(3, [0, 50, 30, 65]).concat('A0-0-A', 'BA-0-C')) {
        expect(grid.zoneArea(id)).to.equal(grid.describeZone(id).areaMetersSquare);
      }
    });
  });
}

describe('Slice & Dice least scales (zone key clearances rest on them)', () => {
  for (const proj of [iveaProjection, iseaProjection, rteaProjection]) {
    it(`${proj.radial}: the measured least scale stays 10% above leastScale (${proj.leastScale})`, () => {
      expect(measureScale(proj, 120)[0]).to.be.above(proj.leastScale * 1.1);
    });
  }
});

/**
 * Smallest and largest singular values of the inverse projection's derivative, radians on the sphere of
 * (geodetic latitude, longitude) per unit of the net in its equilateral metric, sampled on every rhombus.
 */
function measureScale(proj: SliceAndDiceProjection, n: number): [number, number] {
  const g = { lat: 0, lon: 0 };
  const h = 1e-7;
  let lo = Infinity, hi = 0;
  for (let root = 0; root < 10; root++) {
    const cx = root >> 1, cy = cx + (root & 1);
    for (let i = 0; i <= n; i++) {
      for (let j = 0; j <= n; j++) {
        const x = cx + 3 * h + (i / n) * (1 - 6 * h), y = cy + 3 * h + (j / n) * (1 - 6 * h);
        proj.inverse(x, y, false, g);
        if (Math.abs(g.lat) > 89.9) continue;
        const lat = g.lat * DEG, lon = g.lon * DEG;
        const d = (dx: number, dy: number): [number, number] => {
          proj.inverse(x + dx, y + dy, false, g);
          let dl = g.lon * DEG - lon;
          if (dl > Math.PI) dl -= 2 * Math.PI;
          if (dl < -Math.PI) dl += 2 * Math.PI;
          return [(g.lat * DEG - lat) / h, (dl * Math.cos(lat)) / h];
        };
        // Unit steps along the equilateral frame's axes: (1, 0) and (1/sqrt3, 2/sqrt3) in net coordinates.
        const [a, c] = d(h, 0);
        const [b, e] = d(h / Math.sqrt(3), (2 * h) / Math.sqrt(3));
        const sum = a * a + b * b + c * c + e * e, det = Math.abs(a * e - b * c);
        const disc = Math.sqrt(Math.max(0, (sum * sum) / 4 - det * det));
        hi = Math.max(hi, Math.sqrt(sum / 2 + disc));
        lo = Math.min(lo, Math.sqrt(Math.max(0, sum / 2 - disc)));
      }
    }
  }
  return [lo, hi];
}

describe('H3 zones of a bbox, counted and paged', function () {
  this.timeout(120_000);
  const grid = new H3Dggrs();
  const zoneDeg = (res: number) => Math.sqrt(41253 / h3.getNumCells(res));
  const bboxOf = (cell: string) => grid.describeZone(cell).bbox;
  const meets = ([w, s, e, n]: BBox, box: BBox): boolean =>
    extentsIntersect([s * DEG, w * DEG, n * DEG, e * DEG], [box[1] * DEG, box[0] * DEG, box[3] * DEG, box[2] * DEG]);
  const everyCell = (res: number): string[] => h3.getRes0Cells().flatMap((c) => h3.cellToChildren(c, res));

  for (let res = 0; res <= 3; res++) {
    it(`resolution ${res}: count = whole list = every cell of the resolution tested, and pages concatenate to it`, () => {
      const cells = everyCell(res).map((c) => [c, bboxOf(c)] as const);
      const rand = mulberry32(200 + res);
      for (const box of boxes(300 + res, 14, res, zoneDeg)) {
        const all = checkSelection(grid, res, box, rand);
        expect(all, `H3 ${res} ${box}`).to.deep.equal(cells.filter(([, b]) => meets(b, box)).map(([c]) => c));
      }
    });
  }

  it('finer resolutions: the cells polygonToCells finds around the box, tested, in index order', () => {
    const rand = mulberry32(7);
    for (const res of [5, 7, 9]) {
      for (let i = 0; i < 4; i++) {
        const z = zoneDeg(res);
        const w = z * (3 + rand() * 20), h = z * (3 + rand() * 20);
        const lon = rand() * 300 - 150, lat = rand() * 120 - 60;
        const box: BBox = [lon, lat, lon + w, lat + h];
        const m = 3 * z;
        const ring = [[lat - m, lon - m], [lat - m, lon + w + m], [lat + h + m, lon + w + m], [lat + h + m, lon - m], [lat - m, lon - m]];
        const candidates = h3.polygonToCellsExperimental([ring], res, h3.POLYGON_TO_CELLS_FLAGS.containmentOverlapping).sort();
        const all = checkSelection(grid, res, box, rand);
        expect(all, `H3 ${res} ${box}`).to.deep.equal(candidates.filter((c) => meets(bboxOf(c), box)));
      }
    }
  });

  it('the whole world and polar cells: level counts, and a polar cell reaches its pole', () => {
    for (const res of [0, 1, 2]) {
      const sel = grid.selectZonesInBBox(res, [-180, -90, 180, 90]);
      expect(runToEnd(sel.count())).to.equal(h3.getNumCells(res));
      expect(runToEnd(sel.page({ offset: 0, limit: Infinity }))).to.deep.equal(everyCell(res));
    }
    for (const res of [0, 3, 8, 15]) {
      const north = grid.zoneFromPoint(0, 90, res), south = grid.zoneFromPoint(0, -90, res);
      expect(bboxOf(north)[3]).to.equal(90);
      expect(bboxOf(south)[1]).to.equal(-90);
      expect(grid.zonesInBBox(res, [10, 89.999999, 10.000001, 90])).to.include(north);
    }
  });

  it(`descendants stay within ${DESCENDANT_REACH} circumradii of a cell's centre`, () => {
    const rand = mulberry32(11);
    const angle = (a: number[], b: number[]): number => {
      const u = (p: number[]) => [Math.cos(p[0]! * DEG) * Math.cos(p[1]! * DEG), Math.cos(p[0]! * DEG) * Math.sin(p[1]! * DEG), Math.sin(p[0]! * DEG)];
      const [x, y] = [u(a), u(b)];
      return Math.acos(Math.min(1, x[0]! * y[0]! + x[1]! * y[1]! + x[2]! * y[2]!));
    };
    let worst = 0;
    for (let i = 0; i < 60; i++) {
      const res = i % 5;
      const cell = i < 12 ? h3.getPentagons(res)[i]! : h3.latLngToCell(Math.asin(2 * rand() - 1) / DEG, rand() * 360 - 180, res);
      const c = h3.cellToLatLng(cell);
      const radius = Math.max(...h3.cellToBoundary(cell).map((v) => angle(c, v)));
      for (let d = 1; d <= 3; d++) {
        for (const child of h3.cellToChildren(cell, res + d)) {
          for (const v of h3.cellToBoundary(child)) worst = Math.max(worst, angle(c, v) / radius);
        }
      }
    }
    expect(worst).to.be.above(1).and.below(DESCENDANT_REACH / 1.15);
  });

  it('cell areas, children and pages of sub-zones at the finest resolution', () => {
    const cell = '8f2830828052d25';
    expect(grid.zoneArea(cell)).to.equal(grid.describeZone(cell).areaMetersSquare);
    expect(grid.children(cell)).to.deep.equal([]);
    const parent = h3.cellToParent(cell, 11);
    const all = grid.subZones(parent, 4);
    // Geometric sub-zones in ascending index order (not cellToChildren's): the centre child is among them.
    expect(all).to.include(h3.cellToCenterChild(parent, 15));
    expect([...all].sort()).to.deep.equal(all);
    expect(grid.subZones(parent, 4, { offset: 100, limit: 50 })).to.deep.equal(all.slice(100, 150));
    expect(grid.subZones(parent, 4, { offset: all.length - 3, limit: 50 })).to.deep.equal(all.slice(-3));
    expect(() => grid.subZones(cell, 1)).to.throw(RangeError);
  });
});

describe('7H sub-zone pages', () => {
  for (const grid of [createIvea7h(), createIsea7h()]) {
    it(`${grid.id}: pages of sub-zones are slices of the whole list (hexagons, pentagons, polar zones, odd and even)`, () => {
      for (const zone of ['A0-0-A', 'B4-0-C', 'AA-0-A', 'BB-0-D', 'E3-4A1-A', 'F9-2C7-E', grid.zoneFromPoint(8.5, 46.5, 6)]) {
        for (const depth of [1, 2, 3, 4]) {
          const all = grid.subZones(zone, depth);
          expect(all).to.have.length(grid.subZoneCount(zone, depth));
          for (const [offset, limit] of [[0, 1], [0, 10], [5, 40], [all.length - 2, 10], [all.length, 5], [Math.floor(all.length / 2), all.length]]) {
            expect(grid.subZones(zone, depth, { offset: offset!, limit: limit! }), `${zone} d${depth} ${offset}+${limit}`).to.deep.equal(all.slice(offset, offset! + limit!));
          }
        }
      }
    });
  }
});
