/**
 * A grid that names another grid's zones by other ids (Z7 names the 7H zones, Z3 the 3H zones): the
 * zones, geometry, neighbours, areas, sub-zone order and box lists are the inner grid's, every id
 * translated at the edges. A naming says how ids translate, their level and 64-bit form; a subclass may
 * give its own hierarchy (Z3's index parent).
 */
import type { BBox, Dggrs, LonLat, Page, Stepped, ZoneDescription, ZoneSelection } from '../dggrs.js';
import { BaseDggrs, InvalidZoneIdError, type GridIdentity } from './base-dggrs.js';

/** The inner grid's capabilities a renamed grid uses (its numeric keys included). */
export type KeyedGrid = Dggrs & Required<Pick<Dggrs, 'zoneKeyFromPoint' | 'zoneIdFromKey' | 'maxZoneKeyLevel'>>;

/** The same selection with every zone id renamed (grids that name another grid's zones: Z7, Z3). */
function renamedSelection(inner: ZoneSelection, rename: (id: string) => string): ZoneSelection {
  return {
    edgeZones: inner.edgeZones,
    count: (stopAbove?: number) => inner.count(stopAbove),
    *page(page: Page): Stepped<string[]> {
      const ids = yield* inner.page(page);
      return ids.map(rename);
    },
  };
}

export abstract class RenamedGrid extends BaseDggrs {
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  override readonly maxZoneKeyLevel: number;

  constructor(
    identity: GridIdentity,
    protected readonly inner: KeyedGrid,
    maxLevel: number,
  ) {
    super(identity);
    this.defaultLevel = inner.defaultLevel;
    this.defaultDepth = inner.defaultDepth;
    this.maxRefinementLevel = maxLevel;
    this.maxRelativeDepth = inner.maxRelativeDepth;
    this.maxZoneKeyLevel = Math.min(inner.maxZoneKeyLevel, maxLevel);
  }

  /** The inner grid's id of one of ours, or null for an id that names no zone. */
  protected abstract innerId(id: string): string | null;
  /** Our id of an inner id the inner grid produced. */
  protected abstract outerId(innerId: string): string;
  /** The level of one of our (valid) ids. */
  protected abstract levelOfId(id: string): number;
  /** The 64-bit form of one of our (valid) ids. */
  protected abstract uint64Of(id: string): bigint;

  /** The inner id of one of ours; throws for ids that name no zone. */
  protected toInner(id: string): string {
    const h = typeof id === 'string' ? this.innerId(id) : null;
    if (h === null) throw new InvalidZoneIdError(id);
    return h;
  }

  protected readonly rename = (innerId: string): string => this.outerId(innerId);

  isValidZone(id: string): boolean {
    return typeof id === 'string' && this.innerId(id) !== null;
  }

  zoneLevel(id: string): number {
    this.toInner(id);
    return this.levelOfId(id);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    this.checkLevel(level);
    return this.rename(this.inner.zoneFromPoint(lon, lat, level));
  }

  /** The inner grid's keys: unique per level, which is all a key promises. */
  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    return this.inner.zoneKeyFromPoint(lon, lat, level);
  }

  zoneIdFromKey(key: number, level: number): string {
    return this.rename(this.inner.zoneIdFromKey(key, level));
  }

  /** The inner grid's key of the zone, where it reads keys from ids; else the key of the zone's centroid, checked. */
  zoneKeyFromId(id: string): number {
    const inner = this.toInner(id);
    if (this.inner.zoneKeyFromId) {
      this.checkKeyLevel(this.levelOfId(id));
      return this.inner.zoneKeyFromId(inner);
    }
    const [lon, lat] = this.zoneCentroid(id);
    const key = this.zoneKeyFromPoint(lon, lat, this.levelOfId(id));
    if (this.zoneIdFromKey(key, this.levelOfId(id)) !== id) throw new RangeError(`no key found for zone ${id}`);
    return key;
  }

  zoneCentroid(id: string): LonLat {
    const inner = this.toInner(id);
    return this.inner.zoneCentroid ? this.inner.zoneCentroid(inner) : this.inner.describeZone(inner).centroid;
  }

  describeZone(id: string): ZoneDescription {
    return { ...this.inner.describeZone(this.toInner(id)), id };
  }

  zoneOutline(id: string, refined: boolean): LonLat[] {
    return this.inner.zoneOutline(this.toInner(id), refined);
  }

  parents(id: string): string[] {
    return this.inner.parents(this.toInner(id)).map(this.rename);
  }

  children(id: string): string[] {
    return this.inner.children(this.toInner(id)).map(this.rename);
  }

  neighbours(id: string): string[] {
    return this.inner.neighbours(this.toInner(id)).map(this.rename);
  }

  subZones(id: string, relativeDepth: number, page?: Page): string[] {
    const h = this.toInner(id);
    this.checkRelativeDepth(this.levelOfId(id), relativeDepth);
    return this.inner.subZones(h, relativeDepth, page).map(this.rename);
  }

  subZoneCount(id: string, relativeDepth: number): number {
    const h = this.toInner(id);
    this.checkRelativeDepth(this.levelOfId(id), relativeDepth);
    return this.inner.subZoneCount(h, relativeDepth);
  }

  /** The inner grid's list, renamed, in its order. */
  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return renamedSelection(this.inner.selectZonesInBBox(level, bbox), this.rename);
  }

  override estimateZonesInBBox(level: number, bbox: BBox): number {
    return this.inner.estimateZonesInBBox(level, bbox);
  }

  zoneToUint64(id: string): bigint {
    this.toInner(id);
    return this.uint64Of(id);
  }

  zoneArea(id: string): number {
    return this.inner.zoneArea(this.toInner(id));
  }

  protected zoneCount(level: number): number {
    return this.inner.levelInfo(level).zoneCount;
  }

  protected regularZoneArea(level: number): number {
    return this.inner.levelInfo(level).zoneAreaMetersSquare;
  }
}
