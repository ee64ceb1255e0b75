/**
 * Turns of the event loop for sliced work, one clock for the whole process. It lives beside the
 * ports because use cases (zone data, zone lists) and driven adapters (the OGC Features source's
 * local filter) must share this one clock: a clock per layer would let each hold the loop for a
 * full slice in turn. It reads a clock and schedules, so it is not the pure domain's.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Stepped } from '../domain/dggrs/dggrs.js';

/** Longest stretch of sliced work between two turns of the event loop, ms. */
const SLICE_MS = 10;

/**
 * When sliced work last gave the event loop a turn, over every caller: a caller that runs many
 * short pieces of work one after another (a page at a time, each under a slice) chains them in
 * promise callbacks, which run before any I/O, so a slice clock per call never runs out and the
 * chain holds the loop as long as the whole walk (a filtered zone list keeping no zone: 1.2 s).
 */
let sliceStart = performance.now();

/** True once about ten milliseconds have passed since sliced work last gave the loop a turn. */
export function turnDue(): boolean {
  return performance.now() - sliceStart >= SLICE_MS;
}

/**
 * Lets every other pending callback (other requests, timers, I/O) run, then starts a new slice;
 * rejects with the signal's reason when the work is no longer wanted by then.
 */
export async function takeTurn(signal?: AbortSignal): Promise<void> {
  await nextTurn();
  sliceStart = performance.now();
  signal?.throwIfAborted();
}

/**
 * Runs stepped work on the event loop without holding it: a turn whenever one is due (turnDue);
 * stops, rejecting with the signal's reason, at the first turn after `signal` aborts.
 */
export async function runStepped<T>(work: Stepped<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
    if (turnDue()) await takeTurn(signal);
  }
}
