import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Collection, CollectionCatalog, FieldMeta, FieldSource } from '../../ports/collection-catalog.js';
import type { BackingKind } from '../../domain/collection.js';
import { NotFoundError } from '../../ports/errors.js';

/** Lists and describes collections and their fields (queryables). */
@injectable()
export class CollectionsService {
  constructor(
    @inject(TOKENS.CollectionCatalog) private readonly catalog: CollectionCatalog,
    @inject(TOKENS.FieldSources) private readonly fieldSources: Partial<Record<BackingKind, FieldSource>>,
  ) {}

  list(): Collection[] {
    return this.catalog.list();
  }

  get(id: string): Collection {
    const collection = this.catalog.get(id);
    if (!collection) {
      const known = this.catalog.list().map((c) => c.id);
      throw new NotFoundError('Collection not found', `No collection "${truncate(id)}". Known collections: ${known.join(', ') || 'none'}.`);
    }
    return collection;
  }

  async fields(id: string): Promise<Record<string, FieldMeta>> {
    const collection = this.get(id);
    const source = this.fieldSources[collection.backing.kind];
    return source ? source.fields(collection) : {};
  }
}

function truncate(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}…` : s;
}
