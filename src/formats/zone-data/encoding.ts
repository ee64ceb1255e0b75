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

/** What every zone-data encoder gets besides the data. */
export interface ZoneDataContext {
  grid: Dggrs;
  links: DocumentLink[];
  /** Densify sub-zone outlines (geo+json, geoparquet). */
  refined: boolean;
  datetime?: { start: string | null; end: string | null } | undefined;
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
}

/** HTML is offered at its place in the list, but drawn by the driving side's page templates. */
export interface ZoneDataPage {
  format: 'html';
  conformance: readonly string[];
  page: true;
}
