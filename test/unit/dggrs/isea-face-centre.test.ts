import { expect } from 'chai';
import { FACES } from '../../../src/domain/dggrs/projections/icosahedron.js';
import { iseaProjection } from '../../../src/domain/dggrs/projections/isea-projection.js';
import { iveaProjection } from '../../../src/domain/dggrs/projections/ivea-projection.js';
import { authalicToGeodetic } from '../../../src/domain/dggrs/core/authalic-latitude.js';

/**
 * At the exact centre of a face the ISEA projection has no great circle to follow from the
 * radial corner (the centre itself): it must map to the face centre of the net, not to NaN.
 */
describe('Slice & Dice at the exact face centres', () => {
  for (const [name, projection] of [['ISEA', iseaProjection], ['IVEA', iveaProjection]] as const) {
    it(`${name}: every face centre maps to its net position`, () => {
      const out = new Float64Array(2);
      FACES.forEach((face, i) => {
        const [vx, vy, vz] = face.centroid;
        // forward takes geodetic latitudes; the face centre is given on the authalic sphere.
        const lat = (authalicToGeodetic(Math.asin(-vy)) * 180) / Math.PI;
        const lon = (Math.atan2(vx, -vz) * 180) / Math.PI;
        projection.forward(lat, lon, out);
        expect(Number.isFinite(out[0]) && Number.isFinite(out[1]), `face ${i}: ${out[0]}, ${out[1]}`).to.equal(true);
        expect(out[0], `face ${i} x`).to.be.closeTo(face.center56[0], 1e-9);
        expect(out[1], `face ${i} y`).to.be.closeTo(face.center56[1], 1e-9);
      });
    });
  }
});
