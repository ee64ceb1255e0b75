import { z } from './zod.js';
import { CollectionIdParam, Link, SchemaProperty } from './common.js';
import { formatParam, queryBoolean, queryList, queryNumber } from './query.js';
import { STATISTICS } from '../../domain/aggregation/statistics.js';
import { F_VALUE } from '../../formats/registry.js';
import { ZONE_DATA_FORMATS, ZONE_DATA_PROFILES } from '../../formats/zone-data/encodings.js';
import { JSONFG_DGGS_PROFILES } from '../encoders/zone-data-jsonfg.js';

/** Path and query parameters and the DataResponse body of the zone-data routes. */
const DggrsIdParam = z.string().openapi({ param: { name: 'dggrs_id', in: 'path' }, description: 'DGGRS identifier, like IVEA7H' });
const ZoneIdParam = z.string().openapi({ param: { name: 'zone_id', in: 'path' }, description: 'Zone identifier in the grid' });
export const CollectionZoneDataParams = z.object({ collection_id: CollectionIdParam, dggrs_id: DggrsIdParam, zone_id: ZoneIdParam });
export const GridZoneDataParams = z.object({ dggrs_id: DggrsIdParam, zone_id: ZoneIdParam });

export const ZONE_DATA_F = ZONE_DATA_FORMATS.map((f) => F_VALUE[f]);

/** `profile` of the zone-data routes and of order results. */
export const ZoneDataProfileParam = z
  .enum(['rfc7946', ...JSONFG_DGGS_PROFILES, ...ZONE_DATA_PROFILES] as [string, ...string[]])
  .optional()
  .openapi({
    description:
      'A profile of the format (OGC 21-038r1): with geo+json (or no other format asked) on a collection, jsonfg-dggs* answers DGGS-JSON-FG, the features of a parquet-lake collection in the zone with geometry quantized to the sub-zones of one zone-depth (local indices, or zone ids for -zoneids; -plus adds the CRS84 geometry); rfc7946 is plain GeoJSON. ' +
      'The other values pick a DGGS-optimized profile of their format (local sub-zone indices, or global zone ids for -zoneids); each format has a default, linked from the answer with rel="profile". A profile the format does not write is 400.',
  });

const common = {
  f: formatParam(ZONE_DATA_F, 'Response format (default DGGS-JSON); when omitted the Accept header decides'),
  'zone-depth': z.string().optional().openapi({ description: 'Relative depth(s) of the sub-zones: `2`, `1,3` or `1-3`; default is the grid default depth', example: '2' }),
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval start/end (open ends `..`); filters temporal sources', example: '2024-06-01T00:00:00Z/..' }),
  subset: z.string().optional().openapi({ description: 'Subset on axes beyond the grid\'s: time("start":"end") on a collection with a temporal extent (as datetime). Lat/Lon are the grid\'s axes (400), as is any other axis.', example: 'time("2024-01-05T00:00:00Z":"2024-01-10T00:00:00Z")' }),
  'refined-geometry': queryBoolean('Densify returned geometry (geo+json, geoparquet); default false'),
  profile: ZoneDataProfileParam,
  'values-scale': queryNumber(
    'PNG and JPEG-XL (OGC 21-038r1 /rec/data-png/scale-offset): the factor values are multiplied by before values-offset is added, giving the encoded unsigned integers (value = (encoded - offset) / scale; 0 is no value). When neither is given both are fitted to the answer\'s values (Values-Scale, Values-Offset headers); alone, the offset puts the least value at 1. A value encoding outside 1..65535 (PNG) or 1..255 (JPEG-XL) is 422. Not 0.',
  ).refine((v) => v !== 0, 'must not be 0 (values would not be recoverable)'),
  'values-offset': queryNumber('PNG and JPEG-XL: the offset added after multiplying values by values-scale (which is 1 when only the offset is given); see values-scale'),
  'cog-no-data-value': queryNumber('Pixels equal to this value are excluded; overrides the collection default'),
  'cog-sampling-factor': queryNumber('Samples per sub-zone (density multiplier); default 8', { min: 0.01, max: 4096 }),
  'cog-all-touched': queryBoolean('Also count pixels that merely touch a sub-zone; default false'),
};

const stacParams = {
  'stac-search-strategy': z.enum(['single', 'latest', 'mosaic']).optional().openapi({ description: 'STAC item selection: single (default), latest, mosaic' }),
  intersection_percent: queryNumber('Share of the zone an item (single) or the mosaic must cover, 0-100', { min: 0, max: 100 }),
  cloud_cover_percent: queryNumber('Maximum eo:cloud_cover of STAC items, 0-100', { min: 0, max: 100 }),
};

const statList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(',').map((p) => p.trim()).filter(Boolean);
    const bad = parts.filter((p) => !(STATISTICS as readonly string[]).includes(p));
    if (parts.length === 0 || bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown statistic${bad.length > 1 ? 's' : ''} ${bad.join(', ')}; use ${STATISTICS.join(', ')}` });
      return z.NEVER;
    }
    return [...new Set(parts)];
  })
  .optional()
  .openapi({ type: 'string', description: `Comma-separated statistics: ${STATISTICS.join(', ')}; default mean`, example: 'mean,max' });

const bandList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(',').map((p) => p.trim());
    if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) {
      ctx.addIssue({ code: 'custom', message: 'bands are 1-based integers, like 1,2' });
      return z.NEVER;
    }
    return [...new Set(parts.map(Number))];
  })
  .optional()
  .openapi({ type: 'string', description: 'Comma-separated 1-based band indices; default 1', example: '1' });

const filterParams = {
  filter: z.string().optional().openapi({
    description:
      "CQL2 expression tested on each sub-zone (OGC data-cql2-filter), for every backing kind: its own values of the collection's zone-data fields (each field's configured statistic, in the `datetime` interval) and its outline as `geometry`. Sub-zones where it is not true get null values (DGGS-JSON and the other encodings indexed by sub-zone) or are left out (GeoJSON, Parquet, GeoParquet, the HTML table); a null value makes a comparison unknown, so the sub-zone is left out. The fields it names need not be selected. Row filters: /collections/{collection_id}/items, the cross-collection body, and DGGS-JSON-FG (a `jsonfg-dggs*` profile, with geo+json or geo+ubjson), where the filter selects the features (rows) of the zone, naming their properties.",
    example: 'temperature > 1.5',
  }),
  'filter-lang': z.enum(['cql2-text', 'cql2-json']).optional().openapi({ description: 'Encoding of `filter`; default cql2-text' }),
};

export const CollectionZoneDataQuery = z.object({
  ...common,
  ...stacParams,
  ...filterParams,
  properties: queryList('Comma-separated fields to include (all queryables when omitted)'),
  'exclude-properties': queryList('Comma-separated fields to drop, applied after properties'),
  'cog-stat': statList.openapi({ description: 'Extension: report these statistics of each selected field as `<field>_<stat>` instead of its configured statistic' }),
});

export const AdHocZoneDataQuery = z.object({
  ...common,
  'cog-url': z.string().optional().openapi({ description: 'URL of a Cloud-Optimized GeoTIFF (required)', example: 'https://example.com/cog.tif' }),
  'cog-stat': statList,
  'cog-band': bandList,
});

/** Query of the cross-collection POST: only these are accepted (properties, exclude-properties, cog-url are 400). */
export const CrossCollectionZoneDataQuery = z.object({
  f: common.f,
  'zone-depth': common['zone-depth'],
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval start/end (open ends `..`); applies to each source with a time dimension (STAC scenes, lake datetime columns)', example: '2024-06-01T00:00:00Z/..' }),
  'refined-geometry': common['refined-geometry'],
  profile: common.profile,
  'values-scale': common['values-scale'],
  'values-offset': common['values-offset'],
});

/** Bounds of a cross-collection body; the values bound (limits.maxZoneDataValues) caps the joined table as a whole. */
export const MAX_SELECTIONS = 16;
export const MAX_FIELDS_PER_SELECTION = 64;
const MAX_FILTER_TEXT = 16_384;

const Cql2Json = z
  .object({ op: z.string().min(1), args: z.array(z.unknown()) })
  .loose()
  .openapi({ description: 'CQL2-JSON predicate', example: { op: '>', args: [{ property: 'temperature' }, 20] } });

export const FilterSpec = z
  .union([z.string().min(1).max(MAX_FILTER_TEXT), Cql2Json])
  .openapi({ description: 'CQL2-Text (a string) or CQL2-JSON (an object with op and args); the JSON type tells which' });

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export const CollectionSelectionBody = z
  .object({
    id: z.string().regex(NAME, 'a collection id: letters, digits, _ . - (see /collections)').openapi({ description: 'Collection to read from', example: 'demo-stations' }),
    fields: z
      .array(z.string().min(1).max(128))
      .min(1, 'name at least one field (no wildcard exists)')
      .max(MAX_FIELDS_PER_SELECTION)
      .refine((f) => new Set(f).size === f.length, 'each field once')
      .openapi({ description: `Fields of the collection (see its /queryables), 1 to ${MAX_FIELDS_PER_SELECTION}, each once`, example: ['temperature'] }),
    alias: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - (up to 64)')
      .nullish()
      .openapi({ description: 'Output column prefix instead of the id: `{alias}__{field}`; needed to select one collection twice' }),
    filter: FilterSpec.nullish().openapi({ description: 'CQL2 predicate restricting the ROWS that contribute (row-based collections: parquet lake, OGC API Features; every queryable of /collections/{id}/queryables), before aggregation, unlike the zone-data GET filter, which tests each sub-zone: CQL2-Text as a string, CQL2-JSON as an object' }),
  })
  .strict()
  .openapi('CollectionSelectionBody');

export const CrossCollectionRequest = z
  .object({
    collections: z.array(CollectionSelectionBody).min(1, 'list at least one collection').max(MAX_SELECTIONS),
  })
  .strict()
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>();
    body.collections.forEach((c, i) => {
      const prefix = c.alias ?? c.id;
      const at = seen.get(prefix);
      if (at !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['collections', i, 'alias'], message: `prefix "${prefix}" is already used by collections[${at}]: give each selection of one collection a distinct alias` });
      }
      seen.set(prefix, i);
    });
  })
  .openapi('CrossCollectionRequest', {
    description: `Fields of up to ${MAX_SELECTIONS} collections, joined on zone id into columns \`{alias|id}__{field}\``,
    example: { collections: [{ id: 'demo-stations', fields: ['temperature'], filter: 'temperature > 0' }, { id: 'demo-elevation', fields: ['elevation'] }] },
  });
export type CrossCollectionRequest = z.infer<typeof CrossCollectionRequest>;

const ValueDepth = z.object({
  depth: z.number().int(),
  shape: z.object({ count: z.number().int(), subZones: z.number().int() }),
  data: z.array(z.number().nullable()),
});

export const DataResponse = z
  .object({
    $schema: z.string().optional(),
    dggrs: z.string(),
    zoneId: z.string(),
    depths: z.array(z.number().int()),
    links: z.array(Link),
    defaultDepth: z.number().int().nullish(),
    dimensions: z.array(z.object({ name: z.string(), interval: z.array(z.string().nullable()), grid: z.object({ cellsCount: z.number().int(), coordinates: z.array(z.string()).optional() }) })).nullish(),
    schema: z.object({ type: z.literal('object'), properties: z.record(z.string(), SchemaProperty), required: z.array(z.string()).nullish() }).nullish(),
    values: z.record(z.string(), z.array(ValueDepth)),
    data: z.record(z.string(), z.record(z.string(), z.number().nullable())).nullish().openapi({ description: 'One row per resolved zone (keyed by zone id): `depth` and one value per field' }),
    zones: z.array(z.object({ depth: z.number().int(), zoneIds: z.array(z.string()) })).nullish().openapi({ description: 'The zones of each depth, in the grid order' }),
  })
  .openapi('DataResponse');
