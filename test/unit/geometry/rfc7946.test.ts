import { expect } from 'chai';
import * as h3 from 'h3-js';
import { outlineToGeoJson, outlineToRings, rfc7946Problems, signedArea, type ZonePolygon } from '../../../src/domain/geometry/rfc7946.js';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';

type P = [number, number];
const close = (r: P[]): P[] => [...r, r[0]!];
const totalArea = (g: ZonePolygon) =>
  (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).reduce((s, poly) => s + signedArea(poly[0]!.slice(0, -1)), 0);

function expectValid(g: ZonePolygon): void {
  expect(rfc7946Problems(g), JSON.stringify(g)).to.deep.equal([]);
}

describe('RFC 7946 zone geometry', () => {
  it('keeps a plain ring as one closed counter-clockwise polygon', () => {
    const g = outlineToGeoJson(close([[0, 0], [1, 0], [1, 1], [0, 1]]));
    expect(g.type).to.equal('Polygon');
    expectValid(g);
    expect(g.coordinates[0]).to.have.length(5);
    expect(totalArea(g)).to.be.closeTo(1, 1e-12);
  });

  it('reverses a clockwise ring and closes an open one', () => {
    const g = outlineToGeoJson([[0, 0], [0, 1], [1, 1], [1, 0]]);
    expectValid(g);
    expect(g.coordinates[0]![0]).to.deep.equal(g.coordinates[0]![4]);
    expect(totalArea(g)).to.be.closeTo(1, 1e-12);
  });

  it('splits a ring crossing the antimeridian into two polygons, conserving area', () => {
    const g = outlineToGeoJson(close([[175, -2], [185, -2], [185, 2], [175, 2]]));
    expect(g.type).to.equal('MultiPolygon');
    expectValid(g);
    const polys = (g as Extract<ZonePolygon, { type: 'MultiPolygon' }>).coordinates;
    expect(polys).to.have.length(2);
    const xs = polys.map((p) => p[0]!.map((c) => c[0]!));
    expect(xs.some((x) => Math.max(...x) === 180 && Math.min(...x) === 175)).to.equal(true);
    expect(xs.some((x) => Math.min(...x) === -180 && Math.max(...x) === -175)).to.equal(true);
    expect(totalArea(g)).to.be.closeTo(40, 1e-9);
  });

  it('runs an edge whose ends are half a turn apart over the pole, on the side the ring bounds', () => {
    // A zone with the north pole on its boundary: its top edge goes up 0°E and down 180°E.
    const g = outlineToGeoJson(close([[0, 60], [60, 50], [120, 50], [180, 60]]));
    expectValid(g);
    const ring = (g as Extract<ZonePolygon, { type: 'Polygon' }>).coordinates[0]!;
    expect(ring.filter((p) => p[1] === 90).map((p) => p[0])).to.have.members([0, 180]);
    expect(pointInRing([90, 80], ring as number[][])).to.equal(true);
    expect(pointInRing([-90, 80], ring as number[][])).to.equal(false);
  });

  it('gives each lobe of a ring that crosses the antimeridian several times its own polygon', () => {
    // East of 180 in two separate lobes (172..181 and 178..182): no zero-width bridge along the cut.
    const g = outlineToGeoJson(close([[172, 0], [181, 0], [179, 1], [178, 2], [182, 3], [182, 4], [172, 4]]));
    expectValid(g);
    expect(g.type).to.equal('MultiPolygon');
    const polys = (g as Extract<ZonePolygon, { type: 'MultiPolygon' }>).coordinates;
    expect(polys).to.have.length(3);
    const west = polys.filter((p) => p[0]!.every((c) => c[0]! <= -178));
    expect(west).to.have.length(2);
    expect(totalArea(g)).to.be.closeTo(Math.abs(signedArea([[172, 0], [181, 0], [179, 1], [178, 2], [182, 3], [182, 4], [172, 4]])), 1e-9);
  });

  it('makes a cap round a pole one polygon, seamed on the antimeridian', () => {
    const g = outlineToGeoJson(close([[30, 80], [150, 80], [270, 80]]));
    expectValid(g);
    expect(g.type).to.equal('Polygon');
    const ring = (g as Extract<ZonePolygon, { type: 'Polygon' }>).coordinates[0]!;
    expect(Math.min(...ring.map((p) => p[0]!))).to.equal(-180);
    expect(Math.max(...ring.map((p) => p[0]!))).to.equal(180);
    expect(pointInRing([0, 85], ring as number[][])).to.equal(true);
  });

  it('splits a ring given west of -180', () => {
    const g = outlineToGeoJson(close([[-185, 10], [-178, 10], [-178, 12], [-185, 12]]));
    expect(g.type).to.equal('MultiPolygon');
    expectValid(g);
    expect(totalArea(g)).to.be.closeTo(14, 1e-9);
  });

  it('moves a ring lying wholly beyond 180 back into range', () => {
    const g = outlineToGeoJson(close([[185, 0], [190, 0], [190, 5], [185, 5]]));
    expect(g.type).to.equal('Polygon');
    expectValid(g);
    expect(g.coordinates[0]!.every((p) => (p as number[])[0]! >= -175 && (p as number[])[0]! <= -170)).to.equal(true);
  });

  it('unwraps a ring given with jumping longitudes', () => {
    const g = outlineToGeoJson(close([[179, 0], [-179, 0], [-179, 1], [179, 1]]));
    expect(g.type).to.equal('MultiPolygon');
    expectValid(g);
    expect(totalArea(g)).to.be.closeTo(2, 1e-9);
  });

  it('closes a ring around the north pole along the pole', () => {
    const ring: P[] = [];
    for (let i = 0; i <= 12; i++) ring.push([-170 + 30 * i, 80 + (i % 2)]);
    // Continuous longitudes: last point is the first plus a whole turn.
    const g = outlineToGeoJson(ring);
    expectValid(g);
    const all = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).flatMap((p) => p[0]!);
    expect(all.some((p) => p[1] === 90)).to.equal(true);
    expect(Math.min(...all.map((p) => p[0]!))).to.equal(-180);
    expect(Math.max(...all.map((p) => p[0]!))).to.equal(180);
    // Area of the cap between lat ~80.5 and 90 over 360 degrees of longitude.
    expect(totalArea(g)).to.be.closeTo(360 * 9.5, 360 * 0.6);
  });

  it('closes a ring around the south pole along the pole, also when given clockwise', () => {
    const ring: P[] = [];
    for (let i = 0; i <= 8; i++) ring.push([100 - 45 * i, -85]);
    const g = outlineToGeoJson(ring);
    expectValid(g);
    const all = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).flatMap((p) => p[0]!);
    expect(all.some((p) => p[1] === -90)).to.equal(true);
    expect(totalArea(g)).to.be.closeTo(360 * 5, 1e-6);
  });

  it('handles a pole ring whose closing point repeats the first one unshifted', () => {
    const ring: P[] = [];
    for (let i = 0; i < 6; i++) ring.push([-180 + 60 * i + 7, 75]);
    const g = outlineToGeoJson(close(ring));
    expectValid(g);
    expect(totalArea(g)).to.be.closeTo(360 * 15, 1e-6);
  });

  it('handles a vertex lying on a pole', () => {
    const g = outlineToGeoJson(close([[0, 80], [40, 80], [20, 90]]));
    expectValid(g);
    const ring = g.coordinates[0] as number[][];
    expect(ring.filter((p) => p[1] === 90)).to.have.length.greaterThan(0);
  });

  it('throws on a degenerate ring', () => {
    expect(() => outlineToRings([[0, 0], [1, 1], [0, 0]])).to.throw();
  });

  describe('real H3 cells', () => {
    const grid = new H3Dggrs();
    const cells = [
      h3.latLngToCell(0, 180, 2),
      h3.latLngToCell(-16, 179.9, 3),
      h3.latLngToCell(65, -179.99, 1),
      h3.latLngToCell(90, 0, 0),
      h3.latLngToCell(90, 0, 2),
      h3.latLngToCell(-90, 0, 1),
      h3.latLngToCell(45, 7, 5),
    ];
    for (const cell of cells) {
      for (const refined of [false, true]) {
        it(`${cell} (refined=${refined}) becomes valid GeoJSON containing its centroid`, () => {
          const g = outlineToGeoJson(grid.zoneOutline(cell, refined));
          expectValid(g);
          const [lon, lat] = grid.describeZone(cell).centroid;
          const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
          expect(polys.some((p) => pointInRing([lon, lat], p[0] as number[][])), 'centroid inside').to.equal(true);
        });
      }
    }
  });
});

function pointInRing([x, y]: number[], ring: number[][]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!, [xj, yj] = ring[j]!;
    if (yi! > y! !== yj! > y! && x! < ((xj! - xi!) * (y! - yi!)) / (yj! - yi!) + xi!) inside = !inside;
  }
  return inside;
}
