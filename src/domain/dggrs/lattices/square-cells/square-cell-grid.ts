/**
 * What the two HEALPix-family grids share: square zones of a plane projection, one parent, scanline
 * sub-zone order inside the parent, and equal areas (DGGAL's earth area over the zone count). Each grid
 * supplies its projection, its zone numbering and DGGAL's rules for extents and listing.
 */
import type { BBox, LonLat, Page, ZoneDescription, ZoneSelection } from '../../dggrs.js';
import { ParsedZoneGrid } from '../../core/base-dggrs.js';
import { BoxCover, boxList, extentToBBox, type RadExtent } from '../../core/box-cover.js';
import { CellRectSelection, type CellRect } from './cell-rect-selection.js';
import type { GeoRad, PlanePoint } from '../../projections/healpix-projection.js';
import { EARTH_AREA } from '../../core/wgs84.js';
import { continuousLongitudes } from '../../../geometry/continuous-longitudes.js';

const RAD = 180 / Math.PI;
const DEG = Math.PI / 180;

export interface SquareGridOptions {
  id: string;
  title: string;
  description: string;
  uri: string;
  /** Zones per side of a parent: 3 (aperture 9) or 2 (aperture 4). */
  side: number;
  rootCount: number;
  maxLevel: number;
  defaultLevel: number;
  defaultDepth: number;
  maxRelativeDepth: number;
  zoneIdForm: string;
}

export abstract class SquareCellGrid<Z> extends ParsedZoneGrid<Z> {
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  readonly zoneIdForm: string;
  protected readonly side: number;
  private readonly rootCount: number;
  protected readonly g: GeoRad = { lat: 0, lon: 0 };
  protected readonly v: PlanePoint = { x: 0, y: 0 };

  constructor(o: SquareGridOptions) {
    super(o);
    this.side = o.side;
    this.rootCount = o.rootCount;
    this.maxRefinementLevel = o.maxLevel;
    this.defaultLevel = o.defaultLevel;
    this.defaultDepth = o.defaultDepth;
    this.maxRelativeDepth = o.maxRelativeDepth;
    this.zoneIdForm = o.zoneIdForm;
  }

  protected abstract fromPoint(lat: number, lon: number, level: number): Z | null;
  /** Centroid in the plane. */
  protected abstract planeCentroid(z: Z): PlanePoint;
  /** The four corners in the plane, in DGGAL's vertex order. */
  protected abstract planeCorners(z: Z): PlanePoint[];
  protected abstract inverse(x: number, y: number, g: GeoRad): boolean;
  /** DGGAL's getZoneWGS84Extent, radians. */
  abstract extent(z: Z): RadExtent;
  /** DGGAL's refined outline points, radians, longitudes within the zone's own range. */
  abstract refinedRadians(z: Z): GeoRad[];
  protected abstract parentOf(z: Z): Z | null;
  /** Sub-zone `i` of the scanline order at `depth` below. */
  protected abstract subZoneAt(z: Z, depth: number, i: number): Z;
  /** The zones of `level` meeting the boxes, as disjoint rectangles of cells. */
  protected abstract boxRects(level: number, boxes: readonly BBox[]): Generator<void, CellRect[], void>;
  protected abstract cellName(level: number, row: number, col: number): string;

  zoneFromPoint(lon: number, lat: number, level: number): string {
    const z = this.zoneOfPoint(lon, lat, level);
    if (z === null) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return this.format(z);
  }

  /** The zone of `level` holding the point (degrees), null where there is none. */
  protected zoneOfPoint(lon: number, lat: number, level: number): Z | null {
    this.checkLevel(level);
    return Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lat) <= 90 ? this.fromPoint(lat * DEG, lon * DEG, level) : null;
  }

  // The hierarchy as the bbox descent (cell-rect-selection's SquareTree) walks it.
  childNodes(z: Z): Z[] {
    return this.childrenOf(z);
  }

  nodeLevel(z: Z): number {
    return this.levelOf(z);
  }

  /** Highest level whose numeric keys (`keyOf`) are all below 2^53. */
  abstract override readonly maxZoneKeyLevel: number;
  /** A zone's numeric key, unique within its level. */
  protected abstract keyOf(z: Z): number;
  /** The zone of `level` with this key (inverse of `keyOf`). */
  protected abstract zoneOfKey(key: number, level: number): Z;

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    const z = this.zoneOfPoint(lon, lat, level);
    return z === null ? NaN : this.keyOf(z);
  }

  zoneIdFromKey(key: number, level: number): string {
    return this.format(this.zoneOfKey(key, level));
  }

  /**
   * A plane point's position, longitude within [-180, 180]: the inverse projections wrap longitudes with a
   * tolerance of a few ulps, and a centroid on the antimeridian came out at 180.00000000000006.
   */
  protected geo(p: PlanePoint): LonLat {
    if (!this.inverse(p.x, p.y, this.g)) return [-999, -999];
    return [Math.max(-180, Math.min(180, this.g.lon * RAD)), this.g.lat * RAD];
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const level = this.levelOf(z);
    const e = this.extent(z);
    return {
      id: zoneId,
      level,
      shape: 'square',
      edgeCount: 4,
      centroid: this.geo(this.planeCentroid(z)),
      vertices: this.planeCorners(z).map((p) => this.geo(p)),
      areaMetersSquare: this.regularZoneArea(level),
      bbox: extentToBBox(e),
    };
  }

  protected areaOf(z: Z): number {
    return this.regularZoneArea(this.levelOf(z));
  }

  protected zoneCount(level: number): number {
    return this.rootCount * this.side ** (2 * level);
  }

  /** Every zone of a level has the same area (DGGAL's earth area over the zone count). */
  protected regularZoneArea(level: number): number {
    return EARTH_AREA / this.zoneCount(level);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const z = this.zone(zoneId);
    const pts: LonLat[] = refined
      ? this.refinedRadians(z).map((p) => [p.lon * RAD, p.lat * RAD] as LonLat)
      : this.plainOutline(z);
    // Longitudes continuous along the ring; a ring round a pole winds once (RFC 7946 helpers close it).
    continuousLongitudes(pts);
    if (pts.length) pts.push([pts[0]![0], pts[0]![1]]);
    return pts;
  }

  /** The longitude bookkeeping of a refined outline of `z`, around its centroid. */
  protected outlineLonRange(z: Z): OutlineLonRange {
    const c = this.planeCentroid(z);
    const cg: GeoRad = { lat: 0, lon: 0 };
    this.inverse(c.x, c.y, cg);
    return new OutlineLonRange(cg.lon);
  }

  /** The true corners as outline points. */
  protected plainOutline(z: Z): LonLat[] {
    return this.planeCorners(z).map((p) => this.geo(p));
  }

  protected parentsOf(z: Z): Z[] {
    const p = this.parentOf(z);
    return p === null ? [] : [p];
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    const total = this.subZoneCount(zoneId, relativeDepth);
    const start = Math.min(page?.offset ?? 0, total);
    const end = Math.min(total, start + (page?.limit ?? Infinity));
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push(this.format(this.subZoneAt(z, relativeDepth, i)));
    return out;
  }

  protected subZoneCountOf(_z: Z, depth: number): number {
    return this.side ** (2 * depth);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    const boxes = boxList(bbox);
    const cover = new BoxCover(boxes);
    const zoneSide = Math.sqrt((4 * Math.PI) / this.zoneCount(level));
    const edgeZones = cover.whole ? 0 : Math.ceil(cover.edgeLength() / zoneSide);
    return new CellRectSelection(edgeZones, () => this.boxRects(level, boxes), (row, col) => this.cellName(level, row, col));
  }

  /** Centroid and a radius holding the whole zone (for deciding whole blocks of a bbox listing). */
  cap(z: Z): { lat: number; lon: number; radius: number } {
    const c = this.planeCentroid(z);
    this.inverse(c.x, c.y, this.g);
    const lat = this.g.lat, lon = this.g.lon;
    let r = 0;
    const corners = this.planeCorners(z);
    for (let i = 0; i < 4; i++) {
      const a = corners[i]!, b = corners[(i + 1) % 4]!;
      for (const t of [0, 0.5]) {
        this.inverse(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, this.g);
        r = Math.max(r, greatCircle(lat, lon, this.g.lat, this.g.lon));
      }
    }
    // Edges bend between the points sampled; a fifth more covers the bend of any zone below level 2.
    return { lat, lon, radius: r * 1.2 + 1e-9 };
  }
}

function greatCircle(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const s = Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(s)));
}

/**
 * DGGAL's longitude bookkeeping of a refined outline: each point's longitude taken within half a turn
 * of the centroid's, the westmost and eastmost remembered, then every point brought inside that range.
 */
export class OutlineLonRange {
  private maxD = -99999;
  private minD = 99999;
  private ur = -Number.MAX_VALUE;
  private ll = Number.MAX_VALUE;

  constructor(private readonly centroidLon: number) {}

  add(lonIn: number): number {
    let lon = lonIn;
    let d = lon - this.centroidLon;
    if (d > Math.PI) { d -= 2 * Math.PI; lon -= 2 * Math.PI; }
    if (d < -Math.PI) { d += 2 * Math.PI; lon += 2 * Math.PI; }
    if (d > this.maxD) { this.maxD = d; this.ur = lon; }
    if (d < this.minD) { this.minD = d; this.ll = lon; }
    return lon;
  }

  settle(pts: GeoRad[]): void {
    if (Math.abs(this.ll + Math.PI) < 1e-9) this.ur = Math.PI;
    if (Math.abs(this.ur - Math.PI) < 1e-9) this.ll = -Math.PI;
    for (const p of pts) {
      if (p.lon > this.ur + 1e-11) p.lon -= 2 * Math.PI;
      else if (p.lon < this.ll - 1e-11) p.lon += 2 * Math.PI;
    }
  }
}
