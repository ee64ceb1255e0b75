/**
 * Zone data of `clickhouse-pyramid` collections: each sub-zone's values are read from the cell of
 * its zone in the pyramid an ingest wrote (src/ports/zone-pyramid-store.ts), one read per depth
 * naming the sub-zones' keys and their coarse keys, so the work is about the number of sub-zones
 * whatever the number of rows under them. A cell holds each field's moments (count, valid, sum,
 * M2, min, max): count, valid, min, max, mean and the population standard deviation follow, the
 * same numbers the source lake's on-the-fly aggregation gives (up to the rounding of the engine's
 * summation order); medians do not (a 400 pointing at the lake collection).
 *
 * The answer is built by the same aggregator as the lake's stored-keys path (`setFromKeyed`), so
 * encodings, statistics columns and zone filters behave alike. `datetime` is answered from the
 * per-period cells of the periods it covers, merged with Chan's formula, and only for whole
 * periods (src/domain/time-periods.ts); a pyramid holds no rows, so row filters are refused. A zone
 * query by `datetime` alone keeps the zones whose cells count rows in those periods.
 */
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { ZoneData, ZoneDataRequest, ZoneRowsQuery } from '../../domain/zone-data.js';
import type { Dggrs, Stepped } from '../../domain/dggrs/dggrs.js';
import type { KeyedZoneStats } from '../../domain/aggregation/zone-points.js';
import { emptyMoments, mergeMoments, momentsMean, momentsStdDev, type Moments } from '../../domain/aggregation/moments.js';
import { hasZoneKeys, zoneKeysOf, type KeyedGrid } from '../../domain/aggregation/pyramid-keys.js';
import { alignToPeriods, EARLIEST, LATEST, type TimePeriod } from '../../domain/time-periods.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { PyramidCell, PyramidLayout, PyramidRef, ZonePyramidStore } from '../../ports/zone-pyramid-store.js';
import { InvalidRequestError, NotFoundError, ValidationError } from '../../ports/errors.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import { rowAggregation, rowZoneData } from './row-zone-data.js';

/** A layout is read again once it is this old: a burst of requests reads it once, and a new ingest shows a second later. */
const LAYOUT_KEEP_MS = 1000;

/**
 * Per-period cells one request may merge (sub-zones times the periods the interval covers within
 * the pyramid's time extent): each is a row the store sends.
 */
export const MAX_PERIOD_CELLS = 2_000_000;

/** The shortest length of each period, for the bound above (an upper bound on their number). */
const SHORTEST_MS: Record<TimePeriod, number> = { hour: 3_600_000, day: 86_400_000, month: 28 * 86_400_000, year: 365 * 86_400_000 };

/** Cells merged between two pauses of stepped work. */
const CELLS_PER_STEP = 4096;

export function pyramidRef(c: Collection): PyramidRef {
  if (c.backing.kind !== 'clickhouse-pyramid') throw new TypeError(`${c.id} is not a clickhouse-pyramid collection`);
  return { table: c.backing.table };
}

export class PyramidZoneDataSource implements ZoneDataSource {
  private readonly layouts = new Map<string, { at: number; layout: Promise<PyramidLayout | undefined> }>();

  /** `maxZones`: zones a zone query by `datetime` alone may look up (limits.maxSubZones). */
  constructor(
    private readonly store: ZonePyramidStore,
    private readonly maxZones: number,
  ) {}

  /**
   * The published layout of the collection's pyramid, read at most once a second (failures are not
   * kept); 404 when no ingest has published one yet.
   */
  async layout(c: Collection): Promise<PyramidLayout> {
    const ref = pyramidRef(c);
    let kept = this.layouts.get(ref.table);
    if (!kept || Date.now() - kept.at >= LAYOUT_KEEP_MS) {
      // Shared by the requests of the next second: no one request's signal stops it (the store bounds its time).
      const entry = { at: Date.now(), layout: this.store.layout(ref) };
      entry.layout.catch(() => {
        if (this.layouts.get(ref.table) === entry) this.layouts.delete(ref.table);
      });
      this.layouts.set(ref.table, (kept = entry));
    }
    const layout = await kept.layout;
    if (!layout) {
      const source = c.backing.kind === 'clickhouse-pyramid' ? c.backing.source : '';
      throw new NotFoundError('Collection has no pyramid', `No pyramid of "${c.id}" has been published yet: an operator writes it from the lake collection "${source}" with npm run ingest -- ${c.id} --pyramid clickhouse.`);
    }
    return layout;
  }

  /** The layout's fields, numbers each: a field alone is its mean, as for the lake. */
  async fields(c: Collection): Promise<Record<string, FieldMeta>> {
    const layout = await this.layout(c);
    return Object.fromEntries(layout.fields.map((f) => [f, { title: f, type: 'number', svc_dggs_stat: 'mean' } satisfies FieldMeta]));
  }

  /**
   * The zones of `query.level` holding rows in `query.datetime` (a zone query by `datetime` alone,
   * as on the lake): those whose cell counts a row in the periods asked. The zones of the area are
   * listed and bounded (maxZones) before any read.
   */
  async zonesWithRows(c: Collection, query: ZoneRowsQuery): Promise<Set<string>> {
    const { grid, level, signal } = query;
    if (query.filter) throw this.noRows(c);
    const layout = await this.layout(c);
    const keyed = this.keyedGrid(c, layout, grid);
    if (!layout.levels.includes(level)) {
      throw new InvalidRequestError('Level not in the pyramid', `zone-level ${level}: the pyramid of "${c.id}" holds levels ${layout.levels.join(', ')}. Ask one of them, or the lake collection "${sourceOf(c)}".`);
    }
    const periods = query.datetime ? this.periods(c, layout, { ...query, datetime: query.datetime }) : undefined;
    const parent = query.parent;
    const count = parent ? grid.subZoneCount(parent.zoneId, parent.depth) : query.boxes.reduce((n, b) => n + grid.estimateZonesInBBox(level, b), 0);
    if (count > this.maxZones) {
      throw new ValidationError('Too many zones', `A zone query by datetime on "${c.id}" looks up each zone of level ${level} in the area: about ${count} here; the limit is ${this.maxZones} (limits.maxSubZones). Use a smaller bbox, a coarser zone-level or a parent-zone.`);
    }
    const zones = parent ? grid.subZones(parent.zoneId, parent.depth) : [...new Set(query.boxes.flatMap((b) => grid.zonesInBBox(level, b)))];
    const { keys, coarse } = await runStepped(zoneKeysOf(keyed, zones, layout.coarseLevel), signal);
    const cells = await this.store.read(pyramidRef(c), { level, keys, coarse, fields: [], ...(periods ? { periods } : {}), ...(signal ? { signal } : {}) });
    const held = new Set(cells.filter((cell) => cell.count > 0).map((cell) => cell.key));
    return new Set(zones.filter((_, i) => held.has(keys[i]!)));
  }

  async zoneData(c: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    if (c.backing.kind !== 'clickhouse-pyramid') throw new TypeError(`${c.id} is not a clickhouse-pyramid collection`);
    const backing = c.backing;
    const { grid, signal } = request;
    if (request.filter) throw this.noRows(c);
    if (request.options.stats?.includes('median')) {
      throw new InvalidRequestError('Median unavailable', `A zone pyramid keeps no values, so no median: "${c.id}" serves count, valid, min, max, mean and stdDev. The lake collection "${backing.source}" computes medians on the fly.`);
    }
    const layout = await this.layout(c);
    this.keyedGrid(c, layout, grid);
    const zoneLevel = grid.zoneLevel(request.zoneId);
    const missing = request.depths.filter((d) => !layout.levels.includes(zoneLevel + d));
    if (missing.length > 0) {
      throw new InvalidRequestError(
        'Level not in the pyramid',
        `zone-depth ${missing.join(',')} of ${request.zoneId} (level ${zoneLevel}) asks level${missing.length > 1 ? 's' : ''} ${missing.map((d) => zoneLevel + d).join(', ')}; the pyramid of "${c.id}" holds levels ${layout.levels.join(', ')}. Ask depths whose levels it holds, or the lake collection "${backing.source}".`,
      );
    }
    const periods = this.periods(c, layout, request);
    const { plan, agg } = await rowAggregation(request, await this.fields(c), 0);
    const fields = agg.sources;
    if (periods) {
      const cells = agg.depths.reduce((n, d) => n + d.zones.length, 0) * periodCount(layout, periods);
      if (cells > MAX_PERIOD_CELLS) {
        throw new ValidationError('Too many periods', `datetime "${request.datetime!.text}" over the sub-zones of ${request.zoneId} merges up to ${cells} ${layout.period} cells; the limit is ${MAX_PERIOD_CELLS}. Ask a shorter interval, fewer depths or a finer zone.`);
      }
    }
    if (fields.length > 0) {
      for (const [k, d] of agg.depths.entries()) {
        const { keys, coarse } = await runStepped(zoneKeysOf(grid as KeyedGrid, d.zones, layout.coarseLevel), signal);
        const cells = await this.store.read(pyramidRef(c), { level: d.level, keys, coarse, fields, ...(periods ? { periods } : {}), ...(signal ? { signal } : {}) });
        agg.setFromKeyed(k, await runStepped(keyedStats(cells, fields), signal));
      }
    }
    return rowZoneData(request, plan, agg.keyedResult(), {
      href: `/collections/${encodeURIComponent(backing.source)}/items`,
      rel: 'source',
      type: 'application/geo+json',
      title: `Rows of ${backing.source}, aggregated per zone by the ingest of ${layout.ingestedAt}`,
    });
  }

  private noRows(c: Collection): InvalidRequestError {
    return new InvalidRequestError('Filter not supported', `"${c.id}" is a zone pyramid: it holds aggregates per zone, no rows to filter. Drop the filter for this collection, or select the lake collection "${sourceOf(c)}", whose rows it aggregates.`);
  }

  /** The request's grid, when it is the pyramid's. */
  private keyedGrid(c: Collection, layout: PyramidLayout, grid: Dggrs): KeyedGrid {
    if (grid.id !== layout.dggrsId) {
      throw new InvalidRequestError('Grid not in the pyramid', `The pyramid of "${c.id}" holds zones of ${layout.dggrsId}; ask /collections/${c.id}/dggs/${layout.dggrsId}/... (other grids: the lake collection "${sourceOf(c)}").`);
    }
    if (!hasZoneKeys(grid)) throw new InvalidRequestError('Grid not in the pyramid', `${grid.id} has no numeric zone keys, which a pyramid needs.`);
    return grid;
  }

  /** The period starts [from, to) of the request's `datetime`; undefined for the all-time cells. */
  private periods(c: Collection, layout: PyramidLayout, request: Pick<ZoneDataRequest, 'datetime'>): { from: number; to: number } | undefined {
    const t = request.datetime;
    if (!t) return undefined;
    if (!layout.period) {
      throw new InvalidRequestError('datetime not available', `The pyramid of "${c.id}" was ingested without periods (backing.period, and a datetimeColumn on its lake), so it answers for all time only: drop datetime, or ask the lake collection "${sourceOf(c)}".`);
    }
    const aligned = alignToPeriods(t, layout.period);
    if ('reason' in aligned) throw new InvalidRequestError('datetime not whole periods', `The pyramid of "${c.id}" holds aggregates per ${layout.period} (UTC): ${aligned.reason}.`);
    return aligned;
  }
}

/** The lake collection a pyramid aggregates. */
function sourceOf(c: Collection): string {
  return c.backing.kind === 'clickhouse-pyramid' ? c.backing.source : '';
}

/** An upper bound of the periods [from, to) holds within the pyramid's time extent. */
function periodCount(layout: PyramidLayout, periods: { from: number; to: number }): number {
  const [first, last] = layout.timeExtent ?? [EARLIEST, LATEST];
  const span = Math.min(periods.to, last + 1) - Math.max(periods.from, first);
  return span <= 0 ? 0 : Math.ceil(span / SHORTEST_MS[layout.period!]) + 1;
}

/** The cells of one level as statistics per zone key, the cells of one key (its periods) merged. */
function* keyedStats(cells: readonly PyramidCell[], fields: readonly string[]): Stepped<KeyedZoneStats> {
  const byKey = new Map<number, { count: number; moments: Moments[] }>();
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    const at = byKey.get(cell.key);
    if (!at) byKey.set(cell.key, { count: cell.count, moments: fields.map((_, f) => ({ ...(cell.fields[f] ?? emptyMoments()) })) });
    else {
      at.count += cell.count;
      at.moments = at.moments.map((m, f) => mergeMoments(m, cell.fields[f] ?? emptyMoments()));
    }
    if (i % CELLS_PER_STEP === CELLS_PER_STEP - 1) yield;
  }
  const keys = [...byKey.keys()];
  const entries = [...byKey.values()];
  const stats: KeyedZoneStats = { keys, count: entries.map((e) => e.count), fields: {} };
  fields.forEach((name, f) => {
    const ms = entries.map((e) => e.moments[f]!);
    stats.fields[name] = {
      valid: ms.map((m) => m.valid),
      min: ms.map((m) => m.min),
      max: ms.map((m) => m.max),
      mean: ms.map(momentsMean),
      stdDev: ms.map(momentsStdDev),
    };
  });
  return stats;
}
