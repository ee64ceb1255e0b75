/** A job as the queue carries it: ids only; the datastore holds the record. */
export interface QueuedJob {
  jobId: number;
  orderId: number;
}

/** One delivery of a job to a handler. */
export interface Delivery {
  job: QueuedJob;
  /** The queue's own count of deliveries of this job, from 1. */
  delivery: number;
  /** Aborted when the job is cancelled or the queue stops. */
  signal: AbortSignal;
}

/**
 * Resolving means the job needs no further delivery (it finished, failed for good, or was
 * dismissed). Throwing asks for a retry, after the queue's backoff.
 */
export type JobHandler = (delivery: Delivery) => Promise<void>;

/** Called when the queue will not deliver a job again: its retries ran out. */
export type ExhaustedHandler = (job: QueuedJob, reason: string) => Promise<void>;

export interface EnqueueOptions {
  /** Hold the jobs back this long (a retry's backoff after a restart). */
  delayMs?: number;
}

/**
 * Hands jobs to workers. Deliveries are at least once: a handler may see a job again after a
 * process stopped mid-job, so handlers fence their writes. Enqueueing a job already queued is a
 * no-op.
 */
export interface JobQueue {
  /** True when queued jobs survive a restart of every process (else the caller re-enqueues unfinished jobs at start). */
  readonly durable: boolean;
  enqueue(jobs: QueuedJob[], options?: EnqueueOptions): Promise<void>;
  /** Starts delivering to `handler`, at most the configured number of jobs at once in this process. */
  work(handler: JobHandler, exhausted: ExhaustedHandler): Promise<void>;
  /** Drops queued deliveries of these jobs and aborts running ones in this process; best effort. */
  cancel(jobs: QueuedJob[]): Promise<void>;
  /** Stops delivering, waits for running handlers (aborting them after the grace period), releases connections. */
  close(graceMs?: number): Promise<void>;
}
