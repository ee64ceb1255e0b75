import type { Dggrs } from './dggrs/dggrs.js';
import type { FieldMeta } from './collection.js';
import type { TimeInterval } from './time-interval.js';

/**
 * Values for one zone and its sub-zones: what every zone-data source produces and every
 * encoding (DGGS-JSON, GeoJSON, HTML, Parquet, GeoParquet) consumes.
 */
export interface ZoneDataRequest {
  grid: Dggrs;
  zoneId: string;
  /** Relative depths, ascending, each <= grid.maxRelativeDepth. */
  depths: number[];
  /** Field names selected after `properties` and `exclude-properties`; every one is a known field. */
  fields: string[];
  datetime?: TimeInterval;
  /** Source-specific options (cog-*, stac-*, intersection/cloud-cover), already validated. */
  options: ZoneDataOptions;
}

export interface ZoneDataOptions {
  noData?: number;
  samplingFactor?: number;
  allTouched?: boolean;
  stats?: string[];
  bands?: number[];
  stacStrategy?: 'single' | 'latest' | 'mosaic';
  intersectionPercent?: number;
  cloudCoverPercent?: number;
}

export interface DepthValues {
  depth: number;
  /** Sub-zone ids in the grid's sub-zone order. */
  zones: string[];
  /** One array per output field, aligned with `zones`; null where no valid value exists. */
  values: Record<string, (number | null)[]>;
}

export interface SourceLink {
  href: string;
  rel?: string;
  type?: string;
  title?: string;
}

export interface ZoneData {
  dggrsId: string;
  zoneId: string;
  /** Output fields in order, with metadata for the DGGS-JSON schema. */
  fields: Record<string, FieldMeta>;
  depths: DepthValues[];
  /** The underlying data (STAC items, raster URL, parquet glob): `source` links. */
  sources: SourceLink[];
}
