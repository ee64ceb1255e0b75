/**
 * ISEA7H_Z7 and IVEA7H_Z7 against DGGAL (oracle more/*_z7_*.jsonl): every record of every file, and each
 * point record's zone equal to the 7H zone DGGAL names as the same (`same_zone_in`).
 */
import { expect } from 'chai';
import type { BBox, LonLat } from '../../../src/domain/dggrs/dggrs.js';
import { parseZoneId, zoneId } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIsea7hZ7 } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { createIvea7hZ7 } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { Z7Namer, z7FromInt64, z7ToInt64, z7ToZone } from '../../../src/domain/dggrs/lattices/z7/z7-index.js';
import { pointDiff, readJsonl } from './oracle-support.js';

interface PointRecord {
  lat: number; lon: number; level: number; kind: string;
  zone: string; zone_int64_hex: string; zone_level: number; nedges: number; area_m2: number;
  centroid: [number, number]; extent: [[number, number], [number, number]]; vertices: [number, number][];
  parents: string[]; children: string[]; centroid_child: string; neighbors: string[]; is_centroid_child: boolean;
  subzone_count: number; subzone_count_depth: number; same_zone_in: Record<string, string>;
}

/**
 * Oracle points exactly on a zone boundary, where DGGAL's answer comes from last-ulp rounding of its
 * fast-math build; the same points as in the 7H tests. For these the test shows the tie: points 1e-8
 * degrees away reach both DGGAL's zone and ours. Every other field of these records is still checked.
 */
const TIES: Record<string, { lat: number; lon: number; levels: number[]; reason: string }[]> = {
  IVEA7H_Z7: [
    { lat: 58.282525588539, lon: 11.2, levels: [8, 10, 12], reason: 'on the seam meridian 11.2E through icosahedron vertex 0' },
    { lat: 0, lon: -90, levels: [0], reason: 'on the edge between level-0 pentagons 02 and 03' },
  ],
  ISEA7H_Z7: [
    { lat: 0, lon: 11.2, levels: [0, 2, 4, 6, 8, 10, 12], reason: 'icosahedron edge midpoint (Slice & Dice triangle corner)' },
    { lat: 20.990853340939, lon: 11.2, levels: [0, 2, 4, 6, 8, 10, 12], reason: 'ISEA face centre: a corner where three zones meet at even levels (DGGAL reaches one of them through NaN arithmetic)' },
    { lat: 58.282525588539, lon: 11.2, levels: [6, 10], reason: 'on the seam meridian 11.2E through icosahedron vertex 0' },
    { lat: 0, lon: -90, levels: [0], reason: 'on the edge between level-0 pentagons 02 and 03' },
  ],
};

const sorted = (a: string[]): string[] => [...a].sort();

function latOfOutlinePoint(ring: LonLat[], lon: number): number {
  let best = ring[0]!;
  for (const p of ring) if (Math.abs(((p[0] - lon + 540) % 360) - 180) < Math.abs(((best[0] - lon + 540) % 360) - 180)) best = p;
  return best[1];
}

const GRIDS = [
  { name: 'IVEA7H_Z7', file: 'ivea7h_z7', h7: 'IVEA7H', create: createIvea7hZ7, create7h: createIvea7h },
  { name: 'ISEA7H_Z7', file: 'isea7h_z7', h7: 'ISEA7H', create: createIsea7hZ7, create7h: createIsea7h },
] as const;

for (const g of GRIDS) {
  describe(`${g.name} against DGGAL (more/${g.file}_points.jsonl)`, function () {
    this.timeout(120000);
    const grid = g.create();
    const h7 = g.create7h();
    const records = readJsonl<PointRecord>(`more/${g.file}_points.jsonl`);
    const isTie = (r: PointRecord): boolean => TIES[g.name]!.some((t) => t.lat === r.lat && t.lon === r.lon && t.levels.includes(r.level));

    it('has every oracle record (860), each naming its 7H zone', () => {
      expect(records).to.have.length(860);
      for (const r of records) expect(r.same_zone_in[g.h7], r.zone).to.be.a('string');
    });

    it(`each Z7 id names DGGAL's same ${g.h7} zone, both ways`, () => {
      const namer = new Z7Namer();
      for (const r of records) {
        const h = r.same_zone_in[g.h7]!;
        expect(namer.id(parseZoneId(h)!), h).to.equal(r.zone);
        const z = z7ToZone(r.zone);
        expect(z && zoneId(z), r.zone).to.equal(h);
      }
    });

    it('zone from point equals DGGAL for every record except the listed exact-boundary ties', () => {
      const mismatches: string[] = [];
      let ties = 0;
      for (const r of records) {
        const got = grid.zoneFromPoint(r.lon, r.lat, r.level);
        if (isTie(r)) {
          ties++;
          const seen = new Set<string>();
          for (let i = 0; i < 16; i++) {
            const a = (i * Math.PI) / 8;
            seen.add(grid.zoneFromPoint(r.lon + 1e-8 * Math.cos(a), r.lat + 1e-8 * Math.sin(a), r.level));
          }
          expect([...seen], `tie at ${r.lat},${r.lon} level ${r.level}`).to.include(r.zone).and.include(got);
          expect(got, 'a tie is where we differ').to.not.equal(r.zone);
          continue;
        }
        if (got !== r.zone) mismatches.push(`${r.lat},${r.lon} L${r.level}: ${got} != ${r.zone}`);
      }
      expect(mismatches).to.deep.equal([]);
      expect(ties).to.equal(TIES[g.name]!.reduce((n, t) => n + t.levels.length, 0));
    });

    it('numeric keys name the same zones as the text ids', () => {
      for (const r of records) {
        if (r.level > grid.maxZoneKeyLevel || isTie(r)) continue;
        const key = grid.zoneKeyFromPoint(r.lon, r.lat, r.level);
        expect(grid.zoneIdFromKey(key, r.level), `${r.lat},${r.lon} L${r.level}`).to.equal(r.zone);
      }
    });

    it('64-bit ids, levels, edge counts and shapes', () => {
      for (const r of records) {
        expect(z7ToInt64(r.zone), r.zone).to.equal(BigInt(r.zone_int64_hex));
        expect(z7FromInt64(BigInt(r.zone_int64_hex)), r.zone).to.equal(r.zone);
        expect(grid.isValidZone(r.zone)).to.equal(true);
        expect(grid.zoneLevel(r.zone)).to.equal(r.zone_level);
        const d = grid.describeZone(r.zone);
        expect(d.id).to.equal(r.zone);
        expect(d.edgeCount, r.zone).to.equal(r.nedges);
        expect(d.shape).to.equal(r.nedges === 5 ? 'pentagon' : 'hexagon');
        expect(d.level).to.equal(r.zone_level);
      }
    });

    it('centroids, vertices and extents within 1e-9 degrees, areas within 1e-9 relative', () => {
      for (const r of records) {
        const d = grid.describeZone(r.zone);
        expect(pointDiff(d.centroid[0], d.centroid[1], r.centroid[1], r.centroid[0]), `${r.zone} centroid`).to.be.below(1e-9);
        expect(d.vertices, r.zone).to.have.length(r.vertices.length);
        d.vertices.forEach((v, i) => {
          const o = r.vertices[i]!;
          expect(pointDiff(v[0], v[1], o[1], o[0]), `${r.zone} vertex ${i}`).to.be.below(1e-9);
        });
        expect(Math.abs(d.areaMetersSquare / r.area_m2 - 1), r.zone).to.be.below(1e-9);
        expect(Math.abs(grid.zoneArea(r.zone) / r.area_m2 - 1), r.zone).to.be.below(1e-9);
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

    it(`agrees with ${g.h7} on every record's geometry (the same zones, renamed)`, () => {
      for (const r of records) {
        const a = grid.describeZone(r.zone);
        const b = h7.describeZone(r.same_zone_in[g.h7]!);
        expect({ ...a, id: b.id }).to.deep.equal(b);
      }
    });
  });

  describe(`${g.name} sub-zone order against DGGAL (more/${g.file}_subzones.jsonl)`, () => {
    const grid = g.create();
    const records = readJsonl<{ zone: string; depth1: string[]; depth2: string[]; count_depth1: number; count_depth2: number }>(`more/${g.file}_subzones.jsonl`);
    it('has the 11 zones', () => expect(records).to.have.length(11));
    for (const r of records) {
      it(`${r.zone} at depths 1 and 2, in order, and paged`, () => {
        expect(grid.subZones(r.zone, 1)).to.deep.equal(r.depth1);
        expect(grid.subZones(r.zone, 2)).to.deep.equal(r.depth2);
        expect(grid.subZoneCount(r.zone, 1)).to.equal(r.count_depth1);
        expect(grid.subZoneCount(r.zone, 2)).to.equal(r.count_depth2);
        expect(grid.subZones(r.zone, 2, { offset: 7, limit: 9 })).to.deep.equal(r.depth2.slice(7, 16));
      });
    }
  });

  describe(`${g.name} refined outlines against DGGAL geom (more/${g.file}_geom.jsonl)`, () => {
    const grid = g.create();
    const records = readJsonl<{ zone: string; feature: { geometry: { coordinates: [number, number][][] } } }>(`more/${g.file}_geom.jsonl`);
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

  describe(`${g.name} bbox listing against DGGAL list (more/${g.file}_bbox_lists.jsonl)`, function () {
    this.timeout(60000);
    const grid = g.create();
    const records = readJsonl<{ level: number; bbox: [number, number, number, number]; note: string; zones: string[] }>(`more/${g.file}_bbox_lists.jsonl`);
    it('has the 6 boxes', () => expect(records).to.have.length(6));
    for (const r of records) {
      it(`${r.note}: same zones, counted and paged`, () => {
        const [llLat, llLon, urLat, urLon] = r.bbox;
        const box: BBox = [llLon, llLat, urLon, urLat];
        const got = grid.zonesInBBox(r.level, box);
        expect(sorted(got)).to.deep.equal(sorted(r.zones));
        const sel = grid.selectZonesInBBox(r.level, box);
        let step = sel.count();
        let n = step.next();
        while (!n.done) n = step.next();
        expect(n.value).to.equal(r.zones.length);
        const pages: string[] = [];
        for (let offset = 0; offset < r.zones.length; offset += 5) {
          const it = sel.page({ offset, limit: 5 });
          let s = it.next();
          while (!s.done) s = it.next();
          pages.push(...s.value);
        }
        expect(pages).to.deep.equal(got);
      });
    }
  });

  describe(`${g.name} level table against DGGAL (more/${g.file}_levels.jsonl)`, () => {
    const grid = g.create();
    const records = readJsonl<{ level: number; ref_area_m2: number; subzone_count: number; depth1: { subzone_count: number }; depth2: { subzone_count: number } }>(`more/${g.file}_levels.jsonl`);
    it('has levels 0..19, the grid maximum', () => {
      expect(records.map((r) => r.level)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
      expect(grid.maxRefinementLevel).to.equal(19);
    });
    for (const r of records) {
      it(`level ${r.level}: zone count and areas`, () => {
        const info = grid.levelInfo(r.level);
        // DGGAL's reference area is the mean zone area, pentagons included.
        expect(Math.abs(r.ref_area_m2 / (510065621724088.7 / info.zoneCount) - 1)).to.be.below(1e-9);
        expect(info.zoneCount).to.equal(10 * 7 ** r.level + 2);
        expect(Math.abs(info.zoneAreaMetersSquare / (510065621724088.7 / (info.zoneCount - 2)) - 1)).to.be.below(1e-9);
      });
    }
  });
}

describe('Z7 ids: every id of levels 0..4 (strict parse, one zone per id)', function () {
  this.timeout(60000);
  it('accepts exactly 10 * 7^L + 2 ids per level, each naming a distinct zone that names it back', () => {
    const namer = new Z7Namer();
    let ids: string[] = Array.from({ length: 12 }, (_, b) => String(b).padStart(2, '0'));
    for (let level = 0; level <= 4; level++) {
      const zones = new Set<string>();
      const next: string[] = [];
      for (const id of ids) {
        const z = z7ToZone(id);
        if (!z) continue;
        expect(namer.id(z), id).to.equal(id);
        zones.add(zoneId(z));
        for (let d = 0; d < 7; d++) next.push(id + d);
      }
      expect(zones.size, `level ${level}`).to.equal(10 * 7 ** level + 2);
      ids = next;
    }
  });

  it('refuses malformed ids', () => {
    const grid = createIsea7hZ7();
    for (const bad of ['', '0', '12', '1', '0x', '007', '012', '065', '0002', '06005', '00 1', '+01', '01a', '01' + '1'.repeat(20), '-1', '1 ']) {
      expect(grid.isValidZone(bad), JSON.stringify(bad)).to.equal(false);
    }
    expect(grid.isValidZone('11' + '3'.repeat(19))).to.equal(true);
  });
});
