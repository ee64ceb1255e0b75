/**
 * The refined outlines that depart from DGGAL's `geom` because DGGAL's own ring is invalid
 * (test/fixtures/dggal/outline_fix_geom.jsonl; docs/grids.md names the departures): DGGAL's ring meets
 * itself, ours does not, holds the zone's centroid, and differs from DGGAL's only as named. Where DGGAL's
 * ring is valid the oracle suites hold ours to it point for point.
 */
import { expect } from 'chai';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { outlineToGeoJson } from '../../../src/domain/geometry/rfc7946.js';
import { ringSelfContact } from '../../support/ring-simplicity.js';
import { fixturesDir, pointDiff, readJsonl } from './oracle-support.js';

interface GeomRecord { dggrs: string; zone: string; note: string; feature: { geometry: { type: string; coordinates: [number, number][][] } } }

const records = readJsonl<GeomRecord>('outline_fix_geom.jsonl', fixturesDir);
const record = (zone: string): GeomRecord => records.find((r) => r.zone === zone)!;
const TOL = 1e-10;

/**
 * The indices of DGGAL's points that ours leaves out, ours being DGGAL's ring with those removed (in order,
 * within TOL on the ground; both rings closed, compared without their closing points).
 */
function leftOut(oursClosed: readonly (readonly number[])[], dggalClosed: readonly (readonly number[])[]): number[] {
  const ours = oursClosed.slice(0, -1), dggal = dggalClosed.slice(0, -1);
  const out: number[] = [];
  let k = 0;
  dggal.forEach((p, i) => {
    if (k < ours.length && pointDiff(ours[k]![0]!, ours[k]![1]!, p[0]!, p[1]!) < TOL) k++;
    else out.push(i);
  });
  expect(k, 'every point of ours is one of DGGAL\'s, in order').to.equal(ours.length);
  return out;
}

function expectValidHoldingCentroid(grid: string, zone: string): void {
  const g = GRID_FACTORIES[grid]!();
  const geo = outlineToGeoJson(g.zoneOutline(zone, true));
  const polys = geo.type === 'Polygon' ? [geo.coordinates] : geo.coordinates;
  for (const poly of polys) expect(ringSelfContact(poly[0]!), `${zone} GeoJSON`).to.equal(null);
  expect(booleanPointInPolygon(g.describeZone(zone).centroid, { type: 'Feature', properties: {}, geometry: geo } as never), `${zone} holds its centroid`).to.equal(true);
}

describe('refined outlines where DGGAL\'s own ring is invalid', () => {
  it('has DGGAL\'s rings, each meeting itself', () => {
    expect(records.map((r) => r.zone)).to.deep.equal(['Q9-57F6C0-A', 'S9-267BF46-A', 'Q8-57F6C0-A', 'P0-6487B-H', 'R0-2BFB60-H', 'N4444444444444441', 'S4444444444444443']);
    for (const r of records) expect(ringSelfContact(r.feature.geometry.coordinates[0]!), r.zone).to.not.equal(null);
  });

  for (const zone of ['Q9-57F6C0-A', 'S9-267BF46-A', 'Q8-57F6C0-A']) {
    it(`ISEA7H ${zone} (icosahedron vertex): DGGAL's ring without its sixth edge, which retraces the first`, () => {
      const dggal = record(zone).feature.geometry.coordinates[0]!;
      const ours = GRID_FACTORIES.ISEA7H!().zoneOutline(zone, true);
      // DGGAL: five densified edges of 12 points, a sixth that repeats the first edge's points, the closing point.
      const dropped = leftOut(ours, dggal);
      expect(dropped).to.deep.equal([60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71]);
      dropped.forEach((i) => expect(pointDiff(dggal[i]![0]!, dggal[i]![1]!, dggal[i - 60]![0]!, dggal[i - 60]![1]!), `point ${i}`).to.be.below(TOL));
      expectValidHoldingCentroid('ISEA7H', zone);
    });
  }

  for (const zone of ['P0-6487B-H', 'R0-2BFB60-H']) {
    it(`ISEA7H ${zone} (micrometres from the North Pole): a valid ring round the pole, where DGGAL's lines cross`, () => {
      const ours = GRID_FACTORIES.ISEA7H!().zoneOutline(zone, true);
      // Each point where it is: the ring winds once round the pole.
      let winding = 0;
      for (let i = 1; i < ours.length; i++) {
        const d = ours[i]![0] - ours[i - 1]![0];
        winding += d - 360 * Math.round(d / 360);
      }
      expect(Math.abs(winding)).to.be.closeTo(360, 1e-6);
      expectValidHoldingCentroid('ISEA7H', zone);
    });
  }

  for (const zone of ['N4444444444444441', 'S4444444444444443']) {
    it(`rHEALPix ${zone} (beside a pole): DGGAL's ring without the side-edge points on the next edge's parallel`, () => {
      const dggal = record(zone).feature.geometry.coordinates[0]!;
      const grid = GRID_FACTORIES.rHEALPix!();
      const ours = grid.zoneOutline(zone, true);
      const dropped = leftOut(ours, dggal);
      expect(dropped).to.have.length(6);
      // Each left-out point lies on the pole-side parallel, along which the ring comes back over it.
      const poleSide = zone.startsWith('N') ? Math.max(...dggal.map((p) => p[1]!)) : Math.min(...dggal.map((p) => p[1]!));
      for (const i of dropped) expect(dggal[i]![1], `point ${i}`).to.equal(poleSide);
      // The zone's corners are all kept.
      for (const [lon, lat] of grid.describeZone(zone).vertices) expect(ours.some((p) => pointDiff(p[0], p[1], lon, lat) < 1e-9), `corner ${lon},${lat}`).to.equal(true);
      expectValidHoldingCentroid('rHEALPix', zone);
    });
  }
});
