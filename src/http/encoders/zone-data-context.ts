import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData } from '../../domain/zone-data.js';
import type { Link } from '../schemas/common.js';
import type { Reply } from '../route.js';

/** What every zone-data encoder gets besides the data. */
export interface ZoneDataContext {
  grid: Dggrs;
  links: Link[];
  /** Densify sub-zone outlines (geo+json, geoparquet). */
  refined: boolean;
  datetime?: { start: string | null; end: string | null };
  title: string;
  crumbs: [string, string][];
}

export type ZoneDataEncoder = (data: ZoneData, ctx: ZoneDataContext) => Promise<Reply> | Reply;
