/**
 * A zone pyramid: per-level aggregates of a collection's rows keyed by zone, written once by an
 * ingest and read per request, so a zone's data at any depth costs about its number of sub-zones
 * whatever the number of rows under it. The store is a distributed columnar engine (ClickHouse);
 * its adapter holds every statement it runs.
 *
 * Cells are keyed by (coarse key, level, zone key): the coarse key is the grid's numeric key of the
 * zone of `layout.coarseLevel` holding the cell zone's centroid (a cell of a level at or above the
 * coarse level is its own coarse zone), so the sub-zones of one zone lie in few index ranges and one
 * shard holds each coarse zone.
 */

import type { Moments } from '../domain/aggregation/moments.js';

/** A pyramid's place in the store: a table name from the config, never from a request. */
export interface PyramidRef {
  table: string;
}

/** Time buckets of per-period cells, UTC. */
export type PyramidPeriod = 'hour' | 'day' | 'month' | 'year';

/** What an ingest wrote: the store keeps it beside the cells. */
export interface PyramidLayout {
  dggrsId: string;
  /** Levels holding cells, ascending. */
  levels: number[];
  /** The level of the coarse key (see above). */
  coarseLevel: number;
  /** Aggregated numeric fields, in the order `PyramidCell.fields` holds them. */
  fields: string[];
  /** Set when a time column was ingested: cells per period besides the all-time cells. */
  period?: PyramidPeriod;
  /** The first and last instants of the rows ingested (epoch ms), when a time column was ingested. */
  timeExtent?: [number, number];
  /** [west, south, east, north] of the rows' points. */
  bbox?: [number, number, number, number];
  /** Rows aggregated. */
  rows: number;
  /** What was read: `<lake collection id>` and its glob. */
  source: string;
  /** ISO 8601 instant the ingest finished. */
  ingestedAt: string;
}

/** One field's moments in one cell (the domain's `Moments`): enough for count, mean, min, max and the (population) standard deviation. */
export type FieldMoments = Moments;

/** `period` of the cells over every period (and of every cell of a pyramid without time). */
export const ALL_TIME = Number.MIN_SAFE_INTEGER;

export interface PyramidCell {
  level: number;
  key: number;
  coarse: number;
  /** Start of the cell's period, epoch ms; `ALL_TIME` for the all-time cells. */
  period: number;
  /** Rows in the cell. */
  count: number;
  /** Per field of the request (or of the layout, when writing), in that order. */
  fields: FieldMoments[];
}

export interface PyramidReadRequest {
  level: number;
  /** The zones wanted (the caller bounds how many); cells of other zones are not returned. */
  keys: readonly number[];
  /** Their distinct coarse keys: the index ranges to read. */
  coarse: readonly number[];
  /** A subset of `layout.fields`, in the order the cells give them. */
  fields: readonly string[];
  /** Absent: the all-time cells. Present: the per-period cells whose period starts in [from, to). */
  periods?: { from: number; to: number };
  signal?: AbortSignal;
}

export interface ZonePyramidStore {
  /** The layout of a published pyramid; undefined when none was published under this ref. */
  layout(ref: PyramidRef, signal?: AbortSignal): Promise<PyramidLayout | undefined>;
  /** The cells of `keys` at `level`, in no particular order; throws UnavailableError when a shard cannot answer. */
  read(ref: PyramidRef, request: PyramidReadRequest): Promise<PyramidCell[]>;

  /*
   * Writing, for the ingest. An ingest is a generation: `prepare` creates what its cells need on
   * every shard and names it; parts (jobs, on any machine) write into it; `publish` makes it the
   * one `layout` and `read` answer from and drops the previous one, which stays readable until then.
   */
  prepare(ref: PyramidRef, layout: Pick<PyramidLayout, 'dggrsId' | 'levels' | 'coarseLevel' | 'fields' | 'period'>): Promise<string>;
  /**
   * Writes the cells of one part of generation `generation` (a job), replacing whatever an earlier
   * attempt of the same part wrote: a retried job leaves no duplicate.
   */
  writePart(ref: PyramidRef, generation: string, part: string, cells: AsyncIterable<PyramidCell[]>, signal?: AbortSignal): Promise<void>;
  publish(ref: PyramidRef, generation: string, layout: PyramidLayout): Promise<void>;
  close(): Promise<void>;
}
