import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { ZoneData, ZoneDataRequest } from '../../domain/zone-data.js';
import { isStatistic, type Statistic } from '../../domain/aggregation/statistics.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import { formatOfHref, type RasterFormat, type RasterReader } from '../../ports/raster-reader.js';
import { collectionRasterFields, rasterZoneData, statMeta, type RasterField } from './raster-zone-data.js';

const MEDIA_TYPE: Record<RasterFormat, string> = {
  geotiff: 'image/tiff; application=geotiff; profile=cloud-optimized',
  pmtiles: 'application/vnd.pmtiles',
};

/**
 * Zone data of `raster-url` collections (one fixed COG named in config, trusted) and of ad-hoc
 * `cog-url` requests (untrusted: the reader applies the fetch policy, nothing is cached).
 */
export class RasterUrlZoneDataSource implements ZoneDataSource {
  constructor(private readonly reader: RasterReader) {}

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const b = collection.backing;
    if (b.kind !== 'raster-url') return {};
    if (b.fields && Object.keys(b.fields).length > 0) return b.fields;
    // No fields in config: one `band<n>` field per band, the mean.
    const ds = await this.reader.open(b.url, { trusted: true });
    return Object.fromEntries(Array.from({ length: ds.info.bandCount }, (_, i) => [`band${i + 1}`, { title: `Band ${i + 1}`, type: 'number' as const, svc_band_index: i + 1, svc_data_type: ds.info.dataType, svc_dggs_stat: 'mean' }]));
  }

  async zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    const b = collection.backing;
    if (b.kind !== 'raster-url') throw new Error(`raster-url source given a ${b.kind} collection`);
    const ds = await this.reader.open(b.url, { trusted: true });
    const fields = collectionRasterFields(await this.fields(collection), request.fields, stats(request));
    return rasterZoneData(request.grid, request, [ds], fields, request.options.noData ?? b.noData, [{ href: b.url, rel: 'source', type: MEDIA_TYPE[b.rasterFormat ?? formatOfHref(b.url)], title: 'Source raster' }]);
  }

  /** Ad-hoc raster: fields are `band<b>_<stat>` for every asked band and statistic. */
  async adHocZoneData(url: string, request: ZoneDataRequest): Promise<ZoneData> {
    const ds = await this.reader.open(url, { trusted: false });
    try {
      const fields = adHocFields(request.options.bands ?? [1], stats(request) ?? ['mean'], ds.info.dataType);
      return await rasterZoneData(request.grid, request, [ds], fields, request.options.noData, [{ href: url, rel: 'source', type: MEDIA_TYPE[formatOfHref(url)], title: 'Source raster (cog-url)' }]);
    } finally {
      await ds.close();
    }
  }
}

function stats(request: ZoneDataRequest): Statistic[] | undefined {
  return request.options.stats?.filter(isStatistic);
}

export function adHocFields(bands: number[], stats: Statistic[], dataType: string): RasterField[] {
  return bands.flatMap((band) =>
    stats.map((stat) => ({ name: `band${band}_${stat}`, band, stat, meta: statMeta({ title: `Band ${band}`, type: 'number', svc_band_index: band, svc_data_type: dataType }, stat) })),
  );
}
