/**
 * A grid whose zones are another grid's zones placed in another frame: the same ids, hierarchy,
 * neighbours, sub-zone order and areas, the geometry turned about the polar axis and its latitudes
 * read on the authalic sphere instead of as WGS84 geodetic latitudes.
 *
 * This is how DGGRID's presets relate to DGGAL's grids: DGGRID puts icosahedron vertex 0 at 11.25E where
 * DGGAL puts it at 11.20E, and takes longitude and latitude as positions on the authalic sphere (no datum
 * conversion) where DGGAL converts WGS84 latitudes to authalic ones first. Both turn the same icosahedron
 * the same way about the same axis, so one grid is the other with longitudes shifted by the difference and
 * latitudes mapped by the authalic latitude function: exactly, not to a tolerance.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../dggrs.js';
import { authalicToGeodetic, geodeticToAuthalic } from './authalic-latitude.js';
import { CRS84, type GridIdentity } from './base-dggrs.js';

const DEG = Math.PI / 180;

/**
 * The most the move stretches any length (the latitude map's derivative and the ratio of the parallels'
 * radii both stay within 1 +/- 0.0045 on WGS84): a cap of radius r in the inner grid's coordinates holds
 * every point within r / STRETCH of its centre in this grid's.
 */
const STRETCH = 1.01;

/** A longitude in [-180, 180]. */
function wrapLon(lon: number): number {
  if (lon > 180) return lon - 360;
  if (lon < -180) return lon + 360;
  return lon;
}

export interface MovedFrame {
  /** This grid's longitude minus the inner grid's for the same point, degrees. */
  lonShift: number;
}

export class MovedFrameGrid implements Dggrs {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly uri: string;
  readonly crs = CRS84;
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  readonly zoneIdForm: string;
  readonly maxZoneKeyLevel?: number;
  readonly zoneKeyFromPoint?: (lon: number, lat: number, level: number) => number;
  readonly zoneIdFromKey?: (key: number, level: number) => string;
  readonly zoneKeyFromId?: (zoneId: string) => number;
  readonly zoneCentroid?: (zoneId: string) => LonLat;
  readonly zoneKeyClearance?: (lon: number, lat: number, level: number, out: Float64Array) => void;
  readonly zoneToUint64?: (zoneId: string) => bigint;
  private readonly shift: number;

  constructor(
    private readonly inner: Dggrs,
    frame: MovedFrame,
    identity: GridIdentity,
  ) {
    this.id = identity.id;
    this.title = identity.title;
    this.description = identity.description;
    this.uri = identity.uri;
    this.shift = frame.lonShift;
    this.defaultLevel = inner.defaultLevel;
    this.defaultDepth = inner.defaultDepth;
    this.maxRefinementLevel = inner.maxRefinementLevel;
    this.maxRelativeDepth = inner.maxRelativeDepth;
    this.zoneIdForm = inner.zoneIdForm;
    // The optional capabilities exist exactly where the inner grid has them.
    if (inner.zoneKeyFromPoint && inner.zoneIdFromKey && inner.maxZoneKeyLevel !== undefined) {
      const keyOf = inner.zoneKeyFromPoint.bind(inner);
      this.maxZoneKeyLevel = inner.maxZoneKeyLevel;
      this.zoneKeyFromPoint = (lon, lat, level) => keyOf(this.innerLon(lon), this.innerLat(lat), level);
      this.zoneIdFromKey = inner.zoneIdFromKey.bind(inner);
      // Ids are the inner grid's, so are the keys read from them.
      if (inner.zoneKeyFromId) this.zoneKeyFromId = inner.zoneKeyFromId.bind(inner);
      if (inner.zoneKeyClearance) {
        const clearance = inner.zoneKeyClearance.bind(inner);
        this.zoneKeyClearance = (lon, lat, level, out) => {
          clearance(this.innerLon(lon), this.innerLat(lat), level, out);
          out[1] = out[1]! / STRETCH;
        };
      }
    }
    if (inner.zoneToUint64) this.zoneToUint64 = inner.zoneToUint64.bind(inner);
    if (inner.zoneCentroid) {
      const centroid = inner.zoneCentroid.bind(inner);
      this.zoneCentroid = (zoneId) => this.outerPoint(centroid(zoneId));
    }
  }

  private innerLon(lon: number): number {
    return wrapLon(lon - this.shift);
  }

  private innerLat(lat: number): number {
    return authalicToGeodetic(lat * DEG) / DEG;
  }

  private outerLat(lat: number): number {
    return geodeticToAuthalic(lat * DEG) / DEG;
  }

  /** A point of the inner grid as a point of this one, longitude in [-180, 180]. */
  private outerPoint([lon, lat]: LonLat): LonLat {
    return [wrapLon(lon + this.shift), this.outerLat(lat)];
  }

  /** A box of this grid's coordinates in the inner grid's (the move maps boxes to boxes). */
  private innerBox([minLon, minLat, maxLon, maxLat]: BBox): BBox {
    const whole = maxLon - minLon >= 360;
    return [whole ? -180 : this.innerLon(minLon), this.innerLat(minLat), whole ? 180 : this.innerLon(maxLon), this.innerLat(maxLat)];
  }

  private outerBox([minLon, minLat, maxLon, maxLat]: BBox): BBox {
    const whole = maxLon - minLon >= 360;
    return [whole ? -180 : wrapLon(minLon + this.shift), this.outerLat(minLat), whole ? 180 : wrapLon(maxLon + this.shift), this.outerLat(maxLat)];
  }

  isValidZone(zoneId: string): boolean {
    return this.inner.isValidZone(zoneId);
  }

  zoneLevel(zoneId: string): number {
    return this.inner.zoneLevel(zoneId);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    return this.inner.zoneFromPoint(this.innerLon(lon), this.innerLat(lat), level);
  }

  describeZone(zoneId: string): ZoneDescription {
    const d = this.inner.describeZone(zoneId);
    return { ...d, centroid: this.outerPoint(d.centroid), vertices: d.vertices.map((v) => this.outerPoint(v)), bbox: this.outerBox(d.bbox) };
  }

  /** The inner ring moved point by point: its longitudes stay continuous, brought back by a turn if all pass 180. */
  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const ring = this.inner.zoneOutline(zoneId, refined).map(([lon, lat]): LonLat => [lon + this.shift, this.outerLat(lat)]);
    if (ring.every(([lon]) => lon > 180)) for (const p of ring) p[0] -= 360;
    return ring;
  }

  parents(zoneId: string): string[] {
    return this.inner.parents(zoneId);
  }

  children(zoneId: string): string[] {
    return this.inner.children(zoneId);
  }

  neighbours(zoneId: string): string[] {
    return this.inner.neighbours(zoneId);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    return this.inner.subZones(zoneId, relativeDepth, page);
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    return this.inner.subZoneCount(zoneId, relativeDepth);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    if (typeof bbox[0] === 'number') return this.inner.selectZonesInBBox(level, this.innerBox(bbox as BBox));
    return this.inner.selectZonesInBBox(level, (bbox as readonly BBox[]).map((b) => this.innerBox(b)));
  }

  zonesInBBox(level: number, bbox: BBox): string[] {
    return runToEnd(this.selectZonesInBBox(level, bbox).page({ offset: 0, limit: Infinity }));
  }

  estimateZonesInBBox(level: number, bbox: BBox): number {
    return this.inner.estimateZonesInBBox(level, this.innerBox(bbox));
  }

  zoneArea(zoneId: string): number {
    return this.inner.zoneArea(zoneId);
  }

  levelInfo(level: number): GridLevelInfo {
    return this.inner.levelInfo(level);
  }
}
