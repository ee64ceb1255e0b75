/**
 * A rhombic-icosahedral aperture-3 hexagonal DGGRS (DGGAL's RI3H), parameterised by the projection from
 * the 5x6 net to the WGS84 ellipsoid. IVEA3H, ISEA3H and RTEA3H are instances of this one class.
 */
import type { BBox, LonLat, ZoneSelection } from '../../dggrs.js';
import { boxList } from '../../core/box-cover.js';
import { HexNetGrid, type HexLattice, type HexNetGridOptions } from '../hex-net-grid.js';
import { I3HBoxZones } from './i3h-box-zones.js';
import { i3hExtentRadians, i3hRefinedRadians } from './i3h-outline.js';
import { i3hSubZones } from './i3h-sub-zones.js';
import {
  I3H_MAX_LEVEL, i3hAt, i3hCanonicalVertices, i3hCentroid, i3hChildren, i3hEdgeCount, i3hId, i3hNeighbours,
  i3hParents, i3hSubZoneCount, i3hToInt64, parseI3HId, POW3, type I3HZone,
} from './i3h-zone.js';
import { hexZoneLevel } from '../hex-zone.js';

const RAD = 180 / Math.PI;

const I3H_LATTICE: HexLattice<I3HZone> = {
  /** 7,292 zones: about the zone size of the 7H grids' default level. */
  defaultLevel: 6,
  /** DGGAL's sub-zone depth for 3H (its subzone_count_depth): 59,293 sub-zones per hexagon. */
  defaultDepth: 10,
  maxRefinementLevel: I3H_MAX_LEVEL,
  /** 3^14 + 3^7 + 1 = 4,785,157 sub-zones per hexagon, the 7H grids' bound in size. */
  maxRelativeDepth: 14,
  zoneIdForm: '{L}{R}-{I}-{S}: ISEA9R level letter A..Q (level div 2), root 0-9/A/B, hex index, letter A (even level) or B..D (odd level) (like C4-0-B)',
  /** Keys are (index * 12 + root) * 4 + letter: below 2^53 while the index is below 3^28 (levels up to 29). */
  maxZoneKeyLevel: 29,

  cellsPerRhombus: POW3,
  parse: parseI3HId,
  format: i3hId,
  level: hexZoneLevel,
  edgeCount: i3hEdgeCount,
  centroid: i3hCentroid,
  corners: i3hCanonicalVertices,
  refinedRadians: i3hRefinedRadians,
  extentRadians: i3hExtentRadians,
  parents: i3hParents,
  children: i3hChildren,
  neighbours: i3hNeighbours,
  subZoneCount: i3hSubZoneCount,
  /** DGGAL's 64-bit id: level << 57 | root << 53 | index << 2 | sub-hex. */
  toUint64: i3hToInt64,
};

export class I3HGrid extends HexNetGrid<I3HZone> {
  constructor(opts: HexNetGridOptions) {
    super(opts, I3H_LATTICE);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    const z = this.locate(lon, lat, level);
    if (!z) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return i3hId(z);
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    const z = this.locate(lon, lat, level);
    return z ? (z.ix * 12 + z.root) * 4 + z.sh : NaN;
  }

  zoneKeyFromId(zoneId: string): number {
    const z = this.zone(zoneId);
    this.checkKeyLevel(this.levelOf(z));
    return (z.ix * 12 + z.root) * 4 + z.sh;
  }

  zoneIdFromKey(key: number, level: number): string {
    const sh = key % 4;
    const rest = (key - sh) / 4;
    const root = rest % 12;
    return i3hId({ k: level >> 1, root, ix: (rest - root) / 12, sh });
  }

  private locate(lon: number, lat: number, level: number): I3HZone | null {
    if (!this.project(lon, lat, level)) return null;
    // The projection has no answer at the exact centre of an ISEA face (its radial corner, a zone
    // centroid): a point 1e-12 degrees away lies in the same zone.
    if (!Number.isFinite(this.xy[0]!) || !Number.isFinite(this.xy[1]!)) this.proj.forward(lat + (lat > 0 ? -1e-12 : 1e-12), lon, this.xy);
    return i3hAt(level, this.xy[0]!, this.xy[1]!);
  }

  /**
   * DGGAL turns each outline point within 1e-6 degrees of a pole into a pair on the pole. Zones that
   * small (from about level 25) become all pole pairs, a ring without area: take their outline as it is.
   */
  protected override refinedOutline(zoneId: string, z: I3HZone): LonLat[] {
    let pts = this.lastOutline.get(zoneId, () => this.refinedRadians(z));
    if (pts.filter((p) => Math.abs(p.lat) === Math.PI / 2).length > 2) pts = i3hRefinedRadians(z, this.proj, false);
    return pts.map((p) => [p.lon * RAD, p.lat * RAD] as LonLat);
  }

  protected forEachSubZone(z: I3HZone, depth: number, offset: number, emit: (id: string) => boolean): void {
    i3hSubZones(z, depth, (s) => emit(i3hId(s)), offset);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return new I3HBoxZones(level, boxList(bbox), this.proj);
  }
}
