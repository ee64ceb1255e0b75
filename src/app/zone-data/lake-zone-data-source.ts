/**
 * Zone data of parquet-lake collections: every row whose geometry's representative point (the
 * point, or the centroid of a line/polygon) falls in a sub-zone counts towards that sub-zone,
 * and each selected numeric field is aggregated per sub-zone (count, valid, min, max, mean,
 * stdDev, and median when asked). A CQL2 `filter` and `datetime` restrict the rows in DuckDB.
 * The aggregation itself is the domain's (zone-points.ts), shared with remote features.
 *
 * The rows are prefiltered in SQL by a box holding every sub-zone (GeoParquet covering columns
 * let DuckDB skip row groups). Then, by what the lake reader offers, fastest first:
 * 1. stored zone keys (`npm run ingest`) for every level asked: a GROUP BY in DuckDB, the
 *    statistics computed there;
 * 2. rows as plain columns (points and doubles from DuckDB's vectors), zone-from-point on worker
 *    threads (a ZoneBinner: the lake's zone-binning-pool.ts), accumulated here in row order;
 * 3. rows as values (`scan`), one by one (readers without the fast paths, e.g. the object store).
 * All give the same numbers (stored keys: mean and stdDev up to the rounding of the engine's
 * summation order). Memory is one accumulator per sub-zone and field; a median keeps its values
 * (12 bytes each) up to `maxMedianValues` per request, beyond which the request is refused with
 * 422 naming the bound.
 *
 * The request's signal goes with every read (the lake stops its query and the binning stops
 * taking batches when it aborts); zone data and zone-list filters read as classes of their own,
 * so neither holds every lake slot while the other waits.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { BBox, Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData, ZoneDataRequest, ZoneRowsQuery } from '../../domain/zone-data.js';
import { pointOfWkb } from '../../domain/aggregation/wkb-point.js';
import { ZonePointAggregator, ZonesMet } from '../../domain/aggregation/zone-points.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { LakePointScanRequest, LakeReader, LakeWork, PointBatch, RowFilter } from '../../ports/lake-reader.js';
import { withLakeFaults } from '../lake-faults.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import type { ZoneBinner, ZoneBinningSession, ZoneBins } from '../../ports/zone-binner.js';
import { medianBoundFault, requestBox, rowAggregation, rowZoneData, zoneQueryBoxes } from './row-zone-data.js';

export interface LakeZoneDataLimits {
  /** Values a request may keep for medians, over all its depths and fields. */
  maxMedianValues: number;
}

/** Batches handed to workers ahead of the one being accumulated, per worker. */
const AHEAD_PER_WORKER = 4;

export class LakeZoneDataSource implements ZoneDataSource {
  /** `pool`: worker threads for zone-from-point; without it, binning runs here in slices. */
  constructor(
    private readonly lake: LakeReader,
    private readonly limits: LakeZoneDataLimits,
    private readonly pool?: ZoneBinner,
  ) {}

  /** A filter may name any queryable column, numeric or not. */
  async filterQueryables(collection: Collection): Promise<string[]> {
    return Object.keys(await this.lake.fields(collection));
  }

  /** Numeric columns: what can be aggregated. */
  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const all = await this.lake.fields(collection);
    // The lake reads a collection without files as one without fields; for zone data that is no
    // field to select, and the answer must say why (there is no data yet), as items say it.
    if (Object.keys(all).length === 0) await withLakeFaults(collection.id, () => this.lake.describe(collection));
    return Object.fromEntries(Object.entries(all).filter(([, m]) => m.type === 'number' || m.type === 'integer').map(([k, m]) => [k, { ...m, svc_dggs_stat: 'mean' }]));
  }

  /**
   * Zones of the query level holding a matching row: rows are read from the area's box (for a
   * box query, widened by one zone so a zone that meets the box with its rows just outside it
   * counts too), and each row's representative point names its zone. The caller keeps the zones
   * of its own listing; the set holds no more zones than the area has.
   */
  async zonesWithRows(collection: Collection, query: ZoneRowsQuery): Promise<Set<string>> {
    const { grid, level } = query;
    const dataset = await this.lake.describe(collection);
    const found = new Set<string>();
    if (!dataset.geometryColumn) return found;
    const boxes = await zoneQueryBoxes(query);
    const rows = (bbox: BBox): RowFilter & LakeWork => ({
      bbox,
      ...(query.datetime && dataset.datetimeColumn ? { datetime: query.datetime } : {}),
      ...(query.filter ? { filter: query.filter } : {}),
      ...(query.signal ? { signal: query.signal } : {}),
      workClass: 'zone-filter',
    });
    for (const bbox of boxes) {
      if (this.lake.scanPoints) {
        const met = new ZonesMet(grid, level);
        await this.binnedScan(collection, grid, [{ level, zones: null }], { ...rows(bbox), fields: [] }, (batch) => {
          met.add(batch.x, batch.y, batch.size);
          return { slots: [], met: met.zoneIds() };
        }, (_, r) => r.met.forEach((z) => found.add(z)));
        continue;
      }
      const geometry = dataset.geometryColumn;
      const met = new ZonesMet(grid, level);
      const xy = [new Float64Array(1), new Float64Array(1)] as const;
      await this.lake.scan(collection, { columns: [geometry], ...rows(bbox) }, (chunk) => {
        for (const g of chunk.columns[geometry]!) {
          const p = g instanceof Uint8Array ? pointOfWkb(g) : undefined;
          if (!p) continue;
          [xy[0][0], xy[1][0]] = p;
          met.add(xy[0], xy[1], 1);
        }
        met.zoneIds().forEach((z) => found.add(z));
      });
    }
    return found;
  }

  async zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    const { grid } = request;
    // Asked together: the lake's look-ups of the collection's files then share one walk.
    const [dataset, fields, stored] = await Promise.all([this.lake.describe(collection), this.fields(collection), this.lake.zoneKeyLevels?.(collection, grid.id)]);
    const { plan, agg } = await rowAggregation(request, fields, this.limits.maxMedianValues);
    const geometry = dataset.geometryColumn;
    let keyed = false;
    if (geometry && agg.sources.length > 0) {
      // A lake without a datetime column has no time dimension: datetime does not apply to it.
      const rows: RowFilter & LakeWork = {
        bbox: await requestBox(request),
        ...(request.datetime && dataset.datetimeColumn ? { datetime: request.datetime } : {}),
        ...(request.filter ? { filter: request.filter } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        workClass: 'zone-data',
      };
      try {
        keyed = await this.fromStoredKeys(collection, grid, agg, rows, stored ?? []);
        if (keyed) {
          // statistics set from the engine's GROUP BY
        } else if (this.lake.scanPoints) await this.fromPoints(collection, grid, agg, rows);
        else await this.fromRows(collection, geometry, agg, rows);
      } catch (e) {
        throw medianBoundFault(e);
      }
    }
    return rowZoneData(request, plan, keyed ? agg.keyedResult() : agg.result(), { href: `/collections/${encodeURIComponent(collection.id)}/items`, rel: 'source', type: 'application/geo+json', title: `Rows of ${dataset.source}` });
  }

  /** Statistics grouped by stored zone keys, when every level asked has them (`levels`: the lake's stored ones); false otherwise. */
  private async fromStoredKeys(collection: Collection, grid: Dggrs, agg: ZonePointAggregator, rows: RowFilter & LakeWork, levels: number[]): Promise<boolean> {
    const { zoneKeyStats } = this.lake;
    if (!zoneKeyStats) return false;
    const stored = new Set(levels);
    if (!agg.depths.every((d) => stored.has(d.level))) return false;
    const stats = (level: number, fields: string[], medians: string[]) => zoneKeyStats.call(this.lake, collection, { ...rows, dggrsId: grid.id, level, fields, medians });
    for (const [k, d] of agg.depths.entries()) {
      const s = await stats(d.level, agg.sources, []);
      if (!s) return false; // rows the engine cannot settle alone: bin them here
      agg.setFromKeyed(k, s);
    }
    const medians = agg.medianSources;
    if (medians.length === 0) return true;
    // The same allowance as when the values are kept here, checked before the engine keeps them.
    agg.reserveMedianValues(agg.keyedMedianValues());
    for (const [k, d] of agg.depths.entries()) agg.setFromKeyed(k, (await stats(d.level, [], medians))!);
    return true;
  }

  /** Rows as plain columns; zone-from-point on the workers (or here), accumulated here in row order. */
  private async fromPoints(collection: Collection, grid: Dggrs, agg: ZonePointAggregator, rows: RowFilter & LakeWork): Promise<void> {
    const levels = agg.depths.map((d) => ({ level: d.level, zones: d.zones }));
    await this.binnedScan(collection, grid, levels, { ...rows, fields: agg.sources }, async (batch) => ({ slots: await runStepped(agg.slotsOf(batch.x, batch.y, batch.size)), met: [] }), (batch, r) =>
      agg.addBatch(r.slots, batch.values, batch.size),
    );
  }

  /** Rows one by one, from readers without the plain-column scan. */
  private async fromRows(collection: Collection, geometry: string, agg: ZonePointAggregator, rows: RowFilter & LakeWork): Promise<void> {
    await this.lake.scan(collection, { columns: [geometry, ...agg.sources], ...rows }, (chunk) => {
      const geoms = chunk.columns[geometry]!;
      const values = agg.sources.map((s) => chunk.columns[s]!);
      for (let r = 0; r < chunk.size; r++) {
        const g = geoms[r];
        const p = g instanceof Uint8Array ? pointOfWkb(g) : undefined;
        if (!p) continue;
        agg.add(p[0], p[1], (f) => {
          const v = values[f]![r];
          return typeof v === 'number' ? v : NaN;
        });
      }
    });
  }

  /**
   * Scans the rows as plain columns and bins each batch on the worker threads (or, without them,
   * with `here`, in slices), handing each batch and its bins to `take` in scan order. Batches run
   * ahead on the workers while earlier ones are taken, a few per worker at most.
   */
  private async binnedScan(
    collection: Collection,
    grid: Dggrs,
    levels: { level: number; zones: readonly string[] | null }[],
    request: LakePointScanRequest,
    here: (batch: PointBatch) => ZoneBins | Promise<ZoneBins>,
    take: (batch: PointBatch, bins: ZoneBins) => void,
  ): Promise<void> {
    const session: ZoneBinningSession | undefined = this.pool ? await this.pool.session(grid, levels) : undefined;
    const pending: { batch: PointBatch; bins: Promise<ZoneBins> }[] = [];
    const settle = async () => {
      const p = pending.shift()!;
      take(p.batch, await p.bins);
    };
    const ahead = session ? AHEAD_PER_WORKER * this.pool!.threads : 0;
    try {
      await this.lake.scanPoints!(collection, request, async (batch) => {
        if (!session) {
          take(batch, await here(batch));
          return nextTurn();
        }
        const bins = session.bin(batch.x, batch.y, batch.size);
        bins.catch(() => undefined); // awaited in turn; a failure is thrown there
        pending.push({ batch, bins });
        while (pending.length > ahead) await settle();
      });
      while (pending.length > 0) await settle();
    } finally {
      session?.close();
    }
  }
}
