/**
 * The one interface every discrete global grid reference system implements.
 * Nothing outside a grid's own code knows which grid it talks to: routes, use cases,
 * aggregation and encoders all go through this.
 *
 * Coordinates are always [lon, lat] in degrees (WGS84 geodetic, CRS84 axis order).
 */
export type LonLat = [number, number];

/** [minLon, minLat, maxLon, maxLat]; minLon > maxLon when the box crosses the antimeridian. */
export type BBox = [number, number, number, number];

export type ZoneShape = 'hexagon' | 'pentagon' | 'square' | 'triangle';

export interface ZoneDescription {
  id: string;
  level: number;
  shape: ZoneShape;
  /** Number of true corners (5 for a pentagon, 6 for a hexagon). */
  edgeCount: number;
  centroid: LonLat;
  /** True corners, not densified, in the grid's own order. */
  vertices: LonLat[];
  /** Geodesic area on the WGS84 ellipsoid, m². */
  areaMetersSquare: number;
  /** Extent; minLon > maxLon when the zone crosses the antimeridian. */
  bbox: BBox;
}

/** Positions offset .. offset + limit - 1 of an ordered list. */
export interface Page {
  offset: number;
  limit: number;
}

/**
 * Work done in slices: the generator yields (nothing) wherever the caller may pause, for example to
 * let an event loop run, and returns the result. Each slice is short (about a millisecond).
 */
export type Stepped<T> = Generator<void, T, void>;

/** Runs stepped work to its end without pausing. */
export function runToEnd<T>(work: Stepped<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/**
 * Zones chosen by a query, in the grid's order, known without listing them: counting and paging cost
 * about the zones along the query's edges, not the zones inside.
 */
export interface ZoneSelection {
  /**
   * About how many zones lie along the query's edges at its level: the work `count` and `page` do beyond
   * the page itself, known before any of it is done (0 for the whole world).
   */
  readonly edgeZones: number;
  /** Exact number of zones; once it is known to exceed `stopAbove`, some number above `stopAbove`. */
  count(stopAbove?: number): Stepped<number>;
  /** The zones at positions offset .. offset + limit - 1 of the selection's order. */
  page(page: Page): Stepped<string[]>;
}

export interface GridLevelInfo {
  level: number;
  zoneCount: number;
  /** Area of a regular (non-pentagon) zone, m². */
  zoneAreaMetersSquare: number;
}

export interface Dggrs {
  /** Short identifier used in paths, e.g. `IVEA7H`. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  /** OGC definition URI, e.g. https://www.opengis.net/def/dggrs/OGC/1.0/IVEA7H */
  readonly uri: string;
  readonly crs: string;
  /** Default refinement level for zone lists. */
  readonly defaultLevel: number;
  /** Default relative depth of sub-zones returned with zone data. */
  readonly defaultDepth: number;
  readonly maxRefinementLevel: number;
  readonly maxRelativeDepth: number;
  /** Human-readable form of a zone id, used in error hints (e.g. `{L}{R}-{hex}-{S}, like F0-711-F`). */
  readonly zoneIdForm: string;

  /** True when `zoneId` names an existing zone of this grid. */
  isValidZone(zoneId: string): boolean;
  /** Level of a valid zone. */
  zoneLevel(zoneId: string): number;
  /** The zone of `level` that contains the point. */
  zoneFromPoint(lon: number, lat: number, level: number): string;
  describeZone(zoneId: string): ZoneDescription;
  /**
   * Outline of the zone as a closed ring [lon, lat] (first point repeated last).
   * `refined` densifies edges as the reference implementation does. Longitudes are
   * continuous along the ring (they may leave [-180, 180]); use the RFC 7946 helpers
   * to produce GeoJSON.
   */
  zoneOutline(zoneId: string, refined: boolean): LonLat[];
  /** Parents, primary parent first; empty at level 0. */
  parents(zoneId: string): string[];
  /** Children at the next level, centroid child first. */
  children(zoneId: string): string[];
  neighbours(zoneId: string): string[];
  /**
   * Sub-zones at `relativeDepth` levels below, in the grid's sub-zone order. With `page`, only the
   * sub-zones at positions offset .. offset + limit - 1 of that order, found without producing the others.
   */
  subZones(zoneId: string, relativeDepth: number, page?: Page): string[];
  subZoneCount(zoneId: string, relativeDepth: number): number;
  /**
   * The zones of `level` whose extent meets any of the boxes (for the 7H grids the reference
   * implementation's rule and order), in the grid's list order, as a selection that is counted and paged
   * without listing the rest. This is the one way to list zones of a box; `zonesInBBox` is its whole list.
   */
  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection;
  /** The whole of `selectZonesInBBox(level, bbox)` at once, for boxes known to be small. */
  zonesInBBox(level: number, bbox: BBox): string[];
  /** A cheap approximate count (from areas, no zone is looked at), for planning work; never a bound. */
  estimateZonesInBBox(level: number, bbox: BBox): number;
  /**
   * The grid's own 64-bit integer id of a valid zone (DGGAL's DGGRSZone, the H3 index), for grids that
   * define one: zone lists offer them as little-endian integers (OGC 21-038r1 zone-uint64).
   */
  zoneToUint64?(zoneId: string): bigint;
  /** Area of one zone, m², the same as `describeZone(zoneId).areaMetersSquare` without describing it. */
  zoneArea(zoneId: string): number;
  levelInfo(level: number): GridLevelInfo;

  /**
   * Optional fast path for bulk work (e.g. aggregating millions of points): a numeric key of the zone of
   * `level` containing the point, unique among that level's zones, or NaN when the point cannot be located.
   * Only offered for levels up to `maxZoneKeyLevel` (where every key is a safe integer). Allocation-free,
   * so callers can count into a Map<number, ...> and build ids once per distinct zone.
   */
  zoneKeyFromPoint?(lon: number, lat: number, level: number): number;
  /** Text id of the zone with this key at `level` (inverse of `zoneKeyFromPoint`). */
  zoneIdFromKey?(key: number, level: number): string;
  /** Highest level for which `zoneKeyFromPoint` is available. */
  readonly maxZoneKeyLevel?: number;
  /**
   * Optional, beside `zoneIdFromKey` (levels up to `maxZoneKeyLevel`): the numeric key of a valid zone
   * id, its exact inverse, read from the id alone (no geometry).
   */
  zoneKeyFromId?(zoneId: string): number;
  /** Optional: `describeZone(zoneId).centroid`, to the bit, without the outline and extent a description costs. */
  zoneCentroid?(zoneId: string): LonLat;
  /**
   * Optional, beside `zoneKeyFromPoint` (same levels): writes the key to out[0] and to out[1] a clearance, the
   * radius in radians of a cap around the point (on the sphere of geodetic latitude and longitude) lying
   * wholly in that zone, 0 where the grid cannot bound one. Every point of the cap has the same key: bulk
   * binning locates one point for a whole patch of them.
   */
  zoneKeyClearance?(lon: number, lat: number, level: number, out: Float64Array): void;
}
