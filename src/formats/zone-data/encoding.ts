import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData } from '../../domain/zone-data.js';
import type { Format } from '../registry.js';

/** A link as documents carry it (the contract's Link). */
export interface DocumentLink {
  href: string;
  rel: string;
  type?: string | null;
  title?: string | null;
}

/** The URI of a profile of the standard (OGC 21-038r1 `profile` values), as `Link: <...>; rel="profile"` names it. */
export const profileUri = (profile: string): string => `https://www.opengis.net/def/profile/ogc/0/${profile}`;

/** What every zone-data encoder gets besides the data. */
export interface ZoneDataContext {
  grid: Dggrs;
  links: DocumentLink[];
  /** Densify sub-zone outlines (geo+json, geoparquet). */
  refined: boolean;
  datetime?: { start: string | null; end: string | null } | undefined;
  /** The profile the answer is written in (one of the encoding's `profiles`), when it has profiles. */
  profile?: string | undefined;
  /**
   * `values-scale` and `values-offset` (OGC 21-038r1 /rec/data-png/scale-offset): how the integer
   * images (PNG, JPEG-XL) encode values, round(value × scale + offset); fitted to the data when absent.
   */
  valuesScale?: number | undefined;
  valuesOffset?: number | undefined;
  /** Aborts when the answer is no longer wanted (the client left): the encoder stops at its next turn, rejecting with the reason. */
  signal?: AbortSignal | undefined;
}

/** What a zone-data request will produce, known before any value is computed. */
export interface ZoneDataPlan {
  grid: Dggrs;
  zoneId: string;
  /** Relative depths, ascending. */
  depths: readonly number[];
  /** Output columns (fields times statistics). */
  columns: number;
  profile?: string | undefined;
  /** The service's bounds an encoding may apply to what it writes (config `limits`). */
  limits: EncodingLimits;
}

/** Bounds of the writing itself, from config `limits`. */
export interface EncodingLimits {
  /** Cells (pixels times the samples written per pixel: GeoTIFF's bands, PNG's 1 or 3 channels, JPEG-XL's 4) the rasterized encodings may write for one answer, all images together. */
  maxRasterCells: number;
}

/** One zone-data format: its encoder writes the whole document, whoever asked (a request, a job). */
export interface ZoneDataEncoding {
  format: Format;
  /** Conformance classes zone data in this format implements. */
  conformance: readonly string[];
  /** The document's bytes, in order. */
  encode(data: ZoneData, ctx: ZoneDataContext): AsyncIterable<Uint8Array>;
  /** Files are sent as attachments under this name (file-names.ts). */
  fileName?(data: ZoneData): string;
  /**
   * The format's profiles (OGC 21-038r1 `profile`: `netcdf3-dggs`, `covjson-dggs-zoneids`, ...), its
   * default first; the answer links the one written with rel `profile`.
   */
  profiles?: readonly string[];
  /**
   * Refuses, before any value is computed, what the format cannot write (several depths in PNG)
   * or would write too large: throws an error kind of src/ports/errors.ts naming the rule or limit.
   */
  check?(plan: ZoneDataPlan): void;
  /** Response headers the answer carries besides its type (PNG's `Values-Scale`, `Values-Offset`). */
  headers?(data: ZoneData, ctx: ZoneDataContext): Record<string, string>;
}

/** HTML is offered at its place in the list, but drawn by the driving side's page templates. */
export interface ZoneDataPage {
  format: 'html';
  conformance: readonly string[];
  page: true;
}
