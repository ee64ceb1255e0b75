/**
 * What parts of the service count of themselves for the metrics. Each keeps plain numbers that
 * the metrics endpoint reads when it is scraped: the work being counted only bumps integers, and
 * neither use cases nor adapters know the metrics library.
 */

/** A cache's lookups and what it holds now. */
export interface CacheStats {
  /** Lookups answered from the cache (or from a load of the same entry already in flight). */
  hits: number;
  /** Lookups that had to compute or fetch the entry. */
  misses: number;
  /** Bytes the entries hold, as the cache counts them against its bound. */
  bytes: number;
  entries: number;
}

/** A cache reported in the metrics under a fixed name (the `cache` label: a few known values). */
export interface ReportedCache {
  name: string;
  stats(): CacheStats;
}

/** Admission control of a work budget: what it holds now, and how admissions went since start. */
export interface AdmissionStats {
  /** Units all work in progress may hold together, and the units held now. */
  capacity: number;
  used: number;
  /** Pieces of work waiting for room now. */
  queued: number;
  /** Pieces admitted, at once or after waiting. */
  admitted: number;
  /** Pieces that had to wait (admitted after it, refused, or abandoned by their client), and their waits in seconds. */
  waited: number;
  waitSeconds: number;
  /** Pieces refused: the queue was full, or they waited as long as allowed. */
  refusedQueueFull: number;
  refusedTimeout: number;
}
