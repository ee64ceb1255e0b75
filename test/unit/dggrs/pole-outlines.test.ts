/**
 * Refined outlines of 7H zones at the South Pole against DGGAL's `geom` (test/fixtures/dggal/pole_geom.jsonl):
 * point for point, and without the spike that kept both ends of two edges meeting 1e-11 rad of longitude
 * (nanometres) apart beside the pole, which made the level-12 zone holding the pole self-intersect in
 * IVEA7H, RTEA7H and their Z7 forms.
 */
import { expect } from 'chai';
import kinks from '@turf/kinks';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { outlineToGeoJson } from '../../../src/domain/geometry/rfc7946.js';
import { fixturesDir, pointDiff, readJsonl } from './oracle-support.js';

interface GeomRecord { dggrs: string; zone: string; note: string; feature: { geometry: { type: string; coordinates: [number, number][][] } } }

describe('7H refined outlines at the South Pole against DGGAL geom', () => {
  const records = readJsonl<GeomRecord>('pole_geom.jsonl', fixturesDir);
  it('has the records of every 7H grid that had the fault, and of ISEA7H', () => {
    expect([...new Set(records.map((r) => r.dggrs))].sort()).to.deep.equal(['ISEA7H', 'IVEA7H', 'IVEA7H_Z7', 'RTEA7H', 'RTEA7H_Z7']);
  });
  for (const r of records) {
    it(`${r.dggrs} ${r.zone} (${r.note}): DGGAL's points, and no self-intersection`, () => {
      const grid = GRID_FACTORIES[r.dggrs]!();
      const expected = r.feature.geometry.coordinates[0]!;
      const got = grid.zoneOutline(r.zone, true);
      expect(got).to.have.length(expected.length);
      got.forEach((p, i) => expect(pointDiff(p[0], p[1], expected[i]![0], expected[i]![1]), `point ${i}`).to.be.below(1e-9));
      const g = outlineToGeoJson(got);
      const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
      for (const poly of polys) expect(kinks({ type: 'Polygon', coordinates: poly } as never).features).to.have.length(0);
    });
  }
});
