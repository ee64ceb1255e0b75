import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { ZoneDataService } from '../zone-data/zone-data-service.js';
import { ZoneFeaturesService } from '../items/zone-features-service.js';
import { StacZoneDataSource } from '../zone-data/stac-zone-data-source.js';
import { LakeZoneDataSource } from '../zone-data/lake-zone-data-source.js';
import { RasterUrlZoneDataSource } from '../zone-data/raster-url-zone-data-source.js';
import { FeaturesZoneDataSource } from '../zone-data/features-zone-data-source.js';
import { PyramidZoneDataSource } from '../zone-data/pyramid-zone-data-source.js';
import type { ZonePyramidStore } from '../../ports/zone-pyramid-store.js';
import type { BackingKind } from '../../domain/collection.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { CollectionAvailability } from '../collections/collection-sources.js';

/** Where each backing kind's zone data comes from, and the zone-data and zone-features use cases. */
export function bindZoneData(c: Container, config: Config): void {
  // Also the source of ad-hoc raster requests, so one instance serves both.
  c.bind(TOKENS.AdHocRasterSource).toDynamicValue((ctx) => new RasterUrlZoneDataSource(ctx.get(TOKENS.RasterReader)));
  // Zone-data sources by backing kind: adding a kind is one line here.
  c.bind(TOKENS.ZoneDataSources).toDynamicValue((ctx) => {
    const sources: Partial<Record<BackingKind, ZoneDataSource>> = {
      'raster-url': ctx.get(TOKENS.AdHocRasterSource),
      stac: new StacZoneDataSource(ctx.get(TOKENS.StacCatalogs), ctx.get(TOKENS.RasterReader)),
      'parquet-lake': new LakeZoneDataSource(ctx.get(TOKENS.LakeReader), config.limits, ctx.get(TOKENS.LakeBinning)),
      'ogc-features': new FeaturesZoneDataSource(ctx.get(TOKENS.FeatureSource), (col) => (col.backing.kind === 'ogc-features' ? `${col.backing.url.replace(/\/+$/, '')}/collections/${encodeURIComponent(col.backing.collection)}/items` : ''), config.limits),
    };
    // Bound by composition/pyramids.ts where a ClickHouse cluster is configured.
    const pyramids = ctx.get<ZonePyramidStore>(TOKENS.ZonePyramidStore, { optional: true });
    if (pyramids) sources['clickhouse-pyramid'] = new PyramidZoneDataSource(pyramids, config.limits.maxSubZones);
    // A collection whose optional source was missing at start answers 503 for its zone data.
    const availability = ctx.get<CollectionAvailability>(TOKENS.CollectionAvailability);
    return Object.fromEntries(Object.entries(sources).map(([kind, source]) => [kind, availability.guard(source)])) as typeof sources;
  });
  c.bind(TOKENS.ZoneDataLimits).toConstantValue(config.limits);
  c.bind(TOKENS.ZoneDataService).to(ZoneDataService);
  c.bind(TOKENS.MaxSubZones).toConstantValue(config.limits.maxSubZones);
  c.bind(TOKENS.ZoneFeaturesService).to(ZoneFeaturesService);
}
