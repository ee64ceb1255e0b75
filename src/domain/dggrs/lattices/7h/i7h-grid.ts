/**
 * A rhombic-icosahedral aperture-7 hexagonal DGGRS (DGGAL's RI7H), parameterised by the projection that
 * maps the 5x6 net to the WGS84 ellipsoid. IVEA7H and ISEA7H are instances of this one class.
 */
import { runToEnd, type BBox, type Dggrs, type GridLevelInfo, type LonLat, type Page, type ZoneDescription, type ZoneSelection } from '../../dggrs.js';
import { BoxCover, boxList } from '../../core/box-cover.js';
import { EVEN_INRADIUS, I7HBoxZones, ODD_INRADIUS } from './i7h-box-zones.js';
import {
  centroidOf, canonicalVertices, children, formatZoneId, LOC, locate, MAX_LEVEL, neighbours, parents,
  parseZoneId, POW7, zoneCentroid, zoneEdgeCount, zoneId, zoneLevel, zoneToInt64, type I7HZone,
} from './i7h-zone.js';
import { extentRadians, refined5x6, refinedGeoRadians, refinementDivisions } from './i7h-outline.js';
import { LastOutline } from '../../core/outline-extent.js';
import { subZoneCount, subZones } from './i7h-sub-zones.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { EARTH_AREA } from '../../core/wgs84.js';
import { continuousLongitudes } from '../../../geometry/continuous-longitudes.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;

export interface I7HGridOptions {
  id: string;
  title: string;
  description: string;
  projection: SliceAndDiceProjection;
  /** Definition URI; by default the OGC register's entry for the id (give another where OGC registers none). */
  uri?: string;
}

export class InvalidZoneIdError extends Error {
  constructor(readonly zoneId: string) {
    super(`Invalid zone id: ${zoneId}`);
    this.name = 'InvalidZoneIdError';
  }
}

export class I7HGrid implements Dggrs {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly uri: string;
  readonly crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  readonly defaultLevel = 3;
  /** 55 sub-zones per hexagon: a small, readable grid of values for zone data by default. */
  readonly defaultDepth = 2;
  readonly maxRefinementLevel = MAX_LEVEL;
  /**
   * 7^8 + 7^4 - 1 = 5,767,201 sub-zones per hexagon: beyond this a single response would exceed what a
   * client can reasonably receive, and the sub-zone order has only been validated to depth 6.
   */
  readonly maxRelativeDepth = 8;
  readonly zoneIdForm = '{L}{R}-{I}-{S}: level letter A..T, root 0-9/A/B, hex index, sub-hex letter A..H (like F0-711-F)';
  private readonly proj: SliceAndDiceProjection;
  private readonly xy = new Float64Array(2);
  private readonly centre = { x: 0, y: 0 };
  private readonly lastOutline = new LastOutline();

  constructor(opts: I7HGridOptions) {
    this.id = opts.id;
    this.title = opts.title;
    this.description = opts.description;
    this.uri = opts.uri ?? `https://www.opengis.net/def/dggrs/OGC/1.0/${opts.id}`;
    this.proj = opts.projection;
  }

  private zone(zoneId: string): I7HZone {
    const z = parseZoneId(zoneId);
    if (!z) throw new InvalidZoneIdError(zoneId);
    return z;
  }

  isValidZone(zoneId: string): boolean {
    return parseZoneId(zoneId) !== null;
  }

  zoneLevel(zoneId: string): number {
    return zoneLevel(this.zone(zoneId));
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    if (!this.locatePoint(lon, lat, level)) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return formatZoneId(LOC.k, LOC.root, LOC.ix, LOC.sh);
  }

  /** Keys are (index * 12 + root) * 8 + subHex: below 2^53 up to level 17 (index < 7^16). */
  readonly maxZoneKeyLevel = 17;

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    if (level > this.maxZoneKeyLevel) throw new RangeError(`No numeric zone keys beyond level ${this.maxZoneKeyLevel}`);
    if (!this.locatePoint(lon, lat, level)) return NaN;
    return (LOC.ix * 12 + LOC.root) * 8 + LOC.sh;
  }

  /**
   * The key, and the room the point has in its zone: the zone's inscribed circle in the net (a lattice
   * hexagon's) less the point's distance from its centre, turned into sphere radians by the projection's
   * least scale. Only where the circle lies inside one rhombus clear of its edges, so away from DGGAL's
   * edge snapping, the pentagons and the polar zones (those get 0). The margin covers the 2^-32 steps
   * in which `locate` reads positions within a cell.
   */
  zoneKeyClearance(lon: number, lat: number, level: number, out: Float64Array): void {
    out[0] = this.zoneKeyFromPoint(lon, lat, level);
    out[1] = 0;
    if (Number.isNaN(out[0]) || LOC.root >= 10 || LOC.ix === 0) return;
    const c = this.centre;
    zoneCentroid(LOC, c);
    const cx = LOC.root >> 1, cy = cx + (LOC.root & 1);
    const p = POW7[LOC.k]!;
    const inradius = ((level & 1) === 1 ? ODD_INRADIUS : EVEN_INRADIUS) / p;
    const margin = 1e-8 / p + 1e-13;
    // Equilateral distance from the centre to the rhombus's sides x = cx, cx + 1 and y = cy, cy + 1.
    const lx = c.x - cx, ly = c.y - cy;
    if (Math.min(lx, 1 - lx, ly, 1 - ly) * (Math.sqrt(3) / 2) < inradius + margin) return;
    const dx = this.xy[0]! - c.x, dy = this.xy[1]! - c.y;
    const room = inradius - Math.sqrt(dx * dx - dx * dy + dy * dy) - margin;
    if (room > 0) out[1] = room * this.proj.leastScale;
  }

  zoneIdFromKey(key: number, level: number): string {
    const sh = key % 8;
    const rest = (key - sh) / 8;
    const root = rest % 12;
    return formatZoneId(level >> 1, root, (rest - root) / 12, sh);
  }

  private locatePoint(lon: number, lat: number, level: number): boolean {
    if (!(level >= 0 && level <= MAX_LEVEL) || !Number.isInteger(level)) throw new RangeError(`Level out of range: ${level}`);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return false;
    this.proj.forward(lat, lon, this.xy);
    return locate(level, this.xy[0]!, this.xy[1]!);
  }

  describeZone(zoneId: string): ZoneDescription {
    const z = this.zone(zoneId);
    const level = zoneLevel(z);
    const edgeCount = zoneEdgeCount(z);
    const g = { lat: 0, lon: 0 };
    const c = centroidOf(z);
    this.proj.inverse(c.x, c.y, z.sh > 0, g);
    const centroid: LonLat = [g.lon, g.lat];
    const vertices: LonLat[] = canonicalVertices(z).map((v) => {
      this.proj.inverse(v.x, v.y, (level & 1) === 1, g);
      return [g.lon, g.lat] as LonLat;
    });
    const e = extentRadians(z, this.proj, this.lastOutline.get(zoneId, () => refinedGeoRadians(z, this.proj)));
    return {
      id: zoneId,
      level,
      shape: edgeCount === 5 ? 'pentagon' : 'hexagon',
      edgeCount,
      centroid,
      vertices,
      areaMetersSquare: this.areaOf(level, edgeCount),
      bbox: [e[1] * RAD, e[0] * RAD, e[3] * RAD, e[2] * RAD],
    };
  }

  /** DGGAL's 64-bit id: k << 58 | root << 54 | index << 3 | sub-hex. */
  zoneToUint64(zoneId: string): bigint {
    return zoneToInt64(this.zone(zoneId));
  }

  zoneArea(zoneId: string): number {
    const z = this.zone(zoneId);
    return this.areaOf(zoneLevel(z), zoneEdgeCount(z));
  }

  /** Every zone of a level has the same area, a pentagon 5/6 of it (DGGAL's equal-area rule). */
  private areaOf(level: number, edgeCount: number): number {
    return (EARTH_AREA / (10 * POW7[level]!)) * (edgeCount === 5 ? 5 / 6.0 : 1);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const z = this.zone(zoneId);
    let ring: LonLat[];
    if (refined) {
      ring = this.lastOutline.get(zoneId, () => refinedGeoRadians(z, this.proj)).map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
    } else {
      const odd = (zoneLevel(z) & 1) === 1;
      const g = { lat: 0, lon: 0 };
      ring = canonicalVertices(z).map((v) => {
        this.proj.inverse(v.x, v.y, odd, g);
        return [g.lon, g.lat] as LonLat;
      });
      // Keep the ring continuous across the antimeridian, like the refined outline.
      continuousLongitudes(ring);
    }
    if (fewerThanThreeDistinct(ring)) ring = this.unsnappedOutline(z, refined);
    if (ring.length) ring.push([ring[0]![0], ring[0]![1]]);
    return ring;
  }

  /**
   * The outline from each point's own position: at level 19 DGGAL's pole snap (1e-8 in the net, a few
   * centimetres) puts every corner of the zones at a pole on the pole itself, leaving no polygon.
   */
  private unsnappedOutline(z: I7HZone, refined: boolean): LonLat[] {
    const odd = (zoneLevel(z) & 1) === 1;
    const g = { lat: 0, lon: 0 };
    const ring: LonLat[] = [];
    for (const v of refined ? refined5x6(z, refinementDivisions(zoneLevel(z))) : canonicalVertices(z)) {
      if (this.proj.inverse(v.x, v.y, odd, g, false)) ring.push([g.lon, g.lat]);
    }
    return continuousLongitudes(ring);
  }

  parents(zoneId: string): string[] {
    return parents(this.zone(zoneId)).map(zoneId_);
  }

  children(zoneId: string): string[] {
    return children(this.zone(zoneId)).map(zoneId_);
  }

  neighbours(zoneId: string): string[] {
    return neighbours(this.zone(zoneId)).map(zoneId_);
  }

  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    const out: string[] = [];
    const limit = page?.limit ?? Infinity;
    if (limit > 0) {
      subZones(z, relativeDepth, (k, root, ix, sh) => out.push(formatZoneId(k, root, ix, sh)) < limit, page?.offset ?? 0);
    }
    return out;
  }

  private checkDepth(z: I7HZone, d: number): void {
    if (!Number.isInteger(d) || d < 0 || zoneLevel(z) + d > MAX_LEVEL) throw new RangeError(`Relative depth out of range: ${d}`);
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    return subZoneCount(z, relativeDepth);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    checkLevel(level);
    return new I7HBoxZones(level, new BoxCover(boxList(bbox)), this.proj);
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
    const total = 10 * POW7[Math.min(level, MAX_LEVEL)]! + 2;
    const perimeterZones = 4 * Math.sqrt(Math.max(fraction, 0) * total) + 12;
    return Math.min(total, Math.ceil(fraction * total * 1.1 + perimeterZones));
  }

  levelInfo(level: number): GridLevelInfo {
    checkLevel(level);
    return { level, zoneCount: 10 * POW7[level]! + 2, zoneAreaMetersSquare: this.areaOf(level, 6) };
  }
}

const zoneId_ = (z: I7HZone): string => zoneId(z);

/**
 * Whether the ring has fewer than three distinct points, compared as numbers (-0 equals 0, NaN equals
 * NaN): without text keys, stopping at the third distinct point (this runs for every outline).
 */
function fewerThanThreeDistinct(ring: LonLat[]): boolean {
  const same = (a: number, b: number) => a === b || (a !== a && b !== b);
  const first = ring[0];
  if (!first) return true;
  let second: LonLat | undefined;
  for (const p of ring) {
    if (same(p[0], first[0]) && same(p[1], first[1])) continue;
    if (!second) second = p;
    else if (!(same(p[0], second[0]) && same(p[1], second[1]))) return false;
  }
  return true;
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL) throw new RangeError(`Level out of range: ${level}`);
}
