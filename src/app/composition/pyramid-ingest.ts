import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { PyramidPartJob } from '../pyramids/pyramid-part-job.js';
import { PyramidIngest } from '../pyramids/pyramid-ingest.js';
import { InProcessPyramidParts } from '../../adapters/jobs/in-process-pyramid-parts.js';
import { PgBossPyramidParts } from '../../adapters/jobs/pg-boss-pyramid-parts.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { PyramidPartQueue } from '../../ports/pyramid-parts.js';
import type { ZonePyramidStore } from '../../ports/zone-pyramid-store.js';

/** Rows of one coarse zone beyond which the ingest asks for a finer coarse level. */
const MAX_PART_ROWS = 50_000_000;
/** Cells one part holds in memory (a few hundred bytes each) before it fails asking for a finer coarse level. */
const MAX_PART_CELLS = 4_000_000;

/**
 * The pyramid ingest (`npm run ingest -- <id> --pyramid clickhouse`) and its parts: on a
 * PostgreSQL datastore the parts go to a pg-boss queue every worker shares (with the order jobs'
 * retry and heartbeat settings), else they run in the ingest process.
 */
export function bindPyramidIngest(c: Container, config: Config): void {
  const o = config.orders;
  const ds = config.datastore;
  c.bind<PyramidPartQueue>(TOKENS.PyramidPartQueue).toDynamicValue((ctx) => {
    if (ds.kind !== 'postgres') return new InProcessPyramidParts({ maxAttempts: o.maxAttempts, retryDelayMs: o.retryDelaySeconds * 1000 });
    const log = ctx.get<Logger>(TOKENS.Logger);
    return new PgBossPyramidParts({
      url: ds.url,
      schema: o.queueSchema ?? ds.schema ?? 'pgboss',
      maxAttempts: o.maxAttempts,
      retryDelaySeconds: o.retryDelaySeconds,
      heartbeatSeconds: o.heartbeatSeconds,
      superviseSeconds: o.superviseSeconds,
      pollSeconds: o.pollSeconds,
      onError: (err) => log.warn({ err }, 'pyramid part queue error'),
    });
  });
  c.bind(TOKENS.PyramidPartJob).toDynamicValue(
    (ctx) =>
      new PyramidPartJob(
        ctx.get<LakeReader>(TOKENS.LakeReader),
        ctx.get<GridRegistry>(TOKENS.GridRegistry),
        ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog),
        ctx.get<ZonePyramidStore>(TOKENS.ZonePyramidStore),
        { maxPartCells: MAX_PART_CELLS },
      ),
  );
  c.bind(TOKENS.PyramidIngest).toDynamicValue(
    (ctx) =>
      new PyramidIngest(
        ctx.get<LakeReader>(TOKENS.LakeReader),
        ctx.get<GridRegistry>(TOKENS.GridRegistry),
        ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog),
        ctx.get<ZonePyramidStore>(TOKENS.ZonePyramidStore),
        ctx.get<PyramidPartQueue>(TOKENS.PyramidPartQueue),
        ctx.get<PyramidPartJob>(TOKENS.PyramidPartJob),
        { maxPartRows: MAX_PART_ROWS, pollMs: 1000, partsPerWorker: 4 },
      ),
  );
}
