/**
 * Geometry quantized to sub-zones (DGGS-JSON-FG `dggsPlace`) on IVEA7H: every index names the
 * sub-zone holding a position of the densified geometry, runs outside the zone are one 0, and a line
 * crossing the zone keeps the sub-zones along its edge crossings.
 */
import { expect } from 'chai';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { dggsPlace, QuantizeBudgetError, type Quantizer } from '../../../src/domain/geometry/dggs-place.js';
import { zoneSpanDegrees } from '../../../src/domain/zone-data.js';

const grid = createIvea7h();
const zone = grid.zoneFromPoint(9.5, 46.5, 3);
const depth = 3;
const subZones = grid.subZones(zone, depth);
const index = new Map(subZones.map((z, i) => [z, i + 1]));
const level = grid.zoneLevel(zone) + depth;

function quantizer(naming: 'index' | 'zone-id' = 'index', budget = 1_000_000): Quantizer {
  return {
    locate: (lon, lat) => index.get(grid.zoneFromPoint(lon, lat, level)) ?? 0,
    name: naming === 'index' ? (i) => i : (i) => (i > 0 ? subZones[i - 1]! : null),
    step: zoneSpanDegrees(grid, level) / 8,
    budget: { left: budget },
  };
}

describe('dggsPlace (DGGS-JSON-FG quantization)', () => {
  const c = grid.describeZone(zone).centroid;
  const [w, , e] = grid.describeZone(zone).bbox;

  it('names a point by its sub-zone, as an index or an id, and leaves out points outside', () => {
    expect(dggsPlace({ type: 'Point', coordinates: c }, quantizer())).to.deep.equal({ type: 'Point', coordinates: index.get(grid.zoneFromPoint(c[0], c[1], level)) });
    expect(dggsPlace({ type: 'Point', coordinates: c }, quantizer('zone-id'))).to.deep.equal({ type: 'Point', coordinates: grid.zoneFromPoint(c[0], c[1], level) });
    expect(dggsPlace({ type: 'Point', coordinates: [c[0] + 40, c[1]] }, quantizer())).to.equal(null);
    expect(dggsPlace({ type: 'MultiPoint', coordinates: [c, [c[0] + 40, c[1]]] }, quantizer())).to.deep.equal({ type: 'MultiPoint', coordinates: [index.get(grid.zoneFromPoint(c[0], c[1], level))] });
  });

  it('follows a line across the zone: one 0 for each outside run, the crossing sub-zones kept, no repeats', () => {
    const line = [[w - 2, c[1]], [e + 2, c[1]]];
    const place = dggsPlace({ type: 'LineString', coordinates: line }, quantizer());
    expect(place?.type).to.equal('LineString');
    const coords = (place as { coordinates: number[] }).coordinates;
    expect(coords[0]).to.equal(0);
    expect(coords[coords.length - 1]).to.equal(0);
    expect(coords.slice(1, -1)).to.not.include(0);
    for (let i = 1; i < coords.length; i++) expect(coords[i]).to.not.equal(coords[i - 1]);
    // Walking the line finely meets these sub-zones in this order; only corners the line clips for
    // less than the densifying step (an eighth of a sub-zone) can be missing.
    const seen: { ix: number; run: number }[] = [];
    const steps = 40_000;
    const stepDeg = (line[1]![0]! - line[0]![0]!) / steps;
    for (let k = 0; k <= steps; k++) {
      const ix = index.get(grid.zoneFromPoint(line[0]![0]! + stepDeg * k, c[1], level)) ?? 0;
      if (seen[seen.length - 1]?.ix !== ix) seen.push({ ix, run: 0 });
      seen[seen.length - 1]!.run += stepDeg;
    }
    const step = zoneSpanDegrees(grid, level) / 8;
    expect(coords).to.deep.equal(seen.filter((x) => coords.includes(x.ix)).map((x) => x.ix));
    for (const x of seen.filter((y) => !coords.includes(y.ix))) expect(x.run).to.be.below(step);
  });

  it('keeps polygons with a vertex inside, dropping holes outside; leaves out what lies wholly outside', () => {
    const d = (e - w) / 4;
    const ring = [[c[0] - d, c[1] - d / 2], [c[0] + d, c[1] - d / 2], [c[0] + d, c[1] + d / 2], [c[0] - d, c[1] + d / 2], [c[0] - d, c[1] - d / 2]];
    const farHole = [[c[0] + 30, c[1]], [c[0] + 31, c[1]], [c[0] + 31, c[1] + 1], [c[0] + 30, c[1]]];
    const place = dggsPlace({ type: 'Polygon', coordinates: [ring, farHole] }, quantizer()) as { type: string; coordinates: number[][] };
    expect(place.type).to.equal('Polygon');
    expect(place.coordinates).to.have.length(1);
    expect(place.coordinates[0]).to.not.include(0);
    expect(place.coordinates[0]!.length).to.be.greaterThan(4);
    expect(dggsPlace({ type: 'MultiPolygon', coordinates: [[farHole]] }, quantizer())).to.equal(null);
    expect(dggsPlace({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [c[0] + 50, c[1]] }] }, quantizer())).to.equal(null);
  });

  it('stops at its position budget', () => {
    expect(() => dggsPlace({ type: 'LineString', coordinates: [[w - 2, c[1]], [e + 2, c[1]]] }, quantizer('index', 50))).to.throw(QuantizeBudgetError);
  });
});
