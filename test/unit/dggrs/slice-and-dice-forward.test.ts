import { expect } from 'chai';
import { geodeticToAuthalic } from '../../../src/domain/dggrs/core/authalic-latitude.js';
import { FACES, ICO_VERTICES, SIXTH_VERTEX_CORNER, type Vec3 } from '../../../src/domain/dggrs/projections/icosahedron.js';
import { SliceAndDiceProjection, type RadialVertex } from '../../../src/domain/dggrs/projections/slice-and-dice-projection.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

/**
 * `forward` runs on flat tables of the icosahedron's constants, some terms computed once per sixth.
 * Zone keys of points on zone edges hang on its last bits, so it must give, to the bit, what DGGAL's
 * forwardVector gives computed straight from the face geometry, as written out below (face, third and
 * sixth search; the sixth's corners A, B, C by radial corner; p on BC; area and half-chord ratio).
 */
function referenceForward(radial: RadialVertex, latDeg: number, lonDeg: number): [number, number] {
  const phi = geodeticToAuthalic(latDeg * (Math.PI / 180));
  const lam = lonDeg * (Math.PI / 180);
  const sl = Math.sin(phi), cl = Math.cos(phi);
  const v: Vec3 = [Math.sin(lam) * cl, -sl, -Math.cos(lam) * cl];
  const dot = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  const northward = dot(ICO_VERTICES[0]!, v) > 0;
  let best = -1, bestDot = -Infinity;
  for (let i = 0; i < 15; i++) {
    const f = northward ? i : 19 - i;
    const d = dot(FACES[f]!.centroid, v);
    if (d > bestDot) { bestDot = d; best = f; if (d > 0.934172358962715696451118623548) break; }
  }
  const face = FACES[best]!;
  let t = 0;
  bestDot = -Infinity;
  for (let i = 0; i < 3; i++) {
    const d = dot(face.thirdCentroid[i]!, v);
    if (d > bestDot) { bestDot = d; t = i; if (d > 0.98026681342269326) break; }
  }
  const d0 = dot(face.sixthCentroid[t]![0], v), d1 = dot(face.sixthCentroid[t]![1], v);
  const subTri = 2 * t + (d0 > 0.98291604265245856 ? 0 : d1 > d0 ? 1 : 0);
  const corner = SIXTH_VERTEX_CORNER[subTri]!;
  const M = { p3: face.mid3D[t]!, p2: face.mid56[t]! }, V = { p3: face.v[corner]!, p2: face.p[corner]! }, F = { p3: face.centroid, p2: face.center56 };
  const bIsA = (radial === 'ivea') !== (subTri === 0 || subTri === 3 || subTri === 4);
  const [A, B, C] = radial === 'ivea' ? (bIsA ? [V, M, F] : [V, F, M]) : radial === 'rtea' ? (bIsA ? [M, V, F] : [M, F, V]) : bIsA ? [F, M, V] : [F, V, M];
  const cross = (a: readonly number[], b: readonly number[]): Vec3 => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
  const normalize = (a: readonly number[]): Vec3 => { const r = 1 / Math.sqrt(a[0]! * a[0]! + a[1]! * a[1]! + a[2]! * a[2]!); return [a[0]! * r, a[1]! * r, a[2]! * r]; };
  const mid = (a: readonly number[], b: readonly number[]): Vec3 => normalize([(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2, (a[2]! + b[2]!) / 2]);
  const c1 = cross(A.p3, v);
  if (dot(c1, c1) < 1e-30) return [A.p2[0]!, A.p2[1]!];
  const p = normalize(cross(c1, cross(B.p3, C.p3)));
  const d = dot(mid(A.p3, B.p3), cross(mid(B.p3, p), mid(p, A.p3)));
  const area = Math.max(0, Math.asin(Math.max(-1, Math.min(1, d))) * 2);
  const halfChord = (a: readonly number[], b: readonly number[]): number => {
    const s = Math.sqrt(dot(cross(a, mid(a, b)), cross(a, mid(a, b))));
    if (s >= 1e-8) return s;
    const e = [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
    return Math.sqrt(dot(e, e)) / 2;
  };
  const h = halfChord(A.p3, v) / halfChord(A.p3, p);
  const b0 = 1 - h, b2 = Math.min(h, (h * area) / (6 * (Math.PI / 180))), b1 = h - b2;
  return [b0 * A.p2[0]! + b1 * B.p2[0]! + b2 * C.p2[0]!, b0 * A.p2[1]! + b1 * B.p2[1]! + b2 * C.p2[1]!];
}

describe('Slice & Dice forward, to the bit, against the face geometry', () => {
  for (const radial of ['ivea', 'isea', 'rtea'] as const) {
    it(`${radial}: random points, a whole-degree lattice, the seam meridian and the poles`, () => {
      const projection = new SliceAndDiceProjection(radial);
      const out = new Float64Array(2);
      const rand = mulberry32(21);
      const points: [number, number][] = [];
      for (let i = 0; i < 100_000; i++) points.push([(Math.asin(2 * rand() - 1) * 180) / Math.PI, rand() * 360 - 180]);
      for (let lat = -90; lat <= 90; lat++) for (let lon = -180; lon <= 180; lon++) points.push([lat, lon]);
      for (let lat = -90; lat <= 90; lat += 0.25) points.push([lat, 11.2], [lat, 11.2 - 180]);
      const mismatches: string[] = [];
      for (const [lat, lon] of points) {
        projection.forward(lat, lon, out);
        const [x, y] = referenceForward(radial, lat, lon);
        if (!Object.is(out[0], x) || !Object.is(out[1], y)) mismatches.push(`${lat},${lon}: ${out[0]},${out[1]} != ${x},${y}`);
      }
      expect(mismatches.slice(0, 5)).to.deep.equal([]);
    });
  }
});
