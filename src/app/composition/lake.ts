import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { ItemsService } from '../items/items-service.js';
import { LakeTimeBudget } from '../items/lake-time-budget.js';
import { DuckDbLake } from '../../adapters/lake/duckdb-lake.js';
import { ZoneBinningPool } from '../../adapters/lake/zone-binning-pool.js';
import { S3ParquetLake } from '../../adapters/lake-s3/s3-parquet-lake.js';
import { isS3Root } from '../../adapters/lake-s3/s3-objects.js';
import type { CollectionAvailability } from '../collections/collection-sources.js';
import type { LakeReader } from '../../ports/lake-reader.js';

/** The lake the config's root names, the threads binning its rows into zones, and its items. */
export function bindLake(c: Container, config: Config): void {
  c.bind(TOKENS.LakeReader).toDynamicValue((ctx) => {
    // Collections whose optional source was missing at start get 503 from whatever reads their rows.
    const guarded = (lake: LakeReader) => ctx.get<CollectionAvailability>(TOKENS.CollectionAvailability).guard(lake);
    // The lake root's scheme picks the adapter: s3:// is the object store, anything else a directory.
    const { root, s3 } = config.lake;
    if (!isS3Root(root)) return guarded(new DuckDbLake(root, config.limits.maxExactGeometryTests, { streamBufferBytes: config.lake.streamBufferBytes }));
    const { maxRequestBytes, maxFilterRows, maxObjects, footerCacheBytes, footerReadBytes, listCacheSeconds, ...connection } = s3;
    const limits = { maxExactGeometryTests: config.limits.maxExactGeometryTests, maxRequestBytes, maxFilterRows, maxObjects, footerCacheBytes, footerReadBytes, listCacheMs: listCacheSeconds * 1000 };
    return guarded(new S3ParquetLake(root, connection, limits));
  });
  // Worker threads rebuild the grids from the grid catalog's GRID_FACTORIES; none when the config asks for none.
  c.bind(TOKENS.LakeBinning).toDynamicValue(() => {
    const threads = config.lake.aggregationThreads;
    return threads === 0 ? undefined : new ZoneBinningPool(threads, new URL('../../adapters/grids/catalog.js', import.meta.url).href);
  });
  c.bind(TOKENS.ItemsMaxLimit).toConstantValue(config.limits.itemsMaxLimit);
  c.bind(TOKENS.LakeTimeBudget).toConstantValue(new LakeTimeBudget(config.limits.lakeQuerySeconds));
  c.bind(TOKENS.ItemsService).to(ItemsService);
}
