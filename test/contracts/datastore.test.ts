import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { KnexDatastore } from '../../src/adapters/datastore/knex-datastore.js';
import { datastoreContract } from './datastore.contract.js';
import { startPostgres } from '../support/postgres.js';

datastoreContract('knex + better-sqlite3', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-ds-'));
  return { store: new KnexDatastore({ kind: 'sqlite', file: path.join(dir, 'ds.sqlite') }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

datastoreContract('knex + PostgreSQL', async () => {
  const pg = await startPostgres();
  const opts = { kind: 'postgres' as const, url: pg.url, schema: pg.schema };
  return { store: new KnexDatastore(opts), cleanup: () => pg.stop(), another: () => new KnexDatastore(opts) };
});
