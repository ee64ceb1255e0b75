import type { Dggrs } from '../domain/dggrs/dggrs.js';
import { rasterizeZones, zoneRasterFrame, ZoneRasterBoundError, type RasterFrame, type ZoneRaster } from '../domain/raster/zone-raster.js';
import { ValidationError } from '../ports/errors.js';
import { runStepped } from '../ports/event-loop-turns.js';

/**
 * What the rasterized encodings (GeoTIFF, PNG, JPEG-XL zone data; GeoTIFF zone lists) share: the
 * frame of a depth, the one bound of what they write, and the drawing itself on exactly the
 * frame that bound counted.
 */

/** The raster of a zone's sub-zones at `depth`: the zone's bounding rectangle at the pixel size of their level. */
export function depthFrame(grid: Dggrs, zoneId: string, depth: number): RasterFrame {
  return zoneRasterFrame(grid, grid.describeZone(zoneId).bbox, grid.zoneLevel(zoneId) + depth);
}

/**
 * Refuses an answer whose images together hold more cells (pixels times the samples written per
 * pixel, `samples`: GeoTIFF's bands, an image's channels) than limits.maxRasterCells: memory and
 * work grow with both. `what` names the answer, `hint` says what to ask instead.
 */
export function checkRasterCells(what: string, frames: readonly { label: string; frame: RasterFrame }[], samples: number, limit: number, hint: string): void {
  const cells = frames.reduce((n, f) => n + f.frame.width * f.frame.height, 0) * Math.max(1, samples);
  if (cells <= limit) return;
  const sizes = frames.map((f) => `${f.label}${f.frame.width} x ${f.frame.height}`).join(', ');
  throw new ValidationError(
    'Raster too large',
    `${what} would write ${cells.toLocaleString('en-US')} cells (${sizes} pixels, times ${Math.max(1, samples)} sample(s) per pixel), over limits.maxRasterCells (${limit.toLocaleString('en-US')}): ${hint}`,
  );
}

/**
 * The zones drawn on the frame itself, never finer: the frame's cells are what the check counted.
 * A zone no pixel centre falls in takes the pixel holding its centroid (zone-raster.ts); two such
 * zones needing one pixel are a 422. Stops when `signal` aborts (the client left).
 */
export async function rasterizeOnFrame(grid: Dggrs, zones: readonly string[], frame: RasterFrame, signal?: AbortSignal): Promise<ZoneRaster> {
  try {
    return await runStepped(rasterizeZones(grid, zones, frame), signal);
  } catch (e) {
    if (!(e instanceof ZoneRasterBoundError)) throw e;
    throw new ValidationError('Zones too small for the raster', `Some zones get no pixel of their own in the ${frame.width} x ${frame.height} raster: ask a shallower zone-depth or a coarser zone-level (or another format).`);
  }
}
