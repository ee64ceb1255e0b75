/**
 * A fixed number of slots (running queries, scan connections) shared by classes of work, such as
 * items, zone data and zone-list filters, so that no class starves another. A free slot goes to
 * the classes with waiters in turn (round robin; first come, first served within a class), and
 * one class holds at most `perClass` slots at once: however long its work runs, the other classes
 * keep a slot. A waiter whose signal aborts leaves the queue and rejects with the signal's reason.
 */
export class FairSlots {
  private used = 0;
  private readonly held = new Map<string, number>();
  /** Waiters by class; the map's order is the turn order (a class just served moves to the back). */
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(
    readonly capacity: number,
    readonly perClass = Math.max(1, capacity - 1),
  ) {}

  /** Slots in use and waiters, by class (for tests and logs). */
  state(): { used: number; held: Record<string, number>; waiting: Record<string, number> } {
    return { used: this.used, held: Object.fromEntries(this.held), waiting: Object.fromEntries([...this.queues].map(([k, q]) => [k, q.length])) };
  }

  async run<T>(workClass: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    await this.acquire(workClass, signal);
    try {
      return await work();
    } finally {
      this.used--;
      const left = this.held.get(workClass)! - 1;
      if (left > 0) this.held.set(workClass, left);
      else this.held.delete(workClass);
      this.drain();
    }
  }

  private fits(workClass: string): boolean {
    return this.used < this.capacity && (this.held.get(workClass) ?? 0) < this.perClass;
  }

  private take(workClass: string): void {
    this.used++;
    this.held.set(workClass, (this.held.get(workClass) ?? 0) + 1);
  }

  private acquire(workClass: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.queues.has(workClass) && this.fits(workClass)) {
      this.take(workClass);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues.get(workClass) ?? [];
      this.queues.set(workClass, queue);
      const leave = () => {
        const at = queue.indexOf(admit);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.queues.get(workClass) === queue) this.queues.delete(workClass);
        reject(signal!.reason);
      };
      const admit = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      queue.push(admit);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  /** Hands free slots to the waiting classes in turn. */
  private drain(): void {
    for (let granted = true; granted; ) {
      granted = false;
      for (const [workClass, queue] of this.queues) {
        if (!this.fits(workClass)) continue;
        const admit = queue.shift()!;
        this.queues.delete(workClass);
        if (queue.length > 0) this.queues.set(workClass, queue);
        this.take(workClass);
        admit();
        granted = true;
        break;
      }
    }
  }
}
