/**
 * Whether ISEA7H_Z7 ids are DGGRID's IGEO7 ids, judged on DGGRID's own worked examples
 * (test/fixtures/dggrid/igeo7-worked-examples.json): the Z7 numbering is the same, the grid is not.
 * DGGRID places icosahedron vertex 0 at 11.25E (DGGAL and OGC Annex B: 11.20E) and reads latitudes as
 * authalic (DGGAL converts geodetic latitudes first), so one id names zones about 0.05 degrees of longitude
 * and up to 0.13 degrees of latitude apart. That is why IGEO7 is its own grid (src/domain/dggrs/grids/dggrid-grids.ts,
 * held to DGGRID's answers in igeo7-oracle.test.ts), not an alias.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { authalicToGeodetic, geodeticToAuthalic } from '../../../src/domain/dggrs/core/authalic-latitude.js';
import { createIsea7hZ7 } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { z7FromInt64 } from '../../../src/domain/dggrs/lattices/z7/z7-index.js';

interface Examples {
  z7Transform: { level: number; points: { lon: number; lat: number; z7: string }[] };
  igeo7WholeEarth: { level: number; cellCount: number; cells: [string, number, number][] };
}

const examples = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/dggrid/igeo7-worked-examples.json'), 'utf8'),
) as Examples;

const DEG = Math.PI / 180;
/** DGGRID's vertex-0 longitude minus DGGAL's. */
const DGGRID_LON_SHIFT = 11.25 - 11.2;
/** A point of DGGRID's grid (authalic latitude, DGGRID's orientation) as a geodetic point of ours. */
const toOurs = (lon: number, lat: number): [number, number] => [lon - DGGRID_LON_SHIFT, authalicToGeodetic(lat * DEG) / DEG];

describe("ISEA7H_Z7 and DGGRID's IGEO7 (DGGRID's worked examples)", () => {
  const grid = createIsea7hZ7();

  it('numbers zones as DGGRID does: every sampled IGEO7 res-3 cell decodes to the zone at its centre', () => {
    expect(examples.igeo7WholeEarth.cells.length).to.be.above(300);
    for (const [hex, lon, lat] of examples.igeo7WholeEarth.cells) {
      const id = z7FromInt64(BigInt('0x' + hex));
      expect(grid.isValidZone(id), id).to.equal(true);
      expect(grid.zoneLevel(id)).to.equal(examples.igeo7WholeEarth.level);
      const [cLon, cLat] = grid.describeZone(id).centroid;
      const aLat = geodeticToAuthalic(cLat * DEG) / DEG;
      // DGGRID prints 6 decimals.
      expect(Math.abs(aLat - lat), `${id} latitude`).to.be.below(1e-6);
      const dLon = Math.abs(((cLon + DGGRID_LON_SHIFT - lon + 540) % 360) - 180) * Math.cos(lat * DEG);
      expect(dLon, `${id} longitude`).to.be.below(1e-6);
    }
  });

  it("gives DGGRID's ids for its points once moved into DGGRID's orientation and authalic latitude", () => {
    const { level, points } = examples.z7Transform;
    expect(points).to.have.length(15);
    for (const p of points) expect(grid.zoneFromPoint(...toOurs(p.lon, p.lat), level), `${p.lon},${p.lat}`).to.equal(p.z7);
  });

  it('but not for the same longitude and latitude: the ids name different places', () => {
    const { level, points } = examples.z7Transform;
    for (const p of points) expect(grid.zoneFromPoint(p.lon, p.lat, level), `${p.lon},${p.lat}`).to.not.equal(p.z7);
  });
});
