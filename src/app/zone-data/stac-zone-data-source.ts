import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { SourceLink, ZoneData, ZoneDataRequest } from '../../domain/zone-data.js';
import { isStatistic } from '../../domain/aggregation/statistics.js';
import { selectItems, StacSelectionError, type SelectedItem } from '../../domain/stac/select-items.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { RasterReader } from '../../ports/raster-reader.js';
import { StacCatalogError, type StacCatalogFactory } from '../../ports/stac-catalog.js';
import { InvalidRequestError, UnavailableError } from '../../ports/errors.js';
import { outlineToGeoJson } from '../../domain/geometry/rfc7946.js';
import { collectionRasterFields, rasterZoneData } from './raster-zone-data.js';

/**
 * Zone data of `stac` collections: search the collection's catalog around the zone, let the
 * domain choose the items (strategy, coverage, cloud cover, datetime), then aggregate the chosen
 * assets as a mosaic in priority order. Query options override the collection defaults.
 */
export class StacZoneDataSource implements ZoneDataSource {
  constructor(
    private readonly openCatalog: StacCatalogFactory,
    private readonly reader: RasterReader,
  ) {}

  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const b = collection.backing;
    if (b.kind !== 'stac') return {};
    if (b.fields && Object.keys(b.fields).length > 0) return b.fields;
    // No fields in config: band 1, the mean (opening a scene just to count bands would need an item first).
    return { band1: { title: 'Band 1', type: 'number', svc_band_index: 1, svc_dggs_stat: 'mean' } };
  }

  async zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    const b = collection.backing;
    if (b.kind !== 'stac') throw new Error(`stac source given a ${b.kind} collection`);
    const { grid, zoneId, options } = request;
    const datetime = request.datetime ? { start: request.datetime.start, end: request.datetime.end } : undefined;
    const strategy = options.stacStrategy ?? b.strategy;
    const intersectionPercent = options.intersectionPercent ?? b.intersectionPercent;
    const cloudCoverPercent = options.cloudCoverPercent ?? b.cloudCoverPercent;
    let found;
    try {
      // A STAC API narrows by the zone polygon and cloud cover itself; the domain re-checks both below.
      found = await this.openCatalog(b.catalog, { collections: b.collections }).search({
        bbox: grid.describeZone(zoneId).bbox,
        intersects: outlineToGeoJson(grid.zoneOutline(zoneId, false)),
        ...(datetime ? { datetime } : {}),
        ...(cloudCoverPercent !== undefined ? { maxCloudCover: cloudCoverPercent } : {}),
        ...(request.reads ? { reads: request.reads } : {}),
      });
    } catch (err) {
      if (err instanceof StacCatalogError) throw new UnavailableError('STAC catalog unavailable', `The catalog of collection ${collection.id} could not be read.`);
      throw err;
    }
    // An item without the configured asset cannot supply values: it is no candidate.
    const candidates = found.filter((it) => it.assets[b.asset] !== undefined);
    let chosen: SelectedItem[];
    try {
      chosen = selectItems(candidates, grid.zoneOutline(zoneId, false), {
        strategy,
        ...(intersectionPercent !== undefined ? { intersectionPercent } : {}),
        ...(cloudCoverPercent !== undefined ? { cloudCoverPercent } : {}),
        ...(datetime ? { datetime } : {}),
      }).items;
    } catch (err) {
      if (err instanceof StacSelectionError && err.problem === 'mosaic-needs-datetime') {
        throw new InvalidRequestError('datetime required', 'stac-search-strategy=mosaic combines the scenes of a time window: add datetime=<start>/<end>, or use single or latest.');
      }
      if (err instanceof StacSelectionError) throw new InvalidRequestError('Invalid STAC option', err.message);
      throw err;
    }
    const assets = chosen.map((c) => c.item.assets[b.asset]!);
    // Catalog assets are the operator's (trusted), like a raster-url collection's file.
    const datasets = await Promise.all(assets.map((a) => this.reader.open(a.href, { trusted: true })));
    const stats = options.stats?.filter(isStatistic);
    const fields = collectionRasterFields(await this.fields(collection), request.fields, stats);
    const sources: SourceLink[] = chosen.map((c, i) => ({
      href: assets[i]!.href,
      rel: 'source',
      type: assets[i]!.type ?? 'image/tiff; application=geotiff',
      title: `STAC item ${c.item.id} (covers ${Math.round(c.coveragePercent)}% of the zone)`,
    }));
    return rasterZoneData(grid, request, datasets, fields, options.noData ?? b.noData, sources);
  }
}
