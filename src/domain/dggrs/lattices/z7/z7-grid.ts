/**
 * An aperture-7 hexagonal DGGRS named by Z7 ids (DGGAL's RI7H_Z7): the zones, geometry, hierarchy and
 * sub-zone order of the 7H grid on the same projection, only the names differ. Every answer is the 7H
 * grid's, translated at the edges.
 */
import { renamedSelection, type BBox, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { BaseDggrs, InvalidZoneIdError } from '../../core/base-dggrs.js';
import { I7HGrid } from '../7h/i7h-grid.js';
import { parseZoneId, zoneId, type I7HZone } from '../7h/i7h-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { Z7Namer, z7Level, z7ToInt64, z7ToZone } from './z7-index.js';

export interface Z7GridOptions {
  id: string;
  title: string;
  description: string;
  /** Where the grid is defined (OGC registers no Z7 grid). */
  uri: string;
  projection: SliceAndDiceProjection;
}

export class Z7Grid extends BaseDggrs {
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  override readonly maxZoneKeyLevel: number;
  readonly zoneIdForm = '{base cell 00..11}{one digit 0..6 per level}, like 0132 (level 2)';
  private readonly h7: I7HGrid;
  private readonly namer = new Z7Namer();
  /** Recently parsed ids: parsing walks down from the base cell, and one id is often asked several things. */
  private readonly parsed = new Map<string, string | null>();

  constructor(opts: Z7GridOptions) {
    super(opts);
    this.h7 = new I7HGrid({ id: opts.id, title: opts.title, description: opts.description, projection: opts.projection });
    this.defaultLevel = this.h7.defaultLevel;
    this.defaultDepth = this.h7.defaultDepth;
    this.maxRefinementLevel = this.h7.maxRefinementLevel;
    this.maxRelativeDepth = this.h7.maxRelativeDepth;
    this.maxZoneKeyLevel = this.h7.maxZoneKeyLevel;
  }

  /** The 7H id of a Z7 id, or null for ids that name no zone. */
  private lookup(id: string): string | null {
    if (typeof id !== 'string' || id.length > 21) return null;
    let h = this.parsed.get(id);
    if (h === undefined) {
      const z = z7ToZone(id);
      h = z ? zoneId(z) : null;
      if (this.parsed.size >= 10000) this.parsed.clear();
      this.parsed.set(id, h);
    }
    return h;
  }

  /** The 7H id of a Z7 id; throws for ids that name no zone. */
  private h7Id(id: string): string {
    const h = this.lookup(id);
    if (h === null) throw new InvalidZoneIdError(id);
    return h;
  }

  /** The Z7 id of a 7H id produced by the 7H grid. */
  private z7Id = (h7Id: string): string => this.namer.id(parseZoneId(h7Id) as I7HZone);

  isValidZone(id: string): boolean {
    return this.lookup(id) !== null;
  }

  zoneLevel(id: string): number {
    this.h7Id(id);
    return z7Level(id);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    return this.z7Id(this.h7.zoneFromPoint(lon, lat, level));
  }

  /** The 7H grid's keys: unique per level, which is all a key promises. */
  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    return this.h7.zoneKeyFromPoint(lon, lat, level);
  }

  zoneIdFromKey(key: number, level: number): string {
    return this.z7Id(this.h7.zoneIdFromKey(key, level));
  }

  describeZone(id: string): ZoneDescription {
    return { ...this.h7.describeZone(this.h7Id(id)), id };
  }

  zoneOutline(id: string, refined: boolean): LonLat[] {
    return this.h7.zoneOutline(this.h7Id(id), refined);
  }

  parents(id: string): string[] {
    return this.h7.parents(this.h7Id(id)).map(this.z7Id);
  }

  children(id: string): string[] {
    return this.h7.children(this.h7Id(id)).map(this.z7Id);
  }

  neighbours(id: string): string[] {
    return this.h7.neighbours(this.h7Id(id)).map(this.z7Id);
  }

  subZones(id: string, relativeDepth: number, page?: Page): string[] {
    return this.h7.subZones(this.h7Id(id), relativeDepth, page).map(this.z7Id);
  }

  subZoneCount(id: string, relativeDepth: number): number {
    return this.h7.subZoneCount(this.h7Id(id), relativeDepth);
  }

  /** DGGAL lists the 7H zones and renames them, so the order is the 7H grid's. */
  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    return renamedSelection(this.h7.selectZonesInBBox(level, bbox), this.z7Id);
  }

  override estimateZonesInBBox(level: number, bbox: BBox): number {
    return this.h7.estimateZonesInBBox(level, bbox);
  }

  /** DGGAL's (and DGGRID's) 64-bit Z7 id: the base cell, then 3 bits per level. */
  zoneToUint64(id: string): bigint {
    this.h7Id(id);
    return z7ToInt64(id);
  }

  zoneArea(id: string): number {
    return this.h7.zoneArea(this.h7Id(id));
  }

  protected zoneCount(level: number): number {
    return this.h7.levelInfo(level).zoneCount;
  }

  protected regularZoneArea(level: number): number {
    return this.h7.levelInfo(level).zoneAreaMetersSquare;
  }
}
