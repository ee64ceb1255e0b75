import { createHash } from 'node:crypto';
import type { PgBoss, Job as BossJob } from 'pg-boss';
import { pgBossOf, type PgBossConnection } from './pg-boss-instance.js';
import type { PyramidPartHandler, PyramidPartOutcome, PyramidPartQueue, PyramidPartState, PyramidPartTask } from '../../ports/pyramid-parts.js';

/** `schema` is shared with the order jobs' queue. */
export interface PgBossPyramidPartsOptions extends PgBossConnection {
  /** Attempts of one part before it fails for good. */
  maxAttempts: number;
}

export const PYRAMID_PARTS_QUEUE = 'dggs-pyramid-parts';

/** Parts of one generation: pg-boss lists at most this many per look. */
const MAX_PARTS = 100_000;

/** A stable pg-boss id per (ingest run, part): queueing a part twice is a no-op. */
export function partQueueId(ingest: string, part: string): string {
  const h = createHash('sha256').update(`dggs-api pyramid part ${ingest}\u0000${part}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Pyramid parts on PostgreSQL through pg-boss: the ingest queues them, and every process working
 * the queue (`npm run worker` on any machine, the ingest itself) claims them with SKIP LOCKED. A
 * process that dies mid-part stops its heartbeats and the supervisor retries the part elsewhere;
 * a part whose attempts run out is `failed` with its last error, which the ingest reports.
 */
export class PgBossPyramidParts implements PyramidPartQueue {
  private readonly boss: PgBoss;
  private starting?: Promise<void>;
  private readonly controllers = new Set<AbortController>();
  private closed = false;

  constructor(private readonly opts: PgBossPyramidPartsOptions) {
    this.boss = pgBossOf(opts, 6, 'dggs-api pyramid parts');
  }

  private ready(): Promise<void> {
    this.starting ??= (async () => {
      try {
        await this.boss.start();
      } catch (err) {
        this.starting = undefined;
        throw err;
      }
      const options = {
        retryLimit: this.opts.maxAttempts - 1,
        retryDelay: this.opts.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: 300,
        heartbeatSeconds: this.opts.heartbeatSeconds,
        expireInSeconds: 24 * 3600,
      };
      await this.boss.createQueue(PYRAMID_PARTS_QUEUE, options);
      await this.boss.updateQueue(PYRAMID_PARTS_QUEUE, options);
    })();
    return this.starting;
  }

  async enqueue(tasks: PyramidPartTask[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.ready();
    for (let i = 0; i < tasks.length; i += 500) {
      await this.boss.insert(
        PYRAMID_PARTS_QUEUE,
        tasks.slice(i, i + 500).map((task) => ({ id: partQueueId(task.ingest, task.part), data: task as unknown as object })),
      );
    }
  }

  async work(handler: PyramidPartHandler, concurrency: number): Promise<void> {
    await this.ready();
    // One pg-boss worker per slot, woken again as soon as it finishes (see pg-boss-job-queue.ts).
    for (let slot = 0; slot < concurrency; slot++) {
      let workerId = '';
      workerId = await this.boss.work<PyramidPartTask, PyramidPartOutcome>(PYRAMID_PARTS_QUEUE, { pollingIntervalSeconds: this.opts.pollSeconds, batchSize: 1 }, async ([job]) => {
        if (!job) return undefined as unknown as PyramidPartOutcome;
        try {
          return await this.deliver(job, handler);
        } finally {
          if (!this.closed) this.boss.notifyWorker(workerId);
        }
      });
    }
  }

  private async deliver(job: BossJob<PyramidPartTask>, handler: PyramidPartHandler): Promise<PyramidPartOutcome> {
    const controller = new AbortController();
    const abort = () => controller.abort(job.signal.reason);
    job.signal.addEventListener('abort', abort, { once: true });
    this.controllers.add(controller);
    try {
      return await handler(job.data, controller.signal);
    } finally {
      job.signal.removeEventListener('abort', abort);
      this.controllers.delete(controller);
    }
  }

  async states(ingest: string): Promise<PyramidPartState[]> {
    await this.ready();
    const jobs = await this.boss.findJobs<PyramidPartTask>(PYRAMID_PARTS_QUEUE, { data: { ingest }, limit: MAX_PARTS });
    return jobs.map((j) => {
      const part = j.data.part;
      const output = j.output as (Partial<PyramidPartOutcome> & { message?: string }) | null;
      if (j.state === 'completed') return { part, state: 'done', outcome: { rows: output?.rows ?? 0, ownRows: output?.ownRows ?? 0, cells: output?.cells ?? 0 } };
      if (j.state === 'failed') return { part, state: 'failed', reason: `${output?.message ?? 'no message'} (after ${j.retryCount + 1} attempt(s))` };
      if (j.state === 'cancelled') return { part, state: 'failed', reason: 'cancelled' };
      return { part, state: j.state === 'active' ? 'running' : 'queued' };
    });
  }

  async cancel(ingest: string): Promise<void> {
    await this.ready();
    const jobs = await this.boss.findJobs<PyramidPartTask>(PYRAMID_PARTS_QUEUE, { data: { ingest }, queued: true, limit: MAX_PARTS });
    for (let i = 0; i < jobs.length; i += 500) await this.boss.cancel(PYRAMID_PARTS_QUEUE, jobs.slice(i, i + 500).map((j) => j.id));
  }

  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.starting) return;
    if (!(await this.starting.then(() => true, () => false))) return;
    const timer = setTimeout(() => {
      for (const c of this.controllers) c.abort(new Error('the queue stopped'));
    }, graceMs);
    timer.unref();
    try {
      await this.boss.stop({ graceful: true, timeout: graceMs + 2000, close: true });
    } finally {
      clearTimeout(timer);
    }
  }
}
