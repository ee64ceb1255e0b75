/**
 * A rhombic-icosahedral aperture-7 hexagonal DGGRS (DGGAL's RI7H), parameterised by the projection that
 * maps the 5x6 net to the WGS84 ellipsoid. IVEA7H and ISEA7H are instances of this one class.
 */
import type { BBox, Dggrs, GridLevelInfo, LonLat, ZoneDescription } from './dggrs.js';
import {
  centroidOf, canonicalVertices, children, formatZoneId, LOC, locate, MAX_LEVEL, neighbours, parents,
  parseZoneId, POW7, zoneEdgeCount, zoneId, zoneLevel, type I7HZone,
} from './i7h-zone.js';
import { extentRadians, refinedGeoRadians } from './i7h-outline.js';
import { subZoneCount, subZones } from './i7h-sub-zones.js';
import type { SliceAndDiceProjection } from './slice-and-dice-projection.js';
import { EARTH_AREA } from './wgs84.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;
const DBL_EPSILON = 2.220446049250313e-16;

export interface I7HGridOptions {
  id: string;
  title: string;
  description: string;
  projection: SliceAndDiceProjection;
}

export class InvalidZoneIdError extends Error {
  constructor(readonly zoneId: string) {
    super(`Invalid zone id: ${zoneId}`);
    this.name = 'InvalidZoneIdError';
  }
}

type RadExtent = [number, number, number, number];

/** DGGAL's GeoExtent.intersects: strict with a 10-epsilon margin, antimeridian-crossing extents split. */
function extentsIntersect(a: RadExtent, b: RadExtent): boolean {
  const parts = (e: RadExtent): RadExtent[] =>
    e[1] > e[3] ? [[e[0], e[1], e[2], Math.PI], [e[0], -Math.PI, e[2], e[3]]] : [e];
  const eps = 10 * DBL_EPSILON;
  for (const p of parts(a)) {
    for (const q of parts(b)) {
      if (p[0] < q[2] - eps && q[0] < p[2] - eps && p[1] < q[3] - eps && q[1] < p[3] - eps) return true;
    }
  }
  return false;
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

  constructor(opts: I7HGridOptions) {
    this.id = opts.id;
    this.title = opts.title;
    this.description = opts.description;
    this.uri = `https://www.opengis.net/def/dggrs/OGC/1.0/${opts.id}`;
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
    const e = extentRadians(z, this.proj);
    return {
      id: zoneId,
      level,
      shape: edgeCount === 5 ? 'pentagon' : 'hexagon',
      edgeCount,
      centroid,
      vertices,
      areaMetersSquare: this.zoneArea(level, edgeCount),
      bbox: [e[1] * RAD, e[0] * RAD, e[3] * RAD, e[2] * RAD],
    };
  }

  private zoneArea(level: number, edgeCount: number): number {
    return (EARTH_AREA / (10 * POW7[level]!)) * (edgeCount === 5 ? 5 / 6.0 : 1);
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const z = this.zone(zoneId);
    let ring: LonLat[];
    if (refined) {
      ring = refinedGeoRadians(z, this.proj).map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
    } else {
      const odd = (zoneLevel(z) & 1) === 1;
      const g = { lat: 0, lon: 0 };
      ring = canonicalVertices(z).map((v) => {
        this.proj.inverse(v.x, v.y, odd, g);
        return [g.lon, g.lat] as LonLat;
      });
      // Keep the ring continuous across the antimeridian, like the refined outline.
      for (let i = 1; i < ring.length; i++) {
        const prev = ring[i - 1]![0];
        let lon = ring[i]![0];
        while (lon - prev > 180) lon -= 360;
        while (lon - prev < -180) lon += 360;
        ring[i] = [lon, ring[i]![1]];
      }
    }
    if (ring.length) ring.push([ring[0]![0], ring[0]![1]]);
    return ring;
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

  subZones(zoneId: string, relativeDepth: number): string[] {
    const z = this.zone(zoneId);
    this.checkDepth(z, relativeDepth);
    const out: string[] = [];
    subZones(z, relativeDepth, (k, root, ix, sh) => out.push(formatZoneId(k, root, ix, sh)));
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

  zonesInBBox(level: number, bbox: BBox): string[] {
    if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL) throw new RangeError(`Level out of range: ${level}`);
    const [minLon, minLat, maxLon, maxLat] = bbox;
    const box: RadExtent = [minLat * DEG, minLon * DEG, maxLat * DEG, maxLon * DEG];
    const whole = minLat <= -90 && maxLat >= 90 && minLon <= -180 && maxLon >= 180;
    let current: I7HZone[] = [];
    for (let root = 0; root < 12; root++) current.push({ k: 0, root, ix: 0, sh: 0 });
    if (level === 0 && !whole) current = current.filter((z) => extentsIntersect(extentRadians(z, this.proj), box));
    for (let l = 1; l <= level; l++) {
      const seen = new Set<string>();
      const next: I7HZone[] = [];
      for (const z of current) {
        for (const c of children(z)) {
          const id = zoneId(c);
          if (seen.has(id)) continue;
          if (!whole && !extentsIntersect(extentRadians(c, this.proj), box)) continue;
          seen.add(id);
          next.push(c);
        }
      }
      current = next;
    }
    current.sort((a, b) => a.k - b.k || a.root - b.root || a.ix - b.ix || a.sh - b.sh);
    return current.map(zoneId_);
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
    if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL) throw new RangeError(`Level out of range: ${level}`);
    return { level, zoneCount: 10 * POW7[level]! + 2, zoneAreaMetersSquare: this.zoneArea(level, 6) };
  }
}

const zoneId_ = (z: I7HZone): string => zoneId(z);
