import type { z } from './schemas/zod.js';
import type { AdHocZoneDataQuery, CollectionZoneDataQuery, CrossCollectionZoneDataQuery } from './schemas/zone-data.js';
import type { ZoneDataOptions } from '../domain/zone-data.js';
import { F_VALUE, type Format } from '../formats/registry.js';
import { zoneDataEncoding } from '../formats/zone-data/encodings.js';
import type { FormatCheck } from '../app/zone-data/zone-data-service.js';
import { InvalidRequestError } from '../ports/errors.js';
import { JSONFG_DGGS_PROFILES, type JsonFgDggsProfile } from './encoders/zone-data-jsonfg.js';
import { allValues, zoneDataSubset } from './zone-query-area.js';

/** The parsed query of a zone-data GET or POST, as its schema gives it. */
export type CollectionZoneDataParams = z.infer<typeof CollectionZoneDataQuery>;
export type AdHocZoneDataParams = z.infer<typeof AdHocZoneDataQuery>;
export type CrossCollectionZoneDataParams = z.infer<typeof CrossCollectionZoneDataQuery>;
type AnyZoneDataParams = CollectionZoneDataParams | AdHocZoneDataParams | CrossCollectionZoneDataParams;

/** Query values the links carry forward (everything but the format). */
export function forward(query: object): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k === 'f' || v === undefined) continue;
    raw[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return raw;
}

/** The computation options the query names (`cog-*`, STAC selection). */
export function zoneDataOptions(q: Partial<CollectionZoneDataParams & AdHocZoneDataParams>): ZoneDataOptions {
  const o: ZoneDataOptions = {};
  if (q['cog-no-data-value'] !== undefined) o.noData = q['cog-no-data-value'];
  if (q['cog-sampling-factor'] !== undefined) o.samplingFactor = q['cog-sampling-factor'];
  if (q['cog-all-touched'] !== undefined) o.allTouched = q['cog-all-touched'];
  if (q['cog-stat'] !== undefined) o.stats = q['cog-stat'];
  if (q['cog-band'] !== undefined) o.bands = q['cog-band'];
  if (q['stac-search-strategy'] !== undefined) o.stacStrategy = q['stac-search-strategy'];
  if (q.intersection_percent !== undefined) o.intersectionPercent = q.intersection_percent;
  if (q.cloud_cover_percent !== undefined) o.cloudCoverPercent = q.cloud_cover_percent;
  return o;
}

/** Geometry encodings write every sub-zone's outline: the service bounds their vertices. */
export function withOutline(format: Format, query: AnyZoneDataParams): { outline?: { refined: boolean } } {
  return format === 'geojson' || format === 'geoparquet' ? { outline: { refined: query['refined-geometry'] ?? false } } : {};
}

/**
 * The query with its `subset` read (OGC data-subsetting): a time subset becomes `datetime`, so links
 * carry the one form; a subset on any other axis is a 400.
 */
export function withSubset<Q extends { datetime?: string | undefined; subset?: string | undefined }>(query: Q, url: string | undefined, temporal: boolean): Omit<Q, 'subset'> {
  const subsets = allValues(url, 'subset');
  if (subsets.length === 0) return query;
  const datetime = zoneDataSubset({ subsets, ...(query.datetime !== undefined ? { datetime: query.datetime } : {}), temporal });
  const { subset: _subset, ...rest } = query;
  return { ...rest, datetime };
}

/**
 * A `profile` of DGGS-JSON-FG answers with features when geo+json is the format, or when the request
 * names no format (`f`) at all; beside another `f` it is a 400.
 */
export function jsonFgProfile(query: Pick<CollectionZoneDataParams, 'profile' | 'f'>, format: Format): JsonFgDggsProfile | undefined {
  const p = JSONFG_DGGS_PROFILES.find((x) => x === query.profile);
  if (p === undefined) return undefined;
  if (format === 'geojson' || (query.f === undefined && format === 'dggs-json')) return p;
  throw new InvalidRequestError('Profile needs geo+json', `profile=${p} is a DGGS-JSON-FG profile of geo+json: use f=geo+json (or leave f out).`);
}

/** The encoding's profile and checks for a zone-data request in `format`. */
export interface FormatPlan {
  profile?: string;
  check: FormatCheck;
}

/**
 * The profile the answer is written in (`profile`, else the encoding's default) and the encoding's
 * own checks, run by the use case before any value is computed. A profile the format does not
 * write is a 400 (`rfc7946`, GeoJSON's, is accepted with any format, as it was before profiles).
 */
export function formatPlan(format: Format, asked: string | undefined): FormatPlan {
  const encoding = zoneDataEncoding(format);
  const profiles = encoding?.profiles ?? [];
  if (asked !== undefined && asked !== 'rfc7946' && !profiles.includes(asked)) {
    throw new InvalidRequestError(
      'Profile not offered',
      `profile=${asked} is not a profile of f=${F_VALUE[format]}; ${profiles.length > 0 ? `it offers ${profiles.join(', ')} (default ${profiles[0]})` : 'that format has no profiles'}.`,
    );
  }
  const profile = asked !== undefined && profiles.includes(asked) ? asked : profiles[0];
  return { ...(profile !== undefined ? { profile } : {}), check: (plan) => encoding?.check?.({ ...plan, profile }) };
}

/** Query parameters of the GET routes that the POST refuses: field selection is per collection in the body. */
const NOT_ON_POST: Record<string, string> = {
  properties: 'list the fields of each collection in its `fields`',
  'exclude-properties': 'list the fields of each collection in its `fields`',
  'cog-url': 'ad-hoc rasters are read with GET and cog-url',
  filter: 'put a filter in the selection it restricts (`filter` in the body)',
  'filter-lang': 'a body filter is CQL2-Text as a string or CQL2-JSON as an object',
};

/** A 400 for the GET-only parameters a cross-collection POST names (its schema drops them unread). */
export function refuseGetOnly(raw: object): void {
  const refused = Object.keys(NOT_ON_POST).filter((k) => k in raw);
  if (refused.length > 0) {
    throw new InvalidRequestError('Parameter not accepted on POST', `${refused.join(', ')}: not accepted with a cross-collection body; ${NOT_ON_POST[refused[0]!]}.`);
  }
}
