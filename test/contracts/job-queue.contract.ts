import { expect } from 'chai';
import type { Delivery, JobQueue, QueuedJob } from '../../src/ports/job-queue.js';

export interface QueueSettings {
  concurrency: number;
  maxDeliveries: number;
  retryDelaySeconds: number;
  /** How often an idle worker looks for jobs, where the adapter polls (default: the factory's own). */
  pollSeconds?: number;
}

/** Opens a queue instance; instances opened by one factory share their backing store (a restart is: close one, open another). */
export type QueueFactory = (settings: QueueSettings) => Promise<JobQueue>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(25);
  }
}

/** What every JobQueue adapter must do, whatever carries the jobs. */
export function jobQueueContract(name: string, setup: () => Promise<{ factory: QueueFactory; cleanup: () => Promise<void> }>): void {
  describe(`JobQueue contract: ${name}`, function () {
    this.timeout(60_000);
    let factory: QueueFactory;
    let cleanup: () => Promise<void>;
    const open: JobQueue[] = [];
    // Job ids unique across the suite, so deliveries left over from one test are told apart in the next.
    let nextId = Math.floor(Date.now() % 1e9) * 1000;
    const jobs = (n: number): QueuedJob[] => Array.from({ length: n }, () => ({ jobId: ++nextId, orderId: 1 }));
    const queue = async (s: Partial<QueueSettings> = {}) => {
      const q = await factory({ concurrency: 2, maxDeliveries: 3, retryDelaySeconds: 1, ...s });
      open.push(q);
      return q;
    };

    before(async () => {
      ({ factory, cleanup } = await setup());
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((q) => q.close(500)));
    });
    after(async () => cleanup?.()); // undefined when the before hook failed: its failure is the one to read

    it('delivers every job once when the handler succeeds, never more at once than the concurrency', async () => {
      const q = await queue({ concurrency: 3 });
      const mine = jobs(12);
      const ids = new Set(mine.map((j) => j.jobId));
      const seen: number[] = [];
      let active = 0;
      let peak = 0;
      await q.work(
        async (d) => {
          if (!ids.has(d.job.jobId)) return;
          active++;
          peak = Math.max(peak, active);
          await sleep(100);
          seen.push(d.job.jobId);
          active--;
        },
        async () => {},
      );
      await q.enqueue(mine);
      await until('all delivered', () => seen.length >= mine.length);
      await sleep(500);
      expect([...seen].sort()).to.deep.equal([...ids].sort());
      expect(peak).to.be.at.most(3);
      expect(peak).to.be.at.least(2, 'jobs run side by side');
    });

    it('runs a backlog back to back, not one job per poll interval', async () => {
      // A queue that polls every 5 s: ten queued jobs must not take ten polls (50 s).
      const q = await queue({ concurrency: 1, pollSeconds: 5 });
      const mine = jobs(10);
      const ids = new Set(mine.map((j) => j.jobId));
      const seen: number[] = [];
      await q.enqueue(mine);
      const t0 = Date.now();
      await q.work(
        async (d) => {
          if (ids.has(d.job.jobId)) seen.push(d.job.jobId);
        },
        async () => {},
      );
      await until('the backlog done', () => seen.length >= mine.length, 30_000);
      expect(Date.now() - t0, 'ms for ten queued jobs').to.be.below(20_000);
      expect([...seen].sort()).to.deep.equal([...ids].sort());
    });

    it('enqueueing a job that is already queued is a no-op', async () => {
      const q = await queue({ concurrency: 1 });
      const [job] = jobs(1);
      const deliveries: Delivery[] = [];
      await q.enqueue([job!]);
      await q.enqueue([job!, job!]);
      await q.work(
        async (d) => {
          if (d.job.jobId === job!.jobId) deliveries.push(d);
        },
        async () => {},
      );
      await until('delivered', () => deliveries.length >= 1);
      await sleep(1500);
      expect(deliveries.map((d) => d.job)).to.deep.equal([job]);
    });

    it('retries a throwing handler with growing delays, then reports the job exhausted once', async () => {
      const q = await queue({ maxDeliveries: 3, retryDelaySeconds: 1 });
      const [job] = jobs(1);
      const at: number[] = [];
      const counts: number[] = [];
      const exhausted: { job: QueuedJob; reason: string }[] = [];
      await q.work(
        async (d) => {
          if (d.job.jobId !== job!.jobId) return;
          at.push(Date.now());
          counts.push(d.delivery);
          throw new Error('always fails');
        },
        async (j, reason) => {
          if (j.jobId === job!.jobId) exhausted.push({ job: j, reason });
        },
      );
      await q.enqueue([job!]);
      await until('exhausted', () => exhausted.length >= 1, 40_000);
      await sleep(1000);
      expect(counts).to.deep.equal([1, 2, 3]);
      expect(exhausted).to.have.length(1);
      expect(exhausted[0]!.job).to.deep.equal(job);
      expect(exhausted[0]!.reason).to.be.a('string').and.not.equal('');
      // Backoff: at least the retry delay before the second delivery, and no less before the third.
      expect(at[1]! - at[0]!).to.be.at.least(900);
      expect(at[2]! - at[1]!).to.be.at.least(900);
    });

    it('holds a job back for delayMs', async () => {
      const q = await queue();
      const [job] = jobs(1);
      let deliveredAt = 0;
      await q.work(
        async (d) => {
          if (d.job.jobId === job!.jobId) deliveredAt = Date.now();
        },
        async () => {},
      );
      const queuedAt = Date.now();
      await q.enqueue([job!], { delayMs: 2000 });
      await until('delivered', () => deliveredAt > 0);
      expect(deliveredAt - queuedAt).to.be.at.least(1900);
    });

    it('cancel drops queued jobs and aborts the signal of a running one', async () => {
      const q = await queue({ concurrency: 1 });
      const [running, queued] = jobs(2);
      const started: number[] = [];
      let aborted = false;
      await q.work(
        async (d) => {
          if (d.job.jobId !== running!.jobId && d.job.jobId !== queued!.jobId) return;
          started.push(d.job.jobId);
          await new Promise<void>((resolve) => {
            d.signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            });
            setTimeout(resolve, 8000);
          });
        },
        async () => {},
      );
      await q.enqueue([running!]);
      await until('first running', () => started.length === 1);
      await q.enqueue([queued!], { delayMs: 1500 });
      await q.cancel([running!, queued!]);
      await until('aborted', () => aborted);
      await sleep(3000);
      expect(started).to.deep.equal([running!.jobId], 'the cancelled queued job never starts');
    });

    it('close stops deliveries and aborts handlers still running after the grace period', async () => {
      const q = await queue({ concurrency: 1 });
      const [job, later] = jobs(2);
      let aborted = false;
      const started: number[] = [];
      await q.work(
        async (d) => {
          if (d.job.jobId !== job!.jobId && d.job.jobId !== later!.jobId) return;
          started.push(d.job.jobId);
          await new Promise<void>((resolve) => {
            d.signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            });
            setTimeout(resolve, 20_000);
          });
        },
        async () => {},
      );
      await q.enqueue([job!, later!]);
      await until('running', () => started.length === 1);
      const t0 = Date.now();
      await q.close(300);
      expect(aborted).to.equal(true);
      expect(Date.now() - t0).to.be.below(15_000);
      expect(started).to.deep.equal([job!.jobId]);
    });

    it('declares whether queued jobs survive a restart, and keeps its word', async () => {
      const first = await queue();
      const [job] = jobs(1);
      await first.enqueue([job!], { delayMs: 500 });
      await first.close(100);
      const second = await queue();
      const got: number[] = [];
      await second.work(
        async (d) => {
          if (d.job.jobId === job!.jobId) got.push(d.job.jobId);
        },
        async () => {},
      );
      if (second.durable) await until('delivered after the restart', () => got.length === 1);
      else {
        await sleep(2500);
        expect(got).to.deep.equal([], 'a queue that is not durable forgets (the runner re-enqueues from the datastore)');
      }
    });
  });
}
