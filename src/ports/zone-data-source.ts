import type { Collection, FieldMeta } from '../domain/collection.js';
import type { ZoneData, ZoneDataRequest, ZoneRowsQuery } from '../domain/zone-data.js';

export type { ZoneData, ZoneDataRequest, ZoneRowsQuery } from '../domain/zone-data.js';

/**
 * Computes zone data for collections of one backing kind (raster URL, STAC, parquet lake, OGC
 * Features). The use case picks the source by the collection's backing kind.
 */
export interface ZoneDataSource {
  /** Fields a zone-data request may select for this collection (the queryables). */
  fields(collection: Collection): Promise<Record<string, FieldMeta>>;
  zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData>;
  /**
   * Present on sources that honour `request.filter` (CQL2 on their rows): the properties a
   * filter may name. Sources without it refuse filters.
   */
  filterQueryables?(collection: Collection): Promise<string[]>;
  /**
   * Present on sources of rows (the lake, OGC API Features): the zones of `query.level` that hold at least one row
   * matching the filter, found from the rows of the query's area (zone queries with `filter`).
   */
  zonesWithRows?(collection: Collection, query: ZoneRowsQuery): Promise<Set<string>>;
}
