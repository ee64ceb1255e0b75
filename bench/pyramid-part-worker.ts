/**
 * A pyramid-part worker process for bench/pyramid.bench.ts: what `npm run worker` does for pyramid
 * parts (the pg-boss queue, the lake, the grid, the ClickHouse store), built from its arguments
 * instead of a config file. Argument: one JSON object (see `WorkerArgs`).
 */
import { createClickHouseZonePyramidStore, type ClickHouseOptions } from '../src/adapters/clickhouse/clickhouse-pyramid-store.js';
import { DuckDbLake } from '../src/adapters/lake/duckdb-lake.js';
import { GRID_FACTORIES } from '../src/adapters/grids/catalog.js';
import { PgBossPyramidParts } from '../src/adapters/jobs/pg-boss-pyramid-parts.js';
import { EnabledGridRegistry } from '../src/app/grid-registry.js';
import { ConfigCollectionCatalog } from '../src/app/config/config-collection-catalog.js';
import { PyramidPartJob } from '../src/app/pyramids/pyramid-part-job.js';
import type { Collection } from '../src/domain/collection.js';
import type { ZonePyramidStore } from '../src/ports/zone-pyramid-store.js';

export interface WorkerArgs {
  lakeRoot: string;
  collections: Collection[];
  clickhouse: ClickHouseOptions;
  pg: { url: string; schema: string };
  duckdbThreads: number;
}

/** The ClickHouse store of the bench's shards. */
export function clickHouseStore(options: ClickHouseOptions): ZonePyramidStore {
  return createClickHouseZonePyramidStore(options);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const args = JSON.parse(process.argv[2]!) as WorkerArgs;
  const lake = new DuckDbLake(args.lakeRoot, undefined, { threads: args.duckdbThreads });
  const store = clickHouseStore(args.clickhouse);
  const job = new PyramidPartJob(lake, new EnabledGridRegistry([GRID_FACTORIES.IVEA7H!()], 'IVEA7H'), new ConfigCollectionCatalog(args.collections), store, { maxPartCells: 4_000_000 });
  const queue = new PgBossPyramidParts({ url: args.pg.url, schema: args.pg.schema, maxAttempts: 2, retryDelaySeconds: 1, heartbeatSeconds: 30, superviseSeconds: 5, pollSeconds: 0.5 });
  await queue.work((task, signal) => job.run(task, signal), 1);
  console.log('working');
  process.once('SIGTERM', () => {
    void queue
      .close(1000)
      .then(() => Promise.all([store.close(), lake.close()]))
      .finally(() => process.exit(0));
  });
}
