import type { EnqueueOptions, JobQueue, QueuedJob } from '../../ports/job-queue.js';
import type { ProcessGroup } from '../../ports/process-group.js';

/** The questions the process running the in-process queue answers for the others. */
export const JOB_TOPICS = { enqueue: 'jobs.enqueue', cancel: 'jobs.cancel' } as const;

/** How long a hand-over may take before the caller gives up (the sweep queues the jobs then). */
const HAND_OVER_TIMEOUT_MS = 5_000;

/**
 * The job queue of an HTTP process that does not run jobs, in a group whose jobs run on the
 * in-process queue of one process (`runner`, place 1): jobs are handed to it over the group.
 * A hand-over that fails (that process restarting) rejects, so the order's jobs stay unqueued in
 * the datastore, and the runner's sweep queues them; a process that restarts queues every
 * unfinished job again anyway.
 */
export class HandOverJobQueue implements JobQueue {
  readonly durable = false;

  constructor(
    private readonly group: ProcessGroup,
    private readonly runner: number,
  ) {}

  async enqueue(jobs: QueuedJob[], options: EnqueueOptions = {}): Promise<void> {
    await this.group.ask(this.runner, JOB_TOPICS.enqueue, { jobs, options }, HAND_OVER_TIMEOUT_MS);
  }

  async work(): Promise<void> {
    throw new Error(`jobs run in process ${this.runner} of this group only`);
  }

  async cancel(jobs: QueuedJob[]): Promise<void> {
    await this.group.ask(this.runner, JOB_TOPICS.cancel, { jobs }, HAND_OVER_TIMEOUT_MS);
  }

  async close(): Promise<void> {}
}

/** Makes `queue` (the in-process queue of the process running jobs) take the jobs the group's other processes hand over. */
export function takeHandedOverJobs(group: ProcessGroup, queue: JobQueue): void {
  group.answer(JOB_TOPICS.enqueue, async (body) => {
    const { jobs, options } = body as { jobs: QueuedJob[]; options: EnqueueOptions };
    await queue.enqueue(jobs, options);
  });
  group.answer(JOB_TOPICS.cancel, async (body) => {
    await queue.cancel((body as { jobs: QueuedJob[] }).jobs);
  });
}
