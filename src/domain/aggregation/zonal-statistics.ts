import type { Dggrs, LonLat } from '../dggrs/dggrs.js';
import type { PixelGrid } from './pixel-grid.js';
import type { SamplingPlan } from './sampling-plan.js';
import { normaliseLon, unwrapNear } from './sampling-plan.js';
import { rectTouchesRing, ringArea, ringBounds, type Point } from './planar.js';
import { StatAccumulator, type Statistic } from './statistics.js';

export interface ZonalOptions {
  /** Statistics to report; a median keeps every value, so it is only computed when asked. */
  stats: readonly Statistic[];
  /** Also count pixels that merely touch a sub-zone polygon (GDAL's ALL_TOUCHED). */
  allTouched?: boolean;
}

export interface ZonalDepth {
  depth: number;
  zones: string[];
  /** [band][stat] -> one value per sub-zone, aligned with `zones`. */
  bands: Partial<Record<Statistic, (number | null)[]>>[];
}

/**
 * Zonal statistics of one zone at each planned depth.
 *
 * Samples form a lattice in the raster's pixel space with `samplingFactor` samples per deepest
 * sub-zone, but never closer than one pixel: at that limit every pixel centre is one sample and
 * the result is the exact pixel-in-polygon statistic. Each sample belongs to the sub-zone the
 * grid says contains it (`zoneFromPoint` at the sub-zone level), so the grid alone decides
 * membership, as it does for every other data source.
 */
export function zonalStatistics(grid: Dggrs, plan: SamplingPlan, pixels: PixelGrid, options: ZonalOptions): ZonalDepth[] {
  const keep = options.stats.includes('median');
  const accs = plan.depths.map((_, k) => Array.from({ length: pixels.bandCount }, () => new StatAccumulator(plan.subZones[k]!.length, keep)));
  const indexes = plan.subZones.map((zones) => new Map(zones.map((z, i) => [z, i])));
  const levels = plan.depths.map((d) => plan.level + d);
  // Pixels already counted per depth and sub-zone, so all-touched adds each pixel once.
  const seen = options.allTouched ? plan.depths.map(() => new Map<number, Set<number>>()) : undefined;

  const [x0, y0, x1, y1] = pixelBounds(pixels, plan);
  const zonePx = plan.outline.map(([lon, lat]) => pixels.toPixel(lon, lat) as Point);
  const areaPx = ringArea(zonePx);
  const step = Math.max(1, Math.sqrt(areaPx / (plan.samplingFactor * plan.deepestCount)));
  // At one pixel per step the lattice sits on pixel centres; coarser lattices are centred in the extent.
  const startX = step === 1 ? Math.floor(x0) + 0.5 : latticeStart(x0, x1, step);
  const startY = step === 1 ? Math.floor(y0) + 0.5 : latticeStart(y0, y1, step);
  const values = new Float64Array(pixels.bandCount);
  for (let y = startY; y < y1; y += step) {
    const row = Math.floor(y);
    for (let x = startX; x < x1; x += step) {
      const col = Math.floor(x);
      const [lon, lat] = pixels.toLonLat(x, y);
      const nlon = normaliseLon(lon);
      let read = false;
      for (let k = 0; k < levels.length; k++) {
        const i = indexes[k]!.get(grid.zoneFromPoint(nlon, lat, levels[k]!));
        if (i === undefined) continue;
        if (!read) {
          for (let b = 0; b < values.length; b++) values[b] = pixels.value(b, col, row);
          read = true;
        }
        for (let b = 0; b < values.length; b++) accs[k]![b]!.add(i, values[b]!);
        if (seen) mark(seen[k]!, i, col, row);
      }
    }
  }
  if (seen) addTouched(grid, plan, pixels, accs, seen);

  return plan.depths.map((depth, k) => ({
    depth,
    zones: plan.subZones[k]!,
    bands: accs[k]!.map((acc) => Object.fromEntries(options.stats.map((s) => [s, acc.result(s)]))),
  }));
}

function latticeStart(a: number, b: number, step: number): number {
  const n = Math.max(1, Math.floor((b - a) / step));
  return a + (b - a - n * step) / 2 + step / 2;
}

const KEY_SPAN = 1 << 26;
const pixelKey = (col: number, row: number) => (row + KEY_SPAN) * 2 * KEY_SPAN + (col + KEY_SPAN);

function mark(seen: Map<number, Set<number>>, i: number, col: number, row: number): void {
  let set = seen.get(i);
  if (!set) seen.set(i, (set = new Set()));
  set.add(pixelKey(col, row));
}

/** Pixels whose square touches a sub-zone's outline but whose sample fell elsewhere (or between lattice points). */
function addTouched(grid: Dggrs, plan: SamplingPlan, pixels: PixelGrid, accs: StatAccumulator[][], seen: Map<number, Set<number>>[]): void {
  const ref = plan.outline[0]![0];
  plan.subZones.forEach((zones, k) => {
    zones.forEach((zone, i) => {
      const ring = unwrapNear(grid.zoneOutline(zone, false), ref).map(([lon, lat]) => pixels.toPixel(lon, lat) as Point);
      const [bx0, by0, bx1, by1] = ringBounds(ring);
      const got = seen[k]!.get(i);
      for (let row = Math.floor(by0); row < by1; row++) {
        for (let col = Math.floor(bx0); col < bx1; col++) {
          if (got?.has(pixelKey(col, row))) continue;
          if (!rectTouchesRing(col, row, col + 1, row + 1, ring)) continue;
          for (let b = 0; b < pixels.bandCount; b++) accs[k]![b]!.add(i, pixels.value(b, col, row));
          mark(seen[k]!, i, col, row);
        }
      }
    });
  });
}

/** The plan's lon/lat extent in pixel coordinates (edges densified: a projected raster bends them). */
function pixelBounds(pixels: PixelGrid, plan: SamplingPlan): [number, number, number, number] {
  const [w, s, e, n] = plan.extent;
  const pts: LonLat[] = [];
  const steps = 16;
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    pts.push([w + (e - w) * t, s], [w + (e - w) * t, n], [w, s + (n - s) * t], [e, s + (n - s) * t]);
  }
  return ringBounds(pts.map(([lon, lat]) => pixels.toPixel(lon, lat) as Point));
}
