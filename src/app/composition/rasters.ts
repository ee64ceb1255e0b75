import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import type { InFlightBytes } from '../../ports/remote-http.js';
import { GeoTiffRasterReader } from '../../adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../../adapters/rasters/pmtiles-raster-reader.js';
import { DecodedTileCache } from '../../adapters/rasters/decoded-tile-cache.js';
import { FormatDispatchingRasterReader } from '../../adapters/rasters/format-dispatching-raster-reader.js';

/** The raster reader of every format, sharing one tile cache and the in-flight bytes budget. */
export function bindRasters(c: Container, config: Config): void {
  // One bound of decoded tiles for all formats' configured rasters.
  c.bind(TOKENS.RasterTileCache).toDynamicValue(() => new DecodedTileCache(config.rasters.tileCacheBytes));
  c.bind(TOKENS.RasterReader).toDynamicValue((ctx) => {
    const rasterFetch = { ...config.rasterFetch, inFlight: ctx.get<InFlightBytes>(TOKENS.InFlightBytes) };
    // raster-url collections name their format and PMTiles value encoding in config; the readers look them up by url.
    const rasterUrls = new Map(config.collections.flatMap((col) => (col.backing.kind === 'raster-url' ? [[col.backing.url, col.backing] as const] : [])));
    const maxWindowSamples = config.limits.maxRasterWindowSamples;
    const tileCache = ctx.get<DecodedTileCache>(TOKENS.RasterTileCache);
    // A configured raster's failure answers without its detail (server paths, system errors): the log has it.
    const log = ctx.get<Logger>(TOKENS.Logger);
    const onTrustedFailure = (href: string, err: unknown) => log.warn({ href, err }, 'a configured raster could not be read');
    const pmtiles = new PmtilesRasterReader(rasterFetch, { encodingFor: (href) => rasterUrls.get(href)?.valueEncoding, maxWindowSamples, tileCache, onTrustedFailure });
    return new FormatDispatchingRasterReader({ geotiff: new GeoTiffRasterReader(rasterFetch, process.cwd(), maxWindowSamples, tileCache, onTrustedFailure), pmtiles }, (href) => rasterUrls.get(href)?.rasterFormat);
  });
}
