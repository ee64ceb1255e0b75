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
  /** Sub-zones at `relativeDepth` levels below, in the grid's sub-zone order. */
  subZones(zoneId: string, relativeDepth: number): string[];
  subZoneCount(zoneId: string, relativeDepth: number): number;
  /** Zones of `level` intersecting the box (same set as the reference implementation). */
  zonesInBBox(level: number, bbox: BBox): string[];
  /** Count of zones in the box without materialising them, or an upper bound estimate when exact counting is costly. */
  estimateZonesInBBox(level: number, bbox: BBox): number;
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
}
