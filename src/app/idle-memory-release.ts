/**
 * Gives memory back once a burst of work is over. Under load V8 grows its young generation (to 128 MB
 * here) and lets garbage pile up in the old one between full collections; when the load stops it runs
 * no further collection, so the process stays hundreds of MB above its idle size. When the event loop
 * has been nearly idle for a while and the heap has grown by `growthBytes` since the last release, this
 * runs one full, compacting, "last resort" collection (V8 then also shrinks the young generation and
 * unmaps free pages). It never runs while requests keep the loop busy; the collection itself takes
 * tens of milliseconds.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleMemoryReleaseOptions {
  /** Heap growth over the last baseline that makes a release worth it, bytes. */
  growthBytes: number;
  /** How long the loop must stay under IDLE_UTILIZATION first, ms. */
  idleMs: number;
  onRelease?: (info: { rssBefore: number; rssAfter: number; ms: number }) => void;
}

/** Event-loop utilization below which the process counts as idle. */
const IDLE_UTILIZATION = 0.05;

type GcFunction = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's gc(), from --expose-gc when the process was started with it, else exposed now. */
function exposedGc(): GcFunction | undefined {
  const existing = (globalThis as { gc?: GcFunction }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as GcFunction;
  } catch {
    return undefined;
  }
}

/** Starts watching; returns the function that stops it (undefined when V8's gc cannot be reached). */
export function startIdleMemoryRelease(o: IdleMemoryReleaseOptions): (() => void) | undefined {
  const gc = exposedGc();
  if (!gc) return undefined;
  const tick = Math.max(100, Math.floor(o.idleMs / 2));
  let baseline = process.memoryUsage().heapTotal;
  let idleSince: number | undefined;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization >= IDLE_UTILIZATION;
    last = now;
    if (busy) {
      idleSince = undefined;
      return;
    }
    idleSince ??= performance.now() - tick; // the loop was idle through the whole tick
    const heap = process.memoryUsage().heapTotal;
    if (heap < baseline) baseline = heap;
    if (performance.now() - idleSince < o.idleMs || heap - baseline < o.growthBytes) return;
    const rssBefore = process.memoryUsage.rss();
    const t0 = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const ms = performance.now() - t0;
    baseline = process.memoryUsage().heapTotal;
    o.onRelease?.({ rssBefore, rssAfter: process.memoryUsage.rss(), ms });
    last = performance.eventLoopUtilization(); // the collection itself is not load
  }, tick);
  timer.unref();
  return () => clearInterval(timer);
}
