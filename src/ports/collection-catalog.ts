import type { Collection, FieldMeta } from '../domain/collection.js';

export type { Collection, FieldMeta } from '../domain/collection.js';

/** Where collection descriptions come from (config today; a database or STAC API tomorrow). */
export interface CollectionCatalog {
  list(): Collection[];
  get(id: string): Collection | undefined;
}

/**
 * Field metadata of one backing kind (the lake reads parquet schemas, rasters take their
 * bands from config). The names are what `properties`, `exclude-properties` and CQL2 accept.
 */
export interface FieldSource {
  fields(collection: Collection): Promise<Record<string, FieldMeta>>;
}
