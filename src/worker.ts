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

/**
 * A job worker without the HTTP server (`npm run worker`): takes jobs from the queue the config
 * names and runs them. On PostgreSQL any number of workers, on any number of machines, share the
 * pg-boss queue; they need the same config (datastore, lake, collections, results root) as the
 * API. Stops cleanly on SIGINT/SIGTERM: running jobs get a grace period, then go back to the queue.
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
  logger.info({ concurrency: config.orders.concurrency, queue: config.orders.queue, datastore: config.datastore.kind }, 'dggs-api worker running');
  const stop = (signal: string) => {
    logger.info({ signal }, 'stopping');
    runner
      .stop()
      .then(() => Promise.all([datastore.close(), container.get<LakeReader>(TOKENS.LakeReader).close()]))
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
