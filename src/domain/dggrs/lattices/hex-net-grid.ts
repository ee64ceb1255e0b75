/**
 * What the hexagonal grids of the 5x6 net (DGGAL's RI7H and RI3H, on any Slice & Dice projection) share
 * beyond the lattice itself: zones described, outlined and sized from their corners and centroid in the net
 * through the projection, the equal-area rule (every hexagon of a level the same area, a pentagon 5/6 of
 * it), ten rhombi of aperture^level cells plus the two polar pentagons, and sub-zones paged by their lattice.
 */
import type { LonLat, Page, ZoneDescription } from '../dggrs.js';
import { ParsedZoneGrid } from '../core/base-dggrs.js';
import { extentToBBox, type RadExtent } from '../core/box-cover.js';
import { LastOutline, type GeoRadians } from '../core/outline-extent.js';
import { EARTH_AREA } from '../core/wgs84.js';
import type { SliceAndDiceProjection } from '../projections/slice-and-dice-projection.js';
import type { Pt } from './rhombic-5x6-net.js';
import { continuousLongitudes } from '../../geometry/continuous-longitudes.js';

const RAD = 180 / Math.PI;

export interface HexNetGridOptions {
  id: string;
  title: string;
  description: string;
  projection: SliceAndDiceProjection;
  /** Definition URI; by default the OGC register's entry for the id (give another where OGC registers none). */
  uri?: string;
}

/**
 * What a hexagonal lattice of the 5x6 net answers about its zones, as a table of its own functions: the
 * grid asks every zone question through it, so the 7H and 3H grids differ only in locating points, keys
 * and sub-zone order.
 */
export interface HexLattice<Z> {
  // The grid's levels and ids, the same on every projection.
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  readonly zoneIdForm: string;
  /** Highest level whose numeric keys are all below 2^53. */
  readonly maxZoneKeyLevel: number;
  /** Aperture^level: the cells per rhombus of each level. */
  readonly cellsPerRhombus: readonly number[];
  /** The zone an id names, or null; only the canonical spelling of an existing zone. */
  parse(zoneId: string): Z | null;
  format(z: Z): string;
  level(z: Z): number;
  /** 5 for a pentagon, 6 for a hexagon. */
  edgeCount(z: Z): number;
  /** The centroid in the net. */
  centroid(z: Z): Pt;
  /** The true corners in the net, canonical, in DGGAL's order. */
  corners(z: Z): Pt[];
  /** DGGAL's densified outline, radians. */
  refinedRadians(z: Z, proj: SliceAndDiceProjection): readonly GeoRadians[];
  /** DGGAL's extent of the zone from its densified outline, radians. */
  extentRadians(z: Z, proj: SliceAndDiceProjection, refined: readonly GeoRadians[]): RadExtent;
  /** Parents, primary parent first. */
  parents(z: Z): Z[];
  children(z: Z): Z[];
  neighbours(z: Z): Z[];
  subZoneCount(z: Z, depth: number): number;
  /** DGGAL's 64-bit id. */
  toUint64(z: Z): bigint;
}

export abstract class HexNetGrid<Z> extends ParsedZoneGrid<Z> {
  readonly defaultLevel: number;
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  readonly zoneIdForm: string;
  override readonly maxZoneKeyLevel: number;
  protected readonly proj: SliceAndDiceProjection;
  /** The projected point of the last located position. */
  protected readonly xy = new Float64Array(2);
  /** A zone's description (its bbox) and its geometry both need its densified outline. */
  protected readonly lastOutline = new LastOutline();

  constructor(opts: HexNetGridOptions, protected readonly lattice: HexLattice<Z>) {
    super({ id: opts.id, title: opts.title, description: opts.description, uri: opts.uri ?? `https://www.opengis.net/def/dggrs/OGC/1.0/${opts.id}` });
    this.proj = opts.projection;
    ({
      defaultLevel: this.defaultLevel, defaultDepth: this.defaultDepth, maxRefinementLevel: this.maxRefinementLevel,
      maxRelativeDepth: this.maxRelativeDepth, zoneIdForm: this.zoneIdForm, maxZoneKeyLevel: this.maxZoneKeyLevel,
    } = lattice);
  }

  /** Calls `emit` with the ids of the sub-zones `depth` below from position `offset` on, while it returns true. */
  protected abstract forEachSubZone(z: Z, depth: number, offset: number, emit: (id: string) => boolean): void;

  protected parse(zoneId: string): Z | null {
    return this.lattice.parse(zoneId);
  }

  protected format(z: Z): string {
    return this.lattice.format(z);
  }

  protected levelOf(z: Z): number {
    return this.lattice.level(z);
  }

  protected parentsOf(z: Z): Z[] {
    return this.lattice.parents(z);
  }

  protected childrenOf(z: Z): Z[] {
    return this.lattice.children(z);
  }

  protected neighboursOf(z: Z): Z[] {
    return this.lattice.neighbours(z);
  }

  protected subZoneCountOf(z: Z, depth: number): number {
    return this.lattice.subZoneCount(z, depth);
  }

  protected toUint64(z: Z): bigint {
    return this.lattice.toUint64(z);
  }

  /** DGGAL's densified outline, radians. */
  protected refinedRadians(z: Z): readonly GeoRadians[] {
    return this.lattice.refinedRadians(z, this.proj);
  }

  /** Where a point (degrees) falls in the net, into `xy`; false for points that are not on the globe. */
  protected project(lon: number, lat: number, level: number): boolean {
    this.checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return false;
    this.proj.forward(lat, lon, this.xy);
    return true;
  }

  zoneCentroid(zoneId: string): LonLat {
    const z = this.zone(zoneId);
    const g = { lat: 0, lon: 0 };
    const c = this.lattice.centroid(z);
    this.proj.inverse(c.x, c.y, (this.levelOf(z) & 1) === 1, g);
    return [g.lon, g.lat];
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const level = this.levelOf(z);
    const edgeCount = this.lattice.edgeCount(z);
    const odd = (level & 1) === 1;
    const g = { lat: 0, lon: 0 };
    const c = this.lattice.centroid(z);
    this.proj.inverse(c.x, c.y, odd, g);
    const centroid: LonLat = [g.lon, g.lat];
    const vertices = this.lattice.corners(z).map((v) => {
      this.proj.inverse(v.x, v.y, odd, g);
      return [g.lon, g.lat] as LonLat;
    });
    const e = this.lattice.extentRadians(z, this.proj, this.lastOutline.get(zoneId, () => this.refinedRadians(z)));
    return {
      id: zoneId,
      level,
      shape: edgeCount === 5 ? 'pentagon' : 'hexagon',
      edgeCount,
      centroid,
      vertices,
      areaMetersSquare: this.areaAt(level, edgeCount),
      bbox: extentToBBox(e),
    };
  }

  protected areaOf(z: Z): number {
    return this.areaAt(this.levelOf(z), this.lattice.edgeCount(z));
  }

  /** DGGAL's equal-area rule: every hexagon of a level has the same area, a pentagon 5/6 of it. */
  private areaAt(level: number, edgeCount: number): number {
    return (EARTH_AREA / (10 * this.lattice.cellsPerRhombus[level]!)) * (edgeCount === 5 ? 5 / 6.0 : 1);
  }

  protected zoneCount(level: number): number {
    return 10 * this.lattice.cellsPerRhombus[level]! + 2;
  }

  protected regularZoneArea(level: number): number {
    return this.areaAt(level, 6);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const ring = this.outlineRing(zoneId, this.zone(zoneId), refined);
    if (ring.length) ring.push([ring[0]![0], ring[0]![1]]);
    return ring;
  }

  /** The outline, not closed. */
  protected outlineRing(zoneId: string, z: Z, refined: boolean): LonLat[] {
    return refined ? this.refinedOutline(zoneId, z) : this.plainOutline(z);
  }

  protected refinedOutline(zoneId: string, z: Z): LonLat[] {
    return this.lastOutline.get(zoneId, () => this.refinedRadians(z)).map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
  }

  /** The true corners, continuous across the antimeridian like the refined outline. */
  protected plainOutline(z: Z): LonLat[] {
    const odd = (this.levelOf(z) & 1) === 1;
    const g = { lat: 0, lon: 0 };
    const ring = this.lattice.corners(z).map((v) => {
      this.proj.inverse(v.x, v.y, odd, g);
      return [g.lon, g.lat] as LonLat;
    });
    return continuousLongitudes(ring);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkRelativeDepth(this.levelOf(z), relativeDepth);
    const out: string[] = [];
    const limit = page?.limit ?? Infinity;
    if (limit > 0) this.forEachSubZone(z, relativeDepth, page?.offset ?? 0, (id) => out.push(id) < limit);
    return out;
  }
}
