import type { Collection, CollectionCatalog, FieldMeta, FieldSource } from '../../ports/collection-catalog.js';

/** Collections as the config file lists them. */
export class ConfigCollectionCatalog implements CollectionCatalog {
  private readonly byId: Map<string, Collection>;

  constructor(private readonly collections: Collection[]) {
    this.byId = new Map(collections.map((c) => [c.id, c]));
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
