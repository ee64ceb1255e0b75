import type { Collection, BackingKind, FieldMeta } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData, ZoneDataOptions, ZoneDataRequest } from '../../domain/zone-data.js';
import { InvalidZoneDepthError, parseZoneDepth } from '../../domain/zone-depth.js';
import { InvalidDatetimeError, parseDatetime, type TimeInterval } from '../../domain/time-interval.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import { BadRequestError, NotFoundError, ValidationError } from '../errors.js';

/** Zone data from a client-supplied raster URL (the ad-hoc GET). */
export interface AdHocRasterSource {
  adHocZoneData(url: string, request: ZoneDataRequest): Promise<ZoneData>;
}

/** The contract's ValueItem: statistics of one field over the whole zone. */
export interface ValueItem {
  average: number | null;
  maximum: number | null;
  minimum: number | null;
  stdDev: number | null;
}

/** A zone-data request as the route parsed it; the service validates the meaning. */
export interface ZoneDataQuery {
  dggrsId: string;
  zoneId: string;
  zoneDepth?: string;
  datetime?: string;
  properties?: string[];
  excludeProperties?: string[];
  options?: ZoneDataOptions;
}

export interface ZoneDataLimits {
  maxSubZones: number;
}

/**
 * The zone-data use case: resolves the grid, zone and collection, validates depths, fields and
 * time, and hands the request to the source of the collection's backing kind.
 */
export class ZoneDataService {
  constructor(
    private readonly grids: GridRegistry,
    private readonly catalog: CollectionCatalog,
    private readonly sources: Partial<Record<BackingKind, ZoneDataSource>>,
    private readonly adHoc: AdHocRasterSource | undefined,
    private readonly limits: ZoneDataLimits,
  ) {}

  grid(dggrsId: string): Dggrs {
    const grid = this.grids.get(dggrsId);
    if (!grid) throw new NotFoundError('DGGRS not found', `Known grids: ${this.grids.list().map((g) => g.id).join(', ')}. See /dggs.`);
    return grid;
  }

  collection(collectionId: string): Collection {
    const c = this.catalog.get(collectionId);
    if (!c) throw new NotFoundError('Collection not found', 'See /collections for the collection ids.');
    return c;
  }

  private source(c: Collection): ZoneDataSource {
    const s = this.sources[c.backing.kind];
    if (!s) throw new ValidationError('Zone data not available', `Collections backed by "${c.backing.kind}" do not serve zone data yet.`, 422);
    return s;
  }

  /** The fields `properties` and `exclude-properties` may name. */
  async fields(collectionId: string): Promise<Record<string, FieldMeta>> {
    const c = this.collection(collectionId);
    return this.source(c).fields(c);
  }

  async collectionZoneData(collectionId: string, q: ZoneDataQuery): Promise<ZoneData> {
    const c = this.collection(collectionId);
    const grid = this.grid(q.dggrsId);
    const source = this.source(c);
    const known = await source.fields(c);
    const request = this.request(grid, q, selectFields(Object.keys(known), q.properties, q.excludeProperties));
    return source.zoneData(c, request);
  }

  async adHocZoneData(cogUrl: string | undefined, q: ZoneDataQuery): Promise<ZoneData> {
    if (!cogUrl) {
      throw new BadRequestError(
        'Missing cog-url',
        'Add cog-url=<URL of a Cloud-Optimized GeoTIFF> to compute zone data from a raster, use /collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data, or POST a cross-collection body to this path.',
      );
    }
    const grid = this.grid(q.dggrsId);
    const request = this.request(grid, q, []);
    if (!this.adHoc) throw new ValidationError('Ad-hoc rasters not available', 'This service reads no client rasters.', 422);
    return this.adHoc.adHocZoneData(cogUrl, request);
  }

  /**
   * Statistics of each field over one zone, for the zone-info response of a collection (the
   * contract's `statistics`: ValueItem per field). Raster sources compute them from the pixels
   * (mean, max, min, population stdDev); a source that does not honour `options.stats` gives
   * its depth-0 value as average, minimum and maximum.
   */
  async zoneStatistics(collectionId: string, dggrsId: string, zoneId: string, datetime?: string): Promise<Record<string, ValueItem>> {
    const c = this.collection(collectionId);
    const grid = this.grid(dggrsId);
    const source = this.source(c);
    const names = Object.keys(await source.fields(c));
    const request = this.request(grid, { dggrsId, zoneId, zoneDepth: '0', ...(datetime ? { datetime } : {}), options: { stats: ['mean', 'max', 'min', 'stdDev'] } }, names);
    const data = await source.zoneData(c, request);
    const at = (name: string) => data.depths[0]?.values[name]?.[0] ?? null;
    const out: Record<string, ValueItem> = {};
    for (const name of names) {
      if (`${name}_mean` in data.fields) out[name] = { average: at(`${name}_mean`), maximum: at(`${name}_max`), minimum: at(`${name}_min`), stdDev: at(`${name}_stdDev`) };
      else if (name in data.fields) out[name] = { average: at(name), maximum: at(name), minimum: at(name), stdDev: null };
    }
    return out;
  }

  private request(grid: Dggrs, q: ZoneDataQuery, fields: string[]): ZoneDataRequest {
    if (!grid.isValidZone(q.zoneId)) throw new NotFoundError('Zone not found', `"${q.zoneId}" is not a zone of ${grid.id}; zone ids look like ${grid.zoneIdForm}.`);
    const depths = this.depths(grid, q.zoneId, q.zoneDepth);
    let datetime: TimeInterval | undefined;
    if (q.datetime !== undefined && q.datetime !== '') {
      try {
        datetime = parseDatetime(q.datetime);
      } catch (err) {
        if (err instanceof InvalidDatetimeError) throw new ValidationError('Invalid query parameter', err.message);
        throw err;
      }
    }
    return { grid, zoneId: q.zoneId, depths, fields, ...(datetime ? { datetime } : {}), options: q.options ?? {} };
  }

  private depths(grid: Dggrs, zoneId: string, text: string | undefined): number[] {
    let depths: number[];
    try {
      depths = text === undefined || text.trim() === '' ? [grid.defaultDepth] : parseZoneDepth(text);
    } catch (err) {
      if (err instanceof InvalidZoneDepthError) throw new ValidationError('Invalid query parameter', err.message);
      throw err;
    }
    const deepest = depths[depths.length - 1]!;
    if (deepest > grid.maxRelativeDepth) {
      throw new ValidationError('zone-depth too deep', `${grid.id} serves zone data down to a relative depth of ${grid.maxRelativeDepth} (max_relative_depth); asked ${deepest}.`);
    }
    const level = grid.zoneLevel(zoneId);
    if (level + deepest > grid.maxRefinementLevel) {
      throw new ValidationError('zone-depth too deep', `Zone ${zoneId} is at level ${level}; ${grid.id} has levels up to ${grid.maxRefinementLevel}, so zone-depth can be at most ${grid.maxRefinementLevel - level}.`);
    }
    const total = depths.reduce((n, d) => n + grid.subZoneCount(zoneId, d), 0);
    if (total > this.limits.maxSubZones) {
      throw new ValidationError('Too many sub-zones', `zone-depth ${depths.join(',')} resolves ${total} sub-zones; the limit is ${this.limits.maxSubZones}. Ask a shallower depth or a finer zone.`);
    }
    return depths;
  }
}

/** `properties` keeps and orders fields, `exclude-properties` then drops some; unknown names are 400. */
export function selectFields(known: string[], properties: string[] | undefined, exclude: string[] | undefined): string[] {
  const unknown = [...(properties ?? []), ...(exclude ?? [])].filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new BadRequestError('Unknown field', `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid fields: ${known.join(', ') || '(none)'}.`);
  }
  const kept = properties && properties.length > 0 ? [...new Set(properties)] : known;
  const out = kept.filter((n) => !(exclude ?? []).includes(n));
  if (out.length === 0) throw new BadRequestError('No field selected', `properties and exclude-properties leave no field; valid fields: ${known.join(', ')}.`);
  return out;
}
