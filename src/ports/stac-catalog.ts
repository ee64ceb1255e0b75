import type { BBox } from '../domain/dggrs/dggrs.js';
import type { StacItemDescriptor, TimeBounds } from '../domain/stac/stac-item.js';

export type { StacItemDescriptor, TimeBounds } from '../domain/stac/stac-item.js';

export interface StacSearch {
  /** Items whose bbox intersects this box (touching counts); minLon > maxLon crosses the antimeridian. */
  bbox: BBox;
  /** Items whose datetime, or start_datetime..end_datetime, overlaps these bounds. */
  datetime?: TimeBounds;
}

/**
 * A STAC catalog searched by place and time. The answer is unordered and unfiltered otherwise:
 * choosing among the items (strategy, coverage, cloud cover) is the domain's job.
 */
export interface StacCatalog {
  search(query: StacSearch): Promise<StacItemDescriptor[]>;
}

/** Opens the catalog a collection names (`backing.catalog`). */
export type StacCatalogFactory = (href: string) => StacCatalog;

/** The catalog cannot be read or is not valid STAC (an operator problem, not the client's). */
export class StacCatalogError extends Error {
  constructor(readonly href: string, reason: string) {
    super(`STAC catalog ${href}: ${reason}`);
    this.name = 'StacCatalogError';
  }
}
