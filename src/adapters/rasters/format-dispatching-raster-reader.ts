import type { SourceVersion } from '../../ports/source-version.js';
import { formatOfHref, type RasterDataset, type RasterFormat, type RasterReader } from '../../ports/raster-reader.js';

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

  version(href: string): Promise<SourceVersion | undefined> {
    return this.readers[this.formatFor(href) ?? formatOfHref(href)].version?.(href) ?? Promise.resolve(undefined);
  }
}
