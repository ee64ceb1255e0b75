import type { Collection, FieldMeta } from '../domain/collection.js';
import type { ZoneData, ZoneDataRequest } from '../domain/zone-data.js';

export type { ZoneData, ZoneDataRequest } from '../domain/zone-data.js';

/**
 * Computes zone data for collections of one backing kind (raster URL, STAC, parquet lake, OGC
 * Features). The use case picks the source by the collection's backing kind.
 */
export interface ZoneDataSource {
  /** Fields a zone-data request may select for this collection (the queryables). */
  fields(collection: Collection): Promise<Record<string, FieldMeta>>;
  zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData>;
}
