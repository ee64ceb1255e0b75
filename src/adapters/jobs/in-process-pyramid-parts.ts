import type { PyramidPartHandler, PyramidPartQueue, PyramidPartState, PyramidPartTask } from '../../ports/pyramid-parts.js';

export interface InProcessPyramidPartsOptions {
  /** Attempts of one part before it fails for good. */
  maxAttempts: number;
  /** Wait before attempt n+1: retryDelayMs x 2^(n-1). */
  retryDelayMs: number;
}

interface Entry {
  task: PyramidPartTask;
  state: PyramidPartState;
  attempts: number;
  controller?: AbortController;
  timer?: NodeJS.Timeout;
}

/**
 * Pyramid parts run in the ingest process (a SQLite datastore: no shared queue), in order, a
 * bounded number at once, each retried after a failure until its attempts run out.
 */
export class InProcessPyramidParts implements PyramidPartQueue {
  private readonly entries = new Map<string, Entry>();
  private waiting: Entry[] = [];
  private running = new Set<Promise<void>>();
  private handler?: PyramidPartHandler;
  private concurrency = 0;
  private closed = false;

  constructor(private readonly opts: InProcessPyramidPartsOptions) {}

  async enqueue(tasks: PyramidPartTask[]): Promise<void> {
    for (const task of tasks) {
      const id = `${task.ingest}\u0000${task.part}`;
      if (this.entries.has(id)) continue;
      const entry: Entry = { task, state: { part: task.part, state: 'queued' }, attempts: 0 };
      this.entries.set(id, entry);
      this.waiting.push(entry);
    }
    this.pump();
  }

  async work(handler: PyramidPartHandler, concurrency: number): Promise<void> {
    this.handler = handler;
    this.concurrency = concurrency;
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.handler && this.running.size < this.concurrency && this.waiting.length > 0) {
      const entry = this.waiting.shift()!;
      const run = this.attempt(entry).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async attempt(entry: Entry): Promise<void> {
    entry.attempts++;
    entry.state = { part: entry.task.part, state: 'running' };
    const controller = (entry.controller = new AbortController());
    try {
      const outcome = await this.handler!(entry.task, controller.signal);
      entry.state = { part: entry.task.part, state: 'done', outcome };
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (this.closed || controller.signal.aborted || entry.attempts >= this.opts.maxAttempts) {
        entry.state = { part: entry.task.part, state: 'failed', reason: `${reason} (attempt ${entry.attempts} of ${this.opts.maxAttempts})` };
        return;
      }
      entry.state = { part: entry.task.part, state: 'queued' };
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        this.waiting.push(entry);
        this.pump();
      }, this.opts.retryDelayMs * 2 ** (entry.attempts - 1));
    } finally {
      entry.controller = undefined;
    }
  }

  async states(ingest: string): Promise<PyramidPartState[]> {
    return [...this.entries.values()].filter((e) => e.task.ingest === ingest).map((e) => ({ ...e.state }));
  }

  async cancel(ingest: string): Promise<void> {
    this.waiting = this.waiting.filter((e) => e.task.ingest !== ingest);
    for (const e of this.entries.values()) {
      if (e.task.ingest !== ingest) continue;
      clearTimeout(e.timer);
      e.controller?.abort(new Error('the ingest was given up'));
    }
  }

  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    for (const e of this.entries.values()) clearTimeout(e.timer);
    const timer = setTimeout(() => {
      for (const e of this.entries.values()) e.controller?.abort(new Error('the queue stopped'));
    }, graceMs);
    timer.unref();
    await Promise.allSettled([...this.running]);
    clearTimeout(timer);
  }
}
