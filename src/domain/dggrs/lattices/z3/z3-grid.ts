/**
 * An aperture-3 hexagonal DGGRS named by DGGRID's Z3 ids (z3-index.ts): the zones, geometry, neighbours,
 * areas, sub-zone order and box lists of the 3H grid on the same projection, renamed, with DGGRID's index
 * hierarchy: one parent, the id without its last digit. DGGRID's own frame is a move of it
 * (grids/dggrid-grids.ts).
 */
import { renamedSelection, type BBox, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { BaseDggrs, InvalidZoneIdError } from '../../core/base-dggrs.js';
import { I3HGrid } from '../3h/i3h-grid.js';
import { i3hId, parseI3HId, type I3HZone } from '../3h/i3h-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { Z3_MAX_LEVEL, z3Id, z3IndexChildren, z3IndexParent, z3Level, z3ToInt64, z3ToZone } from './z3-index.js';

export interface Z3GridOptions {
  id: string;
  title: string;
  description: string;
  uri: string;
  projection: SliceAndDiceProjection;
}

export class Z3Grid extends BaseDggrs {
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel = Z3_MAX_LEVEL;
  readonly maxRelativeDepth: number;
  override readonly maxZoneKeyLevel: number;
  readonly zoneIdForm = '{quad 00..11}{one digit 0..2 per level}, like 0122 (level 2)';
  private readonly h3: I3HGrid;

  constructor(opts: Z3GridOptions) {
    super(opts);
    this.h3 = new I3HGrid({ id: opts.id, title: opts.title, description: opts.description, projection: opts.projection });
    this.defaultLevel = this.h3.defaultLevel;
    this.defaultDepth = this.h3.defaultDepth;
    this.maxRelativeDepth = this.h3.maxRelativeDepth;
    this.maxZoneKeyLevel = Math.min(this.h3.maxZoneKeyLevel, Z3_MAX_LEVEL);
  }

  /** The 3H id of a Z3 id; throws for ids that name no zone. */
  private h3Id(id: string): string {
    const z = typeof id === 'string' ? z3ToZone(id) : null;
    if (!z) throw new InvalidZoneIdError(id);
    return i3hId(z);
  }

  /** The Z3 id of a 3H id produced by the 3H grid. */
  private z3 = (h3Id: string): string => z3Id(parseI3HId(h3Id) as I3HZone);

  isValidZone(id: string): boolean {
    return typeof id === 'string' && z3ToZone(id) !== null;
  }

  zoneLevel(id: string): number {
    this.h3Id(id);
    return z3Level(id);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    this.checkLevel(level);
    return this.z3(this.h3.zoneFromPoint(lon, lat, level));
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    return this.h3.zoneKeyFromPoint(lon, lat, level);
  }

  zoneIdFromKey(key: number, level: number): string {
    return this.z3(this.h3.zoneIdFromKey(key, level));
  }

  describeZone(id: string): ZoneDescription {
    return { ...this.h3.describeZone(this.h3Id(id)), id };
  }

  zoneOutline(id: string, refined: boolean): LonLat[] {
    return this.h3.zoneOutline(this.h3Id(id), refined);
  }

  /** DGGRID's index parent: one, among the zone's spatial parents (the 3H grid's). */
  parents(id: string): string[] {
    this.h3Id(id);
    const p = z3IndexParent(id);
    return p === null ? [] : [p];
  }

  /** The index children (digit order, the centroid child first), then the other zones on the corners. */
  children(id: string): string[] {
    const h = this.h3Id(id);
    if (z3Level(id) >= this.maxRefinementLevel) return [];
    const own = z3IndexChildren(id);
    return [...own, ...this.h3.children(h).map(this.z3).filter((c) => !own.includes(c))];
  }

  neighbours(id: string): string[] {
    return this.h3.neighbours(this.h3Id(id)).map(this.z3);
  }

  subZones(id: string, relativeDepth: number, page?: Page): string[] {
    const h = this.h3Id(id);
    this.checkRelativeDepth(z3Level(id), relativeDepth);
    return this.h3.subZones(h, relativeDepth, page).map(this.z3);
  }

  subZoneCount(id: string, relativeDepth: number): number {
    const h = this.h3Id(id);
    this.checkRelativeDepth(z3Level(id), relativeDepth);
    return this.h3.subZoneCount(h, relativeDepth);
  }

  /** The 3H grid's list, renamed (in its order: by the 3H 64-bit id). */
  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return renamedSelection(this.h3.selectZonesInBBox(level, bbox), this.z3);
  }

  /** DGGRID's 64-bit Z3 index. */
  zoneToUint64(id: string): bigint {
    this.h3Id(id);
    return z3ToInt64(id);
  }

  zoneArea(id: string): number {
    return this.h3.zoneArea(this.h3Id(id));
  }

  protected zoneCount(level: number): number {
    return this.h3.levelInfo(level).zoneCount;
  }

  protected regularZoneArea(level: number): number {
    return this.h3.levelInfo(level).zoneAreaMetersSquare;
  }
}
