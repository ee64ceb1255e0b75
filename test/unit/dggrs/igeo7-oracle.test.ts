/**
 * IGEO7 held to DGGRID 9.0b's answers for its `IGEO7` preset (test/fixtures/shared/oracle/dggrid, README
 * there): the zone of each of 320 points at levels 0-12 and its 64-bit id, and for every zone holding one of
 * them the centroid, the vertices, the neighbours, the spatial children and the index parent.
 *
 * Tolerance 1e-7 degrees: DGGRID 9.0 truncates its ISEA constants to 10 digits (5.9e-9 degrees on centroids,
 * 3.3e-8 on vertices); we use exact ones. Two kinds of record differ, each counted and checked for its reason:
 * - points exactly at a pole lie on the boundary between zones: DGGRID and we pick neighbouring zones;
 * - odd-level zones straddling an icosahedron face edge: DGGRID 9.0 puts their vertices up to 0.099 degrees
 *   off (its "Class III vertex" defect, fixed in DGGRID 9.1); their centroids agree.
 *
 * Also the two cross-checks the README describes: pydggsapi's IGEO7 (DGGRID at 11.20E with WGS84 latitudes
 * converted outside it) names the zones of ISEA7H_Z7, and the reconstruction of DGGRID 9.1's IGEO7v2 those
 * of IVEA7H_Z7.
 */
import { expect } from 'chai';
import path from 'node:path';
import { createIgeo7 } from '../../../src/domain/dggrs/grids/dggrid-grids.js';
import { createIsea7hZ7 } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIvea7hZ7 } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { iseaProjection } from '../../../src/domain/dggrs/projections/isea-projection.js';
import { faceOf5x6 } from '../../../src/domain/dggrs/projections/slice-and-dice-projection.js';
import type { Dggrs, LonLat } from '../../../src/domain/dggrs/dggrs.js';
import { DEG, readJsonl } from './oracle-support.js';

const dir = path.resolve(import.meta.dirname, '../../fixtures/shared/oracle/dggrid');

interface PointRecord {
  type: 'point' | 'meta';
  id: string;
  lon: number;
  lat: number;
  cells: Record<string, { z7: string; z7_int64: string }>;
}

interface CellRecord {
  type: 'cell' | 'meta';
  res: number;
  z7: string;
  centroid: LonLat;
  vertices: LonLat[];
  neighbors: string[];
  spatial_children?: string[];
  index_parent?: string;
}

const records = <T extends { type: string }>(name: string): T[] => readJsonl<T>(name, dir).filter((r) => r.type !== 'meta');

/** Great-circle distance, degrees: compares positions the same way at the poles as anywhere. */
function distance([lon1, lat1]: readonly number[], [lon2, lat2]: readonly number[]): number {
  const h = Math.sin(((lat2! - lat1!) * DEG) / 2) ** 2 + Math.cos(lat1! * DEG) * Math.cos(lat2! * DEG) * Math.sin(((lon2! - lon1!) * DEG) / 2) ** 2;
  return (2 * Math.asin(Math.min(1, Math.sqrt(h)))) / DEG;
}

const sorted = (ids: readonly string[]): string[] => [...ids].sort();

/** The faces of the icosahedron (ISEA7H_Z7's, DGGAL's frame) the zone's corners lie on. */
function facesOf(id: string): Set<number> {
  const out = new Float64Array(2);
  return new Set(
    createIsea7hZ7()
      .describeZone(id)
      .vertices.map(([lon, lat]) => {
        iseaProjection.forward(lat, lon, out);
        return faceOf5x6(out[0]!, out[1]!);
      }),
  );
}

/** Points whose zone at every level is the one the reference names, but for pole ties; returns the ties. */
function holdPoints(grid: Dggrs, points: PointRecord[], at: (p: PointRecord) => LonLat = (p) => [p.lon, p.lat]): string[] {
  const ties: string[] = [];
  let compared = 0;
  for (const p of points) {
    for (const [res, cell] of Object.entries(p.cells)) {
      const [lon, lat] = at(p);
      const ours = grid.zoneFromPoint(lon, lat, Number(res));
      compared++;
      expect(grid.zoneToUint64!(cell.z7).toString(16).padStart(16, '0'), `${cell.z7}: 64-bit form`).to.equal(cell.z7_int64.padStart(16, '0'));
      if (ours === cell.z7) continue;
      // A point exactly at a pole lies on the boundary of neighbouring zones: either is its zone.
      expect(Math.abs(p.lat), `${p.id} (${p.lon}, ${p.lat}) level ${res}: ${ours} against ${cell.z7}`).to.equal(90);
      expect(grid.neighbours(ours), `${p.id} level ${res}: ${cell.z7} borders ${ours}`).to.include(cell.z7);
      ties.push(`${p.id}@${res}`);
    }
  }
  expect(compared).to.equal(points.length * 13);
  return ties;
}

describe("IGEO7 against DGGRID's IGEO7 preset (fixtures/shared/oracle/dggrid)", function () {
  this.timeout(60_000);
  const grid = createIgeo7();
  const points = records<PointRecord>('igeo7_points.jsonl');
  const cells = records<CellRecord>('igeo7_cells.jsonl');

  it('locates every point at levels 0-12 in the zone DGGRID names, with its 64-bit id; the only differences are ties at the poles', () => {
    // This half of DGGRID's 320 points (the README's split), among them several exactly at a pole.
    expect(points.length).to.be.above(150);
    const ties = holdPoints(grid, points);
    expect(ties.length, ties.join(' ')).to.be.above(0);
  });

  it('has every zone DGGRID describes: centroid and vertices within 1e-7 degrees, but for the face-edge cells DGGRID 9.0 misplaces', () => {
    expect(cells.length).to.be.above(1500);
    const misplaced: string[] = [];
    let worstCentroid = 0, worstVertex = 0;
    for (const c of cells) {
      const d = grid.describeZone(c.z7);
      expect(d.level).to.equal(c.res);
      expect(d.vertices, c.z7).to.have.length(c.vertices.length);
      const centroid = distance(d.centroid, c.centroid);
      expect(centroid, `${c.z7} centroid`).to.be.below(1e-7);
      worstCentroid = Math.max(worstCentroid, centroid);
      // DGGRID starts a ring at another corner: each of its vertices is one of ours.
      const vertex = Math.max(...c.vertices.map((v) => Math.min(...d.vertices.map((w) => distance(v, w)))));
      if (vertex < 1e-7) {
        worstVertex = Math.max(worstVertex, vertex);
        continue;
      }
      expect(c.res % 2, `${c.z7}: vertices ${vertex} degrees off at an even level`).to.equal(1);
      expect(facesOf(c.z7).size, `${c.z7}: vertices ${vertex} degrees off, yet on one face`).to.be.above(1);
      expect(vertex, c.z7).to.be.below(0.1);
      misplaced.push(c.z7);
    }
    // Half of the 40 of DGGRID's README, at levels 1, 3, 5 and 7.
    expect(misplaced.length, misplaced.join(' ')).to.be.within(1, 40);
    expect(worstCentroid).to.be.above(0);
    expect(worstVertex).to.be.below(1e-7);
  });

  it("has DGGRID's hierarchy: the same neighbours, children (DGGRID's spatial children) and first parent (its index parent)", () => {
    let parents = 0;
    for (const c of cells) {
      expect(sorted(grid.neighbours(c.z7)), `${c.z7} neighbours`).to.deep.equal(sorted(c.neighbors));
      if (c.spatial_children) expect(sorted(grid.children(c.z7)), `${c.z7} children`).to.deep.equal(sorted(c.spatial_children));
      if (c.res === 0) expect(grid.parents(c.z7)).to.deep.equal([]);
      else {
        expect(grid.parents(c.z7)[0], `${c.z7} parent`).to.equal(c.index_parent);
        parents++;
      }
    }
    expect(parents).to.be.above(1500);
  });

  it('lists the zones of a box by their position in its own frame (a box DGGRID would draw around a zone holds it)', () => {
    for (const c of cells.filter((x) => x.res === 5 && Math.abs(x.centroid[0]) < 179 && Math.abs(x.centroid[1]) < 89).slice(0, 40)) {
      const [lon, lat] = c.centroid;
      expect(grid.zonesInBBox(5, [lon - 0.01, lat - 0.01, lon + 0.01, lat + 0.01]), c.z7).to.include(c.z7);
    }
  });
});

describe('the IGEO7 grids DGGRID-based services serve, as our Z7 grids (cross-checks of fixtures/shared/oracle/dggrid)', () => {
  it("pydggsapi's IGEO7 (DGGRID at 11.20E, WGS84 latitudes converted outside it) names ISEA7H_Z7's zones", () => {
    holdPoints(createIsea7hZ7(), records<PointRecord>('igeo7_pydggsapi_points.jsonl'));
  });

  it("the reconstruction of DGGRID 9.1's IGEO7v2 (IVEA, Z7, WGS84) names IVEA7H_Z7's zones", () => {
    holdPoints(createIvea7hZ7(), records<PointRecord>('igeo7v2_points.jsonl'));
  });
});
