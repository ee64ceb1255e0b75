import type { Link } from './schemas/common.js';
import type { Links } from './links.js';
import type { ZoneData } from '../domain/zone-data.js';
import type { Dggrs } from '../domain/dggrs/dggrs.js';
import type { Collection } from '../domain/collection.js';
import type { Format } from '../formats/registry.js';
import { ZONE_DATA_FORMATS, zoneDataEncoding } from '../formats/zone-data/encodings.js';
import { zoneDataReply } from './encoders/zone-data-reply.js';
import type { ZoneDataView } from './encoders/zone-data-view.js';
import { publicSourceHref } from './source-files.js';
import { forward } from './zone-data-query.js';

/** Where a zone-data answer sits: its path, the query its links carry, its page title and crumbs. */
export interface ZoneDataPage {
  path: string;
  query: { datetime?: string | undefined; 'refined-geometry'?: boolean | undefined; 'values-scale'?: number | undefined; 'values-offset'?: number | undefined };
  title: string;
  crumbs: [string, string][];
  /** The answer's own links, when not `self` and the alternates of `path` (a POST's). */
  self?: Link[];
  /** The collections read, whose local files are served. */
  collections?: Collection[];
  /** The profile of the format the answer is written in (formatPlan). */
  profile?: string | undefined;
  /** The formats the alternates link to, when not the zone-data encodings (a lake collection's add geo+ubjson). */
  formats?: readonly Format[];
  /** The request's signal: encoding stops when the client leaves. */
  signal?: AbortSignal | undefined;
}

function datetimeBounds(text: string | undefined): ZoneDataView['datetime'] {
  if (!text) return undefined;
  const parts = text.split('/');
  const open = (s: string | undefined) => (s === undefined || s === '' || s === '..' ? null : s);
  return parts.length === 1 ? { start: parts[0]!, end: parts[0]! } : { start: open(parts[0]), end: open(parts[1]) };
}

/**
 * `self` and the alternates in the formats that can write this answer (an image holds one depth
 * and three fields: a PNG link beside a two-depth answer would be a 400). The query's `profile` goes
 * only to the formats that write it. Size bounds are not weighed: an alternate may still be
 * refused as too large.
 */
function formatLinks(links: Links, path: string, current: Format, formats: readonly Format[], query: Record<string, string>, title: string, grid: Dggrs, data: ZoneData): Link[] {
  const { profile, ...others } = query;
  const plan = { grid, zoneId: data.zoneId, depths: data.depths.map((d) => d.depth), columns: Object.keys(data.fields).length, limits: { maxRasterCells: Infinity } };
  const writes = (f: Format): boolean => {
    try {
      zoneDataEncoding(f)?.check?.({ ...plan, profile: undefined });
      return true;
    } catch {
      return false;
    }
  };
  return formats
    .filter((f) => f === current || writes(f))
    .flatMap((f) => links.selfAndAlternates(path, current, [f], profile !== undefined && (f === current || zoneDataEncoding(f)?.profiles?.includes(profile)) ? query : others, title));
}

/** Zone data in the negotiated format, with its links. */
export async function presentZoneData(grid: Dggrs, data: ZoneData, format: Format, links: Links, page: ZoneDataPage) {
  const { path, query, title, crumbs, self, collections = [], profile, formats = ZONE_DATA_FORMATS, signal } = page;
  const list: Link[] = [
    ...(self ?? formatLinks(links, path, format, formats, forward(query), title, grid, data)),
    // Sources inside this service (a lake's items) come as paths, a collection's local files as
    // the route that serves them: links are absolute; a local file that is not served is left out.
    ...data.sources.flatMap((s) => {
      const href = publicSourceHref(collections, s.href, (p) => links.href(p));
      return href ? [{ href, rel: s.rel ?? 'source', ...(s.type ? { type: s.type } : {}), ...(s.title ? { title: s.title } : {}) }] : [];
    }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs', `/dggs/${encodeURIComponent(data.dggrsId)}`, { type: 'application/json', title: 'The grid' }),
  ];
  const view: ZoneDataView = { grid, links: list, refined: query['refined-geometry'] ?? false, datetime: datetimeBounds(query.datetime), title, crumbs, profile, valuesScale: query['values-scale'], valuesOffset: query['values-offset'], signal };
  return zoneDataReply(format, data, view);
}
