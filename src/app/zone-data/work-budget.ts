import { UnavailableError } from '../../ports/errors.js';
import type { AdmissionStats } from '../../ports/metrics.js';

/**
 * The service is too busy to start this work now: 503 with Retry-After. Refused work was never
 * started, so the client may send the same request again.
 */
export class ServiceBusyError extends UnavailableError {
  constructor(
    hint: string,
    retryAfterSeconds: number,
  ) {
    super('Service busy', hint, retryAfterSeconds);
  }
}

export interface WorkBudgetOptions {
  /** Units all work in progress may hold together. */
  capacity: number;
  /** Longest a piece of work waits for room before it is refused. */
  maxWaitMs: number;
  /** Waiting pieces beyond this are refused at once. */
  maxQueued: number;
  /** Names the budget's configuration keys in refusals. */
  describe: (cost: number, used: number, capacity: number, waitedMs: number) => string;
}

interface Waiter {
  units: number;
  admit: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Admission control by cost: work runs while the costs of all work in progress fit in the
 * capacity; the rest waits in arrival order (so large work is never starved by small work) for
 * up to `maxWaitMs`, and is refused with ServiceBusyError after that, or at once when the queue is
 * full. Memory of concurrent work is then bounded by what `capacity` units of it take, however
 * many requests arrive together. A cost above the capacity counts as the capacity (it runs alone).
 */
export class WorkBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];
  /** Since start, for the metrics. */
  private readonly counts = { admitted: 0, waited: 0, waitSeconds: 0, refusedQueueFull: 0, refusedTimeout: 0 };

  constructor(private readonly opts: WorkBudgetOptions) {}

  /** Units held by work in progress, and pieces waiting (for tests and logs). */
  state(): { used: number; queued: number; capacity: number } {
    return { used: this.used, queued: this.queue.length, capacity: this.opts.capacity };
  }

  /** What it holds now and how admissions went since start (the metrics read it). */
  stats(): AdmissionStats {
    return { ...this.state(), ...this.counts };
  }

  /** `signal`: a piece still waiting when it aborts leaves the queue, rejecting with its reason. */
  async run<T>(cost: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const units = Math.min(this.opts.capacity, Math.max(1, Math.ceil(cost)));
    signal?.throwIfAborted();
    await this.acquire(units, cost, signal);
    try {
      return await work();
    } finally {
      this.used -= units;
      this.drain();
    }
  }

  private acquire(units: number, cost: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.queue.length === 0 && this.used + units <= this.opts.capacity) {
      this.used += units;
      this.counts.admitted++;
      return Promise.resolve();
    }
    if (this.queue.length >= this.opts.maxQueued) {
      this.counts.refusedQueueFull++;
      return Promise.reject(this.busy(cost, 0));
    }
    const since = performance.now();
    const waitEnded = () => {
      this.counts.waited++;
      this.counts.waitSeconds += (performance.now() - since) / 1000;
    };
    return new Promise<void>((resolve, reject) => {
      const leave = (err: unknown) => {
        waitEnded();
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', abandoned);
        this.queue.splice(this.queue.indexOf(waiter), 1);
        reject(err);
        // The head may have left: the next one may fit now.
        this.drain();
      };
      const abandoned = () => leave(signal!.reason);
      const waiter: Waiter = {
        units,
        admit: () => {
          waitEnded();
          this.counts.admitted++;
          signal?.removeEventListener('abort', abandoned);
          resolve();
        },
        timer: setTimeout(() => {
          this.counts.refusedTimeout++;
          leave(this.busy(cost, performance.now() - since));
        }, this.opts.maxWaitMs),
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', abandoned, { once: true });
    });
  }

  private drain(): void {
    while (this.queue.length > 0 && this.used + this.queue[0]!.units <= this.opts.capacity) {
      const next = this.queue.shift()!;
      clearTimeout(next.timer);
      this.used += next.units;
      next.admit();
    }
  }

  private busy(cost: number, waitedMs: number): ServiceBusyError {
    return new ServiceBusyError(this.opts.describe(cost, this.used, this.opts.capacity, waitedMs), Math.max(1, Math.ceil(this.opts.maxWaitMs / 1000)));
  }
}
