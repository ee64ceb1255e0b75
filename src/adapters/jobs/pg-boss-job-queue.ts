import { createHash } from 'node:crypto';
import type { PgBoss, Job as BossJob } from 'pg-boss';
import { pgBossOf, type PgBossConnection } from './pg-boss-instance.js';
import type { EnqueueOptions, ExhaustedHandler, JobHandler, JobQueue, QueuedJob } from '../../ports/job-queue.js';

export interface PgBossJobQueueOptions extends PgBossConnection {
  /** Jobs run at once in this process. */
  concurrency: number;
  /** Deliveries of one job before it is given up (moved to the dead-letter queue, then the exhausted handler runs). */
  maxDeliveries: number;
}

export const QUEUE = 'dggs-order-jobs';
export const DEAD_LETTERS = 'dggs-order-jobs-exhausted';

/** A stable pg-boss id per job (UUID layout, version 5 bits): enqueueing twice is a no-op. */
export function queueIdOf(jobId: number): string {
  const h = createHash('sha256').update(`dggs-api order job ${jobId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The job queue on PostgreSQL through pg-boss: any number of processes, on any number of
 * machines, share it (SKIP LOCKED claims). A process that dies mid-job stops sending heartbeats;
 * pg-boss's supervisor then puts the job back for a retry, with backoff, until the retries run
 * out and the job goes to a dead-letter queue whose worker calls the exhausted handler.
 */
export class PgBossJobQueue implements JobQueue {
  readonly durable = true;
  private readonly boss: PgBoss;
  private starting?: Promise<void>;
  private readonly controllers = new Map<number, Set<AbortController>>();
  private closed = false;

  constructor(private readonly opts: PgBossJobQueueOptions) {
    this.boss = pgBossOf(opts, Math.max(4, opts.concurrency + 2), 'dggs-api jobs');
  }

  private ready(): Promise<void> {
    this.starting ??= (async () => {
      try {
        await this.boss.start();
      } catch (err) {
        // Unreachable database: let the next call try again.
        this.starting = undefined;
        throw err;
      }
      const retry = { retryDelay: this.opts.retryDelaySeconds, retryBackoff: true, retryDelayMax: 300 };
      const options = { ...retry, retryLimit: this.opts.maxDeliveries - 1, heartbeatSeconds: this.opts.heartbeatSeconds, deadLetter: DEAD_LETTERS, expireInSeconds: 24 * 3600 };
      await this.boss.createQueue(DEAD_LETTERS, { ...retry, retryLimit: 10 });
      await this.boss.createQueue(QUEUE, options);
      // An existing queue takes the current settings (createQueue leaves it as it was).
      await this.boss.updateQueue(QUEUE, options);
    })();
    return this.starting;
  }

  async enqueue(jobs: QueuedJob[], options: EnqueueOptions = {}): Promise<void> {
    if (jobs.length === 0) return;
    await this.ready();
    jobs = [...new Map(jobs.map((j) => [j.jobId, j])).values()];
    const startAfter = options.delayMs ? new Date(Date.now() + options.delayMs) : undefined;
    for (let i = 0; i < jobs.length; i += 500) {
      await this.boss.insert(
        QUEUE,
        jobs.slice(i, i + 500).map((job) => ({ id: queueIdOf(job.jobId), data: { jobId: job.jobId, orderId: job.orderId }, ...(startAfter ? { startAfter } : {}) })),
      );
    }
  }

  async work(handler: JobHandler, exhausted: ExhaustedHandler): Promise<void> {
    await this.ready();
    const polling = { pollingIntervalSeconds: this.opts.pollSeconds };
    // One pg-boss worker per slot, each knowing its own id: pg-boss waits a whole poll interval
    // after every job it fetched one at a time, so a busy worker would run at most one job per
    // interval with a backlog waiting. Waking the worker that just finished makes it fetch again at
    // once; an empty fetch puts it back on the poll interval.
    for (let slot = 0; slot < this.opts.concurrency; slot++) {
      let workerId = '';
      workerId = await this.boss.work<QueuedJob>(QUEUE, { ...polling, batchSize: 1 }, async ([job]) => {
        if (!job) return;
        try {
          await this.deliver(job, handler);
        } finally {
          if (!this.closed) this.boss.notifyWorker(workerId);
        }
      });
    }
    await this.boss.work<QueuedJob>(DEAD_LETTERS, { ...polling, batchSize: 1 }, async ([job]) => {
      if (!job) return;
      await exhausted(job.data, `the queue gave up after ${this.opts.maxDeliveries} deliveries (processes stopped or attempts failed)`);
    });
  }

  private async deliver(job: BossJob<QueuedJob>, handler: JobHandler): Promise<void> {
    const controller = new AbortController();
    const abort = () => controller.abort(job.signal.reason);
    job.signal.addEventListener('abort', abort, { once: true });
    const set = this.controllers.get(job.data.jobId) ?? new Set();
    set.add(controller);
    this.controllers.set(job.data.jobId, set);
    try {
      await handler({ job: job.data, delivery: job.retryCount + 1, signal: controller.signal });
    } finally {
      job.signal.removeEventListener('abort', abort);
      set.delete(controller);
      if (set.size === 0) this.controllers.delete(job.data.jobId);
    }
  }

  async cancel(jobs: QueuedJob[]): Promise<void> {
    if (jobs.length === 0) return;
    for (const { jobId } of jobs) for (const c of this.controllers.get(jobId) ?? []) c.abort(new Error('cancelled'));
    await this.ready();
    for (let i = 0; i < jobs.length; i += 500) await this.boss.cancel(QUEUE, jobs.slice(i, i + 500).map((j) => queueIdOf(j.jobId)));
  }

  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.starting) return;
    if (!(await this.starting.then(() => true, () => false))) return;
    // Running handlers get the grace period; what is still running after it is retried elsewhere
    // once its heartbeat stops.
    const timer = setTimeout(() => {
      for (const set of this.controllers.values()) for (const c of set) c.abort(new Error('the queue stopped'));
    }, graceMs);
    timer.unref();
    try {
      await this.boss.stop({ graceful: true, timeout: graceMs + 2000, close: true });
    } finally {
      clearTimeout(timer);
    }
  }
}
