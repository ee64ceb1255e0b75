/** How one ask of a time-boxed check went: its value, its failure, or no answer in time. */
export type Boxed<T> = { value: T } | { error: unknown } | { timedOut: true };

/** A run still unsettled after this many time boxes is given up: the next ask starts a fresh one. */
const GIVE_UP_AFTER_BOXES = 10;

/**
 * A check that runs once at a time, each ask waiting for it at most `timeoutMs`. A check that
 * hangs (a database that takes connections and never answers) is still running when the next ask
 * comes, and that ask waits on the same run rather than starting another: probes arriving every
 * second pile no work up behind a stuck dependency, and each still answers in time. A run that
 * never settles is given up after ten time boxes, so a dependency that recovers is seen again.
 */
export class TimeBoxedCheck<T> {
  private running?: { run: Promise<T>; started: number };

  constructor(
    private readonly check: () => Promise<T>,
    private readonly timeoutMs: number,
  ) {}

  async ask(): Promise<Boxed<T>> {
    const now = performance.now();
    if (!this.running || now - this.running.started > GIVE_UP_AFTER_BOXES * this.timeoutMs) {
      const entry: { run: Promise<T>; started: number } = { run: Promise.resolve().then(this.check), started: now };
      entry.run
        .finally(() => {
          if (this.running === entry) this.running = undefined;
        })
        .catch(() => {});
      this.running = entry;
    }
    const { run } = this.running;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Boxed<T>>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), this.timeoutMs)));
    try {
      return await Promise.race([run.then((value) => ({ value }), (error: unknown) => ({ error })), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
