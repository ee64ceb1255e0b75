/**
 * A collection is one dataset. Its backing kind decides where zone data comes from.
 * These are plain types: the config schema produces them, ports and use cases consume them.
 */
export type PropertyType = 'array' | 'boolean' | 'integer' | 'null' | 'number' | 'object' | 'string';

/** Field metadata, the contract's SchemaProperty. */
export interface FieldMeta {
  title: string;
  type: PropertyType;
  description?: string;
  format?: string;
  enum?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  svc_band_index?: number;
  svc_data_type?: string;
  svc_dggs_stat?: string;
  svc_gsd?: number;
  svc_unit?: string;
}

export interface RasterDefaults {
  noData?: number;
  fields?: Record<string, FieldMeta>;
}

/** How value-encoded raster tiles (PMTiles PNG) turn colours into numbers. */
export type RasterValueEncoding = 'terrarium' | 'mapbox-terrain-rgb' | 'gray';

export type Backing =
  | { kind: 'parquet-lake'; geometryColumn: string; datetimeColumn?: string }
  | ({ kind: 'raster-url'; url: string; rasterFormat?: 'geotiff' | 'pmtiles'; valueEncoding?: RasterValueEncoding } & RasterDefaults)
  | ({
      kind: 'stac';
      catalog: string;
      strategy: 'single' | 'latest' | 'mosaic';
      intersectionPercent?: number;
      cloudCoverPercent?: number;
      asset: string;
      /** STAC API collections searched. */
      collections?: string[];
    } & RasterDefaults)
  | { kind: 'ogc-features'; url: string; collection: string; headers?: Record<string, string>; datetimeProperty?: string; fields?: Record<string, FieldMeta> }
  | {
      kind: 'clickhouse-pyramid';
      /** The pyramid's table in the ClickHouse database (`clickhouse.database`). */
      table: string;
      /** The parquet-lake collection the ingest reads. */
      source: string;
      /** What `npm run ingest -- <id> --pyramid clickhouse` writes unless told otherwise. */
      grid: string;
      levels: number[];
      coarseLevel?: number;
      period?: 'hour' | 'day' | 'month' | 'year';
    };

export type BackingKind = Backing['kind'];

export interface Extent {
  spatial?: { bbox: [number, number, number, number][]; crs?: string };
  temporal?: { interval: [string | null, string | null][]; trs?: string };
}

export interface Collection {
  id: string;
  title: string;
  description?: string;
  attribution?: string;
  extent?: Extent;
  backing: Backing;
}

/** A collection whose data has a time axis (its extent says so). */
export function isTemporal(c: Collection): boolean {
  return (c.extent?.temporal?.interval?.length ?? 0) > 0;
}
