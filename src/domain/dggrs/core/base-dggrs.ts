/**
 * What every grid derives the same way from its own primitives (DGGAL's DGGRS base class does the same):
 * its identity, the whole-list form of a box selection, the planning estimate, the level table and the
 * range checks, each with the one wording the API reports. A grid subclasses BaseDggrs, or ParsedZoneGrid
 * when its ids parse to a zone record, and implements only what is its own.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../dggrs.js';

export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

const DEG = Math.PI / 180;

export class InvalidZoneIdError extends Error {
  constructor(readonly zoneId: string) {
    super(`Invalid zone id: ${zoneId}`);
    this.name = 'InvalidZoneIdError';
  }
}

/** How a grid names and defines itself. */
export interface GridIdentity {
  id: string;
  title: string;
  description: string;
  /** OGC definition URI, or where the grid is defined when OGC registers none. */
  uri: string;
}

export abstract class BaseDggrs implements Dggrs {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly uri: string;
  readonly crs = CRS84;
  abstract readonly defaultLevel: number;
  abstract readonly defaultDepth: number;
  abstract readonly maxRefinementLevel: number;
  abstract readonly maxRelativeDepth: number;
  abstract readonly zoneIdForm: string;
  /** Declared only: grids without numeric keys must not have the property at all. */
  declare readonly maxZoneKeyLevel?: number;

  constructor(identity: GridIdentity) {
    this.id = identity.id;
    this.title = identity.title;
    this.description = identity.description;
    this.uri = identity.uri;
  }

  abstract isValidZone(zoneId: string): boolean;
  abstract zoneLevel(zoneId: string): number;
  abstract zoneFromPoint(lon: number, lat: number, level: number): string;
  abstract describeZone(zoneId: string): ZoneDescription;
  abstract zoneOutline(zoneId: string, refined: boolean): LonLat[];
  abstract parents(zoneId: string): string[];
  abstract children(zoneId: string): string[];
  abstract neighbours(zoneId: string): string[];
  abstract subZones(zoneId: string, relativeDepth: number, page?: Page): string[];
  abstract subZoneCount(zoneId: string, relativeDepth: number): number;
  abstract selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection;
  abstract zoneArea(zoneId: string): number;
  /** Number of zones of a level. */
  protected abstract zoneCount(level: number): number;
  /** Area of a regular zone of a level (a hexagon where pentagons differ), m². */
  protected abstract regularZoneArea(level: number): number;

  zonesInBBox(level: number, bbox: BBox): string[] {
    return runToEnd(this.selectZonesInBBox(level, bbox).page({ offset: 0, limit: Infinity }));
  }

  /** The box's share of the sphere times the zone count, plus a margin of zones straddling the box edges. */
  estimateZonesInBBox(level: number, bbox: BBox): number {
    const [minLon, minLat, maxLon, maxLat] = bbox;
    const dLon = (maxLon >= minLon ? maxLon - minLon : maxLon + 360 - minLon) * DEG;
    const band = Math.abs(Math.sin(maxLat * DEG) - Math.sin(minLat * DEG));
    const fraction = (dLon * band) / (4 * Math.PI);
    const total = this.zoneCount(Math.min(level, this.maxRefinementLevel));
    const perimeterZones = 4 * Math.sqrt(Math.max(fraction, 0) * total) + 12;
    return Math.min(total, Math.ceil(fraction * total * 1.1 + perimeterZones));
  }

  levelInfo(level: number): GridLevelInfo {
    this.checkLevel(level);
    return { level, zoneCount: this.zoneCount(level), zoneAreaMetersSquare: this.regularZoneArea(level) };
  }

  protected checkLevel(level: number): void {
    if (!Number.isInteger(level) || level < 0 || level > this.maxRefinementLevel) throw new RangeError(`Level out of range: ${level}`);
  }

  /** Sub-zones `depth` levels below a zone of `level` must exist. */
  protected checkRelativeDepth(level: number, depth: number): void {
    if (!Number.isInteger(depth) || depth < 0 || level + depth > this.maxRefinementLevel) throw new RangeError(`Relative depth out of range: ${depth}`);
  }

  /** Numeric keys stop where they would pass 2^53. */
  protected checkKeyLevel(level: number): void {
    if (level > this.maxZoneKeyLevel!) throw new RangeError(`No numeric zone keys beyond level ${this.maxZoneKeyLevel}`);
  }
}

/**
 * A grid whose ids parse to a zone record Z: every question about an id is the same question about its
 * zone, with InvalidZoneIdError for ids that name none.
 */
export abstract class ParsedZoneGrid<Z> extends BaseDggrs {
  /** The zone an id names, or null; only the canonical spelling of an existing zone. */
  protected abstract parse(zoneId: string): Z | null;
  protected abstract format(z: Z): string;
  protected abstract levelOf(z: Z): number;
  /** Parents, primary parent first. */
  protected abstract parentsOf(z: Z): Z[];
  /** Children in the grid's order, for zones above the finest level. */
  protected abstract childrenOf(z: Z): Z[];
  protected abstract neighboursOf(z: Z): Z[];
  protected abstract areaOf(z: Z): number;
  protected abstract toUint64(z: Z): bigint;
  /** Number of sub-zones `depth` levels below (a depth already checked). */
  protected abstract subZoneCountOf(z: Z, depth: number): number;

  protected zone(zoneId: string): Z {
    const z = this.parse(zoneId);
    if (z === null) throw new InvalidZoneIdError(zoneId);
    return z;
  }

  isValidZone(zoneId: string): boolean {
    return this.parse(zoneId) !== null;
  }

  zoneLevel(zoneId: string): number {
    return this.levelOf(this.zone(zoneId));
  }

  parents(zoneId: string): string[] {
    return this.parentsOf(this.zone(zoneId)).map((z) => this.format(z));
  }

  children(zoneId: string): string[] {
    const z = this.zone(zoneId);
    return this.levelOf(z) >= this.maxRefinementLevel ? [] : this.childrenOf(z).map((c) => this.format(c));
  }

  neighbours(zoneId: string): string[] {
    return this.neighboursOf(this.zone(zoneId)).map((n) => this.format(n));
  }

  zoneToUint64(zoneId: string): bigint {
    return this.toUint64(this.zone(zoneId));
  }

  zoneArea(zoneId: string): number {
    return this.areaOf(this.zone(zoneId));
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    const z = this.zone(zoneId);
    this.checkRelativeDepth(this.levelOf(z), relativeDepth);
    return this.subZoneCountOf(z, relativeDepth);
  }
}
