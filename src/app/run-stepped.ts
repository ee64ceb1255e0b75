import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Stepped } from '../domain/dggrs/dggrs.js';

/** Longest stretch of stepped work between two turns of the event loop, ms. */
const SLICE_MS = 10;

/**
 * Runs stepped work on the event loop without holding it: after each slice of about ten milliseconds
 * it lets every other pending callback (other requests, timers, I/O) run before resuming.
 */
export async function runStepped<T>(work: Stepped<T>): Promise<T> {
  let start = performance.now();
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
    if (performance.now() - start >= SLICE_MS) {
      await nextTurn();
      start = performance.now();
    }
  }
}
