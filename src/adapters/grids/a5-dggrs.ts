import * as a5 from 'a5-js';
import { runToEnd, type BBox, type LonLat, type Page, type ZoneDescription } from '../../domain/dggrs/dggrs.js';
import { a5CellTree } from './a5-box-zones.js';
import { descendantRun } from './cell-tree-box-zones.js';
import { CellTreeDggrs } from './cell-tree-dggrs.js';
import { ringExtent, unwrap, wrapLon } from './lon-lat.js';
import { Recent } from './recent.js';

/**
 * A5's resolution 30 covers only part of the globe (a5-js gives resolution-29 cells elsewhere), so the
 * finest level of the grid, where every point has a zone, is 29.
 */
const MAX_LEVEL = 29;
type A5LonLat = Parameters<typeof a5.lonLatToCell>[0];

/**
 * Pieces per edge a refined outline starts from. A5's edges are straight on the dodecahedron's faces,
 * curved in lon/lat; a5-js's own default (2^(6 - level)) leaves them straight from level 6 on, where the
 * chord still strays about a hundredth of a zone from the edge.
 */
function baseSegments(level: number): number {
  return 2 ** Math.max(1, 6 - Math.floor(level / 2));
}

/** How far (in zone sizes) a lon/lat chord of a refined outline may stray from the curved edge. */
const REFINED_TOLERANCE = 1e-4;
const MAX_SEGMENTS = 1024;

/**
 * The refined outline: a5's edges split into as many equal pieces (a power of two) as it takes for every
 * lon/lat chord to stay within REFINED_TOLERANCE of the edge, judged by the points of the outline split
 * twice as finely. Near a pole a short edge sweeps many degrees of longitude and needs many more pieces.
 */
function refinedOutline(c: bigint): LonLat[] {
  const level = a5.getResolution(c);
  const size = Math.sqrt(a5.cellArea(level)) / METRES_PER_DEGREE;
  let segments = baseSegments(level);
  for (;;) {
    const fine = unwrap(boundary(c, 2 * segments, true));
    if (segments * 2 >= MAX_SEGMENTS || maxStray(fine) <= REFINED_TOLERANCE * size) return fine;
    segments *= 2;
  }
}

/** Metres per degree of arc on A5's sphere (for zone sizes in degrees). */
const METRES_PER_DEGREE = (Math.sqrt(a5.cellArea(-1) / (4 * Math.PI)) * Math.PI) / 180;

/**
 * Largest distance (degrees of arc) from an odd point of the ring to the chord between its neighbours. A
 * neighbour on a pole has no longitude of its own: the edge runs into the pole along the meridian, as the
 * GeoJSON form draws it.
 */
function maxStray(ring: readonly LonLat[]): number {
  let worst = 0;
  const dLon = (q: LonLat, px: number) => (Math.abs(q[1]) >= 90 - 1e-12 ? 0 : q[0] - px);
  for (let i = 1; i + 1 < ring.length; i += 2) {
    const [px, py] = ring[i]!;
    const k = Math.cos((py * Math.PI) / 180);
    const ax = dLon(ring[i - 1]!, px) * k, ay = ring[i - 1]![1] - py;
    const bx = dLon(ring[i + 1]!, px) * k, by = ring[i + 1]![1] - py;
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
    worst = Math.max(worst, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return worst;
}

/**
 * A5 (Felix Palmer's pentagonal DGGS: an equal-area projection of the dodecahedron, pentagons of exactly
 * equal area at every level) through a5-js. Zone ids are a5's 64-bit cell ids in hexadecimal.
 *
 * A5's index hierarchy (cellToParent / cellToChildren) does not nest geometrically: a cell's index
 * children stray past it. The OGC relations here are therefore A5's spatial ones: the sub-zones of a zone
 * are the cells of the finer level whose centres lie in it (a5's cellToSubcells: the cells whose centre
 * lonLatToCell puts in the zone), its children are its sub-zones at depth 1 and its parent is the zone of
 * the coarser level holding its centre (cellToSupercell), so child and parent links are each other's
 * inverse. Sub-zone order: ascending cell id, which is the order of A5's space-filling curve.
 */
export class A5Dggrs extends CellTreeDggrs {
  /** 61,440 zones of about 8,300 km² (H3's default level 3 has 41,162 of about 12,400 km²). */
  readonly defaultLevel = 6;
  /** About 64 sub-zones per zone (4^3). */
  readonly defaultDepth = 3;
  readonly maxRefinementLevel = MAX_LEVEL;
  /** 4^8 = 65,536 sub-zones at depth 8: deeper would outgrow any response. */
  readonly maxRelativeDepth = 8;
  readonly zoneIdForm = 'the 64-bit A5 cell id in lowercase hexadecimal without leading zeros (up to 16 digits), like 63d9f20800000000';
  /** Sub-zone coverings by parent and level: a list's count and its page share one. */
  private readonly coverings = new Recent<BigUint64Array>(16);

  constructor() {
    super({
      id: 'A5',
      title: 'A5: pentagonal equal-area geospatial index',
      description: 'A5 (a5-js), pentagons of exactly equal area on a dodecahedron: 12 zones at level 0, 60 at level 1, then aperture 4; zone ids are 64-bit A5 cell ids in hexadecimal.',
      uri: 'https://a5geo.org',
    }, A5_TREE);
  }

  isValidZone(zoneId: string): boolean {
    return cellOf(zoneId) !== undefined;
  }

  zoneLevel(zoneId: string): number {
    return a5.getResolution(cell(zoneId));
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    return a5.u64ToHex(a5.lonLatToCell([lon, lat] as A5LonLat, level));
  }

  describeZone(zoneId: string): ZoneDescription {
    const c = cell(zoneId);
    const level = a5.getResolution(c);
    const [lon, lat] = a5.cellToLonLat(c);
    return {
      id: zoneId,
      level,
      shape: 'pentagon',
      edgeCount: 5,
      centroid: [lon, lat],
      vertices: boundary(c, 1, false).map(([x, y]) => [wrapLon(x), y] as LonLat),
      areaMetersSquare: a5.cellArea(level),
      bbox: extentOf(c),
    };
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const c = cell(zoneId);
    return refined ? refinedOutline(c) : unwrap(boundary(c, 1, true));
  }

  parents(zoneId: string): string[] {
    const c = cell(zoneId);
    const level = a5.getResolution(c);
    return level === 0 ? [] : [a5.u64ToHex(a5.cellToSupercell(c, level - 1))];
  }

  children(zoneId: string): string[] {
    return this.zoneLevel(zoneId) === MAX_LEVEL ? [] : this.subZones(zoneId, 1);
  }

  neighbours(zoneId: string): string[] {
    const c = cell(zoneId);
    const out: string[] = [];
    for (const n of a5.uncompact(a5.gridDisk(c, 1))) if (n !== c) out.push(a5.u64ToHex(n));
    return out;
  }

  /** The cells of the target level whose centres lie in the zone, in ascending id (curve) order. */
  subZones(zoneId: string, relativeDepth: number, page?: Page): string[] {
    const covering = this.covering(zoneId, relativeDepth);
    if (!page) return Array.from(a5.uncompact(covering), (c) => a5.u64ToHex(c));
    const level = this.zoneLevel(zoneId) + relativeDepth;
    const walk = { skip: page.offset, out: [] as string[], limit: page.limit };
    const never = { tick: () => false };
    for (const run of covering) {
      if (walk.out.length >= walk.limit) break;
      if (a5.isCompactionMarker(run)) continue;
      const runLevel = a5.getResolution(run);
      const n = a5.getNumChildren(runLevel, level);
      if (walk.skip >= n) walk.skip -= n;
      else runToEnd(descendantRun(A5_TREE, run, runLevel, level, walk, never));
    }
    return walk.out;
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    return Number(a5.count(this.covering(zoneId, relativeDepth)));
  }

  /** The sub-zones as a5 gives them: compacted runs of whole index subtrees, in curve order, then a marker. */
  private covering(zoneId: string, relativeDepth: number): BigUint64Array {
    const c = cell(zoneId);
    this.checkRelativeDepth(a5.getResolution(c), relativeDepth);
    const level = a5.getResolution(c) + relativeDepth;
    return this.coverings.get(`${zoneId}/${level}`, () => a5.cellToSubcells(c, level));
  }

  /** The A5 cell id itself: the zone id is its hexadecimal form. */
  zoneToUint64(zoneId: string): bigint {
    return cell(zoneId);
  }

  /**
   * a5's exact area: every zone of a level has the same area on A5's authalic sphere, which a5 reaches
   * from WGS84 through the authalic latitude, so it is also the zone's area on the ellipsoid.
   */
  zoneArea(zoneId: string): number {
    return a5.cellArea(this.zoneLevel(zoneId));
  }

  protected regularZoneArea(level: number): number {
    return a5.cellArea(level);
  }
}

/**
 * The cell a zone id names, or undefined: the id must be a5's own hexadecimal form of the cell (u64ToHex,
 * no leading zeros), so each zone has one id.
 */
function cellOf(zoneId: string): bigint | undefined {
  if (!/^[1-9a-f][0-9a-f]{0,15}$/.test(zoneId)) return undefined;
  const c = a5.hexToU64(zoneId);
  if (c === a5.WORLD_CELL || !a5.isValidCell(c) || a5.getResolution(c) > MAX_LEVEL) return undefined;
  return c;
}

function cell(zoneId: string): bigint {
  const c = cellOf(zoneId);
  if (c === undefined) throw new RangeError(`Not an A5 zone: ${zoneId}`);
  return c;
}

/** The outline [lon, lat] from a5, `segments` pieces per edge, counter-clockwise. */
function boundary(c: bigint, segments: number, closed: boolean): LonLat[] {
  return a5.cellToBoundary(c, { closedRing: closed, segments }) as unknown as LonLat[];
}

/** The box of a cell's refined outline, reaching the pole for a polar cell: its extent, and what a box list meets. */
function extentOf(c: bigint): BBox {
  return ringExtent(refinedOutline(c));
}

const A5_TREE = a5CellTree(extentOf);
