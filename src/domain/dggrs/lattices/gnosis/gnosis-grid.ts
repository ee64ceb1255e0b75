/**
 * The GNOSIS Global Grid (DGGAL's GNOSISGlobalGrid): a quadtree of WGS84 latitude/longitude rectangles whose
 * zones join in longitude towards the poles, ids `{level}-{row}-{col}` in hex. See gnosis-zone.ts.
 */
import { runToEnd, type BBox, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { ParsedZoneGrid } from '../../core/base-dggrs.js';
import { boxList } from '../../core/box-cover.js';
import { bboxRuns, GnosisRunSelection, runsCount, runsPage, subZoneRuns } from './gnosis-rows.js';
import {
  colCount, gnosisArea, gnosisChildren, gnosisExtent, gnosisId, gnosisNeighbours, gnosisParent, gnosisSubZoneCount,
  gnosisToUint64, gnosisZoneAt, gnosisZoneCount, GNOSIS_EARTH_AREA, GNOSIS_MAX_LEVEL, isPolarRow, parseGnosisId,
  type GnosisZone,
} from './gnosis-zone.js';

const RAD = 180 / Math.PI;

export class GnosisGlobalGrid extends ParsedZoneGrid<GnosisZone> {
  /** 5,464 zones: about the zone count of the other grids' default level. */
  readonly defaultLevel = 5;
  /** DGGAL's ~64K sub-zones depth (its `info`): 65,536 sub-zones (43,691 for a polar zone). */
  readonly defaultDepth = 8;
  readonly maxRefinementLevel = GNOSIS_MAX_LEVEL;
  /** 4^11 = 4,194,304 sub-zones per zone: the other aperture-4 grids' bound (DGGAL's `sub` goes to 14). */
  readonly maxRelativeDepth = 11;
  readonly zoneIdForm = '{level}-{row}-{col}: uppercase hex level 0..1C, row from the north, column from -180 in the level\'s finest columns (like 5-F-42)';
  /** Keys are row * columns + col: below 2^53 up to level 25. */
  override readonly maxZoneKeyLevel = 25;
  /** Scratch zone of zoneKeyFromPoint, which allocates nothing. */
  private readonly at: GnosisZone = { level: 0, row: 0, col: 0 };

  constructor() {
    super({
      id: 'GNOSISGlobalGrid',
      title: 'GNOSIS Global Grid',
      description:
        'Quadtree of WGS84 latitude/longitude rectangles (the GNOSISGlobalGrid 2D Tile Matrix Set): 8 zones at level 0, ' +
        'each split in 4, except that zones touching a pole split in 3, their polar half not being split in longitude.',
      uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/GNOSISGlobalGrid',
    });
  }

  protected parse(zoneId: string): GnosisZone | null {
    return parseGnosisId(zoneId);
  }

  protected format(z: GnosisZone): string {
    return gnosisId(z);
  }

  protected levelOf(z: GnosisZone): number {
    return z.level;
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    this.checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return gnosisId(gnosisZoneAt(lon, lat, level));
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    this.checkLevel(level);
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

  protected toUint64(z: GnosisZone): bigint {
    return gnosisToUint64(z);
  }

  protected areaOf(z: GnosisZone): number {
    return gnosisArea(z);
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

  protected parentsOf(z: GnosisZone): GnosisZone[] {
    const p = gnosisParent(z);
    return p ? [p] : [];
  }

  protected childrenOf(z: GnosisZone): GnosisZone[] {
    return gnosisChildren(z);
  }

  protected neighboursOf(z: GnosisZone): GnosisZone[] {
    return gnosisNeighbours(z);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkRelativeDepth(z.level, relativeDepth);
    const runs = subZoneRuns(z, relativeDepth);
    return runToEnd(runsPage(z.level + relativeDepth, runs, page ?? { offset: 0, limit: Infinity }, gnosisId));
  }

  protected subZoneCountOf(z: GnosisZone, depth: number): number {
    return gnosisSubZoneCount(z, depth);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return new GnosisRunSelection(level, bboxRuns(level, boxList(bbox)), gnosisId);
  }

  /** Exact: counting costs a few runs per level. */
  override estimateZonesInBBox(level: number, bbox: BBox): number {
    this.checkLevel(level);
    return runsCount(bboxRuns(level, [bbox]));
  }

  protected zoneCount(level: number): number {
    return gnosisZoneCount(level);
  }

  /** DGGAL's reference area: the mean zone area (the earth over the zone count). */
  protected regularZoneArea(level: number): number {
    return GNOSIS_EARTH_AREA / gnosisZoneCount(level);
  }
}
