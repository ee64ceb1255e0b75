/**
 * DGGAL's rHEALPix DGGRS (its "rHEALPix (A9 50° E)", OGC's rHEALPix): square zones of the rHEALPix
 * projection, aperture 9. A zone is (level, row, col) on the plane: 3^L rows per face, the north square
 * N in rows 0..3^L-1, the equatorial faces O, P, Q, R side by side, the south square S below.
 */
import type { BBox } from '../../dggrs.js';
import { extentsIntersect, type RadExtent } from '../../core/box-cover.js';
import { cornersExtent } from '../../core/outline-extent.js';
import { boxExtent, descend, disjointUnion, type CellRect, type SquareTree } from '../square-cells/cell-rect-selection.js';
import { CAP_EDGE_LAT, rhealpixForward, rhealpixInverse, rhealpixPolarSection, type GeoRad, type PlanePoint } from '../../projections/healpix-projection.js';
import { SquareCellGrid } from '../square-cells/square-cell-grid.js';

const PI = Math.PI;
const HALF_PI = PI / 2;
const TWO_OVER_PI = 2 / PI;
export const RHEALPIX_MAX_LEVEL = 16;
const POW3 = Array.from({ length: 34 }, (_, i) => 3 ** i);
const ANCHORS = 30;

export interface RhpZone { level: number; row: number; col: number }

function extentOfCorners(e: { tlx: number; tly: number; brx: number; bry: number }, inverse: (x: number, y: number, g: GeoRad) => boolean): RadExtent {
  const g: GeoRad = { lat: 0, lon: 0 };
  const pts = [[e.tlx, e.tly], [e.tlx, e.bry], [e.brx, e.bry], [e.brx, e.tly]] as const;
  // No corner of an rHEALPix zone is on a pole (3^level rows per face: a pole is a zone's centre).
  return cornersExtent(pts.map(([x, y]) => { inverse(x, y, g); return { lat: g.lat, lon: g.lon }; }));
}

/**
 * The ring (open, cyclic) without its back-runs along parallels. A back-run is a corner between two
 * neighbours on its own latitude (exactly, so the three lie on one straight lon/lat line) where the ring
 * turns straight back: it goes out along the parallel and returns over the same stretch. Of the two runs
 * of points on that parallel meeting at the corner, the shorter (in points) overlaps the other and is
 * dropped, the corner kept; until no back-run is left. A ring without back-runs is returned unchanged.
 */
function withoutBackRunsAlongParallels(ring: GeoRad[]): GeoRad[] {
  // Steps the short way round: a ring round a pole closes with a whole turn, which is no reversal.
  const step = (from: GeoRad, to: GeoRad) => { const d = to.lon - from.lon; return d - 2 * PI * Math.round(d / (2 * PI)); };
  let out = ring;
  for (;;) {
    const n = out.length;
    const at = (i: number) => out[((i % n) + n) % n]!;
    const b = out.findIndex((p, i) => at(i - 1).lat === p.lat && at(i + 1).lat === p.lat && step(at(i - 1), p) * step(p, at(i + 1)) < 0);
    if (b < 0 || n < 4) return out;
    const lat = out[b]!.lat;
    let before = 0, after = 0;
    while (before < n - 1 && at(b - before - 1).lat === lat) before++;
    while (after < n - 1 && at(b + after + 1).lat === lat) after++;
    if (before + after >= n - 1) return out;
    const drop = new Set<number>();
    if (before <= after) for (let k = 1; k <= before; k++) drop.add((((b - k) % n) + n) % n);
    else for (let k = 1; k <= after; k++) drop.add((b + k) % n);
    out = out.filter((_, i) => !drop.has(i));
  }
}

/** DGGAL's GeoExtent.clip: the part of `e` within `c`, or null when they do not meet or nothing is left. */
function clip(e: RadExtent, c: RadExtent): RadExtent | null {
  if (!extentsIntersect(e, c)) return null;
  const r: RadExtent = [Math.max(e[0], c[0]), Math.max(e[1], c[1]), Math.min(e[2], c[2]), Math.min(e[3], c[3])];
  return r[2] >= r[0] && r[3] >= r[1] ? r : null;
}

export class RhealpixGrid extends SquareCellGrid<RhpZone> implements SquareTree<RhpZone> {
  constructor() {
    super({
      id: 'rHEALPix',
      title: 'rHEALPix (aperture 9, 50°E)',
      description: "rHEALPix DGGRS as DGGAL defines it: square equal-area zones of the rHEALPix projection of the WGS84 ellipsoid (authalic latitude, prime meridian 50°E), aperture 9, level-0 zones N, O, P, Q, R, S, sub-zones in scanline order.",
      uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/rHEALPix',
      side: 3,
      rootCount: 6,
      maxLevel: RHEALPIX_MAX_LEVEL,
      defaultLevel: 2,
      defaultDepth: 5,
      maxRelativeDepth: 7,
      zoneIdForm: '{F}{D…}: face N, O, P, Q, R or S, then one digit 0-8 per level (row-major in the parent), like N4 or P012',
    });
  }

  protected parse(id: string): RhpZone | null {
    const ch = id[0];
    let r = ch === 'N' ? 0 : ch === 'S' ? 2 : ch !== undefined && ch >= 'O' && ch <= 'R' ? 1 : -1;
    if (r < 0 || id.length - 1 > RHEALPIX_MAX_LEVEL) return null;
    let c = r === 1 ? ch!.charCodeAt(0) - 79 : 0;
    for (let i = 1; i < id.length; i++) {
      const n = id.charCodeAt(i) - 48;
      if (!(n >= 0 && n <= 8)) return null;
      r = r * 3 + Math.floor(n / 3);
      c = c * 3 + (n % 3);
    }
    return { level: id.length - 1, row: r, col: c };
  }

  protected format(z: RhpZone): string {
    let p = POW3[z.level]!;
    let row = z.row, col = z.col;
    let r = Math.floor(row / p), c = Math.floor(col / p);
    let s = r === 0 ? 'N' : r === 2 ? 'S' : String.fromCharCode(79 + c);
    for (let i = 1; i <= z.level; i++) {
      row -= r * p;
      col -= c * p;
      p /= 3;
      r = Math.floor(row / p);
      c = Math.floor(col / p);
      s += String(r * 3 + c);
    }
    return s;
  }

  protected cellName(level: number, row: number, col: number): string {
    return this.format({ level, row, col });
  }

  protected levelOf(z: RhpZone): number {
    return z.level;
  }

  /** DGGAL's RHPZone::fromPoint. */
  private fromPlane(x: number, y: number, level: number): RhpZone {
    const p = POW3[level]!;
    // DGGAL's build (fast math) divides by pi/2 as a product with 2/pi taken before the product with p:
    // ((x + pi) * (2/pi)) * p. Points on a cell edge (a box ending at 180°) fall where its ulps put them.
    const row = Math.max(0, Math.min(3 * p - 1, Math.trunc(((3 * PI) / 4 - y) * TWO_OVER_PI * p)));
    const col = Math.max(0, Math.min((Math.floor(row / p) === 1 ? 4 * p : p) - 1, Math.trunc((x + PI) * TWO_OVER_PI * p)));
    return { level, row, col };
  }

  protected fromPoint(lat: number, lon: number, level: number): RhpZone {
    rhealpixForward(lat, lon, this.v);
    return this.fromPlane(this.v.x, this.v.y, level);
  }

  private planeExtent(z: RhpZone): { tlx: number; tly: number; brx: number; bry: number } {
    const p = POW3[z.level]!;
    const tly = (3 * PI) / 4 - z.row * HALF_PI / p;
    const tlx = -PI + z.col * HALF_PI / p;
    return { tlx, tly, brx: tlx + HALF_PI / p, bry: tly - HALF_PI / p };
  }

  protected planeCentroid(z: RhpZone): PlanePoint {
    const p = POW3[z.level]!;
    return { x: -PI + (z.col + 0.5) * HALF_PI / p, y: (3 * PI) / 4 - (z.row + 0.5) * HALF_PI / p };
  }

  protected planeCorners(z: RhpZone): PlanePoint[] {
    const e = this.planeExtent(z);
    return [{ x: e.tlx, y: e.tly }, { x: e.tlx, y: e.bry }, { x: e.brx, y: e.bry }, { x: e.brx, y: e.tly }];
  }

  protected inverse(x: number, y: number, g: GeoRad): boolean {
    return rhealpixInverse(x, y, g);
  }

  private poles(z: RhpZone): { north: boolean; south: boolean } {
    const e = this.planeExtent(z);
    const spans = e.tlx < (-3 * PI) / 4 && e.brx > (-3 * PI) / 4;
    return { north: spans && e.tly > HALF_PI && e.bry < HALF_PI, south: spans && e.tly > -HALF_PI && e.bry < -HALF_PI };
  }

  extent(z: RhpZone): RadExtent {
    const e = extentOfCorners(this.planeExtent(z), rhealpixInverse);
    const { north, south } = this.poles(z);
    if (north) return [e[0], -PI, HALF_PI, PI];
    if (south) return [-HALF_PI, -PI, e[2], PI];
    return e;
  }

  /**
   * DGGAL's refined outline without the points where it runs back along a parallel. Beside a pole DGGAL's
   * inverse computes the latitude as asin(1 - s^2), which there takes only a few values: the last points of
   * a side edge of the level-16 neighbours of the pole zones land on the parallel of the edge that follows,
   * so the ring goes out along that parallel past where the next edge comes back along it (overlapping
   * segments, an invalid ring; DGGAL's geom is the same). Computing the latitude exactly would move corners
   * elsewhere 9e-9° from DGGAL's, so the outline keeps DGGAL's points, the corner among them, and drops the
   * side edge's points that lie on the parallel instead.
   */
  refinedRadians(z: RhpZone): GeoRad[] {
    return withoutBackRunsAlongParallels(this.dggalRefined(z).filter((p) => !p.inserted));
  }

  /** DGGAL's refined outline (getRHPRefinedWGS84Vertices), radians, with the points it adds at a pole. */
  dggalRefined(z: RhpZone): (GeoRad & { inserted: boolean })[] {
    const out: (GeoRad & { inserted: boolean })[] = [];
    const dp = this.planeCorners(z);
    const { north, south } = this.poles(z);
    const range = this.outlineLonRange(z);
    const g: GeoRad = { lat: 0, lon: 0 };
    for (let i = 0; i < 4; i++) {
      const p = dp[i]!, np = dp[i === 3 ? 0 : i + 1]!;
      const dx = np.x - p.x, dy = np.y - p.y;
      for (let j = 0; j < ANCHORS; j++) {
        const ix = p.x + (dx * j) / ANCHORS, iy = p.y + (dy * j) / ANCHORS;
        const ps = rhealpixPolarSection(ix, iy);
        const nps = rhealpixPolarSection(p.x + (dx * (j + 1)) / ANCHORS, p.y + (dy * (j + 1)) / ANCHORS);
        const crossing = north ? ps === 3 && nps === 0 : ps === 0 && nps === 3;
        if (!rhealpixInverse(ix, iy, g)) continue;
        const lon = range.add(g.lon);
        out.push({ lat: g.lat, lon, inserted: false });
        if (crossing && south) {
          if (Math.abs(lon + PI) > 1e-9) out.push({ lat: g.lat, lon: -PI, inserted: true });
          out.push({ lat: -HALF_PI, lon: -PI, inserted: true }, { lat: -HALF_PI, lon: PI, inserted: true });
          if (Math.abs(lon - PI) > 1e-9) out.push({ lat: g.lat, lon: PI, inserted: true });
        }
        if (crossing && north) {
          if (Math.abs(lon - PI) > 1e-9) out.push({ lat: g.lat, lon: PI, inserted: true });
          out.push({ lat: HALF_PI, lon: PI, inserted: true }, { lat: HALF_PI, lon: -PI, inserted: true });
          if (Math.abs(lon + PI) > 1e-9) out.push({ lat: g.lat, lon: -PI, inserted: true });
        }
      }
    }
    range.settle(out);
    return out;
  }

  /** DGGAL's refined outline of a zone id, [lat, lon] in degrees as `dgg geom` prints it. */
  dggalRefinedDegrees(zoneId: string): [number, number][] {
    return this.dggalRefined(this.zone(zoneId)).map((p) => [(p.lat * 180) / PI, (p.lon * 180) / PI]);
  }

  protected parentOf(z: RhpZone): RhpZone | null {
    return z.level > 0 ? { level: z.level - 1, row: Math.floor(z.row / 3), col: Math.floor(z.col / 3) } : null;
  }

  protected childrenOf(z: RhpZone): RhpZone[] {
    const out: RhpZone[] = [];
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out.push({ level: z.level + 1, row: z.row * 3 + r, col: z.col * 3 + c });
    return out;
  }

  protected neighboursOf(z: RhpZone): RhpZone[] {
    const { level, row, col } = z;
    const p = POW3[level]!;
    const rr = Math.floor(row / p);
    const at = (r: number, c: number): RhpZone => ({ level, row: r, col: c });
    const n: RhpZone[] = [];
    if (col > 0) n.push(at(row, col - 1));
    else if (rr === 1) n.push(at(row, 4 * p - 1));
    else if (rr === 0) n.push(at(p, 4 * p - (p - row)));
    else n.push(at(2 * p - 1, 4 * p - 1 - (row - 2 * p)));

    if (col < (rr === 1 ? 4 * p : p) - 1) n.push(at(row, col + 1));
    else if (rr === 1) n.push(at(row, 0));
    else if (rr === 0) n.push(at(p, p + (p - 1 - row)));
    else n.push(at(2 * p - 1, p + (row - 2 * p)));

    if (row > 0 && (col < p || row > p)) n.push(at(row - 1, col));
    else if (rr === 0) n.push(at(p, 2 * p + (p - 1 - col)));
    else if (col < 2 * p) n.push(at(p - (col - p) - 1, p - 1));
    else if (col < 3 * p) n.push(at(0, p - 1 - (col - 2 * p)));
    else n.push(at(col - 3 * p, 0));

    if (row < 3 * p - 1 && (col < p || row < 2 * p - 1)) n.push(at(row + 1, col));
    else if (rr === 2) n.push(at(2 * p - 1, 2 * p + (p - col) - 1));
    else if (col < 2 * p) n.push(at(2 * p + (col - p), p - 1));
    else if (col < 3 * p) n.push(at(3 * p - 1, p - 1 - (col - 2 * p)));
    else n.push(at(2 * p + p - (col - 3 * p) - 1, 0));
    return n;
  }

  protected subZoneAt(z: RhpZone, depth: number, i: number): RhpZone {
    const p = POW3[depth]!;
    return { level: z.level + depth, row: z.row * p + Math.floor(i / p), col: z.col * p + (i % p) };
  }

  /** 6 * 9^L zones: keys below 2^53 up to level 15. */
  override readonly maxZoneKeyLevel = 15;

  protected override keyOf(z: RhpZone): number {
    return z.row * 4 * POW3[z.level]! + z.col;
  }

  protected override zoneOfKey(key: number, level: number): RhpZone {
    const w = 4 * POW3[level]!;
    return { level, row: Math.floor(key / w), col: key % w };
  }

  /** level << 59 | row << 30 | col. */
  protected toUint64(z: RhpZone): bigint {
    return (BigInt(z.level) << 59n) | (BigInt(z.row) << 30n) | BigInt(z.col);
  }

  rect(z: RhpZone, level: number): CellRect {
    const k = POW3[level - z.level]!;
    return { r0: z.row * k, r1: (z.row + 1) * k, c0: z.col * k, c1: (z.col + 1) * k };
  }

  /**
   * DGGAL's listZones: the equatorial band by the rectangle of plane cells between the box's projected
   * corners, each polar square by descending its hierarchy with extent tests. A box across the
   * antimeridian is listed as its two halves (DGGAL lists nothing for it).
   */
  protected *boxRects(level: number, boxes: readonly BBox[]): Generator<void, CellRect[], void> {
    const halves: BBox[] = boxes.flatMap(([w, s, e, n]): BBox[] => (w > e ? [[w, s, 180, n], [-180, s, e, n]] : [[w, s, e, n]]));
    const bound = CAP_EDGE_LAT;
    const equatorial: CellRect[] = [];
    const north: RadExtent[] = [], south: RadExtent[] = [];
    for (const b of halves) {
      const x = boxExtent(b);
      const eq = clip(x, [-bound, -PI, bound, PI]);
      if (eq) equatorial.push(...this.equatorialRects(level, eq));
      const nc = clip(x, [bound, -PI, HALF_PI, PI]);
      if (nc) north.push(nc);
      const sc = clip(x, [-HALF_PI, -PI, -bound, PI]);
      if (sc) south.push(sc);
    }
    const out = disjointUnion(equatorial);
    // Every polar zone reaches past the cap's edge latitude, so a box clipped there meets all of them
    // on that side: widened, it lets blocks along the cap's edge be taken whole.
    const northCover = north.map((e): RadExtent => [e[0] <= bound ? -HALF_PI : e[0], e[1], e[2], e[3]]);
    const southCover = south.map((e): RadExtent => [e[0], e[1], e[2] >= -bound ? HALF_PI : e[2], e[3]]);
    if (north.length) yield* descend(this, [{ level: 0, row: 0, col: 0 }], level, north, 0, out, northCover);
    if (south.length) yield* descend(this, [{ level: 0, row: 2, col: 0 }], level, south, 0, out, southCover);
    return out;
  }

  private equatorialRects(level: number, e: RadExtent): CellRect[] {
    let dLon = e[3] - e[1];
    if (dLon < 0) dLon += 2 * PI;
    const ll = { x: 0, y: 0 }, ur = { x: 0, y: 0 };
    rhealpixForward(e[0], e[1], ll);
    rhealpixForward(e[2], e[3], ur);
    if (Math.abs(ur.x - ll.x) < dLon / 2) { ll.x = -PI; ur.x = PI; }
    const tl = this.fromPlane(ll.x + 1e-15, ur.y - 1e-15, level);
    const br = this.fromPlane(ur.x - 1e-15, ll.y + 1e-15, level);
    const r0 = tl.row, r1 = br.row + 1;
    if (r1 <= r0) return [];
    if (br.col >= tl.col) return [{ r0, r1, c0: tl.col, c1: br.col + 1 }];
    // Across the seam at 130°W (x = +-pi): both ends of the band's row.
    return [{ r0, r1, c0: 0, c1: br.col + 1 }, { r0, r1, c0: tl.col, c1: 4 * POW3[level]! }];
  }
}
