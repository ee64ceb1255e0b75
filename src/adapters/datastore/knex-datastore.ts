import knexFactory, { type Knex } from 'knex';
import {
  FINAL_STATUSES,
  JOB_STATUSES,
  type Claim,
  type Concept,
  type ConceptStore,
  type CreateOrderResult,
  type DatastoreAdmin,
  type DatastoreStatus,
  type Job,
  type JobCounts,
  type JobLedger,
  type JobResultInfo,
  type JobStatus,
  type NewOrder,
  type Order,
  type OrderQuota,
  type OrderStore,
  type Page,
  type Paged,
  type TokenRecord,
  type TokenStore,
} from '../../ports/datastore.js';
import { MIGRATIONS, migrationSource } from './migrations.js';
import { leaseFree, PgWorkerLease, type LeaseConnection } from './worker-lease.js';
import { SEED_CONCEPTS } from './seed-concepts.js';
import { orderStatusOf, toAttempt, toJob, toOrder, toToken, zeroCounts, type Row } from './rows.js';

export type KnexDatastoreOptions =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string };

const OPEN: JobStatus[] = ['accepted', 'running'];
/** Rows per INSERT: well under SQLite's bound variables per statement. */
const INSERT_CHUNK = 200;

/** First key of the advisory lock migrations hold ("dgmi" in ASCII); the second is a hash of the schema's name. */
const MIGRATION_SPACE = 0x64676d69;

const now = () => new Date().toISOString();
const STOPPED = 'the process running this attempt stopped';
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Concepts, orders, jobs and tokens on knex: better-sqlite3 for one machine, PostgreSQL beyond.
 * Values reach SQL only through knex bindings. Listings page and count in SQL; every write of a
 * job after its claim is fenced by the attempt number, so a worker that lost its job (dismissed,
 * or taken over after it was presumed dead) can never overwrite the job's record.
 */
export class KnexDatastore implements DatastoreAdmin, ConceptStore, OrderStore, JobLedger, TokenStore {
  private readonly db: Knex;
  private readonly migrationConfig: Knex.MigratorConfig;
  /** PostgreSQL: this process's worker lease, on a connection of its own (outside the pool). */
  private readonly lease?: PgWorkerLease;

  constructor(private readonly opts: KnexDatastoreOptions) {
    this.db =
      opts.kind === 'sqlite'
        ? knexFactory({ client: 'better-sqlite3', connection: { filename: opts.file }, useNullAsDefault: true })
        : knexFactory({ client: 'pg', connection: opts.url, searchPath: opts.schema ? [opts.schema] : undefined, pool: { min: 0, max: 8 } });
    if (opts.kind === 'sqlite') {
      // SQLite leaves foreign keys off unless asked, per connection; a busy wait beats an immediate
      // SQLITE_BUSY when a second process (a token command) writes at the same moment.
      this.db.client.pool.on?.('createSuccess', (_: unknown, conn: { pragma?: (s: string) => void }) => {
        conn.pragma?.('foreign_keys = ON');
        conn.pragma?.('busy_timeout = 5000');
      });
    }
    this.migrationConfig = { migrationSource, tableName: 'dggs_migrations', schemaName: opts.kind === 'postgres' ? opts.schema : undefined };
    if (opts.kind === 'postgres') {
      const client = this.db.client as Knex.Client;
      this.lease = new PgWorkerLease(
        () => client.acquireRawConnection() as Promise<LeaseConnection>,
        (conn) => client.destroyRawConnection(conn),
        opts.schema,
      );
    }
  }

  async status(): Promise<DatastoreStatus> {
    // A schema not yet created holds nothing: every migration is pending. Asking knex would create
    // its bookkeeping tables, which fails in a schema that does not exist.
    if (!(await this.schemaExists())) return { initialized: false, migrations: [], pending: Object.keys(MIGRATIONS) };
    const [done, pending] = (await this.db.migrate.list(this.migrationConfig)) as [{ name: string }[] | string[], string[]];
    const migrations = done.map((m) => (typeof m === 'string' ? m : m.name));
    const seeded = pending.length === 0 && (await this.db('concepts').count<{ n: number | string }[]>({ n: '*' }))[0]!;
    return { initialized: pending.length === 0 && Number(seeded ? seeded.n : 0) > 0, migrations, pending };
  }

  async migrate(): Promise<DatastoreStatus> {
    await this.latest(async () => {});
    return this.status();
  }

  async initialize(): Promise<DatastoreStatus> {
    await this.latest(async (trx) => {
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

  private async schemaExists(): Promise<boolean> {
    if (this.opts.kind !== 'postgres' || !this.opts.schema) return true;
    const { rows } = await this.db.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_namespace WHERE nspname = ?', [this.opts.schema]);
    return rows.length > 0;
  }

  /**
   * Applies the pending migrations, then `then` in a transaction. On PostgreSQL it first creates
   * the configured schema when absent, so a fresh database needs no manual step (the name is an
   * identifier the config allows, `^[a-z_][a-z0-9_]*$`, and reaches SQL quoted as one). Replicas
   * starting together on a fresh database all initialise at once: neither CREATE SCHEMA IF NOT
   * EXISTS nor knex's creation of its bookkeeping tables nor the seed's check-then-insert is safe
   * against that (each fails on a unique index), so the whole step holds one advisory lock per
   * schema, and whoever waited finds nothing left to do.
   */
  private async latest(then: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
    if (this.opts.kind !== 'postgres') {
      await this.db.migrate.latest(this.migrationConfig);
      await this.db.transaction(then);
      return;
    }
    const schema = this.opts.schema;
    await this.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, hashtext(?))', [MIGRATION_SPACE, schema ?? 'public']);
      if (schema) await trx.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
      await trx.migrate.latest(this.migrationConfig);
      await then(trx);
    });
  }

  async close(): Promise<void> {
    await this.lease?.release();
    await this.db.destroy();
  }

  // ---- concepts

  async listConcepts(): Promise<Concept[]> {
    const rows = await this.db('concepts').orderBy('id');
    return Promise.all(rows.map((r) => this.hydrateConcept(r)));
  }

  async getConcept(id: number): Promise<Concept | undefined> {
    const row = await this.db('concepts').where({ id }).first();
    return row ? this.hydrateConcept(row) : undefined;
  }

  private async hydrateConcept(row: Row): Promise<Concept> {
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

  // ---- orders (client side)

  async createOrder(order: NewOrder, quota: OrderQuota): Promise<CreateOrderResult> {
    const at = now();
    const created = await this.db.transaction(async (trx): Promise<{ refused: 'open-orders'; open: number } | { orderId: number }> => {
      // Count and insert under one lock per owner, so concurrent requests cannot both pass the quota.
      // SQLite runs one write transaction at a time already.
      if (this.opts.kind === 'postgres') await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`dggs-api owner ${order.owner}`]);
      const open = await this.count(trx('orders').where({ owner: order.owner }).whereIn('status', OPEN));
      if (open >= quota.maxOpenOrders) return { refused: 'open-orders', open };
      const counts = { ...zeroCounts(), accepted: order.jobs.length };
      const [inserted] = await trx('orders')
        .insert({ owner: order.owner, title: order.title ?? null, collection: order.collection ?? null, concept_id: order.concept ?? null, dggrs: order.dggrs, status: 'accepted', job_counts: JSON.stringify(counts), created_at: at, updated_at: at })
        .returning('id');
      const orderId = Number(typeof inserted === 'object' ? inserted.id : inserted);
      const rows = order.jobs.map((j) => ({
        order_id: orderId,
        status: 'accepted',
        collection: j.collection,
        dggrs: j.dggrs,
        zone_id: j.zoneId,
        zone_depth: j.zoneDepth,
        properties: j.properties ? JSON.stringify(j.properties) : null,
        concept_id: j.concept ?? null,
        derived_indice: j.derivedIndice ?? null,
        progress: 0,
        message: null,
        attempts: 0,
        queued: false,
        created_at: at,
        updated_at: at,
      }));
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await trx('jobs').insert(rows.slice(i, i + INSERT_CHUNK));
      return { orderId };
    });
    if ('refused' in created) return created;
    const [orderRow, jobRows] = await Promise.all([this.db('orders').where({ id: created.orderId }).first(), this.db('jobs').where({ order_id: created.orderId }).orderBy('id')]);
    return { created: toOrder(orderRow, (await this.countsOf([orderRow])).get(created.orderId)!), jobs: jobRows.map((r) => toJob(r, [])) };
  }

  async listOrders(owner: string, page: Page): Promise<Paged<Order>> {
    const base = () => {
      const q = this.db('orders').where({ owner });
      return page.status ? q.andWhere({ status: page.status }) : q;
    };
    const [total, rows] = await Promise.all([this.count(base()), base().orderBy('id').limit(page.limit).offset(page.offset)]);
    const counts = await this.countsOf(rows);
    return { total, items: rows.map((r) => toOrder(r, counts.get(Number(r.id))!)) };
  }

  async getOrder(owner: string, id: number): Promise<Order | undefined> {
    const row = await this.db('orders').where({ id, owner }).first();
    if (!row) return undefined;
    return toOrder(row, (await this.countsOf([row])).get(id)!);
  }

  async listJobs(orderId: number, page: Page): Promise<Paged<Job>> {
    const base = () => {
      const q = this.db('jobs').where({ order_id: orderId });
      return page.status ? q.andWhere({ status: page.status }) : q;
    };
    return this.snapshot(async (trx) => {
      const [total, rows] = await Promise.all([this.count(base().transacting(trx)), base().transacting(trx).orderBy('id').limit(page.limit).offset(page.offset)]);
      return { total, items: await this.withAttempts(trx, rows) };
    });
  }

  async getJob(orderId: number, jobId: number): Promise<Job | undefined> {
    return this.snapshot(async (trx) => {
      const row = await trx('jobs').where({ order_id: orderId, id: jobId }).first();
      return row ? (await this.withAttempts(trx, [row]))[0] : undefined;
    });
  }

  /**
   * Reads that must agree with each other (a job and its attempts): one snapshot of the database.
   * PostgreSQL gives each statement its own snapshot under READ COMMITTED, so a job finishing
   * between two of them showed `running` with a `successful` last attempt; REPEATABLE READ takes
   * one for the transaction. An SQLite transaction reads one state of the file.
   */
  private snapshot<T>(read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(read, this.opts.kind === 'postgres' ? { isolationLevel: 'repeatable read', readOnly: true } : {});
  }

  async dismissOrder(owner: string, id: number): Promise<{ order: Order; jobIds: number[] } | undefined> {
    const at = now();
    const dismissed = await this.db.transaction(async (trx) => {
      const row = await trx('orders').where({ id, owner }).first();
      if (!row) return undefined;
      await this.lockOrder(trx, id);
      // Only what is not final changes: a job that finished (here, or in a worker racing this
      // transaction) keeps its state and its result; an order already final stays so.
      await trx('orders').where({ id }).whereIn('status', OPEN).update({ status: 'dismissed', updated_at: at });
      const jobIds: number[] = (
        await trx('jobs')
          .where({ order_id: id })
          .whereIn('status', OPEN)
          .update({ status: 'dismissed', message: 'dismissed by its owner', result: null, finished_at: at, updated_at: at })
          .returning('id')
      )
        .map((r: { id: number | string } | number) => Number(typeof r === 'object' ? r.id : r))
        .sort((x, y) => x - y);
      for (let i = 0; i < jobIds.length; i += INSERT_CHUNK) {
        await trx('job_attempts').where({ outcome: 'running' }).whereIn('job_id', jobIds.slice(i, i + INSERT_CHUNK)).update({ outcome: 'dismissed', ended_at: at });
      }
      await this.refreshOrder(trx, id, at);
      return jobIds;
    });
    if (!dismissed) return undefined;
    return { order: (await this.getOrder(owner, id))!, jobIds: dismissed };
  }

  // ---- the job lifecycle (runner side)

  async claimJob(jobId: number, worker: string, maxAttempts: number): Promise<Claim> {
    return this.db.transaction(async (trx): Promise<Claim> => {
      const row = await this.lockedJob(trx, jobId);
      if (!row) return { kind: 'skip', status: 'missing' };
      let status = row.status as JobStatus;
      if (FINAL_STATUSES.includes(status)) return { kind: 'skip', status };
      const n = Number(row.attempts);
      const at = now();
      const exhausted = async (): Promise<Claim> => ({ kind: 'exhausted', job: (await this.withAttempts(trx, [await trx('jobs').where({ id: jobId }).first()]))[0]! });
      if (status === 'running') {
        // Delivered again while running: the process that ran attempt n stopped.
        if ((await this.interruptAttempt(trx, row, maxAttempts, at)) === 'failed') return exhausted();
        status = 'accepted';
      }
      const fence = () => trx('jobs').where({ id: jobId, attempts: n, status });
      if (n >= maxAttempts) {
        const last = await trx('job_attempts').where({ job_id: jobId, attempt: n }).first();
        const message = `failed after ${plural(n, 'attempt')}: ${last?.error ?? STOPPED}`;
        if ((await fence().update({ status: 'failed', message, finished_at: at, updated_at: at })) === 0) return { kind: 'skip', status: 'taken' };
        await this.refreshOrder(trx, Number(row.order_id), at);
        return exhausted();
      }
      const claimed = await fence().update({ status: 'running', attempts: n + 1, progress: 0, message: `attempt ${n + 1} of ${maxAttempts} started`, started_at: row.started_at ?? at, updated_at: at });
      if (claimed === 0) return { kind: 'skip', status: 'taken' };
      await trx('job_attempts').insert({ job_id: jobId, attempt: n + 1, worker: worker.slice(0, 200), started_at: at, outcome: 'running' });
      await this.refreshOrder(trx, Number(row.order_id), at);
      const job = (await this.withAttempts(trx, [await trx('jobs').where({ id: jobId }).first()]))[0]!;
      return { kind: 'run', job, attempt: n + 1 };
    });
  }

  async reportProgress(jobId: number, attempt: number, progress: number, message: string): Promise<boolean> {
    const updated = await this.db('jobs').where({ id: jobId, attempts: attempt, status: 'running' }).update({ progress, message, updated_at: now() });
    return updated > 0;
  }

  async completeJob(jobId: number, attempt: number, result: JobResultInfo): Promise<boolean> {
    const at = now();
    return this.db.transaction(async (trx) => {
      const row = await this.lockedJob(trx, jobId);
      if (!row || Number(row.attempts) !== attempt || row.status !== 'running') return false;
      await trx('jobs').where({ id: jobId }).update({ status: 'successful', progress: 100, message: 'done', result: JSON.stringify(result), finished_at: at, updated_at: at });
      await trx('job_attempts').where({ job_id: jobId, attempt }).update({ outcome: 'successful', ended_at: at });
      await this.refreshOrder(trx, Number(row.order_id), at);
      return true;
    });
  }

  async failAttempt(jobId: number, attempt: number, error: string, final: boolean): Promise<boolean> {
    const at = now();
    return this.db.transaction(async (trx) => {
      const row = await this.lockedJob(trx, jobId);
      if (!row || Number(row.attempts) !== attempt || row.status !== 'running') return false;
      const message = final ? `failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${error}` : `attempt ${attempt} failed: ${error}; retrying`;
      await trx('jobs').where({ id: jobId }).update({ status: final ? 'failed' : 'accepted', message, ...(final ? { finished_at: at } : {}), updated_at: at });
      await trx('job_attempts').where({ job_id: jobId, attempt }).update({ outcome: 'failed', ended_at: at, error });
      await this.refreshOrder(trx, Number(row.order_id), at);
      return true;
    });
  }

  async abandonJob(jobId: number, reason: string): Promise<void> {
    const at = now();
    await this.db.transaction(async (trx) => {
      const row = await this.lockedJob(trx, jobId);
      if (!row || !OPEN.includes(row.status as JobStatus)) return;
      await trx('job_attempts').where({ job_id: jobId, outcome: 'running' }).update({ outcome: 'interrupted', ended_at: at, error: STOPPED });
      await trx('jobs').where({ id: jobId }).update({ status: 'failed', message: `failed: ${reason}`, finished_at: at, updated_at: at });
      await this.refreshOrder(trx, Number(row.order_id), at);
    });
  }

  async holdLease(worker: string): Promise<boolean> {
    return this.lease ? this.lease.hold(worker.slice(0, 200)) : true;
  }

  async interruptOrphanedAttempts(self: string, runsHere: (jobId: number) => boolean, maxAttempts: number) {
    const me = self.slice(0, 200);
    const open: Row[] = await this.db('jobs as j')
      .join('job_attempts as a', (on) => on.on('a.job_id', '=', 'j.id').andOn('a.attempt', '=', 'j.attempts'))
      .where('j.status', 'running')
      .andWhere('a.outcome', 'running')
      .select('j.id', 'j.attempts', 'a.worker')
      .orderBy('j.id');
    const requeued: { id: number; orderId: number; attempts: number }[] = [];
    for (const r of open) {
      const id = Number(r.id);
      const worker = String(r.worker);
      if (worker === me && runsHere(id)) continue;
      const outcome = await this.db.transaction(async (trx) => {
        const row = await this.lockedJob(trx, id);
        if (!row || row.status !== 'running' || Number(row.attempts) !== Number(r.attempts)) return undefined;
        if (worker !== me && !(await this.workerGone(trx, worker))) return undefined;
        return { row, state: await this.interruptAttempt(trx, row, maxAttempts, now()) };
      });
      if (outcome?.state === 'accepted') requeued.push({ id, orderId: Number(outcome.row.order_id), attempts: Number(outcome.row.attempts) });
    }
    return requeued;
  }

  async unfinishedJobs(afterId: number, limit: number) {
    const rows = await this.db('jobs').select('id', 'order_id', 'status', 'attempts').whereIn('status', OPEN).andWhere('id', '>', afterId).orderBy('id').limit(limit);
    return rows.map((r) => ({ id: Number(r.id), orderId: Number(r.order_id), status: r.status as JobStatus, attempts: Number(r.attempts) }));
  }

  async unqueuedJobs(before: string, limit: number) {
    const rows = await this.db('jobs').select('id', 'order_id').where({ status: 'accepted', queued: false }).andWhere('created_at', '<', before).orderBy('id').limit(limit);
    return rows.map((r) => ({ id: Number(r.id), orderId: Number(r.order_id) }));
  }

  async markQueued(jobIds: number[]): Promise<void> {
    for (let i = 0; i < jobIds.length; i += INSERT_CHUNK) await this.db('jobs').whereIn('id', jobIds.slice(i, i + INSERT_CHUNK)).update({ queued: true });
  }

  async openJobCounts(): Promise<Record<'accepted' | 'running', number>> {
    const counts = { accepted: 0, running: 0 };
    const rows: Row[] = await this.db('jobs').select('status').count({ n: '*' }).whereIn('status', OPEN).groupBy('status');
    for (const r of rows) if (r.status === 'accepted' || r.status === 'running') counts[r.status] = Number(r.n);
    return counts;
  }

  // ---- tokens

  async createToken(owner: string, digest: string, label?: string): Promise<TokenRecord> {
    const [inserted] = await this.db('api_tokens').insert({ owner, digest, label: label ?? null, created_at: now() }).returning('id');
    const id = Number(typeof inserted === 'object' ? inserted.id : inserted);
    return toToken(await this.db('api_tokens').where({ id }).first());
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.db('api_tokens').orderBy('id')).map(toToken);
  }

  async revokeToken(id: number): Promise<boolean> {
    return (await this.db('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: now() })) > 0;
  }

  async findToken(digest: string): Promise<TokenRecord | undefined> {
    const row = await this.db('api_tokens').where({ digest }).whereNull('revoked_at').first();
    return row ? toToken(row) : undefined;
  }

  // ---- helpers

  /**
   * Records the job's running attempt as interrupted (its process stopped): the job goes back to
   * `accepted` for another attempt, or fails when that was its last. Fenced by the attempt number.
   */
  private async interruptAttempt(trx: Knex.Transaction, row: Row, maxAttempts: number, at: string): Promise<'accepted' | 'failed'> {
    const n = Number(row.attempts);
    await trx('job_attempts').where({ job_id: row.id, attempt: n, outcome: 'running' }).update({ outcome: 'interrupted', ended_at: at, error: STOPPED });
    const final = n >= maxAttempts;
    const message = final ? `failed after ${plural(n, 'attempt')}: ${STOPPED}` : `attempt ${n} of ${maxAttempts} was interrupted (${STOPPED}); queued again`;
    await trx('jobs')
      .where({ id: row.id, attempts: n, status: 'running' })
      .update({ status: final ? 'failed' : 'accepted', progress: 0, message, ...(final ? { finished_at: at } : {}), updated_at: at });
    await this.refreshOrder(trx, Number(row.order_id), at);
    return final ? 'failed' : 'accepted';
  }

  /**
   * Whether no live process holds `worker`'s lease. SQLite has no leases: one process runs the
   * jobs of a SQLite datastore, so any worker but the caller is gone.
   */
  private async workerGone(trx: Knex.Transaction, worker: string): Promise<boolean> {
    if (this.opts.kind !== 'postgres') return true;
    const [sql, bindings] = leaseFree(this.opts.schema, worker);
    const { rows } = await trx.raw(sql, bindings as Knex.RawBinding[]);
    return rows[0]?.free === true;
  }

  private async count(q: Knex.QueryBuilder): Promise<number> {
    const [row] = await q.clone().clearSelect().clearOrder().count<{ n: number | string }[]>({ n: '*' });
    return Number(row?.n ?? 0);
  }

  /** Job counts of orders: kept on each order row; counted in SQL for rows written before the counts were kept. */
  private async countsOf(orderRows: Row[]): Promise<Map<number, JobCounts>> {
    const out = new Map<number, JobCounts>();
    for (const r of orderRows) if (r.job_counts) out.set(Number(r.id), { ...zeroCounts(), ...JSON.parse(String(r.job_counts)) });
    const missing = orderRows.filter((r) => !r.job_counts).map((r) => Number(r.id));
    for (const id of missing) out.set(id, zeroCounts());
    if (missing.length === 0) return out;
    const rows: Row[] = await this.db('jobs').select('order_id', 'status').count({ n: '*' }).whereIn('order_id', missing).groupBy('order_id', 'status');
    for (const r of rows) if ((JOB_STATUSES as readonly string[]).includes(String(r.status))) out.get(Number(r.order_id))![r.status as JobStatus] = Number(r.n);
    return out;
  }

  /**
   * Every change of a job's state locks its order first (PostgreSQL; SQLite runs one write
   * transaction at a time): the order's counts and status are recomputed from its jobs in the same
   * transaction, and two jobs of one order finishing at once must not each count the other as
   * still running. Locking the order before any job row also keeps lock order the same everywhere.
   */
  private async lockOrder(trx: Knex.Transaction, orderId: number): Promise<void> {
    if (this.opts.kind === 'postgres') await trx.raw('SELECT id FROM orders WHERE id = ? FOR UPDATE', [orderId]);
  }

  /** The job row, read after its order is locked. */
  private async lockedJob(trx: Knex.Transaction, jobId: number): Promise<Row | undefined> {
    const first = await trx('jobs').select('order_id').where({ id: jobId }).first();
    if (!first) return undefined;
    await this.lockOrder(trx, Number(first.order_id));
    return trx('jobs').where({ id: jobId }).first();
  }

  /** After a job changes state: the order's counts, and its status, which follows its jobs except once dismissed. */
  private async refreshOrder(trx: Knex.Transaction, orderId: number, at: string): Promise<void> {
    const counts = await this.jobCountsIn(trx, orderId);
    await trx('orders').where({ id: orderId }).update({ job_counts: JSON.stringify(counts), updated_at: at });
    await trx('orders').where({ id: orderId }).whereNot({ status: 'dismissed' }).update({ status: orderStatusOf(counts) });
  }

  private async jobCountsIn(trx: Knex.Transaction, orderId: number): Promise<JobCounts> {
    const counts = zeroCounts();
    const rows: Row[] = await trx('jobs').select('status').count({ n: '*' }).where({ order_id: orderId }).groupBy('status');
    for (const r of rows) if ((JOB_STATUSES as readonly string[]).includes(String(r.status))) counts[r.status as JobStatus] = Number(r.n);
    return counts;
  }

  private async withAttempts(db: Knex | Knex.Transaction, rows: Row[]): Promise<Job[]> {
    if (rows.length === 0) return [];
    const attempts = await db('job_attempts').whereIn('job_id', rows.map((r) => Number(r.id))).orderBy(['job_id', 'attempt']);
    const byJob = new Map<number, Row[]>();
    for (const a of attempts) byJob.set(Number(a.job_id), [...(byJob.get(Number(a.job_id)) ?? []), a]);
    return rows.map((r) => toJob(r, (byJob.get(Number(r.id)) ?? []).map(toAttempt)));
  }
}
