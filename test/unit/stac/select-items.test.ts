import { expect } from 'chai';
import fc from 'fast-check';
import { bboxFootprint, selectItems, StacSelectionError, ZoneCoverage, type StacItemDescriptor } from '../../../src/domain/stac/index.js';
import type { BBox, LonLat } from '../../../src/domain/dggrs/dggrs.js';

const ZONE: LonLat[] = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]];
const day = (d: string) => Date.parse(`${d}T10:00:00Z`);

function item(id: string, date: string, bbox: BBox, cloudCover?: number): StacItemDescriptor {
  return { id, start: day(date), end: day(date), bbox, footprint: bboxFootprint(bbox), ...(cloudCover !== undefined ? { cloudCover } : {}), assets: { data: { href: `${id}.tif` } } };
}

// Over the unit-square zone: a full scene, the west half, the east half, a scene elsewhere.
const FULL = item('full', '2024-05-01', [-1, -1, 2, 2], 30);
const WEST = item('west', '2024-06-01', [-1, -1, 0.5, 2], 10);
const EAST = item('east', '2024-07-01', [0.5, -1, 2, 2], 50);
const FAR = item('far', '2024-08-01', [10, 10, 11, 11], 0);
const ALL = [FULL, WEST, EAST, FAR];
const SUMMER = { start: day('2024-01-01'), end: day('2024-12-31') };
const ids = (s: { items: { item: StacItemDescriptor }[] }) => s.items.map((x) => x.item.id);

describe('STAC item selection', () => {
  describe('latest', () => {
    it('takes the newest item without looking at coverage', () => {
      const s = selectItems(ALL, ZONE, { strategy: 'latest' });
      expect(ids(s)).to.deep.equal(['far']);
      expect(s.coveragePercent).to.equal(0);
    });
    it('ignores intersection_percent', () => {
      expect(ids(selectItems(ALL, ZONE, { strategy: 'latest', intersectionPercent: 100 }))).to.deep.equal(['far']);
    });
  });

  describe('single', () => {
    it('without a threshold takes the newest item (0 disables the check)', () => {
      expect(ids(selectItems(ALL, ZONE, { strategy: 'single' }))).to.deep.equal(['far']);
      expect(ids(selectItems(ALL, ZONE, { strategy: 'single', intersectionPercent: 0 }))).to.deep.equal(['far']);
    });
    it('takes the newest item that alone meets the threshold', () => {
      const half = selectItems(ALL, ZONE, { strategy: 'single', intersectionPercent: 40 });
      expect(ids(half)).to.deep.equal(['east']);
      expect(half.coveragePercent).to.be.closeTo(50, 1);
      expect(ids(selectItems(ALL, ZONE, { strategy: 'single', intersectionPercent: 100 }))).to.deep.equal(['full']);
    });
    it('meets the threshold inclusively and gives nothing when no item does', () => {
      expect(ids(selectItems([WEST, EAST], ZONE, { strategy: 'single', intersectionPercent: 50 }))).to.deep.equal(['east']);
      const none = selectItems([WEST, EAST, FAR], ZONE, { strategy: 'single', intersectionPercent: 90 });
      expect(none.items).to.deep.equal([]);
      expect(none.coveragePercent).to.equal(0);
    });
  });

  describe('mosaic', () => {
    it('needs a datetime', () => {
      expect(() => selectItems(ALL, ZONE, { strategy: 'mosaic' })).to.throw(StacSelectionError).with.property('problem', 'mosaic-needs-datetime');
    });
    it('accumulates newest first until the zone is covered (default target 100)', () => {
      const s = selectItems(ALL, ZONE, { strategy: 'mosaic', datetime: SUMMER });
      expect(ids(s)).to.deep.equal(['east', 'west']);
      expect(s.coveragePercent).to.equal(100);
    });
    it('stops at a lower target and skips items that add no coverage', () => {
      expect(ids(selectItems(ALL, ZONE, { strategy: 'mosaic', datetime: SUMMER, intersectionPercent: 40 }))).to.deep.equal(['east']);
      // full is older than east and west, which already cover everything: it is never read.
      expect(ids(selectItems([FULL, WEST, EAST, item('east2', '2024-06-15', [0.6, 0, 1, 1])], ZONE, { strategy: 'mosaic', datetime: SUMMER }))).to.deep.equal(['east', 'west']);
    });
    it('uses every contributing item when the target cannot be reached', () => {
      const s = selectItems([EAST, FAR], ZONE, { strategy: 'mosaic', datetime: SUMMER });
      expect(ids(s)).to.deep.equal(['east']);
      expect(s.coveragePercent).to.be.closeTo(50, 1);
    });
  });

  it('filters on cloud cover (maximum inclusive; items without eo:cloud_cover are dropped)', () => {
    const noCloud = { ...item('unknown', '2024-09-01', [-1, -1, 2, 2]) };
    expect(ids(selectItems([...ALL, noCloud], ZONE, { strategy: 'latest' }))).to.deep.equal(['unknown']);
    expect(ids(selectItems([...ALL, noCloud], ZONE, { strategy: 'single', intersectionPercent: 40, cloudCoverPercent: 30 }))).to.deep.equal(['west']);
    expect(ids(selectItems([...ALL, noCloud], ZONE, { strategy: 'single', intersectionPercent: 60, cloudCoverPercent: 30 }))).to.deep.equal(['full']);
    expect(ids(selectItems([...ALL, noCloud], ZONE, { strategy: 'single', intersectionPercent: 60, cloudCoverPercent: 29.9 }))).to.deep.equal([]);
    expect(ids(selectItems(ALL, ZONE, { strategy: 'mosaic', datetime: SUMMER, cloudCoverPercent: 10 }))).to.deep.equal(['west']);
    expect(ids(selectItems(ALL, ZONE, { strategy: 'single', cloudCoverPercent: 10 }))).to.deep.equal(['far']);
  });

  it('filters on datetime (instants and start/end intervals, open ends)', () => {
    expect(ids(selectItems(ALL, ZONE, { strategy: 'latest', datetime: { start: day('2024-06-01'), end: day('2024-06-30') } }))).to.deep.equal(['west']);
    expect(ids(selectItems(ALL, ZONE, { strategy: 'latest', datetime: { start: null, end: day('2024-05-31') } }))).to.deep.equal(['full']);
    expect(selectItems(ALL, ZONE, { strategy: 'latest', datetime: { start: day('2025-01-01'), end: null } }).items).to.deep.equal([]);
    const spanning: StacItemDescriptor = { ...item('span', '2024-01-01', [-1, -1, 2, 2]), start: day('2024-03-01'), end: day('2024-03-31') };
    expect(ids(selectItems([spanning, FULL], ZONE, { strategy: 'latest', datetime: { start: day('2024-03-15'), end: day('2024-03-16') } }))).to.deep.equal(['span']);
  });

  it('breaks ties on datetime by lower cloud cover, then id, whatever the input order', () => {
    const a = item('b-scene', '2024-06-01', [-1, -1, 2, 2], 20);
    const b = item('a-scene', '2024-06-01', [-1, -1, 2, 2], 20);
    const c = item('c-scene', '2024-06-01', [-1, -1, 2, 2], 5);
    expect(ids(selectItems([a, b, c], ZONE, { strategy: 'latest' }))).to.deep.equal(['c-scene']);
    expect(ids(selectItems([a, b], ZONE, { strategy: 'latest' }))).to.deep.equal(['a-scene']);
    expect(ids(selectItems([b, a], ZONE, { strategy: 'latest' }))).to.deep.equal(['a-scene']);
  });

  it('rejects percentages outside 0-100', () => {
    expect(() => selectItems(ALL, ZONE, { strategy: 'single', intersectionPercent: 101 })).to.throw(StacSelectionError).with.property('problem', 'invalid-percent');
    expect(() => selectItems(ALL, ZONE, { strategy: 'single', cloudCoverPercent: -1 })).to.throw(StacSelectionError);
    expect(() => selectItems(ALL, ZONE, { strategy: 'single', cloudCoverPercent: Number.NaN })).to.throw(StacSelectionError);
  });

  it('gives nothing for no items', () => {
    expect(selectItems([], ZONE, { strategy: 'mosaic', datetime: SUMMER })).to.deep.equal({ items: [], coveragePercent: 0 });
  });
});

describe('zone coverage (lattice)', () => {
  it('is exact for containment and disjointness, and within its bound for a partial overlap', () => {
    const z = new ZoneCoverage(ZONE);
    expect(z.percent([z.mask(bboxFootprint([-1, -1, 2, 2]))])).to.equal(100);
    expect(z.percent([z.mask(bboxFootprint([5, 5, 6, 6]))])).to.equal(0);
    // A diagonal edge through the square: one edge crossing, bound about 2N / samples.
    const tri = z.percent([z.mask([[[[-1, -1], [2, 2], [2, -1], [-1, -1]]]])]);
    expect(tri).to.be.closeTo(50, (100 * 2 * 256) / z.sampleCount);
    expect(tri).to.be.closeTo(50, 0.5);
  });

  it('honours holes and multipolygons and a zone across the antimeridian', () => {
    const z = new ZoneCoverage(ZONE);
    const withHole = [[[-1, -1], [2, -1], [2, 2], [-1, 2], [-1, -1]], [[0, 0], [0.5, 0], [0.5, 1], [0, 1], [0, 0]]] as LonLat[][];
    expect(z.percent([z.mask([withHole])])).to.be.closeTo(50, 0.5);
    const across = new ZoneCoverage([[179, 0], [181, 0], [181, 1], [179, 1], [179, 0]]);
    expect(across.percent([across.mask(bboxFootprint([179.5, -1, -179.5, 2]))])).to.be.closeTo(50, 0.5);
    expect(across.percent([across.mask(bboxFootprint([170, -1, -170, 2]))])).to.equal(100);
  });

  it('samples the lattice points a crossing-number test puts in the zone, row by row as point by point', () => {
    // The point-by-point test the lattice is defined by (half-open rule), on the same arithmetic.
    const inside = (ring: LonLat[], x: number, y: number) => {
      let odd = false;
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i]!, [xj, yj] = ring[j]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
      }
      return odd;
    };
    const n = 64;
    // Star-shaped rings (concave, vertices on lattice rows and columns too), some across 180°.
    const ring = fc.tuple(fc.double({ min: 170, max: 190, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 3, maxLength: 12 })).map(([cx, cy, radii]) => {
      const r: LonLat[] = radii.map((k, i) => [cx + k * Math.cos((2 * Math.PI * i) / radii.length), cy + k * Math.sin((2 * Math.PI * i) / radii.length)]);
      return [...r, r[0]!];
    });
    fc.assert(
      fc.property(ring, (r) => {
        const z = new ZoneCoverage(r, n);
        const xs = r.map((p) => p[0]), ys = r.map((p) => p[1]);
        const [w, e, s, no] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
        const dx = (e - w) / n, dy = (no - s) / n;
        let count = 0;
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (inside(r, w + (i + 0.5) * dx, s + (j + 0.5) * dy)) count++;
        expect(z.sampleCount).to.equal(Math.max(count, 1));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('weights samples by cos(latitude)', () => {
    const z = new ZoneCoverage([[0, 0], [1, 0], [1, 80], [0, 80], [0, 0]]);
    const south = z.percent([z.mask(bboxFootprint([-1, -1, 2, 40]))]);
    // Area share of 0..40 N in 0..80 N on a sphere: sin 40 / sin 80.
    expect(south).to.be.closeTo((100 * Math.sin((40 * Math.PI) / 180)) / Math.sin((80 * Math.PI) / 180), 0.5);
  });
});
