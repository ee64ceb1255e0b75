import { z } from './zod.js';
import { Link, SchemaProperty } from './common.js';
import { formatParam, queryBoolean, queryList, queryNumber } from './query.js';
import { STATISTICS } from '../../../domain/aggregation/statistics.js';

/** Query parameters and the DataResponse body of the zone-data routes. */
export const ZONE_DATA_F = ['dggs+json', 'json', 'geo+json', 'html', 'parquet', 'geoparquet'] as const;

const common = {
  f: formatParam(ZONE_DATA_F, 'Response format (default DGGS-JSON); when omitted the Accept header decides'),
  'zone-depth': z.string().optional().openapi({ description: 'Relative depth(s) of the sub-zones: `2`, `1,3` or `1-3`; default is the grid default depth', example: '2' }),
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval start/end (open ends `..`); filters temporal sources', example: '2024-06-01T00:00:00Z/..' }),
  'refined-geometry': queryBoolean('Densify returned geometry (geo+json, geoparquet); default false'),
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

export const CollectionZoneDataQuery = z.object({
  ...common,
  ...stacParams,
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
