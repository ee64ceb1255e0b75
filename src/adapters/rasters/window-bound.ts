import { TooLargeError } from '../../ports/errors.js';

/** Raster samples (pixels x bands) one window read may hold: 16 MiB of float32 (`limits.maxRasterWindowSamples`). */
export const DEFAULT_MAX_WINDOW_SAMPLES = 4_194_304;

/**
 * Refuses, before any byte is read or decoded, a window whose samples pass the bound: its memory
 * and its decoding time grow with it, and a raster without overviews makes a coarse zone a huge
 * full-resolution read.
 */
export function checkWindow(width: number, height: number, bands: number, max: number): void {
  const samples = width * height * bands;
  if (samples <= max) return;
  throw new TooLargeError(
    'Raster window exceeds the size limit',
    `The zone needs ${width} x ${height} pixels x ${bands} band(s) = ${samples} samples of the raster; the service reads at most ${max} (limits.maxRasterWindowSamples). Ask for a smaller zone (a finer zone level), fewer bands, a lower cog-sampling-factor, or use a raster with overviews.`,
  );
}
