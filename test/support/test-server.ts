import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../../src/app/config/load-config.js';
import type { Config } from '../../src/app/config/config-schema.js';
import { createApp, type App, type AppOptions } from '../../src/app/container.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
/** Reference data from the project's shared material, copied with its provenance (test/fixtures/shared/README.md). */
export const SHARED = path.join(REPO_ROOT, 'test/fixtures/shared');

export interface TestServer {
  app: App;
  base: string;
  /** The admin listener's base URL, when the overrides give `server.admin` a TCP port (0 picks one). */
  admin?: string;
  config: Config;
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A real server on loopback, booted from config/default.json with a private SQLite file and a
 * random port; `overrides` are merged over the file (as environment overrides are). Logs go
 * nowhere unless a test passes a `logger` to read them; `options.rebind` swaps bindings (an
 * in-memory pyramid store for TOKENS.ZonePyramidStore).
 */
export async function startTestServer(overrides: Record<string, unknown> = {}, logger: Logger = pino({ level: 'silent' }), options: AppOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-test-'));
  const config = loadConfig(
    { DGGS_CONFIG: path.join(REPO_ROOT, 'config/default.json') },
    { server: { host: '127.0.0.1', port: 0, logLevel: 'silent' }, datastore: { kind: 'sqlite', file: path.join(dir, 'test.sqlite'), autoInitialize: true }, ...overrides, orders: { resultsRoot: path.join(dir, 'results'), ...(overrides.orders as object | undefined) } },
  );
  const app = await createApp(config, logger, undefined, options);
  const port = await app.listen().catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  const base = `http://127.0.0.1:${port}`;
  const at = app.adminListener();
  return {
    app,
    base,
    ...(at && 'port' in at ? { admin: `http://${at.host}:${at.port}` } : {}),
    config,
    get: (p, headers = {}) => fetch(base + p, { headers }),
    close: () => app.close(),
  };
}
