/**
 * A rhombic-icosahedral aperture-3 hexagonal DGGRS (DGGAL's RI3H), parameterised by the projection from
 * the 5x6 net to the WGS84 ellipsoid. IVEA3H and ISEA3H are instances of this one class.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { boxList } from '../../core/box-cover.js';
import { I3HBoxZones } from './i3h-box-zones.js';
import { i3hExtentRadians, i3hRefinedRadians } from './i3h-outline.js';
import { LastOutline } from '../../core/outline-extent.js';
import { i3hSubZones } from './i3h-sub-zones.js';
import {
  I3H_MAX_LEVEL, i3hAt, i3hCanonicalVertices, i3hCentroid, i3hChildren, i3hEdgeCount, i3hId, i3hLevel, i3hNeighbours,
  i3hParents, i3hSubZoneCount, i3hToInt64, parseI3HId, POW3, type I3HZone,
} from './i3h-zone.js';
import { InvalidZoneIdError } from '../7h/i7h-grid.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { EARTH_AREA } from '../../core/wgs84.js';
import { continuousLongitudes } from '../../../geometry/continuous-longitudes.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;

export interface I3HGridOptions {
  id: string;
  title: string;
  description: string;
  projection: SliceAndDiceProjection;
  /** Definition URI; by default the OGC register's entry for the id (give another where OGC registers none). */
  uri?: string;
}

export class I3HGrid implements Dggrs {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly uri: string;
  readonly crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  /** 7,292 zones: about the zone size of the 7H grids' default level. */
  readonly defaultLevel = 6;
  /** DGGAL's sub-zone depth for 3H (its subzone_count_depth): 59,293 sub-zones per hexagon. */
  readonly defaultDepth = 10;
  readonly maxRefinementLevel = I3H_MAX_LEVEL;
  /** 3^14 + 3^7 + 1 = 4,785,157 sub-zones per hexagon, the 7H grids' bound in size. */
  readonly maxRelativeDepth = 14;
  readonly zoneIdForm = '{L}{R}-{I}-{S}: ISEA9R level letter A..Q (level div 2), root 0-9/A/B, hex index, letter A (even level) or B..D (odd level) (like C4-0-B)';
  /** Keys are (index * 12 + root) * 4 + letter: below 2^53 while the index is below 3^28 (levels up to 29). */
  readonly maxZoneKeyLevel = 29;
  private readonly proj: SliceAndDiceProjection;
  private readonly xy = new Float64Array(2);
  private readonly lastOutline = new LastOutline();

  constructor(opts: I3HGridOptions) {
    this.id = opts.id;
    this.title = opts.title;
    this.description = opts.description;
    this.uri = opts.uri ?? `https://www.opengis.net/def/dggrs/OGC/1.0/${opts.id}`;
    this.proj = opts.projection;
  }

  private zone(zoneId: string): I3HZone {
    const z = parseI3HId(zoneId);
    if (!z) throw new InvalidZoneIdError(zoneId);
    return z;
  }

  isValidZone(zoneId: string): boolean {
    return parseI3HId(zoneId) !== null;
  }

  zoneLevel(zoneId: string): number {
    return i3hLevel(this.zone(zoneId));
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    const z = this.locate(lon, lat, level);
    if (!z) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return i3hId(z);
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    if (level > this.maxZoneKeyLevel) throw new RangeError(`No numeric zone keys beyond level ${this.maxZoneKeyLevel}`);
    const z = this.locate(lon, lat, level);
    return z ? (z.ix * 12 + z.root) * 4 + z.sh : NaN;
  }

  zoneIdFromKey(key: number, level: number): string {
    const sh = key % 4;
    const rest = (key - sh) / 4;
    const root = rest % 12;
    return i3hId({ l: level >> 1, root, ix: (rest - root) / 12, sh });
  }

  private locate(lon: number, lat: number, level: number): I3HZone | null {
    checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return null;
    this.proj.forward(lat, lon, this.xy);
    // The projection has no answer at the exact centre of an ISEA face (its radial corner, a zone
    // centroid): a point 1e-12 degrees away lies in the same zone.
    if (!Number.isFinite(this.xy[0]!) || !Number.isFinite(this.xy[1]!)) this.proj.forward(lat + (lat > 0 ? -1e-12 : 1e-12), lon, this.xy);
    return i3hAt(level, this.xy[0]!, this.xy[1]!);
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const edgeCount = i3hEdgeCount(z);
    const odd = z.sh > 0;
    const g = { lat: 0, lon: 0 };
    const c = i3hCentroid(z);
    this.proj.inverse(c.x, c.y, odd, g);
    const centroid: LonLat = [g.lon, g.lat];
    const vertices = i3hCanonicalVertices(z).map((v) => {
      this.proj.inverse(v.x, v.y, odd, g);
      return [g.lon, g.lat] as LonLat;
    });
    const e = i3hExtentRadians(z, this.proj, this.lastOutline.get(zoneId, () => i3hRefinedRadians(z, this.proj)));
    return {
      id: zoneId,
      level: i3hLevel(z),
      shape: edgeCount === 5 ? 'pentagon' : 'hexagon',
      edgeCount,
      centroid,
      vertices,
      areaMetersSquare: this.areaOf(i3hLevel(z), edgeCount),
      bbox: [e[1] * RAD, e[0] * RAD, e[3] * RAD, e[2] * RAD],
    };
  }

  /** DGGAL's 64-bit id: level << 57 | root << 53 | index << 2 | sub-hex. */
  zoneToUint64(zoneId: string): bigint {
    return i3hToInt64(this.zone(zoneId));
  }

  zoneArea(zoneId: string): number {
    const z = this.zone(zoneId);
    return this.areaOf(i3hLevel(z), i3hEdgeCount(z));
  }

  /** DGGAL's equal-area rule: every hexagon of a level has the same area, a pentagon 5/6 of it. */
  private areaOf(level: number, edgeCount: number): number {
    return (EARTH_AREA / (10 * POW3[level]!)) * (edgeCount === 5 ? 5 / 6.0 : 1);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const z = this.zone(zoneId);
    let ring: LonLat[];
    if (refined) {
      let pts = this.lastOutline.get(zoneId, () => i3hRefinedRadians(z, this.proj));
      // DGGAL turns each outline point within 1e-6 degrees of a pole into a pair on the pole. Zones that
      // small (from about level 25) become all pole pairs, a ring without area: take their outline as it is.
      if (pts.filter((p) => Math.abs(p.lat) === Math.PI / 2).length > 2) pts = i3hRefinedRadians(z, this.proj, false);
      ring = pts.map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
    } else {
      const g = { lat: 0, lon: 0 };
      ring = i3hCanonicalVertices(z).map((v) => {
        this.proj.inverse(v.x, v.y, z.sh > 0, g);
        return [g.lon, g.lat] as LonLat;
      });
      // Keep the ring continuous across the antimeridian, like the refined outline.
      continuousLongitudes(ring);
    }
    if (ring.length) ring.push([ring[0]![0], ring[0]![1]]);
    return ring;
  }

  parents(zoneId: string): string[] {
    return i3hParents(this.zone(zoneId)).map(i3hId);
  }

  children(zoneId: string): string[] {
    return i3hChildren(this.zone(zoneId)).map(i3hId);
  }

  neighbours(zoneId: string): string[] {
    return i3hNeighbours(this.zone(zoneId)).map(i3hId);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    const out: string[] = [];
    const limit = page?.limit ?? Infinity;
    if (limit > 0) i3hSubZones(z, relativeDepth, (s) => out.push(i3hId(s)) < limit, page?.offset ?? 0);
    return out;
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    return i3hSubZoneCount(z, relativeDepth);
  }

  private checkDepth(z: I3HZone, d: number): void {
    if (!Number.isInteger(d) || d < 0 || i3hLevel(z) + d > I3H_MAX_LEVEL) throw new RangeError(`Relative depth out of range: ${d}`);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    checkLevel(level);
    return new I3HBoxZones(level, boxList(bbox), this.proj);
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
    const total = 10 * POW3[Math.min(level, I3H_MAX_LEVEL)]! + 2;
    const perimeterZones = 4 * Math.sqrt(Math.max(fraction, 0) * total) + 12;
    return Math.min(total, Math.ceil(fraction * total * 1.1 + perimeterZones));
  }

  levelInfo(level: number): GridLevelInfo {
    checkLevel(level);
    return { level, zoneCount: 10 * POW3[level]! + 2, zoneAreaMetersSquare: this.areaOf(level, 6) };
  }
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > I3H_MAX_LEVEL) throw new RangeError(`Level out of range: ${level}`);
}
