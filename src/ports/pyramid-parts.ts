/**
 * The parts of a zone-pyramid ingest as jobs: the ingest queues one task per part, workers (any
 * process on any machine sharing the queue, and the ingest process itself) run them, and the
 * ingest watches their states until every part is done or one failed for good. Separate from the
 * order jobs' queue (job-queue.ts): a part carries its whole task, not ids of datastore records.
 */
import type { PyramidPeriod } from './zone-pyramid-store.js';

/** Everything a worker needs to compute and write one part; plain JSON. */
export interface PyramidPartTask {
  /** Names the ingest run, unique over runs (the queue groups parts by it). */
  ingest: string;
  /** The ingest's generation (`ZonePyramidStore.prepare`). */
  generation: string;
  /** The part's name within the generation (`writePart`'s part). */
  part: string;
  /** The pyramid's table (`PyramidRef.table`). */
  table: string;
  /** The parquet-lake collection read. */
  source: string;
  dggrsId: string;
  /** Levels whose cells this part writes. */
  levels: number[];
  coarseLevel: number;
  /**
   * The coarse zones the part owns: it writes the cells whose coarse key is one of these. Empty:
   * the part owns every cell of its levels (the levels above the coarse level).
   */
  coarse: number[];
  /** Rows read: those whose geometry's envelope meets this box (absent: every row). */
  bbox?: [number, number, number, number];
  fields: string[];
  period?: PyramidPeriod;
}

/** What a part reports when done. */
export interface PyramidPartOutcome {
  /** Rows read (with a place), including those of neighbouring parts' zones it read and dropped. */
  rows: number;
  /** Rows in the part's own cells of its first level: summed over the parts of one level, every row once. */
  ownRows: number;
  cells: number;
}

export interface PyramidPartState {
  part: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  outcome?: PyramidPartOutcome;
  /** Why a part failed for good. */
  reason?: string;
}

/** Computes and writes one part; resolving is success, throwing asks for a retry. */
export type PyramidPartHandler = (task: PyramidPartTask, signal: AbortSignal) => Promise<PyramidPartOutcome>;

/**
 * Deliveries are at least once: a part may run again after its process stopped mid-part, which
 * `ZonePyramidStore.writePart` makes harmless (a part's cells replace an earlier attempt's).
 */
export interface PyramidPartQueue {
  enqueue(tasks: PyramidPartTask[]): Promise<void>;
  /** Starts running queued parts in this process, `concurrency` at once. */
  work(handler: PyramidPartHandler, concurrency: number): Promise<void>;
  /** The state of every part queued for the ingest run `ingest`. */
  states(ingest: string): Promise<PyramidPartState[]>;
  /** Drops the parts of the ingest run `ingest` not yet run (an ingest given up). */
  cancel(ingest: string): Promise<void>;
  /** Stops taking parts, waits for running ones (aborting them after the grace period). */
  close(graceMs?: number): Promise<void>;
}
