// Decorator metadata for the container's injectable classes, loaded before any of them.
import 'reflect-metadata';
import pino from 'pino';
import { loadConfig, ConfigError } from './app/config/load-config.js';
import { buildContainer, checkSources } from './app/container.js';
import { TOKENS } from './app/tokens.js';
import type { Config } from './app/config/config-schema.js';
import type { JobRunner } from './app/orders/job-runner.js';
import type { DatastoreAdmin } from './ports/datastore.js';
import type { LakeReader } from './ports/lake-reader.js';
import type { PyramidPartQueue } from './ports/pyramid-parts.js';
import type { ZonePyramidStore } from './ports/zone-pyramid-store.js';
import type { PyramidPartJob } from './app/pyramids/pyramid-part-job.js';

/**
 * A job worker without the HTTP server (`npm run worker`): takes jobs from the queue the config
 * names and runs them. On PostgreSQL any number of workers, on any number of machines, share the
 * pg-boss queue; they need the same config (datastore, lake, collections, results root) as the
 * API. With a PostgreSQL datastore and clickhouse-pyramid collections, it also runs the parts of
 * pyramid ingests (`npm run ingest -- <id> --pyramid clickhouse`) from their pg-boss queue, as many
 * at once as order jobs. Stops cleanly on SIGINT/SIGTERM: running jobs get a grace period, then go
 * back to the queue.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`dggs-api worker: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({ level: config.server.logLevel, name: 'dggs-api-worker' });
  const container = buildContainer(config, logger);
  const datastore = container.get<DatastoreAdmin>(TOKENS.DatastoreAdmin);
  await checkSources(container);
  if (config.datastore.autoInitialize) await datastore.initialize();
  const runner = container.get<JobRunner>(TOKENS.JobRunner);
  await runner.start();
  // Pyramid parts come from a queue other processes fill only on PostgreSQL (else the ingest runs its own).
  const parts = config.datastore.kind === 'postgres' && config.collections.some((c) => c.backing.kind === 'clickhouse-pyramid') ? container.get<PyramidPartQueue>(TOKENS.PyramidPartQueue) : undefined;
  if (parts) {
    const job = container.get<PyramidPartJob>(TOKENS.PyramidPartJob);
    await parts.work((task, signal) => job.run(task, signal), config.orders.concurrency);
  }
  logger.info({ concurrency: config.orders.concurrency, queue: config.orders.queue, datastore: config.datastore.kind, pyramidParts: parts !== undefined }, 'dggs-api worker running');
  const stop = (signal: string) => {
    logger.info({ signal }, 'stopping');
    Promise.all([runner.stop(), parts?.close()])
      .then(() => Promise.all([datastore.close(), container.get<LakeReader>(TOKENS.LakeReader).close(), parts ? container.get<ZonePyramidStore>(TOKENS.ZonePyramidStore).close() : undefined]))
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  // A config mistake found after loading (a missing source) exits as one found while loading.
  if (err instanceof ConfigError) {
    console.error(`dggs-api worker: ${err.message}`);
    process.exit(2);
  }
  console.error('dggs-api worker: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
