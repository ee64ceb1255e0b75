import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Stepped } from '../domain/dggrs/dggrs.js';

/** Longest stretch of stepped work between two turns of the event loop, ms. */
const SLICE_MS = 10;

/**
 * When stepped work last gave the event loop a turn, over every call: a caller that runs many
 * short pieces of work one after another (a page at a time, each under a slice) chains them in
 * promise callbacks, which run before any I/O, so a slice clock per call never runs out and the
 * chain holds the loop as long as the whole walk (a filtered zone list keeping no zone: 1.2 s).
 */
let sliceStart = performance.now();

/**
 * Runs stepped work on the event loop without holding it: once about ten milliseconds have passed
 * since stepped work last gave the loop a turn, it lets every other pending callback (other
 * requests, timers, I/O) run before resuming.
 */
export async function runStepped<T>(work: Stepped<T>): Promise<T> {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}
