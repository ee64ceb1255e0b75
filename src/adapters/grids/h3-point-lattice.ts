/**
 * H3 zones of points by arithmetic, for bulk binning: h3-js locates one point per call (a few
 * microseconds: heap buffers, a hexadecimal string), while H3's cells are, face by face of its
 * icosahedron, the hexagons of a plain lattice on the face's gnomonic plane. So a point is
 * placed on its face's lattice here (a few dot products) and the lattice hexagon named by
 * h3-js once, from the first point met in it; a point near a hexagon's edge or between two
 * faces (where rounding could part from h3's) is located by h3-js itself. The answers are
 * h3-js's.
 *
 * The lattices are read from h3-js's own cells, not restated: each face's centre is the centre
 * of the face's central base cell, the lattice's direction that of a neighbour of that cell's
 * centre child (one per resolution class: the class III lattices are turned), and its spacing
 * the distance to that neighbour, refined by sqrt(7) per resolution as H3 does.
 *
 * Zone keys: the 52 bits of an H3 index below its resolution field (base cell and digits, the
 * unused digits all 7), unique among the cells of a resolution and safe integers.
 */
import * as h3 from 'h3-js';

const DEG = Math.PI / 180;
const FACES = 20;
const MAX_RES = 15;
const TWO32 = 2 ** 32;
const SQRT3_2 = Math.sqrt(3) / 2;
/**
 * Slack, in lattice units per lattice unit of distance from the face's centre (plus one), for
 * the difference between this arithmetic and h3's: points nearer an edge are left to h3-js. The
 * two differ by rounding (~1e-15 relative); this is a million times that.
 */
const LATTICE_SLACK = 1e-9;
/** Slack, in the cosine of angles to face centres, for points between two faces. */
const FACE_SLACK = 1e-12;
/** Slack, radians, taken off every clearance. */
const CLEARANCE_SLACK = 1e-12;
/** Hexagons remembered per resolution; beyond, the memory starts over. */
const MAX_CACHED = 1 << 16;

/** The zone key of an H3 cell (see above). */
export function h3CellKey(cell: string): number {
  const [lo, hi] = h3.h3IndexToSplitLong(cell);
  return (hi & 0xfffff) * TWO32 + (lo >>> 0);
}

/** The H3 cell of a zone key at a resolution (mode 1: a cell). */
export function h3KeyCell(key: number, res: number): string {
  const high = Math.floor(key / TWO32);
  return h3.splitLongToH3Index(key - high * TWO32, (0x08000000 | (res << 20) | high) >>> 0);
}

export class H3PointLattice {
  /** Face centres, unit vectors. */
  private readonly c = new Float64Array(FACES * 3);
  /** Per face and resolution class (index face * 2 + class, class 1 for odd resolutions): the lattice's axes, unit vectors in the face's plane. */
  private readonly u = new Float64Array(FACES * 2 * 3);
  private readonly v = new Float64Array(FACES * 2 * 3);
  /** Lattice units per unit of gnomonic plane (on the unit sphere), per resolution. */
  private readonly scale = new Float64Array(MAX_RES + 1);
  /** Per face, the unit normals of the planes halfway to every other face's centre (face * FACES + other), pointing to the face. */
  private readonly bisectors = new Float64Array(FACES * FACES * 3);
  /**
   * Per face, the cosine of the radius of the cap round its centre that lies in its region with
   * room to spare: a point there needs no comparison with the other faces.
   */
  private readonly inner = new Float64Array(FACES);
  private readonly cells: Map<number, number>[] = Array.from({ length: MAX_RES + 1 }, () => new Map());
  // What `place` found: face, hexagon (axial lattice coordinates), room to its edge (lattice units, less slack; negative: left to h3-js), cosine to the face centre.
  private face = 0;
  private a = 0;
  private b = 0;
  private room = 0;
  private cosine = 0;
  private x = 0;
  private y = 0;
  private z = 0;
  private lastFace = 0;

  constructor() {
    const centres = faceCentreCells();
    centres.forEach((cell, f) => {
      const [lat, lon] = h3.cellToLatLng(cell);
      this.c.set(unit(lon, lat), f * 3);
    });
    let u0 = 0;
    for (const cls of [0, 1]) {
      const res = cls === 0 ? 2 : 1;
      centres.forEach((cell, f) => {
        const child = h3.cellToCenterChild(cell, res);
        const neighbour = h3.gridDisk(child, 1).find((n) => n !== child)!;
        const [lat, lon] = h3.cellToLatLng(neighbour);
        const q = this.toPlane(unit(lon, lat), f);
        const len = Math.hypot(q[0], q[1], q[2]);
        const ux = q[0] / len, uy = q[1] / len, uz = q[2] / len;
        const [cx, cy, cz] = [this.c[f * 3]!, this.c[f * 3 + 1]!, this.c[f * 3 + 2]!];
        this.u.set([ux, uy, uz], (f * 2 + cls) * 3);
        this.v.set([cy * uz - cz * uy, cz * ux - cx * uz, cx * uy - cy * ux], (f * 2 + cls) * 3);
        if (cls === 0 && f === 0) u0 = len * 7;
      });
    }
    // As H3 scales: the plane's distance over the spacing of resolution 0, times sqrt(7) per resolution.
    let s = 1 / u0;
    for (let r = 0; r <= MAX_RES; r++, s *= Math.sqrt(7)) this.scale[r] = s;
    for (let f = 0; f < FACES; f++) {
      for (let g = 0; g < FACES; g++) {
        const d = [0, 1, 2].map((k) => this.c[f * 3 + k]! - this.c[g * 3 + k]!);
        const len = Math.hypot(d[0]!, d[1]!, d[2]!) || 1;
        this.bisectors.set(d.map((x) => x / len), (f * FACES + g) * 3);
      }
      let inscribed = Infinity;
      for (let g = 0; g < FACES; g++) if (g !== f) inscribed = Math.min(inscribed, this.toBisector(this.c[f * 3]!, this.c[f * 3 + 1]!, this.c[f * 3 + 2]!, f, g));
      this.inner[f] = Math.cos(Math.asin(inscribed) * 0.99);
    }
  }

  /** The key of the zone of the point at `res`; NaN for a point h3 cannot place. */
  keyAt(lon: number, lat: number, res: number): number {
    if (!(Number.isFinite(lon) && Number.isFinite(lat))) return NaN;
    if (lat < -90 || lat > 90) {
      this.room = -1; // h3-js reads such latitudes its own way: it answers
    } else this.place(lon, lat, res);
    return this.keyOfPlace(lon, lat, res);
  }

  /**
   * The key as `keyAt` to out[0], and to out[1] the radius (radians) of a cap around the point
   * lying in one face and in one lattice hexagon of it, so in one zone (0 where none is found).
   */
  keyClearance(lon: number, lat: number, res: number, out: Float64Array): void {
    out[0] = this.keyAt(lon, lat, res);
    out[1] = 0;
    if (Number.isNaN(out[0]) || this.room <= 0) return;
    // The hexagon holds the disc of `room` around the point's image on the plane; the gnomonic map
    // stretches no length by more than sec^2 of the angle from the centre, so a cap of radius t maps
    // within t * sec^2(c + t) of the image: t = D cos^2(c + D) keeps it within D.
    const plane = this.room / this.scale[res]!;
    const c = Math.acos(Math.min(1, this.cosine));
    const inHexagon = plane * Math.cos(Math.min(Math.PI / 2, c + plane)) ** 2;
    // The cap stays nearer this face's centre than any other's: the angle to the nearest bisecting plane.
    let inFace = Infinity;
    for (let g = 0; g < FACES; g++) if (g !== this.face) inFace = Math.min(inFace, this.toBisector(this.x, this.y, this.z, this.face, g));
    out[1] = Math.max(0, Math.min(inHexagon, Math.asin(Math.min(1, inFace))) - CLEARANCE_SLACK);
  }

  /** The sine of the angle from a point of face f's region to the plane halfway between the centres of faces f and g. */
  private toBisector(x: number, y: number, z: number, f: number, g: number): number {
    const k = (f * FACES + g) * 3;
    return x * this.bisectors[k]! + y * this.bisectors[k + 1]! + z * this.bisectors[k + 2]!;
  }

  private keyOfPlace(lon: number, lat: number, res: number): number {
    if (this.room <= 0) return h3CellKey(h3.latLngToCell(lat, lon, res));
    const label = (this.face * 0x1000000 + this.a + 0x800000) * 0x1000000 + this.b + 0x800000;
    const cells = this.cells[res]!;
    let key = cells.get(label);
    if (key === undefined) {
      if (cells.size >= MAX_CACHED) cells.clear();
      cells.set(label, (key = h3CellKey(h3.latLngToCell(lat, lon, res))));
    }
    return key;
  }

  /** Places a point of valid latitude on its face's lattice at `res` (fields above). */
  private place(lon: number, lat: number, res: number): void {
    const phi = lat * DEG, lambda = lon * DEG;
    const cp = Math.cos(phi);
    const x = cp * Math.cos(lambda), y = cp * Math.sin(lambda), z = Math.sin(phi);
    const c = this.c;
    // Consecutive points mostly share a face: that of the last point, if well inside it.
    let face = this.lastFace;
    let best = x * c[face * 3]! + y * c[face * 3 + 1]! + z * c[face * 3 + 2]!, second = -2;
    if (!(best > this.inner[face]!)) {
      best = -2;
      for (let f = 0, k = 0; f < FACES; f++, k += 3) {
        const d = x * c[k]! + y * c[k + 1]! + z * c[k + 2]!;
        if (d > best) {
          second = best;
          best = d;
          face = f;
        } else if (d > second) second = d;
      }
      this.lastFace = face;
    }
    const k = (face * 2 + (res & 1)) * 3;
    const s = this.scale[res]! / best;
    const u = this.u, v = this.v;
    const px = (x * u[k]! + y * u[k + 1]! + z * u[k + 2]!) * s;
    const py = (x * v[k]! + y * v[k + 1]! + z * v[k + 2]!) * s;
    // Axial coordinates on the axes at 0 and 60 degrees, rounded to the nearest centre as cube coordinates.
    const fb = py / SQRT3_2, fa = px - fb / 2, fc = -fa - fb;
    let a = Math.round(fa), b = Math.round(fb);
    const cRound = Math.round(fc);
    const da = Math.abs(a - fa), db = Math.abs(b - fb), dc = Math.abs(cRound - fc);
    if (da > db && da > dc) a = -b - cRound;
    else if (db >= dc) b = -a - cRound;
    // The distance to the hexagon's edge: half the spacing less the farthest reach along the three neighbour directions.
    const dx = px - (a + b / 2), dy = py - b * SQRT3_2;
    const reach = Math.max(Math.abs(dx), Math.abs(dx / 2 + dy * SQRT3_2), Math.abs(dx / 2 - dy * SQRT3_2));
    this.face = face;
    this.x = x;
    this.y = y;
    this.z = z;
    this.a = a;
    this.b = b;
    this.cosine = best;
    // (Hexagons of the finest resolution reach a few million lattice units from the centre: labels hold 2^23.)
    const labelled = Math.abs(a) < 0x800000 && Math.abs(b) < 0x800000;
    this.room = best - second < FACE_SLACK || !labelled ? -1 : 0.5 - reach - LATTICE_SLACK * (Math.abs(px) + Math.abs(py) + 1);
  }

  private toPlane(p: readonly number[], f: number): number[] {
    const c = [this.c[f * 3]!, this.c[f * 3 + 1]!, this.c[f * 3 + 2]!];
    const dot = p[0]! * c[0]! + p[1]! * c[1]! + p[2]! * c[2]!;
    return [0, 1, 2].map((k) => p[k]! / dot - c[k]!);
  }
}

function unit(lon: number, lat: number): [number, number, number] {
  const phi = lat * DEG, lambda = lon * DEG;
  return [Math.cos(phi) * Math.cos(lambda), Math.cos(phi) * Math.sin(lambda), Math.sin(phi)];
}

/**
 * The base cell at the centre of each face (index: face number): of the hexagonal base cells lying
 * on that face alone, the one nearest the direction of the face's three corners (the pentagons).
 */
function faceCentreCells(): string[] {
  const pentagons = h3.getPentagons(0).map((p) => ({ faces: h3.getIcosahedronFaces(p), at: unit(...lonLat(p)) }));
  const hexagons = h3.getRes0Cells().filter((c) => !h3.isPentagon(c)).map((c) => ({ cell: c, faces: h3.getIcosahedronFaces(c), at: unit(...lonLat(c)) }));
  return Array.from({ length: FACES }, (_, f) => {
    const corners = pentagons.filter((p) => p.faces.includes(f));
    if (corners.length !== 3) throw new Error(`H3 face ${f}: ${corners.length} corners`);
    const sum = [0, 1, 2].map((k) => corners.reduce((t, p) => t + p.at[k]!, 0));
    const len = Math.hypot(sum[0]!, sum[1]!, sum[2]!);
    let best: { cell: string; dot: number } | undefined;
    for (const h of hexagons) {
      if (h.faces.length !== 1 || h.faces[0] !== f) continue;
      const dot = (h.at[0] * sum[0]! + h.at[1] * sum[1]! + h.at[2] * sum[2]!) / len;
      if (!best || dot > best.dot) best = { cell: h.cell, dot };
    }
    if (!best || best.dot < 1 - 1e-12) throw new Error(`H3 face ${f}: no base cell at its centre`);
    return best.cell;
  });
}

function lonLat(cell: string): [number, number] {
  const [lat, lon] = h3.cellToLatLng(cell);
  return [lon, lat];
}
