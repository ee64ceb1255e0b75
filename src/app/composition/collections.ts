import type { Container, ResolutionContext } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { ConfigCollectionCatalog, ConfigFieldSource } from '../config/config-collection-catalog.js';
import { CollectionsService } from '../collections/collections-service.js';
import { ZonesService } from '../zones/zones-service.js';
import { ZoneInfoService } from '../zones/zone-info.js';
import { SourceVersions } from '../collections/source-versions.js';
import type { BackingKind } from '../../domain/collection.js';
import type { FieldSource } from '../../ports/collection-catalog.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import { CollectionAvailability, checkCollectionSources, sourceProbes, type SourcePorts } from '../collections/collection-sources.js';
import type { Logger } from 'pino';

/** The configured collections, where each kind's fields come from, their data's versions, and the collection, zone-list and zone-info use cases. */
export function bindCollections(c: Container, config: Config): void {
  c.bind(TOKENS.CollectionCatalog).toDynamicValue(() => new ConfigCollectionCatalog(config.collections));
  c.bind(TOKENS.CollectionAvailability).toConstantValue(new CollectionAvailability());
  const sourcePorts = (ctx: ResolutionContext): SourcePorts => ({
    lake: ctx.get(TOKENS.LakeReader),
    rasters: ctx.get(TOKENS.RasterReader),
    stac: ctx.get(TOKENS.StacCatalogs),
    lakeRoot: config.lake.root,
    availability: ctx.get(TOKENS.CollectionAvailability),
    logger: ctx.get<Logger>(TOKENS.Logger),
    pyramids: ctx.get(TOKENS.ZonePyramidStore, { optional: true }),
  });
  // Run once by the app before it serves: refuses missing local sources, and fills the extents the data gives.
  c.bind(TOKENS.CollectionSourcesCheck).toDynamicValue((ctx) => async () => {
    const extents = await checkCollectionSources(config.collections, sourcePorts(ctx));
    ctx.get<ConfigCollectionCatalog>(TOKENS.CollectionCatalog).fillExtents(extents);
  });
  // The same checks of local sources, run again by the readiness probe.
  c.bind(TOKENS.CollectionSourceProbes).toDynamicValue((ctx) => sourceProbes(config.collections, sourcePorts(ctx)));
  c.bind(TOKENS.FieldSources).toDynamicValue((ctx) => {
    const fromConfig = new ConfigFieldSource();
    const sources: Partial<Record<BackingKind, FieldSource>> = { 'raster-url': fromConfig, stac: fromConfig, 'ogc-features': ctx.get(TOKENS.FeatureSource), 'parquet-lake': ctx.get(TOKENS.LakeReader) };
    // A pyramid's fields are its published layout's, as its zone-data source reads them.
    const pyramid = ctx.get<Partial<Record<BackingKind, ZoneDataSource>>>(TOKENS.ZoneDataSources)['clickhouse-pyramid'];
    if (pyramid) sources['clickhouse-pyramid'] = pyramid;
    return sources;
  });
  c.bind(TOKENS.CollectionsService).to(CollectionsService);
  c.bind(TOKENS.MaxZonesPerPage).toConstantValue(config.limits.maxZonesPerPage);
  c.bind(TOKENS.ZonesService).to(ZonesService);
  c.bind(TOKENS.ZoneInfoService).to(ZoneInfoService);
  c.bind(TOKENS.SourceVersions).to(SourceVersions);
}
