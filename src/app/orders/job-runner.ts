import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Job, JobLedger, OrderStore } from '../../ports/datastore.js';
import type { Delivery, JobQueue, QueuedJob } from '../../ports/job-queue.js';
import type { JobResults } from '../../ports/job-results.js';
import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataService } from '../zone-data/zone-data-service.js';
import type { Logger } from '../../ports/logger.js';
import { AppError, isRequestFault } from '../../ports/errors.js';

export interface JobRunnerOptions {
  /** Identifies this process in each attempt's record (host:pid). */
  worker: string;
  maxAttempts: number;
  /** Backoff before re-running a job whose process stopped: retryDelayMs x 2^(attempts-1). */
  retryDelayMs: number;
  /** How often to look for committed jobs that never reached the queue. */
  sweepIntervalMs: number;
  /** Age after which an accepted job that was never queued is queued by the sweep. */
  sweepAfterMs: number;
}

/** The attempt lost its job (dismissed, or taken over after it was presumed dead): stop quietly. */
class JobLost extends Error {}

/**
 * How an attempt ended, as its log line says: `succeeded`; `retrying` (it failed or its worker
 * stopped, and the job runs again); `failed` (for good: a refused request or the last attempt);
 * `dismissed` (the owner dismissed the order meanwhile); `superseded` (another attempt holds the
 * job now). `requeue` is thrown to the queue so that it delivers the job again.
 */
type AttemptEnd =
  | { outcome: 'succeeded'; rows: number; bytes: number; requeue?: undefined }
  | { outcome: 'retrying' | 'failed'; reason: string; err?: unknown; requeue?: unknown }
  | { outcome: 'dismissed' | 'superseded'; requeue?: undefined };

/**
 * Runs jobs as the queue delivers them. Each delivery claims the job in the datastore (one more
 * attempt), computes the zone data through the zone-data use case, writes it as parquet, and
 * records success. The datastore decides: a delivery of a job that is already final does
 * nothing, and every write after the claim is fenced by the attempt number, so a job completes
 * once however often it is delivered. Progress is written at each step, and a step that finds
 * the job no longer held (dismissed) stops the attempt.
 */
@injectable()
export class JobRunner {
  private sweepTimer?: NodeJS.Timeout;
  private working = false;
  private recovered = false;
  private stopped = false;
  private leaseRefused = false;
  /** Deliveries this process is running, by job id (counted: a job may be delivered twice). */
  private readonly runningHere = new Map<number, number>();

  constructor(
    @inject(TOKENS.JobLedger) private readonly store: JobLedger & Pick<OrderStore, 'getJob'>,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
    @inject(TOKENS.JobResults) private readonly results: JobResults,
    @inject(TOKENS.ZoneDataService) private readonly zoneData: Pick<ZoneDataService, 'collectionZoneData'>,
    @inject(TOKENS.JobRunnerOptions) private readonly opts: JobRunnerOptions,
    @inject(TOKENS.Logger) private readonly log: Logger,
  ) {}

  /** Starts taking jobs; a queue or datastore not reachable yet is retried at each sweep, never fails the caller. */
  async start(): Promise<void> {
    await this.tick();
    this.sweepTimer = setInterval(() => void this.tick(), this.opts.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  async stop(graceMs?: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.queue.close(graceMs);
  }

  /**
   * Takes this process's lease (before any job is claimed under its name), puts back the jobs of
   * processes that are gone, joins the queue and recovers until each succeeds once (the database
   * may not be up or initialised yet); then, at every sweep, renews the lease, puts back jobs
   * again, and queues jobs that never reached the queue.
   */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const leased = await this.store.holdLease(this.opts.worker);
      if (!leased && !this.leaseRefused) this.log.warn({ worker: this.opts.worker }, 'another live process runs jobs under this name; its attempts and ours look alike');
      this.leaseRefused = !leased;
      // Before joining the queue, which may take a while to start (pg-boss): a restart puts back
      // what its predecessor left at once.
      const orphans = await this.interruptOrphans();
      if (!this.working) {
        await this.queue.work(
          (d) => this.run(d),
          async (job, reason) => {
            this.log.warn({ orderId: job.orderId, jobId: job.jobId, reason }, 'job given up by the queue');
            await this.store.abandonJob(job.jobId, reason);
          },
        );
        this.working = true;
      }
      if (!this.recovered) {
        await this.recover();
        this.recovered = true;
      } else if (!this.queue.durable) {
        for (const j of orphans) await this.queue.enqueue([{ jobId: j.id, orderId: j.orderId }], { delayMs: this.backoff(j.attempts) });
      }
      await this.sweep();
    } catch (err) {
      this.log.warn({ err }, 'job recovery or sweep failed; retrying at the next sweep');
    }
  }

  /**
   * Attempts whose process is gone (killed, crashed, its machine lost) are recorded interrupted and
   * their jobs put back to `accepted` as soon as this process starts or sweeps, rather than when a
   * queue delivers them again: a job never shows `running` while nothing runs it.
   */
  private async interruptOrphans() {
    const orphans = await this.store.interruptOrphanedAttempts(this.opts.worker, (jobId) => this.runningHere.has(jobId), this.opts.maxAttempts);
    if (orphans.length > 0) this.log.info({ jobs: orphans.length }, 'attempts of stopped processes recorded as interrupted');
    return orphans;
  }

  /**
   * A queue that forgets on restart gets every unfinished job again: fresh ones at once, those
   * that had attempts after the backoff their attempts earned.
   */
  private async recover(): Promise<void> {
    if (this.queue.durable) return;
    let after = 0;
    for (;;) {
      const page = await this.store.unfinishedJobs(after, 1000);
      if (page.length === 0) return;
      await this.queue.enqueue(page.filter((j) => j.attempts === 0).map((j) => ({ jobId: j.id, orderId: j.orderId })));
      for (const j of page.filter((p) => p.attempts > 0)) {
        await this.queue.enqueue([{ jobId: j.id, orderId: j.orderId }], { delayMs: this.backoff(j.attempts) });
      }
      this.log.info({ jobs: page.length }, 'unfinished jobs queued again');
      after = page[page.length - 1]!.id;
    }
  }

  /** Jobs committed with their order but never handed to the queue (the process stopped in between). */
  private async sweep(): Promise<void> {
    const before = new Date(Date.now() - this.opts.sweepAfterMs).toISOString();
    for (;;) {
      const page = await this.store.unqueuedJobs(before, 1000);
      if (page.length === 0) return;
      await this.queue.enqueue(page.map((j) => ({ jobId: j.id, orderId: j.orderId })));
      await this.store.markQueued(page.map((j) => j.id));
    }
  }

  private backoff(attempts: number): number {
    return this.opts.retryDelayMs * 2 ** Math.max(0, attempts - 1);
  }

  /** One delivery. Resolves when the job needs no further delivery; throws to have the queue retry. */
  async run(delivery: Delivery): Promise<void> {
    const jobId = delivery.job.jobId;
    // Counted before the claim: from the claim on, this process's sweep must see the attempt as its own.
    this.runningHere.set(jobId, (this.runningHere.get(jobId) ?? 0) + 1);
    try {
      await this.attempt(delivery);
    } finally {
      const left = this.runningHere.get(jobId)! - 1;
      if (left > 0) this.runningHere.set(jobId, left);
      else this.runningHere.delete(jobId);
    }
  }

  /** Claims the job and runs one attempt of it, with a log line as it starts and one as it ends. */
  private async attempt(delivery: Delivery): Promise<void> {
    const { jobId, orderId } = delivery.job;
    const claim = await this.store.claimJob(jobId, this.opts.worker, this.opts.maxAttempts);
    if (claim.kind === 'exhausted') this.log.warn({ orderId, jobId, message: claim.job.message }, 'job failed: attempts used up');
    if (claim.kind === 'skip') this.log.debug({ orderId, jobId, delivery: delivery.delivery, status: claim.status }, 'job delivery skipped');
    if (claim.kind !== 'run') return;
    const fields = { orderId, jobId, attempt: claim.attempt, delivery: delivery.delivery, worker: this.opts.worker };
    this.log.info(fields, 'job attempt started');
    const started = performance.now();
    let end: AttemptEnd;
    try {
      end = await this.execute(claim.job, claim.attempt, delivery);
    } catch (err) {
      // Recording the attempt's end failed (the datastore went away): the queue delivers it again.
      end = { outcome: 'retrying', reason: 'recording the attempt failed', err, requeue: err };
    }
    const ms = Math.round(performance.now() - started);
    const { requeue, ...shown } = end;
    this.log[end.outcome === 'succeeded' || !('err' in end) ? 'info' : 'warn']({ ...fields, ...shown, ms }, 'job attempt ended');
    if (requeue !== undefined) throw requeue;
  }

  /** The attempt's work, from computing to recording the result; says how it ended. */
  private async execute(job: Job, attempt: number, delivery: Delivery): Promise<AttemptEnd> {
    const step = async (progress: number, message: string) => {
      if (delivery.signal.aborted) throw new JobLost('aborted');
      if (!(await this.store.reportProgress(job.id, attempt, progress, message))) throw new JobLost('no longer held');
    };
    try {
      await step(5, `computing zone data of ${job.collection} for zone ${job.zoneId} at depth ${job.zoneDepth}`);
      const data = await this.compute(job, delivery.signal);
      const rows = data.depths.reduce((n, d) => n + d.zones.length, 0);
      await step(70, `writing ${rows} rows`);
      const bytes = await this.results.write(job.orderId, job.id, data);
      await step(95, 'recording the result');
      const done = await this.store.completeJob(job.id, attempt, { fields: data.fields, sources: data.sources, rows, bytes });
      if (!done) throw new JobLost('no longer held');
      return { outcome: 'succeeded', rows, bytes };
    } catch (err) {
      if (err instanceof JobLost || delivery.signal.aborted) {
        // Still held: the queue stopped this delivery (shutdown); the attempt ends and the job goes
        // back to the queue. Not held: see lost().
        const final = attempt >= this.opts.maxAttempts;
        const reason = 'the worker stopped during the attempt';
        if (await this.store.failAttempt(job.id, attempt, reason, final)) return final ? { outcome: 'failed', reason } : { outcome: 'retrying', reason, requeue: err };
        return this.lost(job);
      }
      const reason = err instanceof AppError ? `${err.message}${err.hint ? `: ${err.hint}` : ''}` : err instanceof Error ? err.message : String(err);
      // A request the zone-data use case refuses (4xx) will be refused again: no retry.
      const final = isRequestFault(err) || attempt >= this.opts.maxAttempts;
      await this.store.failAttempt(job.id, attempt, reason.slice(0, 2000), final);
      return final ? { outcome: 'failed', reason, err } : { outcome: 'retrying', reason, err, requeue: err };
    }
  }

  /**
   * The attempt no longer holds the job. Dismissed: its file must not outlive the dismissal.
   * Back to `accepted` (another process took this one for gone, its lease lost for a moment): the
   * queue must deliver the job again, since this delivery ends here. Held by another attempt, or
   * final: nothing more to do.
   */
  private async lost(job: Job): Promise<AttemptEnd> {
    const now = await this.store.getJob(job.orderId, job.id);
    if (!now || now.status === 'dismissed') {
      await this.results.remove(job.orderId, [job.id]);
      return { outcome: 'dismissed' };
    }
    if (now.status === 'accepted') {
      const reason = 'the attempt was taken for interrupted; the job runs again';
      return { outcome: 'retrying', reason, requeue: new JobLost(reason) };
    }
    return { outcome: 'superseded' };
  }

  /** `signal`: the delivery's; the computation stops when the queue stops the delivery. */
  private async compute(job: Job, signal: AbortSignal): Promise<ZoneData> {
    const data = await this.zoneData.collectionZoneData(
      job.collection,
      {
        dggrsId: job.dggrs,
        zoneId: job.zoneId,
        zoneDepth: String(job.zoneDepth),
        ...(job.properties ? { properties: job.properties } : {}),
      },
      signal,
    );
    return job.derivedIndice ? renameFields(data, job.derivedIndice) : data;
  }
}

/** A concept job names its output after the derived indice: `<indice>`, or `<indice>_<field>` for several fields. */
export function renameFields(data: ZoneData, indice: string): ZoneData {
  const names = Object.keys(data.fields);
  const rename = (n: string) => (names.length === 1 ? indice : `${indice}_${n}`);
  return {
    ...data,
    fields: Object.fromEntries(names.map((n) => [rename(n), data.fields[n]!])),
    depths: data.depths.map((d) => ({ ...d, values: Object.fromEntries(Object.entries(d.values).map(([n, v]) => [rename(n), v])) })),
  };
}

export type { QueuedJob };
