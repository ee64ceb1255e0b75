import { expect } from 'chai';
import { runToEnd, type BBox, type LonLat } from '../../../src/domain/dggrs/dggrs.js';
import { parseZoneId, zoneFromInt64, zoneToInt64 } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import type { I7HGrid } from '../../../src/domain/dggrs/lattices/7h/i7h-grid.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { pointDiff, readJsonl } from './oracle-support.js';

interface PointRecord {
  lat: number; lon: number; level: number; kind: string;
  zone: string; zone_int64_hex: string; zone_level: number; nedges: number; area_m2: number;
  centroid: [number, number]; extent: [[number, number], [number, number]]; vertices: [number, number][];
  parents: string[]; children: string[]; centroid_child: string; neighbors: string[];
  subzone_count: number; subzone_count_depth: number;
}

/**
 * Oracle points lying exactly on a zone boundary, where DGGAL's answer comes from last-ulp rounding of its
 * fast-math build (guide section 15.1: moving the input by 1e-10 degrees makes DGGAL itself return two or three
 * different zones). For these the test checks the zone is a genuine tie: both DGGAL's zone and ours are hit
 * by sub-millimetre perturbations of the point. Every other field of these records is still checked.
 */
const TIES: Record<string, { lat: number; lon: number; levels: number[]; reason: string }[]> = {
  IVEA7H: [
    { lat: 58.282525588539, lon: 11.2, levels: [8, 10, 12], reason: 'on the seam meridian 11.2E through icosahedron vertex 0' },
    { lat: 0, lon: -90, levels: [0], reason: 'on the edge between level-0 pentagons A2 and A3' },
  ],
  ISEA7H: [
    { lat: 0, lon: 11.2, levels: [0, 2, 4, 6, 8, 10, 12], reason: 'icosahedron edge midpoint (Slice & Dice triangle corner)' },
    { lat: 20.990853340939, lon: 11.2, levels: [0, 2, 4, 6, 8, 10, 12], reason: 'ISEA face centre: a corner where three zones meet at even levels (DGGAL reaches one of them through NaN arithmetic)' },
    { lat: 58.282525588539, lon: 11.2, levels: [6, 10], reason: 'on the seam meridian 11.2E through icosahedron vertex 0' },
    { lat: 0, lon: -90, levels: [0], reason: 'on the edge between level-0 pentagons A2 and A3' },
  ],
};

const isTie = (grid: string, r: PointRecord): boolean =>
  TIES[grid]!.some((t) => t.lat === r.lat && t.lon === r.lon && t.levels.includes(r.level));

const sorted = (a: string[]): string[] => [...a].sort();

/** Latitude of our refined outline point whose longitude is `lon` (for scaling extent longitude errors). */
function latOfOutlinePoint(ring: LonLat[], lon: number): number {
  let best = ring[0]!;
  for (const p of ring) if (Math.abs(((p[0] - lon + 540) % 360) - 180) < Math.abs(((best[0] - lon + 540) % 360) - 180)) best = p;
  return best[1];
}

for (const [name, file, create] of [
  ['IVEA7H', 'ivea7h_points.jsonl', createIvea7h],
  ['ISEA7H', 'isea7h_points.jsonl', createIsea7h],
] as const) {
  describe(`${name} against DGGAL (${file})`, function () {
    this.timeout(120000);
    const grid: I7HGrid = create();
    const records = readJsonl<PointRecord>(file);

    it('has every oracle record (860)', () => {
      expect(records).to.have.length(860);
    });

    it('zone from point equals DGGAL for every record except the listed exact-boundary ties', () => {
      const mismatches: string[] = [];
      let ties = 0;
      for (const r of records) {
        const got = grid.zoneFromPoint(r.lon, r.lat, r.level);
        if (isTie(name, r)) {
          ties++;
          // A genuine tie: tiny moves of the point reach DGGAL's zone (and ours).
          const seen = new Set<string>();
          for (let i = 0; i < 16; i++) {
            const a = (i * Math.PI) / 8;
            seen.add(grid.zoneFromPoint(r.lon + 1e-8 * Math.cos(a), r.lat + 1e-8 * Math.sin(a), r.level));
          }
          expect([...seen], `tie at ${r.lat},${r.lon} level ${r.level}`).to.include(r.zone).and.include(got);
          continue;
        }
        if (got !== r.zone) mismatches.push(`${r.lat},${r.lon} L${r.level}: ${got} != ${r.zone}`);
      }
      expect(mismatches).to.deep.equal([]);
      expect(ties).to.equal(TIES[name]!.reduce((n, t) => n + t.levels.length, 0));
    });

    it('text ids, 64-bit ids, levels and edge counts', () => {
      for (const r of records) {
        const z = parseZoneId(r.zone);
        expect(z, r.zone).to.not.equal(null);
        expect(zoneToInt64(z!).toString(16), r.zone).to.equal(BigInt(r.zone_int64_hex).toString(16));
        expect(zoneFromInt64(BigInt(r.zone_int64_hex)), r.zone).to.deep.equal(z);
        expect(grid.isValidZone(r.zone)).to.equal(true);
        expect(grid.zoneLevel(r.zone)).to.equal(r.zone_level);
        const d = grid.describeZone(r.zone);
        expect(d.edgeCount, r.zone).to.equal(r.nedges);
        expect(d.shape).to.equal(r.nedges === 5 ? 'pentagon' : 'hexagon');
        expect(d.level).to.equal(r.zone_level);
      }
    });

    it('centroids and vertices within 1e-9 degrees (longitude scaled by cos latitude)', () => {
      for (const r of records) {
        const d = grid.describeZone(r.zone);
        expect(pointDiff(d.centroid[0], d.centroid[1], r.centroid[1], r.centroid[0]), `${r.zone} centroid`).to.be.below(1e-9);
        expect(d.vertices, r.zone).to.have.length(r.vertices.length);
        d.vertices.forEach((v, i) => {
          const o = r.vertices[i]!;
          expect(pointDiff(v[0], v[1], o[1], o[0]), `${r.zone} vertex ${i}`).to.be.below(1e-9);
        });
      }
    });

    it('areas within 1e-9 relative', () => {
      for (const r of records) {
        const d = grid.describeZone(r.zone);
        expect(Math.abs(d.areaMetersSquare / r.area_m2 - 1), r.zone).to.be.below(1e-9);
      }
    });

    it('extents within 1e-9 degrees (longitudes of near-pole extreme points scaled by cos latitude)', () => {
      for (const r of records) {
        const d = grid.describeZone(r.zone);
        const [[llLat, llLon], [urLat, urLon]] = r.extent;
        expect(Math.abs(d.bbox[1] - llLat), `${r.zone} llLat`).to.be.below(1e-9);
        expect(Math.abs(d.bbox[3] - urLat), `${r.zone} urLat`).to.be.below(1e-9);
        const ring = grid.zoneOutline(r.zone, true);
        const llAt = latOfOutlinePoint(ring, d.bbox[0]);
        const urAt = latOfOutlinePoint(ring, d.bbox[2]);
        expect(pointDiff(d.bbox[0], llAt, llLon, llAt), `${r.zone} llLon`).to.be.below(1e-9);
        expect(pointDiff(d.bbox[2], urAt, urLon, urAt), `${r.zone} urLon`).to.be.below(1e-9);
        expect(d.bbox[0] > d.bbox[2], `${r.zone} antimeridian`).to.equal(llLon > urLon);
      }
    });

    it('parents (primary first), children (centroid child first) and neighbours', () => {
      for (const r of records) {
        const parents = grid.parents(r.zone);
        expect(sorted(parents), `${r.zone} parents`).to.deep.equal(sorted(r.parents));
        if (r.parents.length) expect(parents[0], `${r.zone} primary parent`).to.equal(r.parents[0]);
        const children = grid.children(r.zone);
        expect(sorted(children), `${r.zone} children`).to.deep.equal(sorted(r.children));
        expect(children[0], `${r.zone} centroid child`).to.equal(r.centroid_child);
        expect(sorted(grid.neighbours(r.zone)), `${r.zone} neighbours`).to.deep.equal(sorted(r.neighbors));
      }
    });

    it('sub-zone counts at depth 6, and the zone of each centroid is the zone', () => {
      for (const r of records) {
        expect(grid.subZoneCount(r.zone, r.subzone_count_depth), r.zone).to.equal(r.subzone_count);
        expect(grid.zoneFromPoint(r.centroid[1], r.centroid[0], r.zone_level), r.zone).to.equal(r.zone);
      }
    });
  });
}

describe('IVEA7H sub-zone order against DGGAL (ivea7h_subzones.jsonl)', () => {
  const grid = createIvea7h();
  const records = readJsonl<{ zone: string; depth1: string[]; depth2: string[]; count_depth1: number; count_depth2: number }>('ivea7h_subzones.jsonl');
  it('has the 11 zones', () => expect(records).to.have.length(11));
  for (const r of records) {
    it(`${r.zone} at depths 1 and 2, in order`, () => {
      expect(grid.subZones(r.zone, 1)).to.deep.equal(r.depth1);
      expect(grid.subZones(r.zone, 2)).to.deep.equal(r.depth2);
      expect(grid.subZoneCount(r.zone, 1)).to.equal(r.count_depth1);
      expect(grid.subZoneCount(r.zone, 2)).to.equal(r.count_depth2);
    });
  }
});

describe('IVEA7H refined outlines against DGGAL geom (ivea7h_geom.jsonl)', () => {
  const grid = createIvea7h();
  const records = readJsonl<{ zone: string; feature: { geometry: { coordinates: [number, number][][] } } }>('ivea7h_geom.jsonl');
  it('has the 22 zones', () => expect(records).to.have.length(22));
  for (const r of records) {
    it(`${r.zone} point for point`, () => {
      const expected = r.feature.geometry.coordinates[0]!;
      const got = grid.zoneOutline(r.zone, true);
      expect(got).to.have.length(expected.length);
      got.forEach((p, i) => {
        const e = expected[i]!;
        expect(pointDiff(p[0], p[1], e[0], e[1]), `${r.zone} point ${i}`).to.be.below(1e-9);
      });
    });
  }
});

describe('IVEA7H bbox listing against DGGAL list (ivea7h_bbox_lists.jsonl)', function () {
  this.timeout(60000);
  const grid = createIvea7h();
  const records = readJsonl<{ level: number; bbox: [number, number, number, number]; note: string; zones: string[] }>('ivea7h_bbox_lists.jsonl');
  it('has the 6 boxes', () => expect(records).to.have.length(6));
  for (const r of records) {
    it(`${r.note}: same zones`, () => {
      const [llLat, llLon, urLat, urLon] = r.bbox;
      const box: BBox = [llLon, llLat, urLon, urLat];
      const got = grid.zonesInBBox(r.level, box);
      expect(sorted(got)).to.deep.equal(sorted(r.zones));
      expect(got).to.deep.equal(r.zones);
      expect(grid.estimateZonesInBBox(r.level, box)).to.be.at.least(r.zones.length);
      // Counted without listing, and paged, the same zones.
      const selection = grid.selectZonesInBBox(r.level, box);
      expect(runToEnd(selection.count())).to.equal(r.zones.length);
      expect(runToEnd(selection.page({ offset: 3, limit: 5 }))).to.deep.equal(r.zones.slice(3, 8));
    });
  }
});

describe('IVEA7H level table against DGGAL (ivea7h_levels.jsonl)', () => {
  const grid = createIvea7h();
  const records = readJsonl<{ level: number; zone_count: number; ref_area_m2: number }>('ivea7h_levels.jsonl');
  for (const r of records) {
    it(`level ${r.level}`, () => {
      const info = grid.levelInfo(r.level);
      expect(info.zoneCount).to.equal(r.zone_count);
      // DGGAL's "reference area" is the mean zone area (pentagons included).
      const mean = (510065621724088.7 / r.zone_count);
      expect(Math.abs(r.ref_area_m2 / mean - 1)).to.be.below(1e-9);
      expect(Math.abs(info.zoneAreaMetersSquare / (510065621724088.7 / (r.zone_count - 2)) - 1)).to.be.below(1e-9);
    });
  }
});
