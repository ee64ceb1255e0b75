/**
 * A rhombic-icosahedral aperture-7 hexagonal DGGRS (DGGAL's RI7H), parameterised by the projection that
 * maps the 5x6 net to the WGS84 ellipsoid. IVEA7H, ISEA7H and RTEA7H are instances of this one class.
 */
import type { BBox, LonLat, ZoneSelection } from '../../dggrs.js';
import { BoxCover, boxList } from '../../core/box-cover.js';
import { hexZoneLevel } from '../hex-zone.js';
import { HexNetGrid, type HexLattice, type HexNetGridOptions } from '../hex-net-grid.js';
import { EVEN_INRADIUS, I7HBoxZones, ODD_INRADIUS } from './i7h-box-zones.js';
import {
  centroidOf, canonicalVertices, children, formatZoneId, LOC, locate, MAX_LEVEL, neighbours, parents,
  parseZoneId, POW7, zoneCentroid, zoneEdgeCount, zoneId, zoneToInt64, type I7HZone,
} from './i7h-zone.js';
import { extentRadians, refined5x6, refinedGeoRadians, refinementDivisions } from './i7h-outline.js';
import { subZoneCount, subZones } from './i7h-sub-zones.js';
import { continuousLongitudes } from '../../../geometry/continuous-longitudes.js';
import { ringCrossesItself } from '../../../geometry/ring-crossing.js';

const RAD = 180 / Math.PI;

const I7H_LATTICE: HexLattice<I7HZone> = {
  defaultLevel: 3,
  /** 55 sub-zones per hexagon: a small, readable grid of values for zone data by default. */
  defaultDepth: 2,
  maxRefinementLevel: MAX_LEVEL,
  /**
   * 7^8 + 7^4 - 1 = 5,767,201 sub-zones per hexagon: beyond this a single response would exceed what a
   * client can reasonably receive, and the sub-zone order has only been validated to depth 6.
   */
  maxRelativeDepth: 8,
  zoneIdForm: '{L}{R}-{I}-{S}: level letter A..T, root 0-9/A/B, hex index, sub-hex letter A..H (like F0-711-F)',
  /** Keys are (index * 12 + root) * 8 + subHex: below 2^53 up to level 17 (index < 7^16). */
  maxZoneKeyLevel: 17,
  cellsPerRhombus: POW7,
  parse: parseZoneId,
  format: zoneId,
  level: hexZoneLevel,
  edgeCount: zoneEdgeCount,
  centroid: centroidOf,
  corners: canonicalVertices,
  refinedRadians: refinedGeoRadians,
  extentRadians,
  parents,
  children,
  neighbours,
  subZoneCount,
  /** DGGAL's 64-bit id: k << 58 | root << 54 | index << 3 | sub-hex. */
  toUint64: zoneToInt64,
};

export class I7HGrid extends HexNetGrid<I7HZone> {
  private readonly centre = { x: 0, y: 0 };

  constructor(opts: HexNetGridOptions) {
    super(opts, I7H_LATTICE);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    if (!this.locatePoint(lon, lat, level)) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return formatZoneId(LOC.k, LOC.root, LOC.ix, LOC.sh);
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
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

  zoneKeyFromId(zoneId: string): number {
    const z = this.zone(zoneId);
    this.checkKeyLevel(this.levelOf(z));
    return (z.ix * 12 + z.root) * 8 + z.sh;
  }

  zoneIdFromKey(key: number, level: number): string {
    const sh = key % 8;
    const rest = (key - sh) / 8;
    const root = rest % 12;
    return formatZoneId(level >> 1, root, (rest - root) / 12, sh);
  }

  /** Writes the zone to LOC; false for points that are not on the globe. */
  private locatePoint(lon: number, lat: number, level: number): boolean {
    return this.project(lon, lat, level) && locate(level, this.xy[0]!, this.xy[1]!);
  }

  protected override outlineRing(zoneId: string, z: I7HZone, refined: boolean): LonLat[] {
    const ring = super.outlineRing(zoneId, z, refined);
    if (fewerThanThreeDistinct(ring)) return this.unsnappedOutline(z, refined);
    if (refined && spansLongitudes(ring, 120) && ringCrossesItself(ring)) return this.outlineInPlace(z);
    return ring;
  }

  /**
   * The refined outline with every point where it is. DGGAL turns the points of a zone beside a pole that
   * lie more than 120° of longitude from its centroid's by half a turn; for the zones round the pole that
   * makes a ring that passes over it, but for two of them micrometres from the North Pole (levels 15 and
   * 17, P0-6487B-H and R0-2BFB60-H in ISEA7H) it makes a ring whose straight lon/lat lines cross (DGGAL's
   * geom is that ring). Left in place, their points wind once round the pole, a ring the GeoJSON closes
   * along the pole's parallel. Only outlines that cross themselves are drawn so; every other keeps
   * DGGAL's points.
   */
  private outlineInPlace(z: I7HZone): LonLat[] {
    return refinedGeoRadians(z, this.proj, false).map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
  }

  /**
   * The outline from each point's own position: at level 19 DGGAL's pole snap (1e-8 in the net, a few
   * centimetres) puts every corner of the zones at a pole on the pole itself, leaving no polygon.
   */
  private unsnappedOutline(z: I7HZone, refined: boolean): LonLat[] {
    const odd = (hexZoneLevel(z) & 1) === 1;
    const g = { lat: 0, lon: 0 };
    const ring: LonLat[] = [];
    for (const v of refined ? refined5x6(z, refinementDivisions(hexZoneLevel(z))) : canonicalVertices(z)) {
      if (this.proj.inverse(v.x, v.y, odd, g, false)) ring.push([g.lon, g.lat]);
    }
    return continuousLongitudes(ring);
  }

  protected forEachSubZone(z: I7HZone, depth: number, offset: number, emit: (id: string) => boolean): void {
    subZones(z, depth, (k, root, ix, sh) => emit(formatZoneId(k, root, ix, sh)), offset);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return new I7HBoxZones(level, new BoxCover(boxList(bbox)), this.proj);
  }
}

/** Whether the ring's longitudes span more than `degrees` (cheap: only outlines beside a pole do for 120°). */
function spansLongitudes(ring: LonLat[], degrees: number): boolean {
  let lo = Infinity, hi = -Infinity;
  for (const p of ring) {
    if (p[0] < lo) lo = p[0];
    if (p[0] > hi) hi = p[0];
  }
  return hi - lo > degrees;
}

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
