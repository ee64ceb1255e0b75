import type { DepthValues, ZoneData } from '../../domain/zone-data.js';
import { profileUri, type ZoneDataContext, type ZoneDataEncoding } from './encoding.js';
import { jsonItems, jsonNumber, pacedBytes } from '../paced-pieces.js';
import { CONF } from '../conformance-classes.js';

/**
 * Zone data as CoverageJSON (OGC 21-069r2; OGC 21-038r1 /req/data-coveragejson/content) in the two
 * DGGS-optimized profiles:
 * - `covjson-dggs` (default): the domain's one axis `zone` holds the local sub-zone indices 1..n in
 *   the DGGRS's deterministic sub-zone order (DGGS-JSON's order);
 * - `covjson-dggs-zoneids`: the `zone` axis holds the global zone ids, referenced by an IdentifierRS
 *   whose `id` is the DGGRS's URI (identifier RS coordinates are strings, as the spec requires).
 * The plain `covjson` profile (spatial axes) is not offered (/per/data-coveragejson/supported-profiles).
 *
 * One depth is one `Coverage`; several are a `CoverageCollection` with one Coverage per depth and the
 * parameters once. The DGGRS's space and time are not axes: space is the `zone` axis; a time
 * selection is a single-valued `t` axis (its interval as bounds), which ranges may omit.
 * `domainType` is the profile's URI: CoverageJSON lets a custom domain type be an absolute URI
 * (§ Extensions), and the profile is what defines this domain's structure. The local indices are
 * numbers, which an IdentifierRS may not reference, so their reference system is a custom type,
 * again the profile's URI, whose members name the DGGRS, parent zone and depth the indices are relative to.
 *
 * The metadata the requirement asks for is in top-level members (simple names, as DGGS-JSON's):
 * `profile` (URI), `dggrs` (the DGGRS's URI), `zoneId` (the parent zone), `depths`, and in `links`
 * (the DGGRS description, rel `[ogc-rel:dggrs]`, and the profile, rel `profile`).
 *
 * Written as text pieces (paced-pieces.ts) like DGGS-JSON, so memory stays that of the text.
 */
export const COVERAGEJSON_PROFILES = ['covjson-dggs', 'covjson-dggs-zoneids'] as const;

function parameters(data: ZoneData): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(data.fields).map(([name, meta]) => [
      name,
      {
        type: 'Parameter',
        ...(meta.description ? { description: { en: meta.description } } : {}),
        observedProperty: { label: { en: meta.title || name } },
        ...(meta.svc_unit ? { unit: { symbol: meta.svc_unit } } : {}),
      },
    ]),
  );
}

function zoneSystem(data: ZoneData, ctx: ZoneDataContext, profile: string, depth: number): Record<string, unknown> {
  if (profile === 'covjson-dggs-zoneids') {
    return {
      type: 'IdentifierRS',
      id: ctx.grid.uri,
      label: { en: ctx.grid.title },
      targetConcept: { label: { en: 'DGGRS zone' }, description: { en: `A zone of ${data.dggrsId}, named by its global zone identifier` } },
    };
  }
  return {
    type: profileUri(profile),
    id: ctx.grid.uri,
    label: { en: `Local sub-zone indices of ${data.zoneId} at relative depth ${depth} (${data.dggrsId})` },
    description: { en: `1-based position of each sub-zone of ${data.zoneId} at relative depth ${depth} in the deterministic sub-zone order of ${data.dggrsId}` },
    zoneId: data.zoneId,
    depth,
  };
}

/** The time selection as a single-valued axis, when it has an end. */
function timeAxis(ctx: ZoneDataContext): { axis: Record<string, unknown>; referencing: Record<string, unknown> } | undefined {
  const dt = ctx.datetime;
  const at = dt?.start ?? dt?.end;
  if (!dt || !at) return undefined;
  return {
    axis: { values: [at], ...(dt.start && dt.end ? { bounds: [dt.start, dt.end] } : {}) },
    referencing: { coordinates: ['t'], system: { type: 'TemporalRS', calendar: 'Gregorian' } },
  };
}

/** One Coverage (without its closing brace), its members before `ranges` given by `head`. */
function* coveragePieces(data: ZoneData, ctx: ZoneDataContext, profile: string, d: DepthValues, head: Record<string, unknown>): Generator<string> {
  const n = d.zones.length;
  const time = timeAxis(ctx);
  const referencing = [{ coordinates: ['zone'], system: zoneSystem(data, ctx, profile, d.depth) }, ...(time ? [time.referencing] : [])];
  yield JSON.stringify(head).slice(0, -1);
  yield `${Object.keys(head).length ? ',' : ''}"domain":{"type":"Domain","domainType":${JSON.stringify(profileUri(profile))},"axes":{"zone":{"values":[`;
  if (profile === 'covjson-dggs-zoneids') yield* jsonItems(n, (i) => JSON.stringify(d.zones[i]));
  else yield* jsonItems(n, (i) => String(i + 1));
  yield `]}${time ? `,"t":${JSON.stringify(time.axis)}` : ''}},"referencing":${JSON.stringify(referencing)}},"ranges":{`;
  const names = Object.keys(data.fields);
  for (let f = 0; f < names.length; f++) {
    yield `${f ? ',' : ''}${JSON.stringify(names[f])}:{"type":"NdArray","dataType":"float","axisNames":["zone"],"shape":[${n}],"values":[`;
    const values = d.values[names[f]!];
    yield* jsonItems(n, (i) => jsonNumber(values?.[i]));
    yield ']}';
  }
  yield '}';
}

export function* coverageJsonPieces(data: ZoneData, ctx: ZoneDataContext): Generator<string> {
  const profile = ctx.profile ?? COVERAGEJSON_PROFILES[0];
  const metadata = {
    profile: profileUri(profile),
    dggrs: ctx.grid.uri,
    zoneId: data.zoneId,
    depths: data.depths.map((d) => d.depth),
    links: [...ctx.links, { href: profileUri(profile), rel: 'profile', title: `Profile ${profile}` }],
  };
  if (data.depths.length === 1) {
    yield* coveragePieces(data, ctx, profile, data.depths[0]!, { type: 'Coverage', ...metadata, parameters: parameters(data) });
    yield '}';
    return;
  }
  const head = { type: 'CoverageCollection', domainType: profileUri(profile), ...metadata, parameters: parameters(data) };
  yield `${JSON.stringify(head).slice(0, -1)},"coverages":[`;
  for (let k = 0; k < data.depths.length; k++) {
    const d = data.depths[k]!;
    if (k) yield ',';
    // The collection's domainType is inherited: the coverage omits its own (the domain keeps it, as recommended).
    yield* coveragePieces(data, ctx, profile, d, { type: 'Coverage', zoneId: data.zoneId, depth: d.depth });
    yield '}';
  }
  yield ']}';
}

export const coverageJson: ZoneDataEncoding = {
  format: 'coveragejson',
  conformance: [CONF.dggsDataCoveragejson],
  profiles: COVERAGEJSON_PROFILES,
  encode: (data, ctx) => pacedBytes(coverageJsonPieces(data, ctx), ctx.signal),
};
