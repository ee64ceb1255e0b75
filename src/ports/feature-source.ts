import type { Collection, FieldMeta } from '../domain/collection.js';
import type { BBox } from '../domain/dggrs/dggrs.js';
import type { Expr } from '../domain/cql2/index.js';
import type { Geometry } from '../domain/geometry/geojson.js';
import type { TimeInterval } from '../domain/time-interval.js';
import type { RemoteReads } from '../domain/remote-reads.js';

export type { Collection, FieldMeta } from '../domain/collection.js';

/** Which features take part; the parts combine with AND. */
export interface FeatureQuery {
  /** [west, south, east, north] CRS84: features whose geometry's envelope meets the box (what OGC API Features `bbox` selects). */
  bbox?: BBox;
  /** On the backend's temporal property. */
  datetime?: TimeInterval;
  /** CQL2 over the backend's queryables. */
  filter?: Expr;
  /** Properties the caller reads; others may be left out of the answer. Undefined: all. */
  properties?: string[];
  /** The client request's reads, shared by all its scans: the paging bounds hold for their sum. Absent: this scan alone. */
  reads?: RemoteReads;
  /** Aborted when the client leaves: the scan stops, the page being read is dropped. */
  signal?: AbortSignal;
}

/** One GeoJSON feature as the backend sent it. */
export interface RemoteFeature {
  id?: string | number;
  geometry: Geometry | null;
  properties: Record<string, unknown>;
}

/** What a scan did: where each part of the query was evaluated, and how much was read. */
export interface FeatureScanReport {
  pages: number;
  /** Features the backend returned, before local filtering. */
  received: number;
  /** Features handed to the caller. */
  delivered: number;
  /** Query parameters sent to the backend (`bbox`, `datetime`, `filter`, `properties`, `limit`). */
  pushed: string[];
  /** Parts evaluated here: `datetime` (a backend may ignore it), `filter` (terms the backend cannot evaluate). */
  local: string[];
  /** Backend URL of the first page, for `source` links. */
  firstPage: string;
}

/**
 * The features of a collection served by a remote OGC API - Features backend
 * (`backing.kind = "ogc-features"`).
 */
export interface FeatureSource {
  /** The backend's queryables (or schema), with the collection's configured `fields` laid over them. */
  fields(collection: Collection): Promise<Record<string, FieldMeta>>;
  /**
   * Every matching feature, page by page in the backend's order. Parts of the query the backend
   * cannot evaluate are evaluated here; the work is bounded (pages, features, counted in
   * `query.reads` with the request's other scans) and refused with a 4xx naming the bound, before
   * the page past it is read, or as soon as the backend reports more features up front.
   */
  scan(collection: Collection, query: FeatureQuery, onPage: (features: RemoteFeature[]) => void | Promise<void>): Promise<FeatureScanReport>;
}
