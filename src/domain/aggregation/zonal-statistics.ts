import type { BBox, Dggrs, LonLat } from '../dggrs/dggrs.js';
import type { PixelGrid } from './pixel-grid.js';
import type { DepthPlan } from './sampling-plan.js';
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
 * A window the computation needs: the raster level whose pixels are no larger than
 * `maxPixelSizeDegrees` (the coarsest such, else full resolution) over `bbox`. An `optional`
 * read may be refused (over the reader's bound) and answered with null: the computation then
 * keeps what it has.
 */
export interface WindowNeed {
  bbox: BBox;
  maxPixelSizeDegrees: number;
  optional: boolean;
}

/** What the computation yields: a window it needs, or undefined after a slice of work (the caller may let others run). */
export type ZonalStep = WindowNeed | undefined;
export type ZonalWork = Generator<ZonalStep, ZonalDepth, PixelGrid | null | undefined>;

/** Lattice points, or sub-zones described, between two `undefined` steps. */
const SLICE_POINTS = 4096;
const SLICE_ZONES = 64;
/** Refinement rounds never exceed this (each halves the spacing: 2^-40 is far below any pixel). */
const MAX_ROUNDS = 40;

/**
 * Zonal statistics of one zone at one depth, as stepped work that asks for the windows it needs.
 *
 * Membership: a sample belongs to the sub-zone that `zoneFromPoint` gives for its position, so
 * the grid alone decides membership, as for every other data source. The exact statistic of a
 * sub-zone is the one over every full-resolution pixel whose centre it holds.
 *
 * First pass: the level whose pixels are no larger than the plan's spacing (about
 * `samplingFactor` samples per sub-zone) is read over the extent. Where that spacing is under four
 * of its pixels, every pixel centre is a sample (the level's pixels summarise the full resolution
 * better than a subset of them, at little cost); otherwise samples form a lattice at the spacing.
 *
 * Refinement: a sub-zone with fewer than `minValid` samples holding a value (small, at the
 * raster's edge, over nodata, or short by the lattice's chance) is sampled again over its own box
 * at half the spacing it had, reading a finer level when one is needed, until it has them or
 * every one of its full-resolution pixel centres was a sample (its value is then exact; null only
 * when none has a value). A sub-zone that holds no pixel centre at all (smaller than a pixel)
 * takes the pixel under its centroid. A refinement read the reader refuses (over its bound) ends
 * the refinement: the sub-zones keep the samples they have.
 *
 * Only the plan decides any of this, so a sub-zone's values do not depend on the other depths of
 * a request. Samples are only taken where the raster is, so `count` counts samples on the raster
 * (nodata included) and `valid` those with a value.
 */
export function* zonalDepth(grid: Dggrs, plan: DepthPlan, options: ZonalOptions): ZonalWork {
  const n = plan.subZones.length;
  const locate = zoneLocator(grid, plan.level + plan.depth, plan.subZones);
  const ref = plan.outline[0]![0];

  const first = yield { bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, optional: false };
  if (!first) throw new Error('zonal statistics: the first window is required');
  let pixels = first;
  let readBox = plan.extent;
  const accs = Array.from({ length: pixels.bandCount }, () => new StatAccumulator(n, options.stats.includes('median')));
  const values = new Float64Array(pixels.bandCount);
  /** Spacing each sub-zone was last sampled at, degrees. */
  const spacing = new Float64Array(n);
  /** 1 once every full-resolution pixel centre of the sub-zone was a sample (or it lies off the raster). */
  const exhausted = new Uint8Array(n);
  /** Pixels counted per sub-zone, so all-touched adds each pixel once. */
  const seen = options.allTouched ? new Map<number, Set<number>>() : undefined;
  // Outlines of the sub-zones being refined (every one of them when the zone lies off the raster)
  // are kept flat, [lon, lat, ...]: a quarter of the memory of [lon, lat] pairs.
  const outlines: (number[] | undefined)[] = new Array(n);
  const outlineOf = (i: number): LonLat[] => {
    const flat = outlines[i];
    if (flat) return unflatten(flat);
    const ring = unwrapNear(grid.zoneOutline(plan.subZones[i]!, false), ref);
    outlines[i] = ring.flat();
    return ring;
  };

  const take = (i: number, col: number, row: number): void => {
    for (let b = 0; b < values.length; b++) values[b] = pixels.value(b, col, row);
    for (let b = 0; b < values.length; b++) accs[b]!.add(i, values[b]!);
    if (seen) mark(seen, i, col, row);
  };
  /** A sub-zone holding no pixel centre at full resolution (smaller than a pixel) takes the pixel under its centroid. */
  const centroidSample = (i: number): void => {
    const [lon, lat] = grid.describeZone(plan.subZones[i]!).centroid;
    const [x, y] = pixels.toPixel(lon + Math.round((ref - lon) / 360) * 360, lat);
    const [c0, r0, c1, r1] = pixels.dataBounds;
    const col = Math.floor(x), row = Math.floor(y);
    if (col >= c0 && col < c1 && row >= r0 && row < r1) take(i, col, row);
  };

  // First pass: one lattice over the extent for every sub-zone.
  const perDegree = pixelsPerDegree(pixels, plan.outline);
  if (!(perDegree > 0 && Number.isFinite(perDegree))) {
    exhausted.fill(1); // the zone has no extent in the raster's pixels (a Web Mercator archive near a pole)
  } else {
    const step = latticeStep(plan.spacingDegrees * perDegree);
    yield* lattice(pixels, pixelBox(pixels, plan.extent, 16), step, (x, y, col, row) => {
      const i = locate(x, y, pixels);
      if (i >= 0) take(i, col, row);
    });
    spacing.fill(step / perDegree);
    if (pixels.overview === 0 && step === 1) {
      exhausted.fill(1);
      for (let i = 0, k = 0; i < n; i++) {
        if (accs[0]!.count[i] !== 0) continue;
        centroidSample(i);
        if (++k % SLICE_ZONES === 0) yield;
      }
    }
  }
  if (seen) {
    for (let i = 0; i < n; i++) {
      yield* addTouched(pixels, outlineOf(i), i, seen, take);
      yield;
    }
  }

  for (let round = 0; round < MAX_ROUNDS; round++) {
    const todo: number[] = [];
    for (let i = 0; i < n; i++) if (!exhausted[i] && accs.some((acc) => acc.valid[i]! < plan.minValid)) todo.push(i);
    if (todo.length === 0) break;
    const target = Math.min(...todo.map((i) => spacing[i]!)) / 2;
    for (let k = 0; k < todo.length; k++) {
      outlineOf(todo[k]!);
      if ((k + 1) % SLICE_ZONES === 0) yield;
    }
    const region = unionBounds(todo.map((i) => outlines[i]!));
    // The window in hand serves when it covers the box and its level is fine enough: the reader
    // would pick that same level, since coarser ones were already too coarse for a larger spacing.
    if (!(contains(readBox, region) && todo.every((i) => 1 / pixelsPerDegree(pixels, outlineOf(i)) <= target * (1 + 1e-9)))) {
      const got = yield { bbox: region, maxPixelSizeDegrees: target, optional: true };
      if (!got) break;
      pixels = got;
      readBox = region;
    }
    for (const i of todo) {
      const outline = outlineOf(i);
      const perDeg = pixelsPerDegree(pixels, outline);
      for (const acc of accs) acc.reset(i);
      seen?.delete(i);
      if (!(perDeg > 0 && Number.isFinite(perDeg))) {
        exhausted[i] = 1;
        continue;
      }
      const st = latticeStep(target * perDeg);
      spacing[i] = st / perDeg;
      if (pixels.overview === 0 && st === 1) exhausted[i] = 1;
      const box = pixelBox(pixels, ringBounds(outline), 4);
      if (!clip(box, pixels.dataBounds)) {
        // Nothing of the raster in the sub-zone's box: no pixel centre of it can have a value.
        if (contains(readBox, ringBounds(outline))) exhausted[i] = 1;
        continue;
      }
      yield* lattice(pixels, box, st, (x, y, col, row) => {
        if (locate(x, y, pixels) === i) take(i, col, row);
      });
      if (exhausted[i] && accs[0]!.count[i] === 0) centroidSample(i);
      if (seen) yield* addTouched(pixels, outline, i, seen, take);
    }
  }

  return {
    depth: plan.depth,
    zones: plan.subZones,
    bands: accs.map((acc) => Object.fromEntries(options.stats.map((s) => [s, acc.result(s)]))),
  };
}

/** Under four pixels apart, every pixel centre is a sample; never closer than one pixel. */
function latticeStep(pixelsApart: number): number {
  return pixelsApart < 4 ? 1 : pixelsApart;
}

/**
 * Calls `visit` at each lattice point of `box` (pixel coordinates) that lies in the grid's data:
 * pixel centres at step 1, else points `step` apart centred in the box.
 */
function* lattice(pixels: PixelGrid, box: [number, number, number, number], step: number, visit: (x: number, y: number, col: number, row: number) => void): Generator<undefined, void, unknown> {
  const [bx0, by0, bx1, by1] = box;
  const [dx0, dy0, dx1, dy1] = pixels.dataBounds;
  const sx = step === 1 ? Math.floor(bx0) + 0.5 : latticeStart(bx0, bx1, step);
  const sy = step === 1 ? Math.floor(by0) + 0.5 : latticeStart(by0, by1, step);
  // Only points inside the data: skip whole rows and columns outside it.
  const i0 = Math.max(0, Math.ceil((dx0 - sx) / step)), j0 = Math.max(0, Math.ceil((dy0 - sy) / step));
  const xEnd = Math.min(bx1, dx1), yEnd = Math.min(by1, dy1);
  let done = 0;
  for (let j = j0, y = sy + j0 * step; y < yEnd; j++, y = sy + j * step) {
    const row = Math.floor(y);
    for (let i = i0, x = sx + i0 * step; x < xEnd; i++, x = sx + i * step) {
      visit(x, y, Math.floor(x), row);
      if (++done % SLICE_POINTS === 0) yield;
    }
  }
}

function latticeStart(a: number, b: number, step: number): number {
  const n = Math.max(1, Math.floor((b - a) / step));
  return a + (b - a - n * step) / 2 + step / 2;
}

/** Index (in `zones`) of the sub-zone holding a pixel position, -1 when none does. */
function zoneLocator(grid: Dggrs, level: number, zones: string[]): (x: number, y: number, pixels: PixelGrid) => number {
  const index = new Map(zones.map((z, i) => [z, i]));
  const byId = (lon: number, lat: number) => index.get(grid.zoneFromPoint(lon, lat, level)) ?? -1;
  const keyOf = grid.zoneKeyFromPoint?.bind(grid), idOf = grid.zoneIdFromKey?.bind(grid);
  if (!keyOf || !idOf || level > (grid.maxZoneKeyLevel ?? -1)) {
    return (x, y, pixels) => {
      const [lon, lat] = pixels.toLonLat(x, y);
      return byId(normaliseLon(lon), lat);
    };
  }
  // The grid's numeric keys are the same assignment, without building an id per sample.
  const byKey = new Map<number, number>();
  return (x, y, pixels) => {
    const [lon, lat] = pixels.toLonLat(x, y);
    const nlon = normaliseLon(lon);
    const key = keyOf(nlon, lat, level);
    if (Number.isNaN(key)) return byId(nlon, lat);
    let i = byKey.get(key);
    if (i === undefined) byKey.set(key, (i = index.get(idOf(key, level)) ?? -1));
    return i;
  };
}

/** Pixels per degree around a polygon: the square root of its area ratio (exact for a geographic raster, local scale for a projected one). */
function pixelsPerDegree(pixels: PixelGrid, ring: readonly LonLat[]): number {
  return Math.sqrt(ringArea(ring.map(([lon, lat]) => pixels.toPixel(lon, lat) as Point)) / ringArea(ring as Point[]));
}

/** A lon/lat box in pixel coordinates, its edges densified (a projected raster bends them), grown by a pixel. */
function pixelBox(pixels: PixelGrid, [w, s, e, n]: BBox, steps: number): [number, number, number, number] {
  const pts: Point[] = [];
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    pts.push(pixels.toPixel(w + (e - w) * t, s), pixels.toPixel(w + (e - w) * t, n), pixels.toPixel(w, s + (n - s) * t), pixels.toPixel(e, s + (n - s) * t));
  }
  const [x0, y0, x1, y1] = ringBounds(pts);
  return [x0 - 1, y0 - 1, x1 + 1, y1 + 1];
}

function clip(box: [number, number, number, number], bounds: readonly [number, number, number, number]): [number, number, number, number] | undefined {
  const x0 = Math.max(box[0], bounds[0]), y0 = Math.max(box[1], bounds[1]), x1 = Math.min(box[2], bounds[2]), y1 = Math.min(box[3], bounds[3]);
  return x0 < x1 && y0 < y1 ? [x0, y0, x1, y1] : undefined;
}

function unionBounds(flatRings: number[][]): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const flat of flatRings) {
    for (let k = 0; k < flat.length; k += 2) {
      w = Math.min(w, flat[k]!); e = Math.max(e, flat[k]!); s = Math.min(s, flat[k + 1]!); n = Math.max(n, flat[k + 1]!);
    }
  }
  return [w, Math.max(-90, s), e, Math.min(90, n)];
}

function unflatten(flat: number[]): LonLat[] {
  const ring: LonLat[] = new Array(flat.length / 2);
  for (let k = 0; k < ring.length; k++) ring[k] = [flat[2 * k]!, flat[2 * k + 1]!];
  return ring;
}

function contains(outer: BBox, inner: BBox): boolean {
  return outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
}

/** Keys stay below 2^52, where doubles are exact: at 1 << 26 they passed 2^53 and neighbouring pixels shared a key. */
const KEY_SPAN = 1 << 25;
const pixelKey = (col: number, row: number) => (row + KEY_SPAN) * 2 * KEY_SPAN + (col + KEY_SPAN);

function mark(seen: Map<number, Set<number>>, i: number, col: number, row: number): void {
  let set = seen.get(i);
  if (!set) seen.set(i, (set = new Set()));
  set.add(pixelKey(col, row));
}

/** Pixels whose square touches a sub-zone's outline but whose centre was not sampled in it. */
function* addTouched(pixels: PixelGrid, outline: LonLat[], i: number, seen: Map<number, Set<number>>, take: (i: number, col: number, row: number) => void): Generator<undefined, void, unknown> {
  const ring = outline.map(([lon, lat]) => pixels.toPixel(lon, lat) as Point);
  const box = clip(ringBounds(ring), pixels.dataBounds);
  if (!box) return;
  const [bx0, by0, bx1, by1] = box;
  let done = 0;
  for (let row = Math.floor(by0); row < by1; row++) {
    for (let col = Math.floor(bx0); col < bx1; col++) {
      if (seen.get(i)?.has(pixelKey(col, row))) continue;
      if (rectTouchesRing(col, row, col + 1, row + 1, ring)) take(i, col, row);
      if (++done % SLICE_POINTS === 0) yield;
    }
  }
}
