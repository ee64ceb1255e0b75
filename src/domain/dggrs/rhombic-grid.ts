/**
 * A rhombic-icosahedral grid of square zones (DGGAL's RhombicIcosahedral9R / 4R): the 5x6 net cut into
 * squares, aperture 9 (3 x 3) or 4 (2 x 2) per level, mapped to the WGS84 ellipsoid by an equal-area
 * projection of the net. ISEA9R, IVEA9R, ISEA4R and IVEA4R are instances; other projections of the same
 * net (RTEA) build theirs through `createRhombicGrid`.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from './dggrs.js';
import { boxList } from './box-cover.js';
import { InvalidZoneIdError } from './i7h-grid.js';
import { RhombicBoxZones } from './rhombic-box-zones.js';
import { rhombicCentroidGeo, rhombicForward, rhombicExtentRadians, rhombicRefinedGeo, type RhombicProjection } from './rhombic-outline.js';
import {
  LATTICE_4R, LATTICE_9R, parseRhombicId, rhombicAt, rhombicChildren, rhombicCorners5x6, rhombicId, rhombicNeighbours,
  rhombicParent, rhombicSubSquares, rhombicToUint64, rhombicZoneCount, type RhombicLattice, type RhombicZone,
} from './rhombic-zone.js';
import { EARTH_AREA } from './wgs84.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;

export interface RhombicGridOptions {
  id: string;
  title: string;
  description: string;
  /** OGC definition, or DGGAL's where OGC registers none. */
  uri: string;
  projection: RhombicProjection;
  aperture: 4 | 9;
}

export class RhombicGrid implements Dggrs {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly uri: string;
  readonly crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  /** 7,290 (9R level 3) or 10,240 (4R level 5) zones: about the zone count of the other grids' default level. */
  readonly defaultLevel: number;
  /** DGGAL's ~64K sub-zones depth (its `info`): 5 for 9R (59,049), 8 for 4R (65,536). */
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  /**
   * 9^7 = 4,782,969 or 4^11 = 4,194,304 sub-zones per zone: the other grids' bound in size (DGGAL itself
   * goes to 8 and 14, where its sub-zone lists reach 2^32 bytes).
   */
  readonly maxRelativeDepth: number;
  readonly zoneIdForm: string;
  /** Keys are row * 5p + col: below 2^53 up to level 15 (9R) or 24 (4R). */
  readonly maxZoneKeyLevel: number;
  private readonly lat: RhombicLattice;
  private readonly proj: RhombicProjection;
  private readonly xy = new Float64Array(2);

  constructor(opts: RhombicGridOptions) {
    this.id = opts.id;
    this.title = opts.title;
    this.description = opts.description;
    this.uri = opts.uri;
    this.proj = opts.projection;
    const nine = opts.aperture === 9;
    this.lat = nine ? LATTICE_9R : LATTICE_4R;
    this.defaultLevel = nine ? 3 : 5;
    this.defaultDepth = nine ? 5 : 8;
    this.maxRefinementLevel = this.lat.maxLevel;
    this.maxRelativeDepth = nine ? 7 : 11;
    this.maxZoneKeyLevel = nine ? 15 : 24;
    const last = String.fromCharCode(65 + this.lat.maxLevel);
    this.zoneIdForm = `{L}{R}-{I}: level letter A..${last}, root rhombus 0-9, uppercase hex index of the square in its rhombus (like ${nine ? 'C4-17' : 'D4-2A'})`;
  }

  private zone(zoneId: string): RhombicZone {
    const z = parseRhombicId(this.lat, zoneId);
    if (!z) throw new InvalidZoneIdError(zoneId);
    return z;
  }

  private id_ = (z: RhombicZone): string => rhombicId(this.lat, z);

  isValidZone(zoneId: string): boolean {
    return parseRhombicId(this.lat, zoneId) !== null;
  }

  zoneLevel(zoneId: string): number {
    return this.zone(zoneId).level;
  }

  private checkLevel(level: number): void {
    if (!Number.isInteger(level) || level < 0 || level > this.lat.maxLevel) throw new RangeError(`Level out of range: ${level}`);
  }

  private locate(lon: number, lat: number, level: number): RhombicZone | null {
    this.checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return null;
    rhombicForward(this.proj, lat, lon, this.xy);
    return rhombicAt(this.lat, level, this.xy[0]!, this.xy[1]!);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    const z = this.locate(lon, lat, level);
    if (!z) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return this.id_(z);
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    if (level > this.maxZoneKeyLevel) throw new RangeError(`No numeric zone keys beyond level ${this.maxZoneKeyLevel}`);
    const z = this.locate(lon, lat, level);
    return z ? z.row * 5 * this.lat.pow[level]! + z.col : NaN;
  }

  zoneIdFromKey(key: number, level: number): string {
    const cols = 5 * this.lat.pow[level]!;
    const row = Math.floor(key / cols);
    return this.id_({ level, row, col: key - row * cols });
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const c = rhombicCentroidGeo(this.lat, z, this.proj);
    const e = rhombicExtentRadians(this.lat, z, this.proj);
    return {
      id: zoneId,
      level: z.level,
      shape: 'square',
      edgeCount: 4,
      centroid: [c.lon, c.lat],
      vertices: this.corners(z, true),
      areaMetersSquare: this.areaOf(z.level),
      bbox: [e[1] * RAD, e[0] * RAD, e[3] * RAD, e[2] * RAD],
    };
  }

  /** The four corners in DGGAL's order, as DGGAL projects them (poles snapped unless `snapPoles` is false). */
  private corners(z: RhombicZone, snapPoles: boolean): LonLat[] {
    const g = { lat: 0, lon: 0 };
    return rhombicCorners5x6(this.lat, z).map((v) => {
      this.proj.inverse(v.x, v.y, false, g, snapPoles);
      return [g.lon, g.lat] as LonLat;
    });
  }

  /** DGGAL's 64-bit id: level << 59 | row << 30 | col. */
  zoneToUint64(zoneId: string): bigint {
    return rhombicToUint64(this.zone(zoneId));
  }

  zoneArea(zoneId: string): number {
    return this.areaOf(this.zone(zoneId).level);
  }

  /** Every zone of a level has the same area (DGGAL's equal-area rule). */
  private areaOf(level: number): number {
    return EARTH_AREA / rhombicZoneCount(this.lat, level);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const z = this.zone(zoneId);
    let ring = this.ring(z, refined, true);
    // Deep zones at a pole: DGGAL's pole snap (1e-8 in the net) can put every corner on the pole itself.
    if (new Set(ring.map(([lon, lat]) => `${lon},${lat}`)).size < 3) ring = this.ring(z, refined, false);
    ring.push([ring[0]![0], ring[0]![1]]);
    return ring;
  }

  private ring(z: RhombicZone, refined: boolean, snapPoles: boolean): LonLat[] {
    if (refined) return rhombicRefinedGeo(this.lat, z, this.proj, snapPoles).map((p) => [p.lon, p.lat] as LonLat);
    const ring = this.corners(z, snapPoles);
    // Keep the ring continuous across the antimeridian, like the refined outline.
    for (let i = 1; i < ring.length; i++) {
      const prev = ring[i - 1]![0];
      let lon = ring[i]![0];
      while (lon - prev > 180) lon -= 360;
      while (lon - prev < -180) lon += 360;
      ring[i] = [lon, ring[i]![1]];
    }
    return ring;
  }

  parents(zoneId: string): string[] {
    const p = rhombicParent(this.lat, this.zone(zoneId));
    return p ? [this.id_(p)] : [];
  }

  /** Children in DGGAL's order (row-major in the square; a square has no centroid child listed first). */
  children(zoneId: string): string[] {
    const z = this.zone(zoneId);
    return z.level < this.lat.maxLevel ? rhombicChildren(this.lat, z).map(this.id_) : [];
  }

  neighbours(zoneId: string): string[] {
    return rhombicNeighbours(this.lat, this.zone(zoneId)).map(this.id_);
  }

  private checkDepth(z: RhombicZone, d: number): void {
    if (!Number.isInteger(d) || d < 0 || z.level + d > this.lat.maxLevel) throw new RangeError(`Relative depth out of range: ${d}`);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    return rhombicSubSquares(this.lat, z, relativeDepth, page?.offset ?? 0, page?.limit ?? Infinity).map(this.id_);
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    this.checkDepth(this.zone(zoneId), relativeDepth);
    return this.lat.side ** (2 * relativeDepth);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return new RhombicBoxZones(this.lat, level, boxList(bbox), this.proj);
  }

  zonesInBBox(level: number, bbox: BBox): string[] {
    return runToEnd(this.selectZonesInBBox(level, bbox).page({ offset: 0, limit: Infinity }));
  }

  estimateZonesInBBox(level: number, bbox: BBox): number {
    const [minLon, minLat, maxLon, maxLat] = bbox;
    const dLon = (maxLon >= minLon ? maxLon - minLon : maxLon + 360 - minLon) * DEG;
    const band = Math.abs(Math.sin(maxLat * DEG) - Math.sin(minLat * DEG));
    // Spherical box area over zone area, plus a margin of zones straddling the box edges.
    const fraction = (dLon * band) / (4 * Math.PI);
    const total = rhombicZoneCount(this.lat, Math.min(Math.max(level, 0), this.lat.maxLevel));
    const perimeterZones = 4 * Math.sqrt(Math.max(fraction, 0) * total) + 12;
    return Math.min(total, Math.ceil(fraction * total * 1.1 + perimeterZones));
  }

  levelInfo(level: number): GridLevelInfo {
    this.checkLevel(level);
    return { level, zoneCount: rhombicZoneCount(this.lat, level), zoneAreaMetersSquare: this.areaOf(level) };
  }
}

/** A rhombic grid on any projection of the 5x6 net (the rtea family builds RTEA9R/RTEA4R with this). */
export function createRhombicGrid(
  id: string,
  projection: RhombicProjection,
  aperture: 4 | 9,
  text: { title: string; description: string; uri: string },
): RhombicGrid {
  return new RhombicGrid({ id, projection, aperture, ...text });
}
