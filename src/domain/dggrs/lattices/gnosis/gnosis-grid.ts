/**
 * The GNOSIS Global Grid (DGGAL's GNOSISGlobalGrid): a quadtree of WGS84 latitude/longitude rectangles whose
 * zones join in longitude towards the poles, ids `{level}-{row}-{col}` in hex. See gnosis-zone.ts.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { boxList } from '../../core/box-cover.js';
import { InvalidZoneIdError } from '../7h/i7h-grid.js';
import { bboxRuns, GnosisRunSelection, runsCount, runsPage, subZoneRuns } from './gnosis-rows.js';
import {
  colCount, gnosisArea, gnosisChildren, gnosisExtent, gnosisId, gnosisNeighbours, gnosisParent, gnosisSubZoneCount,
  gnosisToUint64, gnosisZoneAt, gnosisZoneCount, GNOSIS_EARTH_AREA, GNOSIS_MAX_LEVEL, isPolarRow, parseGnosisId,
  type GnosisZone,
} from './gnosis-zone.js';

const RAD = 180 / Math.PI;

export class GnosisGlobalGrid implements Dggrs {
  readonly id = 'GNOSISGlobalGrid';
  readonly title = 'GNOSIS Global Grid';
  readonly description =
    'Quadtree of WGS84 latitude/longitude rectangles (the GNOSISGlobalGrid 2D Tile Matrix Set): 8 zones at level 0, ' +
    'each split in 4, except that zones touching a pole split in 3, their polar half not being split in longitude.';
  readonly uri = 'https://www.opengis.net/def/dggrs/OGC/1.0/GNOSISGlobalGrid';
  readonly crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  /** 5,464 zones: about the zone count of the other grids' default level. */
  readonly defaultLevel = 5;
  /** DGGAL's ~64K sub-zones depth (its `info`): 65,536 sub-zones (43,691 for a polar zone). */
  readonly defaultDepth = 8;
  readonly maxRefinementLevel = GNOSIS_MAX_LEVEL;
  /** 4^11 = 4,194,304 sub-zones per zone: the other aperture-4 grids' bound (DGGAL's `sub` goes to 14). */
  readonly maxRelativeDepth = 11;
  readonly zoneIdForm = '{level}-{row}-{col}: uppercase hex level 0..1C, row from the north, column from -180 in the level\'s finest columns (like 5-F-42)';
  /** Keys are row * columns + col: below 2^53 up to level 25. */
  readonly maxZoneKeyLevel = 25;
  /** Scratch zone of zoneKeyFromPoint, which allocates nothing. */
  private readonly at: GnosisZone = { level: 0, row: 0, col: 0 };

  private zone(zoneId: string): GnosisZone {
    const z = parseGnosisId(zoneId);
    if (!z) throw new InvalidZoneIdError(zoneId);
    return z;
  }

  isValidZone(zoneId: string): boolean {
    return parseGnosisId(zoneId) !== null;
  }

  zoneLevel(zoneId: string): number {
    return this.zone(zoneId).level;
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return gnosisId(gnosisZoneAt(lon, lat, level));
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    if (level > this.maxZoneKeyLevel) throw new RangeError(`No numeric zone keys beyond level ${this.maxZoneKeyLevel}`);
    checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return NaN;
    const z = gnosisZoneAt(lon, lat, level, this.at);
    return z.row * colCount(level) + z.col;
  }

  zoneIdFromKey(key: number, level: number): string {
    const cols = colCount(level);
    return gnosisId({ level, row: Math.floor(key / cols), col: key % cols });
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const [llLat, llLon, urLat, urLon] = gnosisExtent(z);
    const polar = isPolarRow(z.level, z.row);
    const vertices: LonLat[] = [[llLon * RAD, urLat * RAD], [llLon * RAD, llLat * RAD]];
    // DGGAL's corners, north-west first and counter-clockwise; a polar zone has no second corner on its pole.
    if (!(polar && z.row > 0)) vertices.push([urLon * RAD, llLat * RAD]);
    if (z.row > 0) vertices.push([urLon * RAD, urLat * RAD]);
    return {
      id: zoneId,
      level: z.level,
      shape: polar ? 'triangle' : 'square',
      edgeCount: polar ? 3 : 4,
      centroid: [((llLon + urLon) / 2) * RAD, ((llLat + urLat) / 2) * RAD],
      vertices,
      areaMetersSquare: gnosisArea(z),
      bbox: [llLon * RAD, llLat * RAD, urLon * RAD, urLat * RAD],
    };
  }

  zoneToUint64(zoneId: string): bigint {
    return gnosisToUint64(this.zone(zoneId));
  }

  zoneArea(zoneId: string): number {
    return gnosisArea(this.zone(zoneId));
  }

  /**
   * The zone's rectangle, as DGGAL's `geom` draws it (refined or not): its edges are meridians and parallels,
   * straight in longitude/latitude, and a polar zone keeps both ends of its pole edge so the ring covers it.
   */
  zoneOutline(zoneId: string, _refined: boolean): LonLat[] {
    const [llLat, llLon, urLat, urLon] = gnosisExtent(this.zone(zoneId));
    const w = llLon * RAD;
    const e = urLon * RAD;
    const s = llLat * RAD;
    const n = urLat * RAD;
    return [[w, n], [w, s], [e, s], [e, n], [w, n]];
  }

  parents(zoneId: string): string[] {
    const p = gnosisParent(this.zone(zoneId));
    return p ? [gnosisId(p)] : [];
  }

  children(zoneId: string): string[] {
    return gnosisChildren(this.zone(zoneId)).map(gnosisId);
  }

  neighbours(zoneId: string): string[] {
    return gnosisNeighbours(this.zone(zoneId)).map(gnosisId);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    const runs = subZoneRuns(z, relativeDepth);
    return runToEnd(runsPage(z.level + relativeDepth, runs, page ?? { offset: 0, limit: Infinity }, gnosisId));
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    return gnosisSubZoneCount(z, relativeDepth);
  }

  private checkDepth(z: GnosisZone, d: number): void {
    if (!Number.isInteger(d) || d < 0 || z.level + d > GNOSIS_MAX_LEVEL) throw new RangeError(`Relative depth out of range: ${d}`);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    checkLevel(level);
    return new GnosisRunSelection(level, bboxRuns(level, boxList(bbox)), gnosisId);
  }

  zonesInBBox(level: number, bbox: BBox): string[] {
    return runToEnd(this.selectZonesInBBox(level, bbox).page({ offset: 0, limit: Infinity }));
  }

  /** Exact: counting costs a few runs per level. */
  estimateZonesInBBox(level: number, bbox: BBox): number {
    checkLevel(level);
    return runsCount(bboxRuns(level, [bbox]));
  }

  /** DGGAL's reference area: the mean zone area (the earth over the zone count). */
  levelInfo(level: number): GridLevelInfo {
    checkLevel(level);
    const zoneCount = gnosisZoneCount(level);
    return { level, zoneCount, zoneAreaMetersSquare: GNOSIS_EARTH_AREA / zoneCount };
  }
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > GNOSIS_MAX_LEVEL) throw new RangeError(`Level out of range: ${level}`);
}
