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
 * The profile a zone-data request asks: its `profile` parameter, else the first profile the Accept
 * range that chose `format` names (`Accept: application/geo+json; profile="https://www.opengis.net/
 * def/profile/ogc/0/jsonfg-dggs"`, or the bare name) among those the format has here: DGGS-JSON-FG's
 * with geo+json and geo+ubjson where the route places features, else its encoding's. An Accept
 * profile the format lacks is a preference not met, answered with the default (the parameter's is a 400).
 */
export function askedProfile(param: string | undefined, acceptProfiles: readonly string[], format: Format, features = false): string | undefined {
  if (param !== undefined) return param;
  const featureFormat = format === 'geojson' || format === 'geo-ubjson';
  const offered: readonly string[] = featureFormat ? (features ? [...JSONFG_DGGS_PROFILES, 'rfc7946'] : ['rfc7946']) : (zoneDataEncoding(format)?.profiles ?? []);
  return acceptProfiles.find((p) => offered.includes(p));
}

/**
 * A DGGS-JSON-FG `profile` (asked by the parameter or Accept, see askedProfile) answers with features
 * when geo+json is the format, or when the request names no format at all (no `f`, Accept chose
 * none); beside another format it is a 400. geo+ubjson answers DGGS-UBJSON-FG only: `jsonfg-dggs`
 * when no profile is asked (/per/data-dggs-jsonfg/supported-profiles: any profile may be the default),
 * any other profile is a 400.
 */
export function jsonFgProfile(asked: string | undefined, f: string | undefined, format: Format): JsonFgDggsProfile | undefined {
  const p = JSONFG_DGGS_PROFILES.find((x) => x === asked);
  if (format === 'geo-ubjson') {
    if (asked === undefined) return JSONFG_DGGS_PROFILES[0];
    if (p === undefined) throw new InvalidRequestError('Profile not offered', `geo+ubjson is DGGS-UBJSON-FG: profile=${asked} is not one of its profiles ${JSONFG_DGGS_PROFILES.join(', ')} (default ${JSONFG_DGGS_PROFILES[0]}).`);
    return p;
  }
  if (p === undefined) return undefined;
  if (format === 'geojson' || (f === undefined && format === 'dggs-json')) return p;
  throw new InvalidRequestError('Profile needs geo+json', `profile=${p} is a DGGS-JSON-FG profile of geo+json (or geo+ubjson): use f=geo+json (or leave f out).`);
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
