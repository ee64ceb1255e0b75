import type { BBox, Dggrs } from './dggrs/dggrs.js';
import type { FieldMeta } from './collection.js';
import type { TimeInterval } from './time-interval.js';
import type { Expr } from './cql2/ast.js';
import type { RemoteReads } from './remote-reads.js';

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
  /**
   * CQL2 predicate on the source rows: only matching rows contribute (sources that declare
   * `filterQueryables`). The cross-collection body's row filter; a zone-data GET's `filter` is a
   * test on each sub-zone's values instead, applied by the use case (app/zone-data/zone-filter.ts).
   */
  filter?: Expr;
  /** Source-specific options (cog-*, stac-*, intersection/cloud-cover), already validated. */
  options: ZoneDataOptions;
  /** Remote reads of the client request this is part of: remote sources count their pages there. */
  reads?: RemoteReads;
  /** Aborts when the answer is no longer wanted (the client left, a time budget passed): sources stop reading and reject with its reason. */
  signal?: AbortSignal;
}

/** A zone query over rows: which zones of `level` hold rows matching `filter` within the area. */
export interface ZoneRowsQuery {
  grid: Dggrs;
  level: number;
  /** The area: the sub-zones of `parent` at `depth` below it, else zones meeting `boxes`. */
  parent?: { zoneId: string; depth: number };
  boxes: BBox[];
  filter?: Expr;
  datetime?: TimeInterval;
  /** Remote reads of the client request this is part of (see ZoneDataRequest). */
  reads?: RemoteReads;
  /** As ZoneDataRequest's. */
  signal?: AbortSignal;
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
  /**
   * Set when a zone-data `filter` was applied (OGC data-cql2-filter): 1 for each sub-zone, aligned
   * with `zones`, where the filter is not true on that sub-zone's own data and outline. Its values
   * are already null, which is all the "raster" encodings (indexed by sub-zone order: DGGS-JSON,
   * DGGS-UBJSON, GeoTIFF, PNG, ...) write; the "vector" encodings (one row or feature per sub-zone:
   * GeoJSON, Parquet, GeoParquet, the HTML table) leave these sub-zones out.
   */
  excluded?: Uint8Array;
}

/** Whether sub-zone `i` of a depth is kept in a "vector" encoding (not excluded by a zone-data filter). */
export function keptSubZone(d: DepthValues, i: number): boolean {
  return d.excluded?.[i] !== 1;
}

/** A field's values at one depth as doubles, NaN where there is none (the float encodings' no value). */
export function valuesAsDoubles(d: DepthValues, field: string): Float64Array {
  const values = d.values[field];
  const out = new Float64Array(d.zones.length);
  for (let i = 0; i < out.length; i++) out[i] = values?.[i] ?? Number.NaN;
  return out;
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

/** What a zone-data request will produce, known before any source is read. */
export interface ZoneDataCost {
  subZones: number;
  /** Sub-zones times output columns: the values every encoding carries. */
  values: number;
  /** Outline vertices the geometry encodings (geo+json, geoparquet) would write; 0 without geometry. */
  vertices: number;
}

/**
 * The size of a zone-data answer from the grid alone: sub-zones over the depths, values for
 * `columns` output columns, and outline vertices when each sub-zone's outline is written.
 * Vertices per outline are measured on two sub-zones of each depth, reached through the first
 * and the last child at every level (pentagons have fewer corners), so the estimate costs a few
 * outlines, not a listing.
 */
export function zoneDataCost(grid: Dggrs, zoneId: string, depths: readonly number[], columns: number, outline?: { refined: boolean }): ZoneDataCost {
  let subZones = 0;
  let vertices = 0;
  for (const depth of depths) {
    const n = grid.subZoneCount(zoneId, depth);
    subZones += n;
    if (outline && n > 0) {
      const perZone = Math.max(...[descend(grid, zoneId, depth, 'first'), descend(grid, zoneId, depth, 'last')].map((z) => grid.zoneOutline(z, outline.refined).length));
      vertices += n * perZone;
    }
  }
  return { subZones, values: subZones * columns, vertices };
}

function descend(grid: Dggrs, zoneId: string, depth: number, end: 'first' | 'last'): string {
  let z = zoneId;
  for (let i = 0; i < depth; i++) {
    const c = grid.children(z);
    z = end === 'first' ? c[0]! : c[c.length - 1]!;
  }
  return z;
}

/** Degrees of latitude a zone of `level` spans at most (twice a regular zone's side, rounded up). */
export function zoneSpanDegrees(grid: Dggrs, level: number): number {
  return (2 * Math.sqrt(grid.levelInfo(level).zoneAreaMetersSquare)) / 111_000;
}

/** A box grown by `margin` degrees of latitude, and of longitude as wide at its most poleward latitude. */
export function widenBox(b: BBox, margin: number): BBox {
  const south = Math.max(-90, b[1] - margin), north = Math.min(90, b[3] + margin);
  const cos = Math.cos((Math.max(Math.abs(south), Math.abs(north)) * Math.PI) / 180);
  const lon = cos < 1e-6 ? 360 : margin / cos;
  const span = b[0] <= b[2] ? b[2] - b[0] : b[2] + 360 - b[0];
  if (span + 2 * lon >= 360) return [-180, south, 180, north];
  const w = b[0] - lon, e = b[2] + lon;
  // Past the antimeridian: the box wraps (west > east), as the lake's bbox filter reads it.
  return [w < -180 ? w + 360 : w, south, e > 180 ? e - 360 : e, north];
}
