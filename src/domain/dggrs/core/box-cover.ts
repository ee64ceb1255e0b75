/**
 * Which zones a set of lat/lon boxes selects, decided for whole groups of zones at once. A grid bounds a
 * group by a spherical cap around a centre: every zone centroid of the group within `centroidRadius`,
 * every point of every zone outline within `outerRadius` (radians on the sphere of geodetic latitude and
 * longitude). A cap that misses every box rules the group out; a cap of centroids well inside a box takes
 * the group in, since a zone's extent holds its centroid. Only groups that neither decides are split,
 * down to single zones, whose extents are then tested exactly.
 */
import type { BBox } from '../dggrs.js';

/** [llLat, llLon, urLat, urLon] in radians; llLon > urLon when the extent crosses the antimeridian. */
export type RadExtent = [number, number, number, number];

export const OUT = 0;
export const IN = 1;
export const SOME = 2;
export type Cover = typeof OUT | typeof IN | typeof SOME;

const DEG = Math.PI / 180;
const TWO_PI = 2 * Math.PI;
const HALF_PI = Math.PI / 2;
const DBL_EPSILON = 2.220446049250313e-16;
/** Caps must clear a box edge by this much (radians) to decide: far above rounding, far below any zone. */
const MARGIN = 1e-12;
/**
 * A cap wider than this in longitude decides nothing by longitude: zones that wide may have their
 * outline longitudes unwrapped half a turn away (DGGAL's extent rule), outside any cap arc.
 */
const MAX_DECIDING_HALF_WIDTH = Math.PI / 2;

/** DGGAL's GeoExtent.intersects: strict with a 10-epsilon margin, antimeridian-crossing extents split. */
export function extentsIntersect(a: RadExtent, b: RadExtent): boolean {
  const eps = 10 * DBL_EPSILON;
  for (const p of splitExtent(a)) {
    for (const q of splitExtent(b)) {
      if (p[0] < q[2] - eps && q[0] < p[2] - eps && p[1] < q[3] - eps && q[1] < p[3] - eps) return true;
    }
  }
  return false;
}

function splitExtent(e: RadExtent): RadExtent[] {
  return e[1] > e[3] ? [[e[0], e[1], e[2], Math.PI], [e[0], -Math.PI, e[2], e[3]]] : [e];
}

const RAD = 180 / Math.PI;

/** An extent in radians as a [w, s, e, n] box in degrees, as zone descriptions give it. */
export function extentToBBox(e: RadExtent): BBox {
  return [e[1] * RAD, e[0] * RAD, e[3] * RAD, e[2] * RAD];
}

/** One box or a list of boxes, as a list. */
export function boxList(bbox: BBox | readonly BBox[]): readonly BBox[] {
  return Array.isArray(bbox[0]) ? (bbox as readonly BBox[]) : [bbox as BBox];
}

interface Box {
  extent: RadExtent;
  latMin: number;
  latMax: number;
  lonStart: number;
  /** Eastward length of the longitude arc; 2 pi for a box all round. */
  lonLength: number;
}

/** Position of angle `a` east of `from`, in [0, 2 pi). */
function eastOf(a: number, from: number): number {
  const d = (a - from) % TWO_PI;
  return d < 0 ? d + TWO_PI : d;
}

export class BoxCover {
  /** True when a box is the whole world: every zone is in, without a test. */
  readonly whole: boolean;
  private readonly boxes: Box[];
  // The last cap's bounds, kept in fields so the hot path allocates nothing.
  private capLatMin = 0;
  private capLatMax = 0;
  private capLonStart = 0;
  private capLonLength = 0;

  constructor(bboxes: readonly BBox[]) {
    this.whole = bboxes.some(([w, s, e, n]) => s <= -90 && n >= 90 && w <= -180 && e >= 180);
    this.boxes = bboxes.map(([w, s, e, n]) => ({
      extent: [s * DEG, w * DEG, n * DEG, e * DEG],
      latMin: s * DEG,
      latMax: n * DEG,
      lonStart: w * DEG,
      lonLength: w <= -180 && e >= 180 ? TWO_PI : (e >= w ? e - w : e + 360 - w) * DEG,
    }));
  }

  get empty(): boolean {
    return this.boxes.length === 0;
  }

  /** Length of the boxes' edges in radians (the perimeter the selection's work follows). */
  edgeLength(): number {
    if (this.whole) return 0;
    let sum = 0;
    for (const b of this.boxes) sum += 2 * (b.latMax - b.latMin) + b.lonLength * (Math.cos(b.latMin) + Math.cos(b.latMax));
    return sum;
  }

  /** DGGAL's exact rule: the zone extent meets a box. */
  meetsExtent(e: RadExtent): boolean {
    if (this.whole) return true;
    for (const b of this.boxes) if (extentsIntersect(e, b.extent)) return true;
    return false;
  }

  /**
   * A group of zones around (lat, lon) (radians): IN when every zone's extent meets a box, OUT when
   * none does, SOME when the caps cannot tell.
   */
  classify(lat: number, lon: number, centroidRadius: number, outerRadius: number): Cover {
    if (this.whole) return IN;
    if (!this.cap(lat, lon, outerRadius)) return OUT;
    if (this.capLonLength >= TWO_PI) return SOME;
    this.cap(lat, lon, centroidRadius);
    for (const b of this.boxes) {
      if (this.capLatMin <= b.latMin + MARGIN || this.capLatMax >= b.latMax - MARGIN) continue;
      if (b.lonLength >= TWO_PI) return IN;
      const d = eastOf(this.capLonStart, b.lonStart);
      if (d >= MARGIN && d + this.capLonLength <= b.lonLength - MARGIN) return IN;
    }
    return SOME;
  }

  /**
   * One zone around (lat, lon) whose extent is known to hold [lat +- innerRadius] x [lon +- innerRadius]
   * and to lie within `outerRadius`: IN, OUT, or SOME when only the exact test can tell.
   */
  classifyZone(lat: number, lon: number, innerRadius: number, outerRadius: number): Cover {
    if (this.whole) return IN;
    if (!this.cap(lat, lon, outerRadius)) return OUT;
    if (this.capLonLength >= TWO_PI) return SOME;
    for (const b of this.boxes) {
      if (!(lat - innerRadius < b.latMax - MARGIN && b.latMin < lat + innerRadius - MARGIN)) continue;
      if (b.lonLength >= TWO_PI) return IN;
      // The inner arc and the box arc overlap by more than the margin.
      const d = eastOf(lon - innerRadius, b.lonStart);
      if (d < b.lonLength - MARGIN || d + 2 * innerRadius > TWO_PI + MARGIN) return IN;
    }
    return SOME;
  }

  /** Sets the cap's lat/lon bounds; false when the cap misses every box. */
  private cap(lat: number, lon: number, r: number): boolean {
    this.capLatMin = lat - r;
    this.capLatMax = lat + r;
    let half = Infinity;
    if (this.capLatMax < HALF_PI && this.capLatMin > -HALF_PI) {
      const s = Math.sin(r) / Math.cos(lat);
      if (s < 1) half = Math.asin(s);
    }
    if (half >= MAX_DECIDING_HALF_WIDTH) {
      this.capLonStart = -Math.PI;
      this.capLonLength = TWO_PI;
    } else {
      this.capLonStart = lon - half;
      this.capLonLength = 2 * half;
    }
    for (const b of this.boxes) {
      if (this.capLatMax < b.latMin - MARGIN || this.capLatMin > b.latMax + MARGIN) continue;
      if (this.capLonLength >= TWO_PI || b.lonLength >= TWO_PI) return true;
      const d = eastOf(this.capLonStart, b.lonStart);
      if (d <= b.lonLength + MARGIN || d + this.capLonLength >= TWO_PI - MARGIN) return true;
    }
    return false;
  }
}
