// Decorator metadata for the container's injectable classes, loaded before any of them.
import 'reflect-metadata';
import cluster from 'node:cluster';
import pino from 'pino';
import { loadConfig, ConfigError } from './app/config/load-config.js';
import { createApp } from './app/container.js';
import { describeListener } from './http/listener.js';
import { startIdleMemoryRelease } from './app/idle-memory-release.js';
import { processCount, supervise } from './supervisor.js';
import { IpcProcessGroup } from './adapters/processes/ipc-process-group.js';
import { PLACE_ENV, SIZE_ENV } from './adapters/processes/ipc-messages.js';

const STOP_GRACE_MS = 10_000;

/**
 * Starts the service: config, wiring, listen; stops cleanly on SIGINT/SIGTERM. With
 * `server.processes` > 1 this process becomes the supervisor of that many HTTP processes, each of
 * which runs this same function as a member of the group.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`dggs-api: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const size = processCount(config.server.processes);
  if (cluster.isPrimary && size > 1) return supervise(config, size);
  const group = cluster.isWorker ? new IpcProcessGroup(Number(process.env[PLACE_ENV]), Number(process.env[SIZE_ENV])) : undefined;
  // Every line of a group's process names its place (pino adds the pid to all lines).
  const logger = group && pino({ level: config.server.logLevel, name: 'dggs-api' }).child({ process: group.index });
  const app = await createApp(config, logger, group);
  const port = await app.listen();
  group?.ready(port);
  if (config.server.idleMemoryReleaseMiB > 0) {
    startIdleMemoryRelease({
      growthBytes: config.server.idleMemoryReleaseMiB * 2 ** 20,
      idleMs: 1000,
      onRelease: ({ rssBefore, rssAfter, ms }) => app.logger.debug({ rssBefore, rssAfter, ms }, 'idle: memory released'),
    });
  }
  const shown = config.server.host === '0.0.0.0' ? 'localhost' : config.server.host;
  app.logger.info({ port }, `dggs-api listening on ${config.server.publicBaseUrl ?? `http://${shown}:${port}`}`);
  const admin = app.adminListener();
  if (admin) app.logger.info({ admin }, `admin routes listening on ${describeListener(admin)}`);
  else if (!config.server.admin) app.logger.info({ admin: null }, 'no admin listener (server.admin): the admin routes are not served');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal forces a lone process out. A group's process gets the supervisor's
      // SIGTERM and often the same signal sent to the whole group (a terminal's SIGINT,
      // systemd's control-group SIGTERM): it stops once, and the supervisor forces it if need be.
      if (!group) process.exit(1);
      return;
    }
    stopping = true;
    app.logger.info({ signal }, 'stopping');
    // close() waits for open requests; a client that never finishes one must not keep us up.
    setTimeout(() => {
      app.logger.warn({ signal }, `requests still open after ${STOP_GRACE_MS} ms: exiting`);
      process.exit(1);
    }, STOP_GRACE_MS).unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  // A config mistake found after loading (a missing source) exits as one found while loading.
  if (err instanceof ConfigError) {
    console.error(`dggs-api: ${err.message}`);
    process.exit(2);
  }
  console.error('dggs-api: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
