import type { Collection, CollectionCatalog, FieldMeta, FieldSource } from '../../ports/collection-catalog.js';
import type { Extent } from '../../domain/collection.js';

/** Collections as the config file lists them, with the extents their data gave where the config gives none. */
export class ConfigCollectionCatalog implements CollectionCatalog {
  private collections: Collection[];
  private byId: Map<string, Collection>;

  constructor(collections: Collection[]) {
    this.collections = collections;
    this.byId = new Map(collections.map((c) => [c.id, c]));
  }

  /** Extents found in the data at start, for collections whose config has none (a configured extent always wins). */
  fillExtents(extents: ReadonlyMap<string, Extent>): void {
    this.collections = this.collections.map((c) => (c.extent || !extents.has(c.id) ? c : { ...c, extent: extents.get(c.id)! }));
    this.byId = new Map(this.collections.map((c) => [c.id, c]));
  }

  list(): Collection[] {
    return this.collections;
  }

  get(id: string): Collection | undefined {
    return this.byId.get(id);
  }
}

/** Field metadata written in config (raster bands, proxied feature properties). */
export class ConfigFieldSource implements FieldSource {
  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const backing = collection.backing;
    return 'fields' in backing && backing.fields ? backing.fields : {};
  }
}
