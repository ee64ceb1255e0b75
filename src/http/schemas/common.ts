import { z } from './zod.js';

/** Contract types shared by every route: Link, LinkTemplate, ApiError, SchemaProperty. */
export const Link = z
  .object({
    href: z.string(),
    rel: z.string(),
    type: z.string().nullish(),
    hreflang: z.string().nullish(),
    title: z.string().nullish(),
    length: z.number().int().nullish(),
  })
  .openapi('Link');
export type Link = z.infer<typeof Link>;

export const LinkTemplate = z
  .object({ rel: z.string(), title: z.string(), uriTemplate: z.string() })
  .openapi('LinkTemplate');
export type LinkTemplate = z.infer<typeof LinkTemplate>;

export const ApiError = z
  .object({
    code: z.number().int().openapi({ description: 'The HTTP status code' }),
    message: z.string().openapi({ description: 'Fixed message describing the error' }),
    hint: z.string().nullish().openapi({ description: 'How to fix the request' }),
  })
  .openapi('ApiError');
export type ApiError = z.infer<typeof ApiError>;

export const PropertyType = z.enum(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']).openapi('PropertyType');

export const SchemaProperty = z
  .object({
    title: z.string(),
    type: PropertyType,
    description: z.string().nullish(),
    enum: z.array(z.string()).nullish(),
    format: z.string().nullish(),
    pattern: z.string().nullish(),
    minimum: z.number().nullish(),
    maximum: z.number().nullish(),
    minLength: z.number().int().nullish(),
    maxLength: z.number().int().nullish(),
    svc_band_index: z.number().int().nullish(),
    svc_data_type: z.string().nullish(),
    svc_dggs_stat: z.string().nullish(),
    svc_gsd: z.number().nullish(),
    svc_unit: z.string().nullish(),
  })
  .openapi('SchemaProperty');
export type SchemaProperty = z.infer<typeof SchemaProperty>;

/** Path parameter schemas shared by several route families. */
export const CollectionIdParam = z.string().openapi({ param: { name: 'collection_id', in: 'path' }, description: 'Collection identifier' });
