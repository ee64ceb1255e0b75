/**
 * A rhombic-icosahedral grid of square zones (DGGAL's RhombicIcosahedral9R / 4R): the 5x6 net cut into
 * squares, aperture 9 (3 x 3) or 4 (2 x 2) per level, mapped to the WGS84 ellipsoid by an equal-area
 * projection of the net. The 9R and 4R grids of every projection (grids/) are instances.
 */
import type { BBox } from '../../dggrs.js';
import type { RadExtent } from '../../core/box-cover.js';
import type { CellRect } from '../square-cells/cell-rect-selection.js';
import type { GeoRad, PlanePoint } from '../../projections/healpix-projection.js';
import { rhombicBoxRects } from './rhombic-box-zones.js';
import { rhombicExtentRadians, rhombicForward, rhombicRefinedGeo, type RhombicProjection } from './rhombic-outline.js';
import {
  LATTICE_4R, LATTICE_9R, parseRhombicId, rhombicAt, rhombicCentroid5x6, rhombicChildren, rhombicCorners5x6, rhombicId,
  rhombicNeighbours, rhombicParent, rhombicSubSquare, rhombicToUint64, type RhombicLattice, type RhombicZone,
} from './rhombic-zone.js';
import { SquareCellGrid } from '../square-cells/square-cell-grid.js';

const DEG = Math.PI / 180;
const RAD = 180 / Math.PI;

export class RhombicGrid extends SquareCellGrid<RhombicZone> {
  /** Keys are row * 5p + col: below 2^53 up to level 15 (9R) or 24 (4R). */
  override readonly maxZoneKeyLevel: number;
  private readonly lat: RhombicLattice;
  private readonly proj: RhombicProjection;
  private readonly xy = new Float64Array(2);
  private readonly deg = { lat: 0, lon: 0 };
  /** Reused by zoneKeyFromPoint, the allocation-free path. */
  private readonly scratch: RhombicZone = { level: 0, row: 0, col: 0 };

  /** `text.uri`: the OGC definition, or DGGAL's where OGC registers none. */
  constructor(id: string, projection: RhombicProjection, aperture: 4 | 9, text: { title: string; description: string; uri: string }) {
    const nine = aperture === 9;
    const lat = nine ? LATTICE_9R : LATTICE_4R;
    super({
      id,
      ...text,
      side: lat.side,
      rootCount: 10,
      maxLevel: lat.maxLevel,
      // 7,290 (9R level 3) or 10,240 (4R level 5) zones: about the zone count of the other grids' default level.
      defaultLevel: nine ? 3 : 5,
      // DGGAL's ~64K sub-zones depth (its `info`): 5 for 9R (59,049), 8 for 4R (65,536).
      defaultDepth: nine ? 5 : 8,
      // 9^7 = 4,782,969 or 4^11 = 4,194,304 sub-zones per zone: the other grids' bound in size (DGGAL's own
      // getMaxDepth goes to 8 and 14, where its sub-zone lists reach 2^32 bytes).
      maxRelativeDepth: nine ? 7 : 11,
      zoneIdForm: `{L}{R}-{I}: level letter A..${String.fromCharCode(65 + lat.maxLevel)}, root rhombus 0-9, uppercase hex index of the square in its rhombus, row-major (like ${nine ? 'C4-17' : 'D4-2A'})`,
    });
    this.lat = lat;
    this.proj = projection;
    this.maxZoneKeyLevel = nine ? 15 : 24;
  }

  protected parse(id: string): RhombicZone | null {
    return parseRhombicId(this.lat, id);
  }

  protected format(z: RhombicZone): string {
    return rhombicId(this.lat, z);
  }

  protected levelOf(z: RhombicZone): number {
    return z.level;
  }

  /** Radians in, as the base class asks; zoneFromPoint itself works in degrees to keep DGGAL's last bits. */
  protected fromPoint(lat: number, lon: number, level: number): RhombicZone | null {
    return this.locate(lon * RAD, lat * RAD, level);
  }

  /** The zone of `level` at a point (degrees); into `out` when given. */
  private locate(lon: number, lat: number, level: number, out?: RhombicZone): RhombicZone | null {
    this.checkLevel(level);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || lat < -90 || lat > 90) return null;
    rhombicForward(this.proj, lat, lon, this.xy);
    return rhombicAt(this.lat, level, this.xy[0]!, this.xy[1]!, out);
  }

  override zoneFromPoint(lon: number, lat: number, level: number): string {
    const z = this.locate(lon, lat, level);
    if (!z) throw new RangeError(`No zone at level ${level} for ${lon},${lat}`);
    return this.format(z);
  }

  /** Allocation-free (one reused zone), for bulk binning. */
  override zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    this.checkKeyLevel(level);
    const z = this.locate(lon, lat, level, this.scratch);
    return z ? this.keyOf(z) : NaN;
  }

  protected override keyOf(z: RhombicZone): number {
    return z.row * 5 * this.lat.pow[z.level]! + z.col;
  }

  protected override zoneOfKey(key: number, level: number): RhombicZone {
    const cols = 5 * this.lat.pow[level]!;
    const row = Math.floor(key / cols);
    return { level, row, col: key - row * cols };
  }

  protected planeCentroid(z: RhombicZone): PlanePoint {
    return rhombicCentroid5x6(this.lat, z);
  }

  protected planeCorners(z: RhombicZone): PlanePoint[] {
    return rhombicCorners5x6(this.lat, z);
  }

  /** The net point in geodetic radians (DGGAL asks every rhombic point with oddGrid false). */
  protected inverse(x: number, y: number, g: GeoRad): boolean {
    if (!this.proj.inverse(x, y, false, this.deg)) return false;
    g.lat = this.deg.lat * DEG;
    g.lon = this.deg.lon * DEG;
    return true;
  }

  extent(z: RhombicZone): RadExtent {
    return rhombicExtentRadians(this.lat, z, this.proj);
  }

  refinedRadians(z: RhombicZone): GeoRad[] {
    return rhombicRefinedGeo(this.lat, z, this.proj).map((p) => ({ lat: p.lat * DEG, lon: p.lon * DEG }));
  }

  protected parentOf(z: RhombicZone): RhombicZone | null {
    return rhombicParent(this.lat, z);
  }

  /** Children in DGGAL's order: row-major in the square (DGGAL lists no centroid child first). */
  protected childrenOf(z: RhombicZone): RhombicZone[] {
    return rhombicChildren(this.lat, z);
  }

  protected neighboursOf(z: RhombicZone): RhombicZone[] {
    return rhombicNeighbours(this.lat, z);
  }

  protected subZoneAt(z: RhombicZone, depth: number, i: number): RhombicZone {
    return rhombicSubSquare(this.lat, z, depth, i);
  }

  protected toUint64(z: RhombicZone): bigint {
    return rhombicToUint64(z);
  }

  protected boxRects(level: number, boxes: readonly BBox[]): Generator<void, CellRect[], void> {
    return rhombicBoxRects(this.lat, level, boxes, this.proj);
  }

  protected cellName(level: number, row: number, col: number): string {
    return this.format({ level, row, col });
  }
}

/**
 * The description of a rhombic grid of `aperture` on `projection` (a phrase naming it), as the ISEA and IVEA
 * grids word it.
 */
export function rhombicDescription(aperture: 4 | 9, projection: string): string {
  const cut = aperture === 9 ? '3 x 3' : '2 x 2';
  return (
    `Equal-area rhombic grid of aperture ${aperture} (DGGAL): the ten rhombi of two icosahedron faces each, unfolded ` +
    `into the 5x6 net by ${projection} of the WGS84 authalic sphere (one icosahedron vertex on land), cut into ` +
    `${cut} axis-aligned squares per level; zones indexed by level, root rhombus and row-major square index, ` +
    'sub-zones in scanline order.'
  );
}
