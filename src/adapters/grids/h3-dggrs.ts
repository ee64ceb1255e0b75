import * as h3 from 'h3-js';
import type { BBox, LonLat, Page, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import { CellTreeDggrs } from './cell-tree-dggrs.js';
import { h3CellTree } from './h3-box-zones.js';
import { H3PointLattice, h3KeyCell } from './h3-point-lattice.js';
import { H3SubZones } from './h3-sub-zones.js';
import { ringExtent, unwrap } from './lon-lat.js';
import { Recent } from './recent.js';

const MAX_RES = 15;
/** Refined outlines: at least this many segments per edge, each split further while it strays from the great circle. */
const DENSIFY_SEGMENTS = 8;
/**
 * How far (degrees of arc) a straight lon/lat segment may stray from the great-circle edge it
 * stands for. Near the poles a short arc sweeps many degrees of longitude, so a fixed count of
 * points per edge is not enough there.
 */
const DENSIFY_TOLERANCE_DEG = 1e-4;
const DENSIFY_MAX_DEPTH = 16;

/**
 * H3 (Uber's aperture-7 hexagonal grid on an icosahedral gnomonic projection) through h3-js:
 * a second grid family behind the same Dggrs interface. Areas are h3-js's spherical areas on
 * the authalic sphere, not WGS84 geodesic ones.
 */
export class H3Dggrs extends CellTreeDggrs {
  readonly defaultLevel = 3;
  readonly defaultDepth = 2;
  readonly maxRefinementLevel = MAX_RES;
  /** 7^6 = 117,649 sub-zones at depth 6: deeper would outgrow any response. */
  readonly maxRelativeDepth = 6;
  readonly zoneIdForm = '15 lowercase hexadecimal digits, like 831f8dfffffffff';
  /** Sub-zone searches by parent and resolution: a list's count and its page share one. */
  private readonly searches = new Recent<H3SubZones>(8);
  /** Every resolution's keys are safe integers (h3-point-lattice.ts). */
  override readonly maxZoneKeyLevel = MAX_RES;
  /** Made on the first bulk use: reading the lattices from h3-js takes a few hundred of its calls. */
  private lattice?: H3PointLattice;

  constructor() {
    super({
      id: 'H3',
      title: 'H3: hexagonal hierarchical geospatial index',
      description: 'Uber H3, aperture 7 hexagons (and 12 pentagons per level) on an icosahedron with a gnomonic projection; zone ids are 15-digit hexadecimal cell indexes.',
      uri: 'https://h3geo.org/#/documentation/core-library/overview',
    }, H3_TREE);
  }

  isValidZone(zoneId: string): boolean {
    return /^[0-9a-f]{15,16}$/.test(zoneId) && h3.isValidCell(zoneId);
  }

  zoneLevel(zoneId: string): number {
    return h3.getResolution(zoneId);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    return h3.latLngToCell(lat, lon, level);
  }

  zoneKeyFromPoint(lon: number, lat: number, level: number): number {
    return (this.lattice ??= new H3PointLattice()).keyAt(lon, lat, level);
  }

  zoneIdFromKey(key: number, level: number): string {
    return h3KeyCell(key, level);
  }

  zoneKeyClearance(lon: number, lat: number, level: number, out: Float64Array): void {
    (this.lattice ??= new H3PointLattice()).keyClearance(lon, lat, level, out);
  }

  describeZone(zoneId: string): ZoneDescription {
    const [lat, lon] = h3.cellToLatLng(zoneId);
    const vertices = cornersOf(zoneId);
    const pentagon = h3.isPentagon(zoneId);
    return {
      id: zoneId,
      level: h3.getResolution(zoneId),
      shape: pentagon ? 'pentagon' : 'hexagon',
      edgeCount: vertices.length,
      centroid: [lon, lat],
      vertices,
      areaMetersSquare: h3.cellArea(zoneId, h3.UNITS.m2),
      bbox: cellBBox(zoneId),
    };
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const corners = unwrap(cornersOf(zoneId));
    const ring: LonLat[] = [];
    for (let i = 0; i < corners.length; i++) {
      const a = corners[i]!;
      const b = corners[(i + 1) % corners.length]!;
      ring.push(a);
      if (!refined) continue;
      for (let s = 0; s < DENSIFY_SEGMENTS; s++) {
        if (s > 0) ring.push(greatCirclePoint(a, b, s / DENSIFY_SEGMENTS));
        densifyBetween(a, b, s / DENSIFY_SEGMENTS, (s + 1) / DENSIFY_SEGMENTS, ring, 0);
      }
    }
    ring.push(ring[0]!);
    return unwrap(ring);
  }

  parents(zoneId: string): string[] {
    const res = h3.getResolution(zoneId);
    return res === 0 ? [] : [h3.cellToParent(zoneId, res - 1)];
  }

  /**
   * h3's own children (cellToChildren), centre child first. They are exactly the sub-zones at depth 1 (the
   * cells of the next resolution whose centres lie in the cell), so the OGC child links and the depth-1
   * sub-zones agree; only from depth 2 on do h3's descendants and the sub-zones part.
   */
  children(zoneId: string): string[] {
    const res = h3.getResolution(zoneId);
    return res === MAX_RES ? [] : h3.cellToChildren(zoneId, res + 1);
  }

  neighbours(zoneId: string): string[] {
    return h3.gridDisk(zoneId, 1).filter((h) => h !== zoneId);
  }

  /**
   * The cells of the target resolution whose centres lie in the zone (see H3SubZones), in ascending index
   * order; a page is cut from the counted search without listing the rest.
   */
  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const search = this.subZoneSearch(zoneId, relativeDepth);
    return page ? search.page(page.offset, page.limit) : search.page(0, search.count);
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    return this.subZoneSearch(zoneId, relativeDepth).count;
  }

  private subZoneSearch(zoneId: string, relativeDepth: number): H3SubZones {
    const res = this.subZoneResolution(zoneId, relativeDepth);
    return this.searches.get(`${zoneId}/${res}`, () => new H3SubZones(zoneId, res));
  }

  private subZoneResolution(zoneId: string, relativeDepth: number): number {
    const level = h3.getResolution(zoneId);
    this.checkRelativeDepth(level, relativeDepth);
    return level + relativeDepth;
  }

  /** The H3 index itself: the id is its hexadecimal form. */
  zoneToUint64(zoneId: string): bigint {
    if (!this.isValidZone(zoneId)) throw new RangeError(`Invalid H3 cell: ${zoneId}`);
    return BigInt(`0x${zoneId}`);
  }

  zoneArea(zoneId: string): number {
    return h3.cellArea(zoneId, h3.UNITS.m2);
  }

  protected regularZoneArea(level: number): number {
    return h3.getHexagonAreaAvg(level, h3.UNITS.m2);
  }
}

/** True corners [lon, lat], not closed (h3's GeoJSON form repeats the first one). */
function cornersOf(zoneId: string): LonLat[] {
  return h3.cellToBoundary(zoneId).map(([lat, lon]) => [lon, lat] as LonLat);
}

/**
 * Extent of a cell from its corners; a cell whose outline winds round a pole holds it, and its extent
 * reaches that pole all round. A box list takes the cells whose extent meets a box: the 7H grids' rule,
 * on h3's own corners.
 */
function cellBBox(cell: string): BBox {
  const corners = cornersOf(cell);
  return ringExtent(unwrap([...corners, corners[0]!]));
}

const H3_TREE = h3CellTree(cellBBox);

function greatCirclePoint(a: LonLat, b: LonLat, t: number): LonLat {
  const rad = Math.PI / 180;
  const va = toVec(a[0] * rad, a[1] * rad);
  const vb = toVec(b[0] * rad, b[1] * rad);
  const dot = Math.min(1, Math.max(-1, va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2]));
  const omega = Math.acos(dot);
  if (omega < 1e-12) return a;
  const sa = Math.sin((1 - t) * omega) / Math.sin(omega);
  const sb = Math.sin(t * omega) / Math.sin(omega);
  const v = [sa * va[0] + sb * vb[0], sa * va[1] + sb * vb[1], sa * va[2] + sb * vb[2]] as const;
  return [Math.atan2(v[1], v[0]) / rad, Math.atan2(v[2], Math.hypot(v[0], v[1])) / rad];
}

/** Pushes the points strictly between fractions t0 and t1 of the edge a-b that keep the lon/lat chord on the arc. */
function densifyBetween(a: LonLat, b: LonLat, t0: number, t1: number, ring: LonLat[], depth: number): void {
  if (depth >= DENSIFY_MAX_DEPTH) return;
  const p = greatCirclePoint(a, b, t0), q = greatCirclePoint(a, b, t1), m = greatCirclePoint(a, b, (t0 + t1) / 2);
  const dLon = (x: number, y: number) => x - y - 360 * Math.round((x - y) / 360);
  const chordLon = p[0] + dLon(q[0], p[0]) / 2;
  const stray = Math.hypot(dLon(chordLon, m[0]) * Math.cos((m[1] * Math.PI) / 180), (p[1] + q[1]) / 2 - m[1]);
  if (stray <= DENSIFY_TOLERANCE_DEG) return;
  densifyBetween(a, b, t0, (t0 + t1) / 2, ring, depth + 1);
  ring.push(m);
  densifyBetween(a, b, (t0 + t1) / 2, t1, ring, depth + 1);
}

function toVec(lon: number, lat: number): [number, number, number] {
  return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
}
