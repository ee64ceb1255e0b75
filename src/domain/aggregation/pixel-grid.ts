/**
 * A window of raster pixels as the aggregation sees it. The domain never reads files: an adapter
 * reads the window and hands it over through this interface.
 *
 * Pixel coordinates are continuous: pixel (col, row) covers [col, col+1) x [row, row+1), its
 * centre is (col + 0.5, row + 0.5). They belong to the raster (or overview) level, not to the
 * window: a pixel has the same coordinates and value in every window read at that level.
 */
export interface PixelGrid {
  readonly width: number;
  readonly height: number;
  /** Number of bands in the window (the bands the caller asked for, in that order). */
  readonly bandCount: number;
  /** 0 when the pixels are the raster's full resolution, n for its n-th overview. */
  readonly overview: number;
  /**
   * Pixel box [col0, row0, col1, row1) outside which every value is NaN: the part of the raster
   * the window read. Samples are only taken inside it, so the work stays bounded by the read.
   */
  readonly dataBounds: readonly [number, number, number, number];
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
    // Full resolution only when every raster is read at its own full resolution.
    overview: Math.max(...grids.map((g) => g.overview)),
    dataBounds: unionBounds(first, grids),
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

/** Every grid's data box in the first grid's pixels (edges densified: the rasters' projections may differ), plus a pixel of slack. */
function unionBounds(first: PixelGrid, grids: readonly PixelGrid[]): [number, number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const g of grids) {
    const [a, b, c, d] = g.dataBounds;
    if (c <= a || d <= b) continue;
    for (let i = 0; i <= 8; i++) {
      const t = i / 8;
      for (const [px, py] of [[a + (c - a) * t, b], [a + (c - a) * t, d], [a, b + (d - b) * t], [c, b + (d - b) * t]] as const) {
        const [lon, lat] = g.toLonLat(px, py);
        const [x, y] = first.toPixel(lon, lat);
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
    }
  }
  if (x0 > x1) return [0, 0, 0, 0];
  return [Math.floor(x0) - 1, Math.floor(y0) - 1, Math.ceil(x1) + 1, Math.ceil(y1) + 1];
}
