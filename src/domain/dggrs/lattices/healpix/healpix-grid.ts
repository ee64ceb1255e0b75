/**
 * DGGAL's HEALPix DGGRS (its "HEALPix (A4 H=4, K=3)", OGC's HEALPix): the twelve HEALPix base
 * rhombi of the WGS84 ellipsoid (authalic latitude), aperture 4. A zone is (level, root, row, col),
 * the sub-index row * 2^L + col counting in scanlines inside the root rhombus.
 */
import type { BBox, LonLat } from '../../dggrs.js';
import type { RadExtent } from '../../core/box-cover.js';
import { cornersExtent } from '../../core/outline-extent.js';
import { boxExtent, descend, type CellRect, type SquareTree } from '../square-cells/cell-rect-selection.js';
import { healpixForward, healpixInverse, type GeoRad, type PlanePoint } from '../../projections/healpix-projection.js';
import { SquareCellGrid } from '../square-cells/square-cell-grid.js';

const PI = Math.PI;
const HALF_PI = PI / 2;
/** Ids name the level by one letter A-Z, and DGGAL gives level-25 zones no children. */
export const HEALPIX_MAX_LEVEL = 25;
const ANCHORS = 30;
const ID = /^([A-Z])([0-9AB])-(0|[1-9A-F][0-9A-F]*)$/;

export interface HpZone { level: number; root: number; row: number; col: number }

const sgn = (v: number): number => (v < 0 ? -1 : v > 0 ? 1 : 0);

export class HealpixGrid extends SquareCellGrid<HpZone> implements SquareTree<HpZone> {
  constructor() {
    super({
      id: 'HEALPix',
      title: 'HEALPix (aperture 4, H = 4, K = 3)',
      description: 'HEALPix DGGRS as DGGAL defines it: square equal-area zones of the HEALPix projection of the WGS84 ellipsoid (authalic latitude), twelve root rhombi 0-B, aperture 4, sub-zones in scanline order.',
      uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/HEALPix',
      side: 2,
      rootCount: 12,
      maxLevel: HEALPIX_MAX_LEVEL,
      defaultLevel: 3,
      defaultDepth: 8,
      maxRelativeDepth: 11,
      zoneIdForm: '{L}{R}-{I}: level letter A-Z, root rhombus 0-B, hexadecimal sub-index (row * 2^L + col), like C2-0',
    });
  }

  protected parse(id: string): HpZone | null {
    const m = ID.exec(id);
    if (!m) return null;
    const level = m[1]!.charCodeAt(0) - 65;
    if (level > HEALPIX_MAX_LEVEL) return null;
    const ix = BigInt('0x' + m[3]!);
    if (ix >= 1n << BigInt(2 * level)) return null;
    const p = 2 ** level;
    const n = Number(ix);
    return { level, root: parseInt(m[2]!, 16), row: Math.floor(n / p), col: n % p };
  }

  protected format(z: HpZone): string {
    return `${String.fromCharCode(65 + z.level)}${z.root.toString(16).toUpperCase()}-${(z.row * 2 ** z.level + z.col).toString(16).toUpperCase()}`;
  }

  protected cellName(level: number, r: number, col: number): string {
    const p = 2 ** level;
    return this.format({ level, root: Math.floor(r / p), row: r % p, col });
  }

  protected levelOf(z: HpZone): number {
    return z.level;
  }

  /** DGGAL's HPZone::fromPoint, through its 4x6 rhombus layout. */
  protected fromPoint(lat: number, lon: number, level: number): HpZone | null {
    healpixForward(lat, lon, this.v);
    const v = this.v;
    const p = 2 ** level;
    const x = ((v.y + v.x + (5 * PI) / 4) * 2) / PI;
    const y = (v.x * 4) / PI + 5 - x;
    const cx = Math.trunc(x + 1e-11), cy = Math.trunc(y + 1e-11);
    const sx = x - cx, sy = y - cy;
    const addX = cx > cy, addY = cy > cx;
    const rCol = cx - (addX ? 1 : 0);
    const rRow = addX ? 0 : addY ? 2 : 1;
    const col = Math.trunc(sx * p), row = Math.trunc(sy * p);
    if (!(rCol >= 0 && rCol <= 4 && col >= 0 && col < p && row >= 0 && row < p)) return null;
    return { level, root: ((rRow << 2) | rCol) & 15, row, col };
  }

  /** Position of the zone's top-left corner in the 4x6 layout, and the zone's size there. */
  private layout(z: HpZone): { x: number; y: number; oop: number } {
    const rCol = z.root & 3, rRow = z.root >> 2;
    const oop = 1.0 / 2 ** z.level;
    return { x: rCol + (rRow === 0 ? 1 : 0) + z.col * oop, y: rCol + (rRow === 2 ? 1 : 0) + z.row * oop, oop };
  }

  protected planeCentroid(z: HpZone): PlanePoint {
    const { x, y, oop } = this.layout(z);
    return { x: ((x + y + oop) * PI) / 4 - (5 * PI) / 4, y: (-(y - x) * PI) / 4 };
  }

  protected planeCorners(z: HpZone): PlanePoint[] {
    const { x, y, oop } = this.layout(z);
    return [
      { x: ((x + y) * PI) / 4 - (5 * PI) / 4, y: (-(y - x) * PI) / 4 },
      { x: ((x + y + oop) * PI) / 4 - (5 * PI) / 4, y: (-(y + oop - x) * PI) / 4 },
      { x: ((x + y + 2 * oop) * PI) / 4 - (5 * PI) / 4, y: (-(y - x) * PI) / 4 },
      { x: ((x + oop + y) * PI) / 4 - (5 * PI) / 4, y: (-(y - x - oop) * PI) / 4 },
    ];
  }

  protected inverse(x: number, y: number, g: GeoRad): boolean {
    return healpixInverse(x, y, g);
  }

  /** DGGAL's getZoneWGS84Extent: the box of the four corners, a pole corner adding no longitude. */
  extent(z: HpZone): RadExtent {
    const { x, y, oop } = this.layout(z);
    const tlx = ((x + y) * PI) / 4 - (5 * PI) / 4, tly = (-(y - (x + oop)) * PI) / 4;
    const brx = ((x + y + 2 * oop) * PI) / 4 - (5 * PI) / 4, bry = (-((y + oop) - x) * PI) / 4;
    const midX = (tlx + brx) / 2, midY = (tly + bry) / 2;
    const g: GeoRad = { lat: 0, lon: 0 };
    const v = ([[tlx, midY], [midX, bry], [brx, midY], [midX, tly]] as const).map(([a, b]) => { healpixInverse(a, b, g); return { lat: g.lat, lon: g.lon }; });
    let [llLat, llLon, urLat, urLon] = cornersExtent(v);
    if (llLon < -PI) llLon += 2 * PI;
    if (urLon < -PI) urLon += 2 * PI;
    return [llLat, llLon, urLat, urLon];
  }

  /** DGGAL's getHPRefinedWGS84Vertices: 30 points an edge, a pole corner drawn along the pole. */
  refinedRadians(z: HpZone): GeoRad[] {
    const out: GeoRad[] = [];
    const dp = this.planeCorners(z);
    const range = this.outlineLonRange(z);
    const g: GeoRad = { lat: 0, lon: 0 };
    for (let i = 0; i < 4; i++) {
      const p = dp[i]!, np = dp[i === 3 ? 0 : i + 1]!;
      const dx = np.x - p.x, dy = np.y - p.y;
      for (let j = 0; j < ANCHORS; j++) {
        const ix = p.x + (dx * j) / ANCHORS;
        let iy = p.y + (dy * j) / ANCHORS;
        if (!healpixInverse(ix, iy, g)) continue;
        const lat = g.lat;
        let lon = range.add(g.lon);
        const prev = out[out.length - 1];
        if (Math.abs(lat) > HALF_PI - 0.1 && prev && Math.abs(lon - prev.lon) > PI / 6) {
          iy -= sgn(iy) * 1e-11;
          healpixInverse(ix, iy, g);
          lon = g.lon;
          if (HALF_PI - Math.abs(prev.lat) > 0.001) out.push({ lat: sgn(lat) * HALF_PI, lon: prev.lon });
          else if (Math.abs(prev.lon - lon) > PI / 6) out.push({ lat: sgn(lat) * HALF_PI, lon });
        }
        out.push({ lat, lon });
      }
    }
    range.settle(out);
    return out;
  }

  /** DGGAL's refined outline of a zone id, [lat, lon] in degrees as `dgg geom` prints it. */
  dggalRefinedDegrees(zoneId: string): [number, number][] {
    return this.refinedRadians(this.zone(zoneId)).map((p) => [(p.lat * 180) / PI, (p.lon * 180) / PI]);
  }

  /** The corners, a corner on a pole drawn as two points along the pole (its longitude means nothing). */
  protected override plainOutline(z: HpZone): LonLat[] {
    const pts = super.plainOutline(z);
    const out: LonLat[] = [];
    pts.forEach((p, i) => {
      if (Math.abs(p[1]) < 90 - 1e-9) out.push(p);
      else {
        out.push([pts[(i + 3) % 4]![0], p[1]]);
        out.push([pts[(i + 1) % 4]![0], p[1]]);
      }
    });
    return out;
  }

  protected parentOf(z: HpZone): HpZone | null {
    return z.level > 0 ? { level: z.level - 1, root: z.root, row: z.row >> 1, col: z.col >> 1 } : null;
  }

  protected childrenOf(z: HpZone): HpZone[] {
    const out: HpZone[] = [];
    for (let r = 0; r < 2; r++) for (let c = 0; c < 2; c++) out.push({ level: z.level + 1, root: z.root, row: z.row * 2 + r, col: z.col * 2 + c });
    return out;
  }

  /** DGGAL's getZoneNeighbors: left, right, top, bottom in the rhombus, across the interruptions. */
  protected neighboursOf(z: HpZone): HpZone[] {
    const { level, root, row, col } = z;
    const p = 2 ** level;
    const at = (rt: number, r: number, c: number): HpZone => ({ level, root: rt, row: r, col: c });
    const n: HpZone[] = [];
    if (col > 0) n.push(at(root, row, col - 1));
    else if (root >= 8) n.push(at(root === 8 ? 11 : root - 1, p - 1, p - 1 - row));
    else n.push(at(root <= 3 ? root + 4 : root >= 5 ? root + 3 : 11, row, p - 1));

    if (col < p - 1) n.push(at(root, row, col + 1));
    else if (root <= 3) n.push(at(root === 3 ? 0 : root + 1, 0, p - 1 - row));
    else n.push(at(root <= 7 ? root - 4 : root <= 10 ? root - 3 : 4, row, 0));

    if (row > 0) n.push(at(root, row - 1, col));
    else if (root <= 3) n.push(at(root === 0 ? 3 : root - 1, p - 1 - col, p - 1));
    else n.push(at(root >= 8 ? root - 4 : root >= 5 ? root - 5 : 3, p - 1, col));

    if (row < p - 1) n.push(at(root, row + 1, col));
    else if (root >= 8) n.push(at(root === 11 ? 8 : root + 1, p - 1 - col, 0));
    else n.push(at(root >= 4 ? root + 4 : root <= 2 ? root + 5 : 4, 0, col));
    return n;
  }

  protected subZoneAt(z: HpZone, depth: number, i: number): HpZone {
    const dm = 2 ** depth;
    return { level: z.level + depth, root: z.root, row: z.row * dm + Math.floor(i / dm), col: z.col * dm + (i % dm) };
  }

  /** 12 * 4^L zones: keys below 2^53 up to level 24. */
  override readonly maxZoneKeyLevel = 24;

  protected override keyOf(z: HpZone): number {
    const p = 2 ** z.level;
    return (z.root * p + z.row) * p + z.col;
  }

  protected override zoneOfKey(key: number, level: number): HpZone {
    const p = 2 ** level;
    const col = key % p, r = (key - col) / p;
    return { level, root: Math.floor(r / p), row: r % p, col };
  }

  /** level << 56 | root << 52 | sub-index. */
  protected toUint64(z: HpZone): bigint {
    return (BigInt(z.level) << 56n) | (BigInt(z.root) << 52n) | (BigInt(z.row) << BigInt(z.level)) | BigInt(z.col);
  }

  rect(z: HpZone, level: number): CellRect {
    const k = 2 ** (level - z.level);
    const r0 = z.root * 2 ** level + z.row * k;
    return { r0, r1: r0 + k, c0: z.col * k, c1: (z.col + 1) * k };
  }

  /** DGGAL's listZones: from the twelve roots down, a zone kept while its extent meets the box. */
  protected *boxRects(level: number, boxes: readonly BBox[]): Generator<void, CellRect[], void> {
    const out: CellRect[] = [];
    const roots = Array.from({ length: 12 }, (_, root) => ({ level: 0, root, row: 0, col: 0 }));
    yield* descend(this, roots, level, boxes.map(boxExtent), level === 0 ? 0 : 1, out);
    return out;
  }
}
