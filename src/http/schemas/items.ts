import { z } from './zod.js';
import { CollectionIdParam, Link } from './common.js';
import { offeredBy } from '../../formats/registry.js';
import { formatParam, queryBBox, queryInteger, queryList } from './query.js';

/** Items: the contract's FeatureCollectionResponse, FeatureResponse, RawItemsResponse, RawItemResponse. */
export const ITEMS_FORMATS = offeredBy('items', 'geojson');

const filterParams = {
  bbox: queryBBox('Rows whose geometry intersects min_lon,min_lat,max_lon,max_lat (CRS84)'),
  datetime: z.string().optional().openapi({ description: 'RFC 3339 instant or interval (start/end, start/.., ../end) on the datetime column' }),
  properties: queryList('Comma-separated columns to keep; the geometry stays for geojson/geoparquet unless excluded'),
  'exclude-properties': queryList('Comma-separated columns to drop'),
  filter: z.string().optional().openapi({ description: 'CQL2 expression over the parquet columns (see /queryables)' }),
  'filter-lang': z
    .enum(['cql2-text', 'cql2-json', 'cql-text'])
    .optional()
    .openapi({ description: 'Encoding of `filter`; default cql2-text. `cql-text` is the pre-standard name of CQL2 text, still sent by GDAL 3.x: it reads as cql2-text' }),
  f: formatParam(ITEMS_FORMATS, 'Response format (default geojson); when omitted the Accept header decides'),
};

export const ItemsQuery = z.object({
  limit: queryInteger('Page size (default 10, max 1000)', { min: 0, max: 1000 }),
  offset: queryInteger('0-based row offset into the filtered rows; numberMatched - limit pages the tail', { min: 0 }),
  ...filterParams,
});

export const ItemQuery = z.object(filterParams);

export const ItemsParams = z.object({ collection_id: CollectionIdParam });
export const ItemParams = z.object({
  collection_id: CollectionIdParam,
  feature_id: z
    .string()
    .regex(/^\d{1,15}$/, 'must be an integer >= 0')
    .transform(Number)
    .openapi({ param: { name: 'feature_id', in: 'path' }, type: 'integer', minimum: 0, description: '0-based row index in scan order within the filtered set' }),
});

const Geometry = z.record(z.string(), z.unknown()).nullable().openapi({ description: 'GeoJSON geometry decoded from WKB' });

export const FeatureResponse = z
  .object({
    type: z.string(),
    id: z.number().int().min(0),
    geometry: Geometry,
    properties: z.record(z.string(), z.unknown()),
    links: z.array(Link).optional(),
  })
  .openapi('FeatureResponse');

/** Row counts: a page's, and a lake's or a file's (int64: a lake can outgrow 32 bits). */
const Count = z.number().int().min(0);
const Count64 = z.number().int().openapi({ format: 'int64' });

export const FeatureCollectionResponse = z
  .object({
    type: z.string(),
    timeStamp: z.string(),
    numberMatched: Count64,
    numberReturned: Count,
    features: z.array(FeatureResponse),
    links: z.array(Link),
  })
  .openapi('FeatureCollectionResponse');

export const FileInfo = z.object({ file: z.string(), rows: Count64 }).openapi('FileInfo');

export const RawItemsResponse = z
  .object({
    collection: z.string(),
    source: z.string(),
    numberMatched: Count64,
    numberReturned: Count,
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
    files: z.array(FileInfo),
    columns: z.array(z.string()),
    items: z.array(z.record(z.string(), z.unknown())),
    links: z.array(Link),
  })
  .openapi('RawItemsResponse');

export const RawItemResponse = z
  .object({
    collection: z.string(),
    source: z.string(),
    numberMatched: Count64,
    feature_id: z.number().int().min(0),
    item: z.record(z.string(), z.unknown()),
    links: z.array(Link),
  })
  .openapi('RawItemResponse');

export type FeatureResponse = z.infer<typeof FeatureResponse>;
export type FeatureCollectionResponse = z.infer<typeof FeatureCollectionResponse>;
export type RawItemsResponse = z.infer<typeof RawItemsResponse>;
export type RawItemResponse = z.infer<typeof RawItemResponse>;
