import type { Dggrs } from '../domain/dggrs/dggrs.js';

/** The zones of one batch's points: slots per level (zones lists) and zones met (null lists). */
export interface ZoneBins {
  slots: Int32Array[];
  met: string[];
}

/** Points being binned for one request, at its grid and levels; batches answer in the order asked. */
export interface ZoneBinningSession {
  /** The bins of the first `n` points; the arrays are transferred. */
  bin(x: Float64Array, y: Float64Array, n: number): Promise<ZoneBins>;
  close(): void;
}

/**
 * Zone-from-point off the event loop (the lake's worker threads), for the zone-data use case
 * aggregating many rows: the use case accumulates in row order, the binner only names zones.
 */
export interface ZoneBinner {
  /** Threads binning at once: how many batches are worth handing ahead. */
  readonly threads: number;
  /**
   * A session binning points at each level: into slots of `zones`, or (zones null) reporting the
   * zones met. Undefined when this binner cannot take the grid (the caller bins on its own thread).
   */
  session(grid: Dggrs, levels: { level: number; zones: readonly string[] | null }[]): Promise<ZoneBinningSession | undefined>;
}
