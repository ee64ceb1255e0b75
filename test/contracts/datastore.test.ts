import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { KnexDatastore } from '../../src/adapters/datastore/knex-datastore.js';
import { datastoreContract } from './datastore.contract.js';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { startPostgres, type PostgresHandle } from '../support/postgres.js';

datastoreContract('knex + better-sqlite3', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-ds-'));
  return { store: new KnexDatastore({ kind: 'sqlite', file: path.join(dir, 'ds.sqlite') }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

datastoreContract('knex + PostgreSQL', async () => {
  const pg = await startPostgres();
  const opts = { kind: 'postgres' as const, url: pg.url, schema: pg.schema };
  return { store: new KnexDatastore(opts), cleanup: () => pg.stop(), another: () => new KnexDatastore(opts) };
});

describe('knex + PostgreSQL: a configured schema that does not exist yet', function () {
  this.timeout(60_000);
  let pg: PostgresHandle;
  let admin: Knex;
  const fresh = `dggs_fresh_${process.pid}_${Date.now().toString(36)}`;
  const schemaExists = async (name: string) => (await admin.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_namespace WHERE nspname = ?', [name])).rows.length > 0;

  before(async () => {
    pg = await startPostgres();
    admin = knexFactory({ client: 'pg', connection: pg.url });
  });
  after(async () => {
    if (!pg) return; // no database: the before hook's failure says why
    for (const name of [fresh, `${fresh}_m`]) await admin.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [name]);
    await admin.destroy();
    await pg.stop();
  });

  it('reads as uninitialised without creating it, and initialize creates it with every table', async () => {
    const store = new KnexDatastore({ kind: 'postgres', url: pg.url, schema: fresh });
    try {
      expect(await store.status()).to.deep.equal({ initialized: false, migrations: [], pending: ['0001_concepts', '0002_orders_jobs', '0003_jobs_that_run', '0004_order_job_counts'] });
      expect(await schemaExists(fresh), 'status only reads').to.equal(false);
      expect((await store.initialize()).initialized).to.equal(true);
      expect(await schemaExists(fresh)).to.equal(true);
      const tables = (await admin.raw<{ rows: { tablename: string }[] }>('SELECT tablename FROM pg_tables WHERE schemaname = ?', [fresh])).rows.map((r) => r.tablename);
      expect(tables).to.include.members(['concepts', 'orders', 'jobs', 'job_attempts', 'api_tokens', 'dggs_migrations']);
      expect((await store.listConcepts()).length).to.be.greaterThan(0);
      expect((await store.initialize()).initialized, 'again, on the schema it made').to.equal(true);
    } finally {
      await store.close();
    }
  });

  it('migrate creates it too, and replicas starting together on it all succeed', async () => {
    const stores = [0, 1, 2, 3].map(() => new KnexDatastore({ kind: 'postgres', url: pg.url, schema: `${fresh}_m` }));
    try {
      const statuses = await Promise.allSettled(stores.map((s, i) => (i % 2 ? s.initialize() : s.migrate())));
      expect(statuses.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).to.deep.equal([]);
      expect(await schemaExists(`${fresh}_m`)).to.equal(true);
      expect(await stores[0]!.status()).to.deep.include({ initialized: true, pending: [] });
      expect(await stores[0]!.listConcepts()).to.deep.equal(await stores[1]!.listConcepts());
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
