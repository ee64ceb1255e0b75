import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { ConfigCollectionCatalog, ConfigFieldSource } from '../config-collection-catalog.js';
import { CollectionsService } from '../collections/collections-service.js';
import { ZonesService } from '../zones/zones-service.js';
import { ZoneInfoService } from '../zones/zone-info.js';
import type { BackingKind } from '../../domain/collection.js';
import type { FieldSource } from '../../ports/collection-catalog.js';

/** The configured collections, where each kind's fields come from, and the collection, zone-list and zone-info use cases. */
export function bindCollections(c: Container, config: Config): void {
  c.bind(TOKENS.CollectionCatalog).toDynamicValue(() => new ConfigCollectionCatalog(config.collections));
  c.bind(TOKENS.FieldSources).toDynamicValue((ctx) => {
    const fromConfig = new ConfigFieldSource();
    const sources: Partial<Record<BackingKind, FieldSource>> = { 'raster-url': fromConfig, stac: fromConfig, 'ogc-features': ctx.get(TOKENS.FeatureSource), 'parquet-lake': ctx.get(TOKENS.LakeReader) };
    return sources;
  });
  c.bind(TOKENS.CollectionsService).toDynamicValue((ctx) => new CollectionsService(ctx.get(TOKENS.CollectionCatalog), ctx.get(TOKENS.FieldSources)));
  // Zone lists filtered by data ask the zone-data use case which zones hold matching data.
  c.bind(TOKENS.ZonesService).toDynamicValue((ctx) => new ZonesService(ctx.get(TOKENS.GridRegistry), ctx.get(TOKENS.CollectionsService), config.limits.maxZonesPerPage, ctx.get(TOKENS.ZoneDataService)));
  c.bind(TOKENS.ZoneInfoService).toDynamicValue((ctx) => new ZoneInfoService(ctx.get(TOKENS.ZonesService), ctx.get(TOKENS.ZoneDataService)));
}
