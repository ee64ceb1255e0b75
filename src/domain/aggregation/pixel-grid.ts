/**
 * A window of raster pixels as the aggregation sees it. The domain never reads files: an adapter
 * reads the window and hands it over through this interface.
 *
 * Pixel coordinates are continuous: pixel (col, row) covers [col, col+1) x [row, row+1), its
 * centre is (col + 0.5, row + 0.5).
 */
export interface PixelGrid {
  readonly width: number;
  readonly height: number;
  /** Number of bands in the window (the bands the caller asked for, in that order). */
  readonly bandCount: number;
  /** Value of band `band` (0-based within the window), scale and offset applied; NaN for nodata or outside the window. */
  value(band: number, col: number, row: number): number;
  /** Continuous pixel coordinates of a lon/lat. */
  toPixel(lon: number, lat: number): [number, number];
  /** Lon/lat of continuous pixel coordinates. */
  toLonLat(x: number, y: number): [number, number];
}

/**
 * Several rasters as one, in priority order (newest first for a STAC mosaic): the first grid
 * gives the pixel space, a pixel without a valid value falls through to the next grid at the
 * same place.
 */
export function mosaicPixelGrid(grids: readonly PixelGrid[]): PixelGrid {
  if (grids.length === 1) return grids[0]!;
  const [first, ...rest] = grids;
  if (!first) throw new Error('mosaic of no rasters');
  return {
    width: first.width,
    height: first.height,
    bandCount: first.bandCount,
    toPixel: (lon, lat) => first.toPixel(lon, lat),
    toLonLat: (x, y) => first.toLonLat(x, y),
    value(band, col, row) {
      const v = first.value(band, col, row);
      if (!Number.isNaN(v)) return v;
      const [lon, lat] = first.toLonLat(col + 0.5, row + 0.5);
      for (const g of rest) {
        const [x, y] = g.toPixel(lon, lat);
        const w = g.value(band, Math.floor(x), Math.floor(y));
        if (!Number.isNaN(w)) return w;
      }
      return NaN;
    },
  };
}
