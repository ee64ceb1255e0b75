// Decorator metadata for the container's injectable classes, loaded before any of them.
import 'reflect-metadata';
import { loadConfig, ConfigError } from './app/config/load-config.js';
import { createApp } from './app/container.js';
import { describeListener } from './http/listener.js';
import { startIdleMemoryRelease } from './app/idle-memory-release.js';

const STOP_GRACE_MS = 10_000;

/** Starts the service: config, wiring, listen; stops cleanly on SIGINT/SIGTERM. */
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
  const app = await createApp(config);
  const port = await app.listen();
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
  app.logger.info({ admin: admin ?? null }, admin ? `admin routes listening on ${describeListener(admin)}` : 'no admin listener (server.admin): the admin routes are not served');
  const stop = (signal: string) => {
    app.logger.info({ signal }, 'stopping');
    // close() waits for open requests; a client that never finishes one must not keep us up.
    setTimeout(() => {
      app.logger.warn({ signal }, `requests still open after ${STOP_GRACE_MS} ms: exiting`);
      process.exit(1);
    }, STOP_GRACE_MS).unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
