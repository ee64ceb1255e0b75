import type { RasterDataset, RasterReader } from '../../ports/raster-reader.js';

export type RasterFormat = 'geotiff' | 'pmtiles';

/** The format a raster href names by its extension (query and fragment ignored); GeoTIFF unless it says PMTiles. */
export function formatOfHref(href: string): RasterFormat {
  const pathPart = href.split(/[?#]/, 1)[0]!;
  return /\.pmtiles$/i.test(pathPart) ? 'pmtiles' : 'geotiff';
}

/**
 * One RasterReader over several formats, so the zone-data sources stay format-blind: each href
 * goes to the reader of its format, taken from `formatFor` (a collection's `rasterFormat`) when
 * that knows the href, else from the extension.
 */
export class FormatDispatchingRasterReader implements RasterReader {
  constructor(
    private readonly readers: Record<RasterFormat, RasterReader>,
    private readonly formatFor: (href: string) => RasterFormat | undefined = () => undefined,
  ) {}

  open(href: string, access: { trusted: boolean }): Promise<RasterDataset> {
    // A client's URL is never matched against config: its extension alone decides.
    const format = (access.trusted ? this.formatFor(href) : undefined) ?? formatOfHref(href);
    return this.readers[format].open(href, access);
  }
}
