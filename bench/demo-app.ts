/** The service on the demo config, in process, for the benches that read through its use cases and routes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/app/config/load-config.js';
import { createApp, type App } from '../src/app/container.js';
import type { Config } from '../src/app/config/config-schema.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Runs `work` with the demo app listening on a free loopback port (a private SQLite datastore),
 * from the repository root since the demo config's paths are relative to the working directory;
 * closes it and restores the working directory whatever happens.
 */
export async function withDemoApp(work: (app: App, base: string, config: Config) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-bench-'));
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const config = loadConfig(
      { DGGS_CONFIG: path.join(ROOT, 'config/default.json') },
      { server: { host: '127.0.0.1', port: 0, logLevel: 'silent' }, datastore: { kind: 'sqlite', file: path.join(dir, 'bench.sqlite'), autoInitialize: true } },
    );
    const app = await createApp(config, pino({ level: 'silent' }));
    try {
      await work(app, `http://127.0.0.1:${await app.listen()}`, config);
    } finally {
      await app.close();
    }
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
}
