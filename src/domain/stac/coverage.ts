import type { LonLat } from '../dggrs/dggrs.js';
import type { FootprintPolygon, Ring } from './stac-item.js';

/** Lattice points per side of the zone's bounding box. */
export const COVERAGE_LATTICE = 256;

/**
 * Share of a zone covered by item footprints, approximated on a lattice so that unions of any
 * number of footprints stay cheap (a mask per item, OR-ed) and no polygon clipping library is needed.
 *
 * Method: the zone's lon/lat bounding box is cut into N x N cells (N = COVERAGE_LATTICE); each
 * cell centre inside the zone ring is a sample weighted by cos(latitude) (cells of equal degree
 * size shrink towards the poles, so this weights samples by approximate area). Coverage is the
 * weight of samples inside a footprint over the weight of all samples. Edges are straight lines in
 * lon/lat (planar), as in GeoJSON.
 *
 * Error bound: a cell that no footprint edge crosses is wholly in or out of the footprints, so
 * its centre classifies it exactly; only cells cut by a footprint edge can be miscounted, by at
 * most one cell each. An edge crosses at most N + N cells of the lattice, so each footprint edge
 * running through the zone moves the result by at most 2N / (samples in the zone); a hexagon fills
 * about 3/4 of its box, so with N = 256 that is 512 / 49 152, about 1.04 percentage points per
 * crossing edge (much less in practice, errors on either side of an edge cancel). Two cases are
 * exact: a zone inside the footprints is 100 %, a zone disjoint from them is 0 %.
 */
export class ZoneCoverage {
  /** Sample longitudes normalised to [-180, 180), latitudes, and weights. */
  private readonly lon: Float64Array;
  private readonly lat: Float64Array;
  private readonly weight: Float64Array;
  readonly totalWeight: number;

  /** @param zoneRing the zone outline; longitudes may be continuous beyond ±180 (as Dggrs.zoneOutline gives them). */
  constructor(zoneRing: readonly LonLat[], n: number = COVERAGE_LATTICE) {
    let w = Infinity, s = Infinity, e = -Infinity, no = -Infinity;
    for (const [x, y] of zoneRing) {
      w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); no = Math.max(no, y);
    }
    const dx = (e - w) / n, dy = (no - s) / n;
    const lon: number[] = [], lat: number[] = [], weight: number[] = [];
    const cosLat = (y: number) => Math.max(Math.cos((y * Math.PI) / 180), 0);
    const push = (x: number, y: number, wy = cosLat(y)) => {
      lon.push(normaliseLon(x));
      lat.push(y);
      weight.push(wy);
    };
    // Row by row: the ring's crossings of the row are found once, and a lattice point is inside
    // when an odd number of them lie east of it: the crossing-number test of inRing, with the same
    // arithmetic, at the cost of the row's crossings rather than the ring's edges per point.
    const crossings: number[] = [];
    for (let j = 0; j < n; j++) {
      const y = s + (j + 0.5) * dy;
      rowCrossings(zoneRing, y, crossings);
      const wy = cosLat(y);
      let east = crossings.length; // crossings at or west of x are passed as x moves east
      let k = 0;
      for (let i = 0; i < n; i++) {
        const x = w + (i + 0.5) * dx;
        while (k < crossings.length && crossings[k]! <= x) {
          k++;
          east--;
        }
        if (east % 2 === 1) push(x, y, wy);
      }
    }
    // A zone too thin for the lattice: fall back to one sample at its vertex mean.
    if (lon.length === 0 && zoneRing.length > 0) {
      push(zoneRing.reduce((a, p) => a + p[0], 0) / zoneRing.length, zoneRing.reduce((a, p) => a + p[1], 0) / zoneRing.length);
    }
    this.lon = Float64Array.from(lon);
    this.lat = Float64Array.from(lat);
    this.weight = Float64Array.from(weight);
    this.totalWeight = weight.reduce((a, b) => a + b, 0);
  }

  get sampleCount(): number {
    return this.lon.length;
  }

  /** 1 for each sample inside the footprint (any polygon of it), else 0. */
  mask(footprint: readonly FootprintPolygon[]): Uint8Array {
    const out = new Uint8Array(this.lon.length);
    for (const polygon of footprint) {
      const outer = polygon[0];
      if (!outer || outer.length < 3) continue;
      // The polygon's box skips most samples without a ring test.
      let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
      for (const [x, y] of outer) {
        w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
      }
      for (let k = 0; k < out.length; k++) {
        if (out[k]) continue;
        const x = this.lon[k]!, y = this.lat[k]!;
        if (x < w || x > e || y < s || y > n) continue;
        if (inPolygon(polygon, x, y)) out[k] = 1;
      }
    }
    return out;
  }

  /** Percentage (0-100) of the zone covered by the union of the masks. */
  percent(masks: readonly Uint8Array[]): number {
    let covered = 0;
    for (let k = 0; k < this.weight.length; k++) if (masks.some((m) => m[k] === 1)) covered += this.weight[k]!;
    // Exactly 100 when every sample is covered (the sums are then identical), so thresholds of 100 work.
    if (covered === this.totalWeight) return this.totalWeight > 0 ? 100 : 0;
    return this.totalWeight > 0 ? (100 * covered) / this.totalWeight : 0;
  }
}

function normaliseLon(x: number): number {
  return ((((x + 180) % 360) + 360) % 360) - 180;
}

/** Even-odd test over the outer ring and its holes. */
function inPolygon(polygon: readonly Ring[], x: number, y: number): boolean {
  let inside = false;
  for (const ring of polygon) if (inRing(ring, x, y)) inside = !inside;
  return inside;
}

/** Where the ring's edges cross the row at `y`, ascending, as inRing computes them (into `out`). */
function rowCrossings(ring: readonly LonLat[], y: number, out: number[]): void {
  out.length = 0;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const [xi, yi] = ring[i]!, [xj, yj] = ring[j]!;
    if (yi > y !== yj > y) out.push(((xj - xi) * (y - yi)) / (yj - yi) + xi);
  }
  out.sort((a, b) => a - b);
}

/** Crossing-number test; points exactly on an edge fall on one side consistently (half-open rule). */
function inRing(ring: readonly LonLat[], x: number, y: number): boolean {
  let inside = false;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const [xi, yi] = ring[i]!, [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
