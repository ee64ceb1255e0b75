import type { BBox } from '../domain/dggrs/dggrs.js';
import type { Geometry } from '../domain/geometry/geojson.js';
import type { StacItemDescriptor, TimeBounds } from '../domain/stac/stac-item.js';
import type { RemoteReads } from '../domain/remote-reads.js';
import type { Extent } from '../domain/collection.js';
import type { SourceVersion } from './source-version.js';

export type { StacItemDescriptor, TimeBounds } from '../domain/stac/stac-item.js';

export interface StacSearch {
  /** Items whose bbox intersects this box (touching counts); minLon > maxLon crosses the antimeridian. */
  bbox: BBox;
  /**
   * The zone polygon (RFC 7946 GeoJSON, within `bbox`): a STAC API that takes `intersects`
   * searches by it instead of the box. Catalogs that cannot may answer by `bbox` alone.
   */
  intersects?: Geometry;
  /** Items whose datetime, or start_datetime..end_datetime, overlaps these bounds. */
  datetime?: TimeBounds;
  /** Items with `eo:cloud_cover` at most this; items that do not say are left out. */
  maxCloudCover?: number;
  /** Remote reads of the client request this search is part of: a STAC API counts its pages and items there. */
  reads?: RemoteReads;
}

/**
 * A STAC catalog searched by place and time. The answer is unordered; beyond the search it is
 * unfiltered: choosing among the items (strategy, coverage) is the domain's job.
 */
export interface StacCatalog {
  search(query: StacSearch): Promise<StacItemDescriptor[]>;
  /**
   * Catalogs read whole (static ones): the union of their items' bboxes and times. Reading it
   * is reading the catalog, so it fails (StacCatalogError) as a search would.
   */
  extent?(): Promise<Extent | undefined>;
  /**
   * Catalogs whose version is cheap to know (a static catalog on disk: its root document's size
   * and modification time): that version. A catalog found changed is read afresh on its next
   * search. Absent, or undefined, where knowing would cost a search (STAC APIs, catalogs over HTTP).
   */
  version?(): Promise<SourceVersion | undefined>;
}

export interface StacCatalogOptions {
  /** STAC API collections to search (`collections` of /search); all when absent. */
  collections?: string[];
}

/** Opens the catalog a collection names (`backing.catalog`: a path, a static catalog URL or a STAC API landing page). */
export type StacCatalogFactory = (href: string, options?: StacCatalogOptions) => StacCatalog;

/** The catalog cannot be read or is not valid STAC (an operator problem, not the client's). */
export class StacCatalogError extends Error {
  constructor(readonly href: string, reason: string) {
    super(`STAC catalog ${href}: ${reason}`);
    this.name = 'StacCatalogError';
  }
}
