import type { FieldMeta } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { DepthValues, SourceLink, ZoneData, ZoneDataRequest } from '../../domain/zone-data.js';
import { DEFAULT_SAMPLING_FACTOR, mosaicPixelGrid, planDepth, zonalDepth, type DepthPlan, type PixelGrid, type Statistic, type WindowNeed, type ZonalDepth, type ZonalOptions, type ZonalWork } from '../../domain/aggregation/index.js';
import type { RasterDataset } from '../../ports/raster-reader.js';
import { AppError } from '../../ports/errors.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';

/** One output field: a statistic of one band. */
export interface RasterField {
  name: string;
  band: number;
  stat: Statistic;
  meta: FieldMeta;
}

/**
 * Zone data from one raster or a mosaic of several (priority order). Each depth is computed on
 * its own (its plan, its reads, its samples), so its values are the same whatever other depths
 * the request names; the domain asks for the windows, this reads them and keeps the event loop
 * turning while it aggregates.
 */
export async function rasterZoneData(grid: Dggrs, request: ZoneDataRequest, datasets: RasterDataset[], fields: RasterField[], noData: number | undefined, sources: SourceLink[]): Promise<ZoneData> {
  const factor = request.options.samplingFactor ?? DEFAULT_SAMPLING_FACTOR;
  const bands = [...new Set(fields.map((f) => f.band))];
  const stats = [...new Set(fields.map((f) => f.stat))];
  const depths: DepthValues[] = [];
  for (const depth of request.depths) {
    const plan = planDepth(grid, request.zoneId, depth, factor);
    if (datasets.length === 0) {
      // No raster covers the zone (a STAC search found nothing): every value is null.
      const zones = plan.subZones;
      depths.push({ depth, zones, values: Object.fromEntries(fields.map((f) => [f.name, zones.map(() => (f.stat === 'count' || f.stat === 'valid' ? 0 : null))])) });
      continue;
    }
    const r = await depthStatistics(grid, plan, datasets, { bands, stats, allTouched: request.options.allTouched ?? false, ...(noData !== undefined ? { noData } : {}) });
    depths.push({ depth: r.depth, zones: r.zones, values: Object.fromEntries(fields.map((f) => [f.name, r.bands[bands.indexOf(f.band)]![f.stat]!])) });
  }
  return { dggrsId: grid.id, zoneId: request.zoneId, fields: Object.fromEntries(fields.map((f) => [f.name, f.meta])), depths, sources };
}

/** Zonal statistics of one depth of a plan over rasters in priority order (a mosaic when several). */
export function depthStatistics(grid: Dggrs, plan: DepthPlan, datasets: RasterDataset[], options: ZonalOptions & { bands: number[]; noData?: number }): Promise<ZonalDepth> {
  const { bands, noData } = options;
  const read = async (need: WindowNeed): Promise<PixelGrid> =>
    mosaicPixelGrid(await Promise.all(datasets.map((ds) => ds.readWindow({ bbox: need.bbox, maxPixelSizeDegrees: need.maxPixelSizeDegrees, bands, ...(noData !== undefined ? { noData } : {}) }))));
  return runZonal(zonalDepth(grid, plan, { stats: options.stats, ...(options.allTouched !== undefined ? { allTouched: options.allTouched } : {}) }), read);
}

/**
 * Drives the domain's stepped zonal statistics: reads the windows it asks for (an optional one
 * over the reader's bound is answered with null: the domain keeps what it has) and lets other
 * callbacks run whenever the process's slice clock says a turn is due (event-loop-turns.ts).
 */
async function runZonal(work: ZonalWork, read: (need: WindowNeed) => Promise<PixelGrid>): Promise<ZonalDepth> {
  let input: PixelGrid | null | undefined;
  for (;;) {
    const step = work.next(input);
    input = undefined;
    if (step.done) return step.value;
    const need = step.value;
    if (need === undefined) {
      if (turnDue()) await takeTurn();
      continue;
    }
    try {
      input = await read(need);
    } catch (err) {
      if (!(need.optional && err instanceof AppError && err.kind === 'too-large')) throw err;
      input = null;
    }
  }
}

/**
 * Output fields of a raster collection: each configured field is a band (svc_band_index,
 * default 1) and a statistic (svc_dggs_stat, default mean). With `stats` asked explicitly,
 * each field becomes one field per statistic, named `<field>_<stat>`.
 */
export function collectionRasterFields(configured: Record<string, FieldMeta>, selected: string[], stats: Statistic[] | undefined): RasterField[] {
  const out: RasterField[] = [];
  for (const name of selected) {
    const meta = configured[name]!;
    const band = meta.svc_band_index ?? 1;
    if (stats && stats.length > 0) {
      for (const stat of stats) out.push({ name: `${name}_${stat}`, band, stat, meta: statMeta(meta, stat) });
    } else {
      const stat = (meta.svc_dggs_stat ?? 'mean') as Statistic;
      out.push({ name, band, stat, meta: { ...meta, svc_dggs_stat: stat } });
    }
  }
  return out;
}

export function statMeta(meta: FieldMeta, stat: Statistic): FieldMeta {
  const counting = stat === 'count' || stat === 'valid';
  return { ...meta, title: `${meta.title} (${stat})`, type: counting ? 'integer' : meta.type, svc_dggs_stat: stat, ...(counting ? { svc_unit: undefined, minimum: undefined, maximum: undefined } : {}) };
}
