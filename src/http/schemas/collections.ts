import { z } from './zod.js';
import { CollectionIdParam, Link, SchemaProperty } from './common.js';
import { formatParam } from './query.js';
import { offeredBy } from '../../formats/registry.js';

/** Path and query parameters of the collection routes: a collection id, and only `f`. */
export const collectionIdParams = z.object({ collection_id: CollectionIdParam });
export const formatQuery = z.object({ f: formatParam(offeredBy('resource')) });

export const Extent = z
  .object({
    spatial: z.object({ bbox: z.array(z.array(z.number())).nullish(), crs: z.string().nullish() }).nullish(),
    temporal: z.object({ interval: z.array(z.array(z.string().nullable())).nullish(), trs: z.string().nullish() }).nullish(),
  })
  .openapi('Extent');

export const Collection = z
  .object({
    id: z.string(),
    links: z.array(Link),
    title: z.string().nullish(),
    description: z.string().nullish(),
    attribution: z.string().nullish(),
    item_type: z.string().nullish(),
    itemType: z.string().optional().openapi({ description: 'OGC API - Common/Features: present (`feature`) only when the collection has an `items` endpoint' }),
    layerDataType: z
      .enum(['Vector', 'Coverage'])
      .optional()
      .openapi({ description: '`Coverage` when the collection is served only as zone data (no items); clients such as GDAL then do not list it as a feature layer' }),
    crs: z.array(z.string()).nullish(),
    extent: Extent.nullish(),
  })
  .openapi('Collection');
export type Collection = z.infer<typeof Collection>;

export const CollectionsResponse = z.object({ collections: z.array(Collection), links: z.array(Link) }).openapi('CollectionsResponse');

export const SchemaResponse = z
  .object({
    $schema: z.string(),
    $id: z.string(),
    type: z.string(),
    title: z.string(),
    properties: z.record(z.string(), SchemaProperty),
    additionalProperties: z.boolean(),
    description: z.string().nullish(),
  })
  .openapi('SchemaResponse');
export type SchemaResponse = z.infer<typeof SchemaResponse>;

export const RootResponse = z
  .object({ links: z.array(Link), title: z.string().nullish(), description: z.string().nullish(), attribution: z.string().nullish() })
  .openapi('RootResponse');

export const ConformanceResponse = z.object({ conformsTo: z.array(z.string()) }).openapi('ConformanceResponse');
