import knexFactory, { type Knex } from 'knex';
import type {
  Concept,
  ConceptStore,
  DatastoreAdmin,
  DatastoreStatus,
  Job,
  NewOrder,
  Order,
  OrderStore,
} from '../../ports/datastore.js';
import { migrationSource } from './migrations.js';
import { SEED_CONCEPTS } from './seed-concepts.js';

export type KnexDatastoreOptions =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string };

/**
 * Concepts, orders and jobs on knex: better-sqlite3 for one machine, PostgreSQL beyond.
 * Values reach SQL only through knex bindings.
 */
export class KnexDatastore implements DatastoreAdmin, ConceptStore, OrderStore {
  private readonly db: Knex;
  private readonly migrationConfig: Knex.MigratorConfig;

  constructor(opts: KnexDatastoreOptions) {
    this.db =
      opts.kind === 'sqlite'
        ? knexFactory({ client: 'better-sqlite3', connection: { filename: opts.file }, useNullAsDefault: true })
        : knexFactory({ client: 'pg', connection: opts.url, searchPath: opts.schema ? [opts.schema] : undefined, pool: { min: 0, max: 8 } });
    if (opts.kind === 'sqlite') {
      // SQLite leaves foreign keys off unless asked, per connection.
      this.db.client.pool.on?.('createSuccess', (_: unknown, conn: { pragma?: (s: string) => void }) => conn.pragma?.('foreign_keys = ON'));
    }
    this.migrationConfig = { migrationSource, tableName: 'dggs_migrations', schemaName: opts.kind === 'postgres' ? opts.schema : undefined };
  }

  async status(): Promise<DatastoreStatus> {
    const [done, pending] = (await this.db.migrate.list(this.migrationConfig)) as [{ name: string }[] | string[], string[]];
    const migrations = done.map((m) => (typeof m === 'string' ? m : m.name));
    const seeded = pending.length === 0 && (await this.db('concepts').count<{ n: number | string }[]>({ n: '*' }))[0]!;
    return { initialized: pending.length === 0 && Number(seeded ? seeded.n : 0) > 0, migrations, pending };
  }

  async migrate(): Promise<DatastoreStatus> {
    await this.db.migrate.latest(this.migrationConfig);
    return this.status();
  }

  async initialize(): Promise<DatastoreStatus> {
    await this.db.migrate.latest(this.migrationConfig);
    await this.db.transaction(async (trx) => {
      for (const c of SEED_CONCEPTS) {
        const exists = await trx('concepts').where({ id: c.id }).first();
        if (exists) continue;
        await trx('concepts').insert({ id: c.id, name: c.name, ui_label: c.ui_label, ui_description: c.ui_description, category: c.category });
        for (const col of c.collections) {
          await trx('concept_collections').insert({ concept_id: c.id, collection_id: col.id, properties: JSON.stringify(col.properties) });
        }
        for (const p of c.processing) {
          await trx('concept_processing').insert({ concept_id: c.id, ...p });
        }
      }
    });
    return this.status();
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  async listConcepts(): Promise<Concept[]> {
    const rows = await this.db('concepts').orderBy('id');
    return Promise.all(rows.map((r) => this.hydrateConcept(r)));
  }

  async getConcept(id: number): Promise<Concept | undefined> {
    const row = await this.db('concepts').where({ id }).first();
    return row ? this.hydrateConcept(row) : undefined;
  }

  private async hydrateConcept(row: Record<string, unknown>): Promise<Concept> {
    const id = Number(row.id);
    const [collections, processing] = await Promise.all([
      this.db('concept_collections').where({ concept_id: id }).orderBy('collection_id'),
      this.db('concept_processing').where({ concept_id: id }).orderBy('id'),
    ]);
    return {
      id,
      name: String(row.name),
      ui_label: String(row.ui_label),
      ui_description: String(row.ui_description),
      category: String(row.category),
      collections: collections.map((c) => ({ id: c.collection_id, properties: JSON.parse(c.properties) })),
      processing: processing.map((p) => ({
        derived_indice: p.derived_indice,
        dggs_refinement_level: Number(p.dggs_refinement_level),
        color_ramp: p.color_ramp ?? null,
        notes: p.notes ?? null,
      })),
    };
  }

  async listOrders(): Promise<Order[]> {
    const rows = await this.db('orders').orderBy('id');
    const jobs = await this.db('jobs').orderBy('id');
    return rows.map((r) => toOrder(r, jobs.filter((j) => Number(j.order_id) === Number(r.id))));
  }

  async getOrder(id: number): Promise<Order | undefined> {
    const row = await this.db('orders').where({ id }).first();
    if (!row) return undefined;
    return toOrder(row, await this.db('jobs').where({ order_id: id }).orderBy('id'));
  }

  async createOrder(order: NewOrder): Promise<Order> {
    const now = new Date().toISOString();
    const id = await this.db.transaction(async (trx) => {
      const [inserted] = await trx('orders').insert({ title: order.title ?? null, status: 'accepted', created_at: now, updated_at: now }).returning('id');
      const orderId = Number(typeof inserted === 'object' ? inserted.id : inserted);
      for (const job of order.jobs) {
        await trx('jobs').insert({
          order_id: orderId,
          status: 'accepted',
          collection: job.collection,
          dggrs: job.dggrs,
          zone_id: job.zoneId,
          zone_depth: job.zoneDepth,
          progress: 0,
          message: null,
          created_at: now,
          updated_at: now,
        });
      }
      return orderId;
    });
    return (await this.getOrder(id))!;
  }

  async getJob(orderId: number, jobId: number): Promise<Job | undefined> {
    const row = await this.db('jobs').where({ order_id: orderId, id: jobId }).first();
    return row ? toJob(row) : undefined;
  }

  async updateJob(jobId: number, patch: Partial<Pick<Job, 'status' | 'progress' | 'message'>>): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction(async (trx) => {
      const job = await trx('jobs').where({ id: jobId }).first();
      if (!job) return;
      await trx('jobs').where({ id: jobId }).update({ ...patch, updated_at: now });
      const siblings = await trx('jobs').where({ order_id: job.order_id });
      await trx('orders').where({ id: job.order_id }).update({ status: orderStatusOf(siblings.map((s) => s.status)), updated_at: now });
    });
  }
}

/** An order is as far along as its least advanced job; any failure fails it. */
function orderStatusOf(statuses: string[]): string {
  if (statuses.includes('failed')) return 'failed';
  if (statuses.every((s) => s === 'successful')) return 'successful';
  if (statuses.every((s) => s === 'dismissed')) return 'dismissed';
  if (statuses.some((s) => s === 'running' || s === 'successful')) return 'running';
  return 'accepted';
}

function toJob(r: Record<string, unknown>): Job {
  return {
    id: Number(r.id),
    orderId: Number(r.order_id),
    status: r.status as Job['status'],
    collection: String(r.collection),
    dggrs: String(r.dggrs),
    zoneId: String(r.zone_id),
    zoneDepth: Number(r.zone_depth),
    progress: Number(r.progress),
    message: (r.message as string | null) ?? null,
    created: String(r.created_at),
    updated: String(r.updated_at),
  };
}

function toOrder(r: Record<string, unknown>, jobs: Record<string, unknown>[]): Order {
  return {
    id: Number(r.id),
    status: r.status as Order['status'],
    title: (r.title as string | null) ?? null,
    created: String(r.created_at),
    updated: String(r.updated_at),
    jobs: jobs.map(toJob),
  };
}
