import { z } from 'zod';

/**
 * The service configuration, validated at start-up. One schema gives the TypeScript type,
 * the validation and the error that names a bad key.
 */
const bboxSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const fieldSchema = z.object({
  title: z.string(),
  type: z.enum(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']),
  description: z.string().optional(),
  format: z.string().optional(),
  enum: z.array(z.string()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  svc_band_index: z.number().int().optional(),
  svc_data_type: z.string().optional(),
  svc_dggs_stat: z.string().optional(),
  svc_gsd: z.number().optional(),
  svc_unit: z.string().optional(),
});
export type FieldConfig = z.infer<typeof fieldSchema>;

const rasterDefaults = {
  noData: z.number().optional(),
  /** Band fields: the field name is what clients select with `properties`. */
  fields: z.record(z.string(), fieldSchema).optional(),
};

const stacStrategy = z.enum(['single', 'latest', 'mosaic']);

export const backingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('parquet-lake'),
    geometryColumn: z.string().default('geometry'),
    datetimeColumn: z.string().optional(),
  }),
  z.object({
    kind: z.literal('raster-url'),
    url: z.string().min(1),
    /** Reader to use; by default the url's extension decides (`.pmtiles`: PMTiles, else GeoTIFF). */
    rasterFormat: z.enum(['geotiff', 'pmtiles']).optional(),
    /** How PMTiles PNG colours encode values; default: the archive metadata's `encoding`. */
    valueEncoding: z.enum(['terrarium', 'mapbox-terrain-rgb', 'gray']).optional(),
    ...rasterDefaults,
  }),
  z.object({
    kind: z.literal('stac'),
    catalog: z.string().min(1),
    strategy: stacStrategy.default('single'),
    intersectionPercent: z.number().min(0).max(100).optional(),
    cloudCoverPercent: z.number().min(0).max(100).optional(),
    asset: z.string().default('data'),
    ...rasterDefaults,
  }),
  z.object({
    kind: z.literal('ogc-features'),
    url: z.string().url(),
    collection: z.string().min(1),
    fields: z.record(z.string(), fieldSchema).optional(),
  }),
]);
export type BackingConfig = z.infer<typeof backingSchema>;

export const collectionSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'letters, digits, _ . - only'),
  title: z.string(),
  description: z.string().optional(),
  attribution: z.string().optional(),
  extent: z
    .object({
      spatial: z.object({ bbox: z.array(bboxSchema).min(1), crs: z.string().optional() }).optional(),
      temporal: z
        .object({ interval: z.array(z.tuple([z.string().nullable(), z.string().nullable()])), trs: z.string().optional() })
        .optional(),
    })
    .optional(),
  backing: backingSchema,
});
export type CollectionConfig = z.infer<typeof collectionSchema>;

export const configSchema = z.object({
  server: z
    .object({
      host: z.string().default('0.0.0.0'),
      port: z.number().int().min(0).max(65535).default(8080),
      /** Base of the links the service writes; derived from the listening address when absent. */
      publicBaseUrl: z.string().url().optional(),
      maxBodyBytes: z.number().int().positive().default(1_048_576),
      requestTimeoutMs: z.number().int().positive().default(60_000),
      logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .prefault({}),
  datastore: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('sqlite'), file: z.string().default('data/runtime/dggs.sqlite'), autoInitialize: z.boolean().default(true) }),
      z.object({ kind: z.literal('postgres'), url: z.string().min(1), schema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(), autoInitialize: z.boolean().default(false) }),
    ])
    .prefault({ kind: 'sqlite' }),
  lake: z.object({ root: z.string().default('data/demo/lake') }).prefault({}),
  grids: z
    .object({
      enabled: z.array(z.string()).min(1).default(['IVEA7H', 'ISEA7H', 'H3']),
      default: z.string().default('IVEA7H'),
    })
    .prefault({}),
  limits: z
    .object({
      /** Zone lists longer than this are paged. */
      maxZonesPerPage: z.number().int().positive().default(10_000),
      /** Sub-zones a zone-data request may resolve in all its depths together. */
      maxSubZones: z.number().int().positive().default(50_000),
      itemsMaxLimit: z.number().int().positive().default(1000),
    })
    .prefault({}),
  rasterFetch: z
    .object({
      allowedSchemes: z.array(z.enum(['http', 'https', 'file'])).default(['https', 'http']),
      /** Empty means any public host. */
      allowedHosts: z.array(z.string()).default([]),
      allowPrivateNetworks: z.boolean().default(false),
      maxBytes: z.number().int().positive().default(512 * 1024 * 1024),
      timeoutMs: z.number().int().positive().default(20_000),
      maxRedirects: z.number().int().min(0).default(3),
    })
    .prefault({}),
  auth: z
    .object({
      /** SHA-256 hex digests of the accepted bearer tokens (never the tokens themselves). */
      tokenSha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)).default([]),
    })
    .prefault({}),
  collections: z.array(collectionSchema).default([]),
});
export type Config = z.infer<typeof configSchema>;
