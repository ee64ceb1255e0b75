/**
 * Refined outlines of 7H zones beside both poles at levels 13-19 against DGGAL's `geom`
 * (test/fixtures/dggal/pole_refined_geom.jsonl), point for point. An edge that only ends near a pole's
 * vertex of the net gets DGGAL's usual twelve points; ours once gave it twenty times more (222 points
 * against DGGAL's 107 for IVEA7H O5-4EF4991EAD-A, up to 1e-4 degrees off).
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { fixturesDir, pointDiff, readJsonl } from './oracle-support.js';

interface GeomRecord { dggrs: string; zone: string; note: string; feature: { geometry: { coordinates: [number, number][][] } } }

describe('7H refined outlines beside the poles against DGGAL geom', () => {
  const records = readJsonl<GeomRecord>('pole_refined_geom.jsonl', fixturesDir);
  it('has zones of every 7H grid beside both poles', () => {
    const kinds = new Set(records.map((r) => `${r.dggrs} ${r.note.includes('North') ? 'N' : 'S'}`));
    expect([...kinds].sort()).to.deep.equal(['ISEA7H N', 'ISEA7H S', 'IVEA7H N', 'IVEA7H S', 'RTEA7H N', 'RTEA7H S']);
  });
  for (const r of records) {
    it(`${r.dggrs} ${r.zone} (${r.note}): DGGAL's points`, () => {
      const expected = r.feature.geometry.coordinates[0]!;
      const got = GRID_FACTORIES[r.dggrs]!().zoneOutline(r.zone, true);
      expect(got).to.have.length(expected.length);
      got.forEach((p, i) => expect(pointDiff(p[0], p[1], expected[i]![0], expected[i]![1]), `point ${i}`).to.be.below(1e-9));
    });
  }
});
