import type { FieldMeta } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { DepthValues, SourceLink, ZoneData, ZoneDataRequest } from '../../domain/zone-data.js';
import { DEFAULT_SAMPLING_FACTOR, mosaicPixelGrid, planSampling, zonalStatistics, type Statistic } from '../../domain/aggregation/index.js';
import type { RasterDataset } from '../../ports/raster-reader.js';

/** One output field: a statistic of one band. */
export interface RasterField {
  name: string;
  band: number;
  stat: Statistic;
  meta: FieldMeta;
}

/**
 * Zone data from one raster or a mosaic of several (priority order): plan the samples, read one
 * window per raster at the overview the sample spacing needs, aggregate in the domain.
 */
export async function rasterZoneData(grid: Dggrs, request: ZoneDataRequest, datasets: RasterDataset[], fields: RasterField[], noData: number | undefined, sources: SourceLink[]): Promise<ZoneData> {
  const plan = planSampling(grid, request.zoneId, request.depths, request.options.samplingFactor ?? DEFAULT_SAMPLING_FACTOR);
  const bands = [...new Set(fields.map((f) => f.band))];
  const stats = [...new Set(fields.map((f) => f.stat))];
  const depths: DepthValues[] = [];
  if (datasets.length === 0) {
    // No raster covers the zone (a STAC search found nothing): every value is null.
    for (let k = 0; k < plan.depths.length; k++) {
      const zones = plan.subZones[k]!;
      depths.push({ depth: plan.depths[k]!, zones, values: Object.fromEntries(fields.map((f) => [f.name, zones.map(() => (f.stat === 'count' || f.stat === 'valid' ? 0 : null))])) });
    }
  } else {
    const windows = await Promise.all(datasets.map((ds) => ds.readWindow({ bbox: plan.extent, maxPixelSizeDegrees: plan.spacingDegrees, bands, ...(noData !== undefined ? { noData } : {}) })));
    const result = zonalStatistics(grid, plan, mosaicPixelGrid(windows), { stats, allTouched: request.options.allTouched ?? false });
    for (const r of result) {
      depths.push({ depth: r.depth, zones: r.zones, values: Object.fromEntries(fields.map((f) => [f.name, r.bands[bands.indexOf(f.band)]![f.stat]!])) });
    }
  }
  return { dggrsId: grid.id, zoneId: request.zoneId, fields: Object.fromEntries(fields.map((f) => [f.name, f.meta])), depths, sources };
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
