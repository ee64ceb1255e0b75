/**
 * Slice & Dice great-circle equal-area projection of the sphere onto the icosahedron, unfolded into the
 * 5x6 rhombic net (Harrison, Mahdavi-Amiri & Samavati 2006; OGC 21-038r1 Annex B). Each icosahedron face
 * is cut into six right triangles (edge midpoint M, vertex V, face centre F); great circles through the
 * "radial" corner map to straight lines, areas along the opposite edge are preserved exactly.
 *
 * The radial corner selects the projection: V gives IVEA (vertex-oriented), F gives ISEA (Snyder 1992), M
 * gives RTEA (Snyder's construction on the rhombic triacontahedron, whose 30 face centres are the edge
 * midpoints). Everything else (face search, sixths, formulas) is shared, which is why the three grids give
 * the same 5x6 zone layout with different geodetic coordinates.
 */
import { authalicToGeodetic, geodeticToAuthalic } from '../core/authalic-latitude.js';
import { FACES, ICO_VERTICES, ORIENTATION_LON_DEG, SIXTH_VERTEX_CORNER, type Vec3 } from './icosahedron.js';
import { wrapLon } from '../core/wgs84.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;
const PHI = (1 + Math.sqrt(5)) / 2;
/** Every Slice & Dice triangle covers 1/120 of the sphere: 6 degrees of spherical excess. */
const TRI_AREA = 6 * (Math.PI / 180);
/** Triple product A.(B x C) of a Slice & Dice triangle (same for every role assignment). */
const PARALLELEPIPED_V = 0.18759247408507989986;
const FACE_EARLY_ACCEPT = 0.934172358962715696451118623548;
const THIRD_EARLY_ACCEPT = 0.98026681342269326;
const SIXTH_EARLY_ACCEPT = 0.98291604265245856;

export type RadialVertex = 'ivea' | 'isea' | 'rtea';

const LEAST_SCALE: Record<RadialVertex, number> = { ivea: 0.95, isea: 0.88, rtea: 0.82 };

export interface GeoResult {
  lat: number;
  lon: number;
}

/** One sixth of a face: corners A (radial), B, C on the sphere and in the 5x6 net. */
interface Sixth {
  A: Vec3;
  B: Vec3;
  C: Vec3;
  PA: readonly number[];
  PB: readonly number[];
  PC: readonly number[];
  /** True when B is the edge midpoint M (DGGAL's arc names then follow (M, V, F) / (M, F, V)). */
  bIsA: boolean;
}

function sixthOf(face: (typeof FACES)[number], subTri: number, radial: RadialVertex): Sixth {
  const t = subTri >> 1;
  const corner = SIXTH_VERTEX_CORNER[subTri]!;
  const M = face.mid3D[t]!, PM = face.mid56[t]!;
  const V = face.v[corner]!, PV = face.p[corner]!;
  const F = face.centroid, PF = face.center56;
  const flip = subTri === 0 || subTri === 3 || subTri === 4;
  const bIsA = (radial === 'ivea') !== flip;
  if (radial === 'ivea') return bIsA ? { A: V, PA: PV, B: M, PB: PM, C: F, PC: PF, bIsA } : { A: V, PA: PV, B: F, PB: PF, C: M, PC: PM, bIsA };
  if (radial === 'rtea') return bIsA ? { A: M, PA: PM, B: V, PB: PV, C: F, PC: PF, bIsA } : { A: M, PA: PM, B: F, PB: PF, C: V, PC: PV, bIsA };
  return bIsA ? { A: F, PA: PF, B: M, PB: PM, C: V, PC: PV, bIsA } : { A: F, PA: PF, B: V, PB: PV, C: M, PC: PM, bIsA };
}

/**
 * DGGAL's arcs AB, AC, BC for each radial corner, as (M, V, F) arcs: the inverse's dot products
 * A.B, B.C, C.A are these cosines, in an order that depends on bIsA.
 */
const ARCS: Record<RadialVertex, { ab: 'mv' | 'mf'; ac: 'mv' | 'mf' | 'vf'; bc: 'vf' | 'mf' }> = {
  ivea: { ab: 'mv', ac: 'mf', bc: 'vf' },
  isea: { ab: 'mf', ac: 'mv', bc: 'vf' },
  rtea: { ab: 'mv', ac: 'vf', bc: 'mf' },
};

export class SliceAndDiceProjection {
  readonly radial: RadialVertex;
  readonly isIvea: boolean;
  /**
   * The least scale of the projection, radians on the sphere of (geodetic latitude, longitude) per unit
   * of the 5x6 net in its equilateral metric (so a sphere path of length r maps to a net path of length
   * at most r / leastScale): measured 1.06 (IVEA), 0.99 (ISEA), 0.91 (RTEA) over every rhombus, kept
   * with a margin (the unit tests re-measure them).
   */
  readonly leastScale: number;
  private readonly cosAB: number;
  private readonly cosAC: number;
  private readonly sinAC: number;
  private readonly cosBC: number;
  /** Per face, its six Slice & Dice triangles with this projection's (A, B, C) roles, fixed once. */
  private readonly sixths: Sixth[][];
  /** The same sixths for `forward`, SIXTH_STRIDE numbers each (see flattenSixths), at (face * 6 + sixth) * SIXTH_STRIDE. */
  private readonly flatSixths: Float64Array;

  constructor(radial: RadialVertex) {
    this.radial = radial;
    this.isIvea = radial === 'ivea';
    this.leastScale = LEAST_SCALE[radial];
    const arcs = { mv: Math.atan(1 / PHI), mf: Math.acos(Math.sqrt((PHI + 1) / 3)), vf: Math.atan(2 / (PHI * PHI)) };
    const names = ARCS[radial];
    this.cosAB = Math.cos(arcs[names.ab]);
    this.cosAC = Math.cos(arcs[names.ac]);
    this.sinAC = Math.sin(arcs[names.ac]);
    this.cosBC = Math.cos(arcs[names.bc]);
    this.sixths = FACES.map((face) => [0, 1, 2, 3, 4, 5].map((subTri) => sixthOf(face, subTri, radial)));
    this.flatSixths = flattenSixths(this.sixths);
  }

  /**
   * Geodetic degrees -> 5x6 coordinates, written to out[0], out[1]. Allocation-free: this is the hot
   * path of zone-from-point. It reads the flat constant tables below (one typed array each, no object
   * per face or sixth); every product and sum is the one of the object form, in the same order, so the
   * results are the same to the bit.
   */
  forward(latDeg: number, lonDeg: number, out: Float64Array): void {
    const phi = geodeticToAuthalic(latDeg * DEG);
    const lam = lonDeg * DEG;
    const sl = Math.sin(phi), cl = Math.cos(phi);
    const vx = Math.sin(lam) * cl, vy = -sl, vz = -Math.cos(lam) * cl;

    const northward = N0X * vx + N0Y * vy + N0Z * vz > 0;
    let best = -1;
    let bestDot = -Infinity;
    for (let i = 0; i < 15; i++) {
      const f = northward ? i : 19 - i;
      const j = 3 * f;
      const d = FACE_CENTROIDS[j]! * vx + FACE_CENTROIDS[j + 1]! * vy + FACE_CENTROIDS[j + 2]! * vz;
      if (d > bestDot) {
        bestDot = d;
        best = f;
        if (d > FACE_EARLY_ACCEPT) break;
      }
    }
    let t = 0;
    bestDot = -Infinity;
    for (let i = 0; i < 3; i++) {
      const j = 9 * best + 3 * i;
      const d = THIRD_CENTROIDS[j]! * vx + THIRD_CENTROIDS[j + 1]! * vy + THIRD_CENTROIDS[j + 2]! * vz;
      if (d > bestDot) {
        bestDot = d;
        t = i;
        if (d > THIRD_EARLY_ACCEPT) break;
      }
    }
    const j6 = 18 * best + 6 * t;
    const d0 = SIXTH_CENTROIDS[j6]! * vx + SIXTH_CENTROIDS[j6 + 1]! * vy + SIXTH_CENTROIDS[j6 + 2]! * vz;
    const d1 = SIXTH_CENTROIDS[j6 + 3]! * vx + SIXTH_CENTROIDS[j6 + 4]! * vy + SIXTH_CENTROIDS[j6 + 5]! * vz;
    const s = d0 > SIXTH_EARLY_ACCEPT ? 0 : d1 > d0 ? 1 : 0;

    const S = this.flatSixths, o = (best * 6 + 2 * t + s) * SIXTH_STRIDE;
    const ax = S[o]!, ay = S[o + 1]!, az = S[o + 2]!;
    // p: where the great circle from A through v meets edge BC.
    const c1x = ay * vz - az * vy, c1y = az * vx - ax * vz, c1z = ax * vy - ay * vx;
    if (c1x * c1x + c1y * c1y + c1z * c1z < 1e-30) {
      // v is A itself (the face centre for ISEA): no great circle to follow, the point is A's image.
      out[0] = S[o + 12]!;
      out[1] = S[o + 13]!;
      return;
    }
    const c2x = S[o + 3]!, c2y = S[o + 4]!, c2z = S[o + 5]!;
    let px = c1y * c2z - c1z * c2y, py = c1z * c2x - c1x * c2z, pz = c1x * c2y - c1y * c2x;
    const r = 1 / Math.sqrt(px * px + py * py + pz * pz);
    px *= r; py *= r; pz *= r;

    const ep = Math.max(0, triangleAreaWithAB(S, o, px, py, pz));
    const h = halfChord(ax, ay, az, vx, vy, vz) / halfChord(ax, ay, az, px, py, pz);
    const b0 = 1 - h;
    const b2 = Math.min(h, (h * ep) / TRI_AREA);
    const b1 = h - b2;
    out[0] = b0 * S[o + 12]! + b1 * S[o + 14]! + b2 * S[o + 16]!;
    out[1] = b0 * S[o + 13]! + b1 * S[o + 15]! + b2 * S[o + 17]!;
  }

  /**
   * 5x6 -> geodetic degrees. `oddGrid` only changes the longitude DGGAL reports at the exact poles.
   * Returns false when the point is outside the net. Like DGGAL, points within 1e-8 of a pole's net
   * position are put on the pole; `snapPoles` false keeps their own position.
   */
  inverse(x: number, y: number, oddGrid: boolean, out: GeoResult, snapPoles = true): boolean {
    if (x < 0 && y < 0) { x += 5; y += 5; }
    else if (x < 0 && y < 1) { x += 5; y += 5; }
    else if (x < 0 && y < 1 + 1e-10) { x += 5; y = 6; }
    else if (y < 0 && x < 0) { x += 5; y += 5; }
    else if (y < 0 && x < 1e-10) { x = 5; y += 5; }
    else if (x > 5 && y > 5) { x -= 5; y -= 5; }
    else if (x > 5 && y > 5 - 1e-10) { x -= 5; y = 0; }
    else if (y > 6 && x > 5 - 1e-10) { y -= 5; x = 0; }

    const f = faceOf5x6(x, y);
    if (f < 0) {
      out.lat = 0;
      out.lon = 0;
      return false;
    }
    const face = FACES[f]!;
    const [p1, p2, p3] = face.p;
    // Barycentrics in the face; the determinant of every face is known (-1).
    const fb = bary(x, y, p1[0], p1[1], p2[0], p2[1], p3[0], p3[1], -1);
    const fb0 = BARY[0]!, fb1 = BARY[1]!, fb2 = BARY[2]!;
    void fb;
    let subTri: number;
    if (fb0 <= fb1 && fb0 <= fb2) subTri = fb1 < fb2 ? 0 : 1;
    else if (fb1 <= fb0 && fb1 <= fb2) subTri = fb0 < fb2 ? 2 : 3;
    else subTri = fb0 < fb1 ? 4 : 5;
    const { A, B, C, PA, PB, PC, bIsA } = this.sixths[f]![subTri]!;
    bary(x, y, PA[0]!, PA[1]!, PB[0]!, PB[1]!, PC[0]!, PC[1]!, -6);
    const b0 = BARY[0]!, b1 = BARY[1]!, b2 = BARY[2]!;
    let Px: number, Py: number, Pz: number;
    if (b0 > 1 - 1e-15) { Px = A[0]; Py = A[1]; Pz = A[2]; }
    else if (b1 > 1 - 1e-15) { Px = B[0]; Py = B[1]; Pz = B[2]; }
    else if (b2 > 1 - 1e-15) { Px = C[0]; Py = C[1]; Pz = C[2]; }
    else {
      const h = 1 - b0;
      const u = b2 / h;
      const hc = Math.sin((u * Math.PI) / 60);
      const CC = 2 * hc * hc;
      const S = 2 * hc * Math.sqrt(1 - hc * hc);
      const c01 = bIsA ? this.cosAB : this.cosBC;
      const c12 = this.cosAC;
      const c20 = bIsA ? this.cosBC : this.cosAB;
      const s12 = this.sinAC;
      let f = S * PARALLELEPIPED_V + CC * (c01 * c12 - c20);
      let g = CC * s12 * (1 + c01);
      // D, the end of the great circle from A on edge BC, depends only on the ratio f:g; rescaling keeps
      // it accurate very close to B, where DGGAL switches to a slerp-based fallback.
      const m = Math.max(Math.abs(f), Math.abs(g));
      let Dx: number, Dy: number, Dz: number;
      if (m > 0) {
        f /= m;
        g /= m;
        const num = s12 * (f * f - g * g) - 2 * g * f * c12;
        const den = s12 * (f * f + g * g);
        const kb = Math.max(0, num / den);
        const kc = Math.min(1, (2 * g * f) / den);
        Dx = kb * B[0] + kc * C[0]; Dy = kb * B[1] + kc * C[1]; Dz = kb * B[2] + kc * C[2];
      } else {
        Dx = B[0]; Dy = B[1]; Dz = B[2];
      }
      const a = A[0] * Dx + A[1] * Dy + A[2] * Dz;
      const bv = 1 + h * h * (a - 1);
      const w = h * Math.sqrt((1 + bv) / (1 + a));
      const k = bv - a * w;
      Px = k * A[0] + w * Dx; Py = k * A[1] + w * Dy; Pz = k * A[2] + w * Dz;
    }
    let lat = Math.atan2(-Py, Math.sqrt(Px * Px + Pz * Pz));
    let lon = Math.atan2(Px, -Pz);

    // The longitude at the exact geographic poles is a convention (DGGAL's fixPoles).
    const e = 1e-8;
    let north = false, south = false, add180 = false;
    if (Math.abs(x - 1.5) < e && Math.abs(y - 3) < e) { add180 = x > 1.5; south = true; }
    else if (Math.abs(x - 2) < e && Math.abs(y - 3.5) < e) { add180 = (y > 3.5) !== oddGrid; south = true; }
    else if (Math.abs(x - 5) < e && Math.abs(y - 4.5) < e) { add180 = y < 4.5; north = true; }
    else if (Math.abs(x - 0.5) < e && Math.abs(y) < e) { add180 = (x < 0.5) !== oddGrid; north = true; }
    if (snapPoles && (north || south)) {
      lat = north ? Math.PI / 2 : -Math.PI / 2;
      lon = (oddGrid ? 0 : 90 * DEG) + (-180 * DEG - ORIENTATION_LON_DEG * DEG) + (add180 ? Math.PI : 0);
    }
    out.lat = authalicToGeodetic(lat) * RAD;
    out.lon = wrapLon(lon) * RAD;
    return true;
  }
}

const BARY = new Float64Array(3);

function bary(x: number, y: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, oneOverDet: number): number {
  const d31x = x1 - x3, d31y = y1 - y3;
  const d23x = x3 - x2, d23y = y3 - y2;
  const d3px = x - x3, d3py = y - y3;
  const b0 = (d23x * d3py - d23y * d3px) * oneOverDet;
  const b1 = (d31x * d3py - d31y * d3px) * oneOverDet;
  BARY[0] = b0;
  BARY[1] = b1;
  BARY[2] = 1 - b0 - b1;
  return 0;
}

/** Vertex 0, whose hemisphere decides the order of the face search. */
const [N0X, N0Y, N0Z] = ICO_VERTICES[0]!;
/** Face centroids, third centroids (per face, 3) and sixth centroids (per face and third, 2), as x, y, z runs. */
const FACE_CENTROIDS = Float64Array.from(FACES.flatMap((f) => f.centroid));
const THIRD_CENTROIDS = Float64Array.from(FACES.flatMap((f) => f.thirdCentroid.flat()));
const SIXTH_CENTROIDS = Float64Array.from(FACES.flatMap((f) => f.sixthCentroid.flat(2)));

/**
 * Per sixth: A (0-2); B x C (3-5), fixed per sixth; the normalised midpoint of A and B (6-8) and B
 * (9-11) for the area of (A, B, p); PA, PB, PC (12-17). The constant terms are computed exactly as
 * `forward` computed them per point before, so they are the same doubles.
 */
const SIXTH_STRIDE = 18;

function flattenSixths(sixths: Sixth[][]): Float64Array {
  const out = new Float64Array(sixths.length * 6 * SIXTH_STRIDE);
  sixths.flat().forEach(({ A, B, C, PA, PB, PC }, i) => {
    let mx = (A[0] + B[0]) / 2, my = (A[1] + B[1]) / 2, mz = (A[2] + B[2]) / 2;
    const r = 1 / Math.sqrt(mx * mx + my * my + mz * mz);
    mx *= r; my *= r; mz *= r;
    out.set([
      A[0], A[1], A[2],
      B[1] * C[2] - B[2] * C[1], B[2] * C[0] - B[0] * C[2], B[0] * C[1] - B[1] * C[0],
      mx, my, mz, B[0], B[1], B[2],
      PA[0]!, PA[1]!, PB[0]!, PB[1]!, PC[0]!, PC[1]!,
    ], i * SIXTH_STRIDE);
  });
  return out;
}

/**
 * Spherical excess of (A, B, p), A and B those of the sixth at `o` in `S`, from the normalised edge
 * midpoints (Eriksson's formula); the A-B midpoint, fixed per sixth, comes from the table.
 */
function triangleAreaWithAB(S: Float64Array, o: number, cx: number, cy: number, cz: number): number {
  const ax = S[o]!, ay = S[o + 1]!, az = S[o + 2]!, bx = S[o + 9]!, by = S[o + 10]!, bz = S[o + 11]!;
  const abx = S[o + 6]!, aby = S[o + 7]!, abz = S[o + 8]!;
  let bcx = (bx + cx) / 2, bcy = (by + cy) / 2, bcz = (bz + cz) / 2;
  let r = 1 / Math.sqrt(bcx * bcx + bcy * bcy + bcz * bcz);
  bcx *= r; bcy *= r; bcz *= r;
  let cax = (cx + ax) / 2, cay = (cy + ay) / 2, caz = (cz + az) / 2;
  r = 1 / Math.sqrt(cax * cax + cay * cay + caz * caz);
  cax *= r; cay *= r; caz *= r;
  const xx = bcy * caz - bcz * cay, xy = bcz * cax - bcx * caz, xz = bcx * cay - bcy * cax;
  const d = abx * xx + aby * xy + abz * xz;
  return Math.asin(Math.max(-1, Math.min(1, d))) * 2;
}

/** sin(angle(a, b) / 2), computed as the chord half-length through the normalised midpoint. */
function halfChord(ax: number, ay: number, az: number, bx: number, by: number, bz: number): number {
  let mx = (ax + bx) / 2, my = (ay + by) / 2, mz = (az + bz) / 2;
  const r = 1 / Math.sqrt(mx * mx + my * my + mz * mz);
  mx *= r; my *= r; mz *= r;
  const cx = ay * mz - az * my, cy = az * mx - ax * mz, cz = ax * my - ay * mx;
  const s = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (s < 1e-8) {
    const dx = ax - bx, dy = ay - by, dz = az - bz;
    return Math.sqrt(dx * dx + dy * dy + dz * dz) / 2;
  }
  return s;
}

/** Face of the net containing a 5x6 point, nudged inwards so points on shared edges pick one face; -1 outside. */
export function faceOf5x6(px: number, py: number): number {
  const e = 1e-11;
  let x = px, y = py;
  if (x < 0 || (y > x && x < 5 - e)) x += e;
  else if (x > 5 || (y < x && x > 0 + e)) x -= e;
  if (y < 0 || (x > y && y < 6 - e)) y += e;
  else if (y > 6 || (x < y && y > 0 + e)) y -= e;
  if (!(x >= 0 && x <= 5 && y >= 0 && y <= 6)) return -1;
  const ix = Math.max(0, Math.min(4, Math.floor(x)));
  const iy = Math.max(0, Math.min(5, Math.floor(y)));
  if (iy !== ix && iy !== ix + 1) return -1;
  const rhombus = ix + iy;
  const top = x - ix > y - iy;
  const k = rhombus >> 1;
  return rhombus & 1 ? (top ? 10 + k : 15 + k) : top ? k : 5 + k;
}
