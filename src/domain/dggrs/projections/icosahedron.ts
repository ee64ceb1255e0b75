/**
 * The icosahedron of OGC 21-038r1 Annex B as oriented by DGGAL: vertex 0 at (authalic) 58.2825...N 11.2E,
 * the North Pole at the midpoint of edge V0-V1. Also the 5x6 positions of its 20 faces and the
 * precomputed centres, edge midpoints and "third"/"sixth" centroids the Slice & Dice projection uses.
 *
 * Unit vectors follow DGGAL's axis convention (+y towards the South Pole), because the face and sixth
 * search compare dot products against these constants and ties must fall the same way.
 */

export type Vec3 = [number, number, number];

export const ORIENTATION_LAT_DEG = 31.7174744114611;
export const ORIENTATION_LON_DEG = -11.2;
const DEG = Math.PI / 180;

/** Multiplies by the reciprocal length, as DGGAL's fast-math build does (changes last bits). */
export function normalize(x: number, y: number, z: number): Vec3 {
  const r = 1 / Math.sqrt(x * x + y * y + z * z);
  return [x * r, y * r, z * r];
}

function rotatedVertices(): Vec3[] {
  const t = Math.atan(0.5);
  const ty = -Math.sin(t);
  const by = -Math.sin(-t);
  const tc = Math.cos(t);
  const bc = Math.cos(-t);
  const s = (2 * Math.PI) / 5;
  const v: Vec3[] = new Array(12);
  v[0] = [0, -1, 0];
  v[11] = [0, 1, 0];
  for (let i = 0; i < 5; i++) {
    const ta = -270 * DEG + s * i;
    const ba = ta + s / 2;
    v[1 + i] = [Math.cos(ta) * tc, ty, Math.sin(ta) * tc];
    v[6 + i] = [Math.cos(ba) * bc, by, Math.sin(ba) * bc];
  }
  // Yaw/pitch quaternion, applied as DGGAL does (conjugate rotation with s x q).
  const yaw = -ORIENTATION_LON_DEG * DEG;
  const pitch = -ORIENTATION_LAT_DEG * DEG;
  const cp = Math.cos(pitch / 2), sp = Math.sin(pitch / 2), cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2);
  const w = cp * cy, qx = sp * cy, qy = cp * sy, qz = sp * sy;
  const qq = qx * qx + qy * qy + qz * qz;
  return v.map(([x, y, z]) => {
    const d = qx * x + qy * y + qz * z;
    const k = w * w - qq;
    const cx = y * qz - z * qy, cyy = z * qx - x * qz, cz = x * qy - y * qx;
    return [2 * d * qx + k * x + 2 * w * cx, 2 * d * qy + k * y + 2 * w * cyy, 2 * d * qz + k * z + 2 * w * cz] as Vec3;
  });
}

export const ICO_VERTICES: readonly Vec3[] = rotatedVertices();

export const FACE_VERTICES: readonly (readonly [number, number, number])[] = [
  [0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5], [0, 5, 1],
  [6, 2, 1], [7, 3, 2], [8, 4, 3], [9, 5, 4], [10, 1, 5],
  [2, 6, 7], [3, 7, 8], [4, 8, 9], [5, 9, 10], [1, 10, 6],
  [11, 7, 6], [11, 8, 7], [11, 9, 8], [11, 10, 9], [11, 6, 10],
];

/** 5x6 position of each face corner, in the same order as FACE_VERTICES. */
export const FACE_5X6: readonly (readonly [number, number])[][] = [
  [[1, 0], [0, 0], [1, 1]], [[2, 1], [1, 1], [2, 2]], [[3, 2], [2, 2], [3, 3]], [[4, 3], [3, 3], [4, 4]], [[5, 4], [4, 4], [5, 5]],
  [[0, 1], [1, 1], [0, 0]], [[1, 2], [2, 2], [1, 1]], [[2, 3], [3, 3], [2, 2]], [[3, 4], [4, 4], [3, 3]], [[4, 5], [5, 5], [4, 4]],
  [[1, 1], [0, 1], [1, 2]], [[2, 2], [1, 2], [2, 3]], [[3, 3], [2, 3], [3, 4]], [[4, 4], [3, 4], [4, 5]], [[5, 5], [4, 5], [5, 6]],
  [[0, 2], [1, 2], [0, 1]], [[1, 3], [2, 3], [1, 2]], [[2, 4], [3, 4], [2, 3]], [[3, 5], [4, 5], [3, 4]], [[4, 6], [5, 6], [4, 5]],
];

export interface FaceGeometry {
  v: [Vec3, Vec3, Vec3];
  p: [[number, number], [number, number], [number, number]];
  centroid: Vec3;
  center56: [number, number];
  /** Third t is the part of the face along edge (v2,v3), (v3,v1), (v1,v2) for t = 0, 1, 2. */
  thirdCentroid: [Vec3, Vec3, Vec3];
  mid3D: [Vec3, Vec3, Vec3];
  mid56: [[number, number], [number, number], [number, number]];
  sixthCentroid: [[Vec3, Vec3], [Vec3, Vec3], [Vec3, Vec3]];
}

function buildFaces(): FaceGeometry[] {
  const faces: FaceGeometry[] = [];
  for (let f = 0; f < 20; f++) {
    const [i1, i2, i3] = FACE_VERTICES[f]!;
    const v1 = ICO_VERTICES[i1]!, v2 = ICO_VERTICES[i2]!, v3 = ICO_VERTICES[i3]!;
    const [p1, p2, p3] = FACE_5X6[f]! as [[number, number], [number, number], [number, number]];
    const c = normalize(v1[0] + v2[0] + v3[0], v1[1] + v2[1] + v3[1], v1[2] + v2[2] + v3[2]);
    const third = (a: Vec3, b: Vec3): Vec3 => normalize(c[0] + a[0] + b[0], c[1] + a[1] + b[1], c[2] + a[2] + b[2]);
    const mid = (a: Vec3, b: Vec3): Vec3 => normalize((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2);
    const m0 = mid(v2, v3), m1 = mid(v3, v1), m2 = mid(v1, v2);
    const sixth = (m: Vec3, a: Vec3): Vec3 => normalize(c[0] + m[0] + a[0], c[1] + m[1] + a[1], c[2] + m[2] + a[2]);
    faces.push({
      v: [v1, v2, v3],
      p: [[p1[0], p1[1]], [p2[0], p2[1]], [p3[0], p3[1]]],
      centroid: c,
      center56: [(p1[0] + p2[0] + p3[0]) / 3, (p1[1] + p2[1] + p3[1]) / 3],
      thirdCentroid: [third(v2, v3), third(v3, v1), third(v1, v2)],
      mid3D: [m0, m1, m2],
      mid56: [[(p2[0] + p3[0]) / 2, (p2[1] + p3[1]) / 2], [(p3[0] + p1[0]) / 2, (p3[1] + p1[1]) / 2], [(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2]],
      sixthCentroid: [[sixth(m0, v3), sixth(m0, v2)], [sixth(m1, v3), sixth(m1, v1)], [sixth(m2, v2), sixth(m2, v1)]],
    });
  }
  return faces;
}

export const FACES: readonly FaceGeometry[] = buildFaces();

/** For each sixth (0..5), which face corner (0..2) is the icosahedron vertex of that Slice & Dice triangle. */
export const SIXTH_VERTEX_CORNER: readonly number[] = [2, 1, 2, 0, 1, 0];
