/**
 * H3's numeric zone keys and clearances (h3-point-lattice.ts): the key of a point names the cell
 * h3-js's latLngToCell gives it, everywhere (random points over the globe at every resolution,
 * points a hair from cell corners and edges, the poles, the antimeridian, the pentagons), keys
 * and ids convert both ways, and every point of the cap a clearance names lies in the same cell
 * by h3-js itself.
 */
import { expect } from 'chai';
import * as h3 from 'h3-js';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { h3CellKey, h3KeyCell } from '../../../src/adapters/grids/h3-point-lattice.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

const DEG = Math.PI / 180;

/** The point `dist` radians from (lon, lat) along `bearing`, on the sphere of latitude and longitude. */
function destination(lon: number, lat: number, dist: number, bearing: number): [number, number] {
  const p1 = lat * DEG, l1 = lon * DEG;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(dist) + Math.cos(p1) * Math.sin(dist) * Math.cos(bearing));
  const l2 = l1 + Math.atan2(Math.sin(bearing) * Math.sin(dist) * Math.cos(p1), Math.cos(dist) - Math.sin(p1) * Math.sin(p2));
  return [((((l2 / DEG + 180) % 360) + 360) % 360) - 180, p2 / DEG];
}

const RESOLUTIONS = Array.from({ length: 16 }, (_, r) => r);

describe('H3 zone keys: a number per cell, from points by arithmetic, the cells h3-js gives', function () {
  this.timeout(120_000);
  const grid = new H3Dggrs();
  const keyCell = (lon: number, lat: number, res: number) => grid.zoneIdFromKey(grid.zoneKeyFromPoint(lon, lat, res), res);

  it('keys and ids convert both ways at every resolution, keys are safe integers', () => {
    const rnd = mulberry32(11);
    for (const res of RESOLUTIONS) {
      for (let i = 0; i < 200; i++) {
        const cell = h3.latLngToCell(Math.asin(2 * rnd() - 1) / DEG, rnd() * 360 - 180, res);
        const key = h3CellKey(cell);
        expect(Number.isSafeInteger(key), cell).to.equal(true);
        expect(h3KeyCell(key, res)).to.equal(cell);
        expect(grid.zoneIdFromKey(key, res)).to.equal(cell);
      }
    }
    // Pentagons (a deleted digit) and the highest base cell.
    for (const res of RESOLUTIONS) for (const p of h3.getPentagons(res)) expect(h3KeyCell(h3CellKey(p), res)).to.equal(p);
    const last = h3.getRes0Cells().at(-1)!;
    expect(h3KeyCell(h3CellKey(last), 0)).to.equal(last);
  });

  it('random points over the globe: the cell of latLngToCell at every resolution', () => {
    const rnd = mulberry32(12);
    for (const res of RESOLUTIONS) {
      for (let i = 0; i < 20_000; i++) {
        const lon = rnd() * 360 - 180, lat = Math.asin(2 * rnd() - 1) / DEG;
        const got = keyCell(lon, lat, res);
        if (got !== h3.latLngToCell(lat, lon, res)) expect(got, `${lon},${lat} res ${res}`).to.equal(h3.latLngToCell(lat, lon, res));
      }
    }
  });

  it('points a hair from cell corners and edges, between faces, at pentagons: the cell of latLngToCell', () => {
    const rnd = mulberry32(13);
    let checked = 0;
    for (const res of RESOLUTIONS) {
      // Cells around random points, and around the pentagons (where five faces meet).
      const cells = [...Array.from({ length: 40 }, () => h3.latLngToCell(Math.asin(2 * rnd() - 1) / DEG, rnd() * 360 - 180, res)), ...h3.getPentagons(res)];
      for (const cell of cells) {
        const corners = h3.cellToBoundary(cell);
        for (let k = 0; k < corners.length; k++) {
          const [aLat, aLon] = corners[k]!, [bLat, bLon] = corners[(k + 1) % corners.length]!;
          for (const t of [0, 0.5, rnd()]) {
            const lat0 = aLat + (bLat - aLat) * t, lon0 = aLon + (bLon - aLon) * t;
            for (const hair of [1e-13, 1e-11, 1e-9, 1e-7]) {
              const lon = lon0 + (rnd() - 0.5) * hair, lat = Math.max(-90, Math.min(90, lat0 + (rnd() - 0.5) * hair));
              const got = keyCell(lon, lat, res);
              if (got !== h3.latLngToCell(lat, lon, res)) expect(got, `${lon},${lat} res ${res}`).to.equal(h3.latLngToCell(lat, lon, res));
              checked++;
            }
          }
        }
      }
    }
    expect(checked).to.be.above(50_000);
  });

  it('points in a row over many faces (each point tried first on the face of the one before)', () => {
    for (const res of [2, 5, 9]) {
      for (const lon of [-170, -97.3, -36, 0, 12.5, 71, 144, 180]) {
        for (let lat = -90; lat <= 90; lat += 0.013) {
          const x = lon + lat / 7;
          const got = keyCell(x, lat, res);
          if (got !== h3.latLngToCell(lat, x, res)) expect(got, `${x},${lat} res ${res}`).to.equal(h3.latLngToCell(lat, x, res));
        }
      }
    }
  });

  it('poles, the antimeridian, longitudes beyond it; no key for points h3 cannot place', () => {
    for (const res of RESOLUTIONS) {
      for (const [lon, lat] of [[0, 90], [123, 90], [0, -90], [-45, -90], [180, 10], [-180, 10], [179.9999999999, -33], [540, 20], [-200, 5], [10, 91], [10, -95]] as const) {
        expect(keyCell(lon, lat, res), `${lon},${lat} res ${res}`).to.equal(h3.latLngToCell(lat, lon, res));
      }
      for (const [lon, lat] of [[NaN, 0], [0, NaN], [Infinity, 0], [0, -Infinity]] as const) expect(grid.zoneKeyFromPoint(lon, lat, res)).to.be.NaN;
    }
  });
});

describe('H3 zone keys with clearance: a cap around the point wholly in its cell', function () {
  this.timeout(120_000);
  const grid = new H3Dggrs();
  const out = new Float64Array(2);

  it("every point of the cap is in the centre's cell by latLngToCell (points on the cap's rim, in 16 directions)", () => {
    const rnd = mulberry32(21);
    let tested = 0, cleared = 0;
    const pentagonCentres = h3.getPentagons(0).map((p) => h3.cellToLatLng(p));
    for (const res of RESOLUTIONS) {
      for (let i = 0; i < 1500; i++) {
        // A third of the points near a pentagon, where faces meet.
        const [lon, lat] = i % 3 === 0 ? destination(pentagonCentres[i % 12]![1], pentagonCentres[i % 12]![0], rnd() * 0.3, rnd() * 2 * Math.PI) : [rnd() * 360 - 180, Math.asin(2 * rnd() - 1) / DEG];
        grid.zoneKeyClearance(lon, lat, res, out);
        const [key, room] = [out[0]!, out[1]!];
        const cell = h3.latLngToCell(lat, lon, res);
        expect(grid.zoneIdFromKey(key, res), `${lon},${lat} res ${res}`).to.equal(cell);
        tested++;
        if (room <= 0) continue;
        cleared++;
        for (let b = 0; b < 16; b++) {
          const [x, y] = destination(lon, lat, room * (1 - 1e-9), (b / 16) * 2 * Math.PI + rnd() * 0.3);
          expect(h3.latLngToCell(y, x, res), `${x},${y}: ${room} rad from ${lon},${lat} at res ${res}`).to.equal(cell);
        }
      }
    }
    expect(cleared / tested, 'share of points with room').to.be.above(0.5);
  });

  it("the room is a fair share of the cell: a cell's centre gets more than half its radius", () => {
    for (const res of [3, 6, 9]) {
      const radius = Math.sqrt(h3.getHexagonAreaAvg(res, h3.UNITS.m2) / Math.PI) / 6_371_007.2;
      for (const cell of h3.gridDisk(h3.latLngToCell(47, 8, res), 3)) {
        const [lat, lon] = h3.cellToLatLng(cell);
        grid.zoneKeyClearance(lon, lat, res, out);
        expect(grid.zoneIdFromKey(out[0]!, res)).to.equal(cell);
        expect(out[1], cell).to.be.within(0.5 * radius, radius);
      }
    }
  });

  it('no room where h3 cannot place the point', () => {
    grid.zoneKeyClearance(NaN, 10, 3, out);
    expect(out[0]).to.be.NaN;
    expect(out[1]).to.equal(0);
    grid.zoneKeyClearance(10, 91, 3, out);
    expect(grid.zoneIdFromKey(out[0]!, 3)).to.equal(h3.latLngToCell(91, 10, 3));
    expect(out[1]).to.equal(0);
  });
});
