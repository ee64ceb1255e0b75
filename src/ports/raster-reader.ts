import type { BBox } from '../domain/dggrs/dggrs.js';
import type { PixelGrid } from '../domain/aggregation/pixel-grid.js';
import type { SourceVersion } from './source-version.js';

export type { PixelGrid } from '../domain/aggregation/pixel-grid.js';

/** The raster formats the readers know. */
export type RasterFormat = 'geotiff' | 'pmtiles';

/**
 * The format a raster href names by its extension (query and fragment ignored); GeoTIFF unless it
 * says PMTiles. On the port because both sides read it: the reader picks its decoder by it, the
 * zone-data use case names the source's media type by it.
 */
export function formatOfHref(href: string): RasterFormat {
  const pathPart = href.split(/[?#]/, 1)[0]!;
  return /\.pmtiles$/i.test(pathPart) ? 'pmtiles' : 'geotiff';
}

/** What is known about a raster once its header is read. */
export interface RasterInfo {
  href: string;
  width: number;
  height: number;
  bandCount: number;
  /** proj4 definition of the raster's CRS. */
  crs: string;
  isGeographic: boolean;
  /** Extent in lon/lat (approximate for a projected raster: its corners and edges transformed). */
  bboxLonLat: BBox;
  /** Full-resolution pixel size, in degrees (projected rasters: the side of an equal-area square). */
  pixelSizeDegrees: number;
  /** Nodata value from the file, if any. */
  noData?: number;
  /** TIFF sample type, like `float32`. */
  dataType: string;
  /** Reduced-resolution levels besides the full one. */
  overviewCount: number;
}

export interface WindowRequest {
  /** Lon/lat box to cover. */
  bbox: BBox;
  /** The coarsest overview whose pixels are no larger than this (degrees) is read; full resolution if none. */
  maxPixelSizeDegrees: number;
  /** 1-based band indices, in the order the window exposes them. */
  bands: number[];
  /** Replaces the file's nodata value: raw pixels equal to it read as NaN. */
  noData?: number;
}

export interface RasterWindow extends PixelGrid {
  /** 0 for full resolution, n for the n-th overview. */
  overview: number;
  pixelSizeDegrees: number;
}

export interface RasterDataset {
  readonly info: RasterInfo;
  /**
   * Reads the pixels covering a box. A window of more samples (pixels x bands) than the reader's
   * bound is refused (413) before anything is read; a large window is decoded in parts, the
   * event loop getting a turn between them.
   */
  readWindow(request: WindowRequest): Promise<RasterWindow>;
  close(): Promise<void>;
}

/**
 * Opens rasters. `trusted` rasters come from the operator's config (local paths relative to the
 * working directory are allowed) and may stay open between requests; untrusted ones (a client's
 * `cog-url`) pass the fetch policy, are opened for one request, and everything that request
 * fetches, in range reads only, draws on one byte budget.
 *
 * Failures are AppErrors whose kind says whose they are: invalid-request a malformed URL or too
 * many redirects, forbidden a URL the policy refuses (at any redirect hop), too-large a read past
 * a bound, upstream-failed an upstream that fails or sends something that is not a raster,
 * upstream-timeout an upstream that is too slow.
 */
export interface RasterReader {
  open(href: string, access: { trusted: boolean }): Promise<RasterDataset>;
  /**
   * The version of a trusted raster: a local file's size and modification time, a remote one's
   * ETag or Last-Modified as its host sent them (undefined when it sent neither). A trusted
   * raster found changed is opened afresh, its decoded tiles dropped: `open` gives the new
   * bytes from then on. Local files are looked at again at most about once a second.
   */
  version?(href: string): Promise<SourceVersion | undefined>;
}
