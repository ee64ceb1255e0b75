/**
 * One DGGAL oracle suite for any hexagonal icosahedral grid (3H, 7H, Z7 ids), given its five record files
 * in the formats of test/fixtures/shared/oracle/dggal/README.md: points, subzones, geom, bbox_lists, levels.
 * Every record of every file is checked; the differences between grid kinds (relation order, id codec,
 * known boundary ties) are parameters, not copies of the suite.
 */
import { expect } from 'chai';
import { runToEnd, type BBox, type Dggrs, type LonLat } from '../../../src/domain/dggrs/dggrs.js';
import { pointDiff, readJsonl } from './oracle-support.js';

export interface PointRecord {
  lat: number; lon: number; level: number; kind: string;
  zone: string; zone_int64_hex: string; zone_level: number; nedges: number; area_m2: number;
  centroid: [number, number]; extent: [[number, number], [number, number]]; vertices: [number, number][];
  parents: string[]; children: string[]; centroid_child: string | null; neighbors: string[];
  subzone_count: number; subzone_count_depth: number; same_zone_in?: Record<string, string>;
}

/** An oracle point exactly on a zone boundary, where DGGAL's answer is last-ulp rounding of its fast-math build. */
export interface Tie {
  lat: number;
  lon: number;
  levels: number[];
  reason: string;
}

export interface OracleGridCase {
  name: string;
  create: () => Dggrs;
  /** File stem: `<stem>_points.jsonl` etc. */
  stem: string;
  dir: string;
  /** DGGAL's 64-bit id back to the text id (null when refused). */
  idFromInt64: (v: bigint) => string | null;
  /** True when parents and neighbours must come in DGGAL's order (3H); otherwise as sets, primary parent first. */
  relationsInOrder: boolean;
  /** True when a bbox listing must come in DGGAL's order; otherwise as a set. */
  bboxInOrder: boolean;
  zoneCount: (level: number) => number;
  /** Pentagons per level (2 for the hexagonal grids, 0 for the rhombic ones): the rest share the area equally. */
  pentagons: number;
  maxLevel: number;
  ties: Tie[];
  /**
   * Zones whose outline points lie a few 1e-11 (in the 5x6 net) off an icosahedron edge, nudged to the
   * other side than DGGAL nudges them: held to `tolerance` instead of 1e-9, and each must exceed 1e-9
   * somewhere so the list shrinks when the cause is fixed.
   */
  outlineDeviations?: { zones: string[]; tolerance: number; reason: string };
  /** How many boxes the bbox_lists file holds (6 unless DGGAL could not list one). */
  bboxCount?: number;
  /** The grid whose zone each point record names in `same_zone_in` (Z7 ids of a 7H grid). */
  sameZoneIn?: { name: string; create: () => Dggrs };
}

const EARTH_AREA = 510065621724088.7;
/** DGGAL's pentagon AA (its level-0 zone) is centred here: its level table describes level 0 by that zone. */
const AA_CENTRE: LonLat = [11.2, 58.397145907431];

const sorted = (a: string[]): string[] => [...a].sort();
const SHAPES: Record<number, string> = { 4: 'square', 5: 'pentagon', 6: 'hexagon' };

const toleranceOf = (g: OracleGridCase, zone: string): number =>
  g.outlineDeviations?.zones.includes(zone) ? g.outlineDeviations.tolerance : 1e-9;

/** Latitude of our refined outline point whose longitude is `lon` (for scaling extent longitude errors). */
function latOfOutlinePoint(ring: LonLat[], lon: number): number {
  let best = ring[0]!;
  for (const p of ring) if (Math.abs(((p[0] - lon + 540) % 360) - 180) < Math.abs(((best[0] - lon + 540) % 360) - 180)) best = p;
  return best[1];
}

export function describeDggalOracle(g: OracleGridCase): void {
  const read = <T>(kind: string): T[] => readJsonl<T>(`${g.stem}_${kind}.jsonl`, g.dir);
  describePoints(g, read<PointRecord>('points'));
  describeSubZones(g, read('subzones'));
  describeGeometry(g, read('geom'));
  describeBBoxLists(g, read('bbox_lists'));
  describeLevels(g, read('levels'));
}

function describePoints(g: OracleGridCase, records: PointRecord[]): void {
  describe(`${g.name} against DGGAL (${g.stem}_points.jsonl)`, function () {
    this.timeout(120_000);
    const grid = g.create();
    const isTie = (r: PointRecord): boolean => g.ties.some((t) => t.lat === r.lat && t.lon === r.lon && t.levels.includes(r.level));

    it('has edge points at every level 0..12 and random points', () => {
      const edgeLevels = new Set(records.filter((r) => r.kind === 'edge').map((r) => r.level));
      expect([...edgeLevels].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 13 }, (_, i) => i));
      expect(records.filter((r) => r.kind === 'random').length).to.be.at.least(50);
    });

    it('zone from point equals DGGAL for every record except the listed exact-boundary ties', () => {
      const mismatches: string[] = [];
      let ties = 0;
      for (const r of records) {
        const got = grid.zoneFromPoint(r.lon, r.lat, r.level);
        if (isTie(r)) {
          ties++;
          // A genuine tie: points 1e-8 degrees away reach both DGGAL's zone and ours.
          const seen = new Set<string>();
          for (let i = 0; i < 16; i++) {
            const a = (i * Math.PI) / 8;
            seen.add(grid.zoneFromPoint(r.lon + 1e-8 * Math.cos(a), r.lat + 1e-8 * Math.sin(a), r.level));
          }
          expect([...seen], `tie at ${r.lat},${r.lon} level ${r.level}`).to.include(r.zone).and.include(got);
          expect(got, 'a listed tie is where we differ').to.not.equal(r.zone);
          continue;
        }
        if (got !== r.zone) mismatches.push(`${r.lat},${r.lon} L${r.level}: ${got} != ${r.zone}`);
      }
      expect(mismatches).to.deep.equal([]);
      expect(ties).to.equal(g.ties.reduce((n, t) => n + t.levels.length, 0));
    });

    it('numeric keys name the same zones as the text ids', () => {
      if (!grid.zoneKeyFromPoint || !grid.zoneIdFromKey) return;
      for (const r of records) {
        if (r.level > (grid.maxZoneKeyLevel ?? Infinity) || isTie(r)) continue;
        expect(grid.zoneIdFromKey(grid.zoneKeyFromPoint(r.lon, r.lat, r.level), r.level), `${r.lat},${r.lon} L${r.level}`).to.equal(r.zone);
      }
    });

    it('64-bit ids both ways, levels, edge counts and shapes', () => {
      for (const r of records) {
        expect(grid.isValidZone(r.zone), r.zone).to.equal(true);
        expect(grid.zoneToUint64!(r.zone), r.zone).to.equal(BigInt(r.zone_int64_hex));
        expect(g.idFromInt64(BigInt(r.zone_int64_hex)), r.zone).to.equal(r.zone);
        expect(grid.zoneLevel(r.zone)).to.equal(r.zone_level);
        const d = grid.describeZone(r.zone);
        expect(d.id).to.equal(r.zone);
        expect(d.level).to.equal(r.zone_level);
        expect(d.edgeCount, r.zone).to.equal(r.nedges);
        expect(d.shape).to.equal(SHAPES[r.nedges]);
      }
    });

    it('centroids, vertices and extents within 1e-9 degrees, areas within 1e-9 relative', () => {
      for (const r of records) {
        const d = grid.describeZone(r.zone);
        const tol = toleranceOf(g, r.zone);
        expect(pointDiff(d.centroid[0], d.centroid[1], r.centroid[1], r.centroid[0]), `${r.zone} centroid`).to.be.below(tol);
        expect(d.vertices, r.zone).to.have.length(r.vertices.length);
        d.vertices.forEach((v, i) => expect(pointDiff(v[0], v[1], r.vertices[i]![1], r.vertices[i]![0]), `${r.zone} vertex ${i}`).to.be.below(tol));
        expect(Math.abs(d.areaMetersSquare / r.area_m2 - 1), r.zone).to.be.below(1e-9);
        expect(Math.abs(grid.zoneArea(r.zone) / r.area_m2 - 1), r.zone).to.be.below(1e-9);
        const [[llLat, llLon], [urLat, urLon]] = r.extent;
        expect(Math.abs(d.bbox[1] - llLat), `${r.zone} llLat`).to.be.below(tol);
        expect(Math.abs(d.bbox[3] - urLat), `${r.zone} urLat`).to.be.below(tol);
        const ring = grid.zoneOutline(r.zone, true);
        const llAt = latOfOutlinePoint(ring, d.bbox[0]);
        const urAt = latOfOutlinePoint(ring, d.bbox[2]);
        expect(pointDiff(d.bbox[0], llAt, llLon, llAt), `${r.zone} llLon`).to.be.below(tol);
        expect(pointDiff(d.bbox[2], urAt, urLon, urAt), `${r.zone} urLon`).to.be.below(tol);
        expect(d.bbox[0] > d.bbox[2], `${r.zone} antimeridian`).to.equal(llLon > urLon);
      }
    });

    it(`parents, children (centroid child first where there is one) and neighbours${g.relationsInOrder ? ' in DGGAL order' : ''}`, () => {
      for (const r of records) {
        const parents = grid.parents(r.zone);
        const neighbours = grid.neighbours(r.zone);
        if (g.relationsInOrder) {
          expect(parents, `${r.zone} parents`).to.deep.equal(r.parents);
          expect(neighbours, `${r.zone} neighbours`).to.deep.equal(r.neighbors);
        } else {
          expect(sorted(parents), `${r.zone} parents`).to.deep.equal(sorted(r.parents));
          if (r.parents.length) expect(parents[0], `${r.zone} primary parent`).to.equal(r.parents[0]);
          expect(sorted(neighbours), `${r.zone} neighbours`).to.deep.equal(sorted(r.neighbors));
        }
        const children = grid.children(r.zone);
        expect(sorted(children), `${r.zone} children`).to.deep.equal(sorted(r.children));
        if (r.centroid_child !== null) expect(children[0], `${r.zone} centroid child`).to.equal(r.centroid_child);
      }
    });

    it(`sub-zone counts at DGGAL's default depth, and the zone of each centroid is the zone`, () => {
      for (const r of records) {
        // DGGAL counts sub-zones below its deepest level too (9R level 12 + 5 > 16); ours exist only down to it.
        if (r.zone_level + r.subzone_count_depth <= g.maxLevel) expect(grid.subZoneCount(r.zone, r.subzone_count_depth), r.zone).to.equal(r.subzone_count);
        expect(grid.zoneFromPoint(r.centroid[1], r.centroid[0], r.zone_level), r.zone).to.equal(r.zone);
      }
    });

    const same = g.sameZoneIn;
    if (same) {
      it(`names DGGAL's same ${same.name} zone, with the same geometry`, () => {
        const other = same.create();
        for (const r of records) {
          const id = r.same_zone_in![same.name]!;
          const a = grid.describeZone(r.zone);
          const b = other.describeZone(id);
          expect({ ...a, id: b.id }, r.zone).to.deep.equal(b);
        }
      });
    }
  });
}

function describeSubZones(g: OracleGridCase, records: { zone: string; depth1: string[]; depth2: string[]; count_depth1: number; count_depth2: number }[]): void {
  describe(`${g.name} sub-zone order against DGGAL (${g.stem}_subzones.jsonl)`, () => {
    const grid = g.create();
    it('has the 11 zones', () => expect(records).to.have.length(11));
    for (const r of records) {
      it(`${r.zone} at depths 1 and 2, in order, and paged`, () => {
        expect(grid.subZones(r.zone, 1)).to.deep.equal(r.depth1);
        expect(grid.subZones(r.zone, 2)).to.deep.equal(r.depth2);
        expect(grid.subZoneCount(r.zone, 1)).to.equal(r.count_depth1);
        expect(grid.subZoneCount(r.zone, 2)).to.equal(r.count_depth2);
        expect(grid.subZones(r.zone, 2, { offset: 3, limit: 5 })).to.deep.equal(r.depth2.slice(3, 8));
      });
    }
  });
}

function describeGeometry(g: OracleGridCase, records: { zone: string; feature: { geometry: { coordinates: [number, number][][] } } }[]): void {
  describe(`${g.name} refined outlines against DGGAL geom (${g.stem}_geom.jsonl)`, () => {
    const grid = g.create();
    it('has the 22 zones', () => expect(records).to.have.length(22));
    for (const r of records) {
      const tol = toleranceOf(g, r.zone);
      it(`${r.zone} point for point${tol > 1e-9 ? ` (${g.outlineDeviations!.reason}: within ${tol})` : ''}`, () => {
        const expected = r.feature.geometry.coordinates[0]!;
        const got = grid.zoneOutline(r.zone, true);
        expect(got).to.have.length(expected.length);
        let worst = 0;
        got.forEach((p, i) => {
          const e = pointDiff(p[0], p[1], expected[i]![0], expected[i]![1]);
          expect(e, `${r.zone} point ${i}`).to.be.below(tol);
          worst = Math.max(worst, e);
        });
        if (tol > 1e-9) expect(worst, 'listed because it exceeds 1e-9').to.be.above(1e-9);
      });
    }
  });
}

function describeBBoxLists(g: OracleGridCase, records: { level: number; bbox: [number, number, number, number]; note: string; zones: string[] }[]): void {
  describe(`${g.name} bbox listing against DGGAL list (${g.stem}_bbox_lists.jsonl)`, function () {
    this.timeout(60_000);
    const grid = g.create();
    it(`has the ${g.bboxCount ?? 6} boxes`, () => expect(records).to.have.length(g.bboxCount ?? 6));
    for (const r of records) {
      it(`${r.note}: the same zones${g.bboxInOrder ? " in DGGAL's order" : ''}, counted and paged`, () => {
        const [llLat, llLon, urLat, urLon] = r.bbox;
        const box: BBox = [llLon, llLat, urLon, urLat];
        const got = grid.zonesInBBox(r.level, box);
        expect(g.bboxInOrder ? got : sorted(got)).to.deep.equal(g.bboxInOrder ? r.zones : sorted(r.zones));
        const sel = grid.selectZonesInBBox(r.level, box);
        expect(runToEnd(sel.count())).to.equal(r.zones.length);
        const pages: string[] = [];
        for (let offset = 0; offset < r.zones.length; offset += 7) pages.push(...runToEnd(sel.page({ offset, limit: 7 })));
        expect(pages).to.deep.equal(got);
        expect(grid.estimateZonesInBBox(r.level, box)).to.be.at.least(r.zones.length);
      });
    }
  });
}

interface LevelRecord {
  level: number; ref_area_m2: number; subzone_depth: number; subzone_count: number;
  depth1: { subzone_count: number }; depth2: { subzone_count: number };
}

function describeLevels(g: OracleGridCase, records: LevelRecord[]): void {
  describe(`${g.name} level table against DGGAL (${g.stem}_levels.jsonl)`, () => {
    const grid = g.create();
    it(`has levels 0..${records.length - 1}; the grid's maximum is ${g.maxLevel}`, () => {
      expect(records.map((r) => r.level)).to.deep.equal(Array.from({ length: records.length }, (_, i) => i));
      expect(grid.maxRefinementLevel).to.equal(g.maxLevel);
    });
    for (const r of records) {
      it(`level ${r.level}: zone count, areas and sub-zone counts`, () => {
        const info = grid.levelInfo(r.level);
        expect(info.zoneCount).to.equal(g.zoneCount(r.level));
        // DGGAL's reference area is the mean zone area, pentagons included; ours is the area of the others.
        expect(Math.abs(r.ref_area_m2 / (EARTH_AREA / info.zoneCount) - 1)).to.be.below(1e-9);
        expect(Math.abs(info.zoneAreaMetersSquare / (EARTH_AREA / (info.zoneCount - g.pentagons)) - 1)).to.be.below(1e-9);
        // DGGAL describes a level by its first zone: the pentagon AA at level 0, a hexagon elsewhere.
        const zone = r.level === 0 ? grid.zoneFromPoint(AA_CENTRE[0], AA_CENTRE[1], 0) : grid.zoneFromPoint(20, 10, r.level);
        if (r.level + 1 <= g.maxLevel) expect(grid.subZoneCount(zone, 1)).to.equal(r.depth1.subzone_count);
        if (r.level + 2 <= g.maxLevel) expect(grid.subZoneCount(zone, 2)).to.equal(r.depth2.subzone_count);
        if (r.level + r.subzone_depth <= g.maxLevel) expect(grid.subZoneCount(zone, r.subzone_depth)).to.equal(r.subzone_count);
      });
    }
  });
}
