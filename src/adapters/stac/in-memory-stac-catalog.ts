import type { StacCatalog, StacItemDescriptor, StacSearch } from '../../ports/stac-catalog.js';
import { matchesSearch } from './stac-json.js';

/** Items held in memory: for tests and for catalogs built by code. */
export class InMemoryStacCatalog implements StacCatalog {
  constructor(private readonly items: readonly StacItemDescriptor[]) {}

  async search(query: StacSearch): Promise<StacItemDescriptor[]> {
    return this.items.filter((it) => matchesSearch(it, query));
  }
}
