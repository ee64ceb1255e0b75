import type { EnqueueOptions, ExhaustedHandler, JobHandler, JobQueue, QueuedJob } from '../../ports/job-queue.js';

export interface InProcessJobQueueOptions {
  /** Jobs run at once in this process. */
  concurrency: number;
  /** Deliveries of one job before it is given up (the exhausted handler is called). */
  maxDeliveries: number;
  /** Backoff before delivery n+1: retryDelayMs x 2^(n-1). */
  retryDelayMs: number;
}

interface Entry {
  job: QueuedJob;
  delivery: number;
  timer?: NodeJS.Timeout;
  controller?: AbortController;
  done?: Promise<void>;
}

/**
 * The embedded runner: a FIFO in memory with bounded concurrency, retries with exponential
 * backoff. It forgets everything on restart (`durable` false): the job runner re-enqueues the
 * jobs the datastore still has unfinished. One process only: two processes sharing a datastore
 * would each take over the other's running jobs.
 */
export class InProcessJobQueue implements JobQueue {
  readonly durable = false;
  private readonly entries = new Map<number, Entry>();
  private ready: Entry[] = [];
  private head = 0;
  private running = 0;
  private handler?: JobHandler;
  private exhausted?: ExhaustedHandler;
  private closed = false;

  constructor(private readonly opts: InProcessJobQueueOptions) {}

  async enqueue(jobs: QueuedJob[], options: EnqueueOptions = {}): Promise<void> {
    if (this.closed) return;
    for (const job of jobs) {
      if (this.entries.has(job.jobId)) continue;
      const entry: Entry = { job, delivery: 1 };
      this.entries.set(job.jobId, entry);
      this.schedule(entry, options.delayMs ?? 0);
    }
    this.pump();
  }

  async work(handler: JobHandler, exhausted: ExhaustedHandler): Promise<void> {
    this.handler = handler;
    this.exhausted = exhausted;
    this.pump();
  }

  async cancel(jobs: QueuedJob[]): Promise<void> {
    for (const { jobId } of jobs) {
      const entry = this.entries.get(jobId);
      if (!entry) continue;
      clearTimeout(entry.timer);
      entry.controller?.abort(new Error('cancelled'));
      // A ready entry is skipped when its turn comes: it is no longer in `entries`.
      this.entries.delete(jobId);
    }
  }

  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    const active = [...this.entries.values()];
    for (const e of active) clearTimeout(e.timer);
    this.ready = [];
    this.head = 0;
    const done = active.flatMap((e) => (e.done ? [e.done] : []));
    if (done.length === 0) return;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.allSettled(done), grace]);
    for (const e of active) e.controller?.abort(new Error('the queue stopped'));
    await Promise.race([Promise.allSettled(done), new Promise<void>((resolve) => setTimeout(resolve, 1000).unref())]);
  }

  private schedule(entry: Entry, delayMs: number): void {
    if (delayMs <= 0) {
      this.ready.push(entry);
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.ready.push(entry);
      this.pump();
    }, delayMs);
    entry.timer.unref();
  }

  private next(): Entry | undefined {
    while (this.head < this.ready.length) {
      const entry = this.ready[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.ready.length) {
        this.ready = this.ready.slice(this.head);
        this.head = 0;
      }
      if (this.entries.get(entry.job.jobId) === entry) return entry;
    }
    return undefined;
  }

  private pump(): void {
    while (!this.closed && this.handler && this.running < this.opts.concurrency) {
      const entry = this.next();
      if (!entry) return;
      this.start(entry);
    }
  }

  private start(entry: Entry): void {
    const controller = new AbortController();
    entry.controller = controller;
    this.running++;
    entry.done = this.handler!({ job: entry.job, delivery: entry.delivery, signal: controller.signal })
      .then(
        () => this.forget(entry),
        async (err: unknown) => {
          if (this.closed || controller.signal.aborted || this.entries.get(entry.job.jobId) !== entry) return this.forget(entry);
          if (entry.delivery >= this.opts.maxDeliveries) {
            this.forget(entry);
            await this.exhausted!(entry.job, `no attempt succeeded in ${entry.delivery} deliveries: ${err instanceof Error ? err.message : String(err)}`).catch(() => {});
            return;
          }
          entry.controller = undefined;
          entry.delivery++;
          this.schedule(entry, this.opts.retryDelayMs * 2 ** (entry.delivery - 2));
        },
      )
      .finally(() => {
        this.running--;
        this.pump();
      });
  }

  private forget(entry: Entry): void {
    if (this.entries.get(entry.job.jobId) === entry) this.entries.delete(entry.job.jobId);
  }
}
