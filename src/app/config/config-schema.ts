import { z } from 'zod';
import { isIP } from 'node:net';

/**
 * The service configuration, validated at start-up. One schema gives the TypeScript type,
 * the validation and the error that names a bad key.
 */
const bboxSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);

/** Most settings are counts, bounds or durations in whole units, with a default. */
const positiveInt = (fallback: number) => z.number().int().positive().default(fallback);
/** The same where 0 is allowed (usually: off, none). */
const nonNegativeInt = (fallback: number) => z.number().int().min(0).default(fallback);

/** `address[/prefix]` with the prefix within the address family's length. */
function isCidr(s: string): boolean {
  const [a = '', p] = s.split('/');
  const max = isIP(a) === 4 ? 32 : isIP(a) === 6 ? 128 : -1;
  return max > 0 && (p === undefined || (/^\d+$/.test(p) && Number(p) <= max));
}

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

/** Local sources (a raster file, a lake folder, a static catalog) are checked at start: a missing one stops the start, unless `optional` (then a warning, and 503 from the collection's data routes). */
const optionalSource = { optional: z.boolean().default(false) };

export const backingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('parquet-lake'),
    geometryColumn: z.string().default('geometry'),
    datetimeColumn: z.string().optional(),
    ...optionalSource,
  }),
  z.object({
    kind: z.literal('raster-url'),
    url: z.string().min(1),
    /** Reader to use; by default the url's extension decides (`.pmtiles`: PMTiles, else GeoTIFF). */
    rasterFormat: z.enum(['geotiff', 'pmtiles']).optional(),
    /** How PMTiles PNG colours encode values; default: the archive metadata's `encoding`. */
    valueEncoding: z.enum(['terrarium', 'mapbox-terrain-rgb', 'gray']).optional(),
    ...rasterDefaults,
    ...optionalSource,
  }),
  z.object({
    kind: z.literal('stac'),
    catalog: z.string().min(1),
    strategy: stacStrategy.default('single'),
    intersectionPercent: z.number().min(0).max(100).optional(),
    cloudCoverPercent: z.number().min(0).max(100).optional(),
    asset: z.string().default('data'),
    /** STAC API: the collections searched (`collections` of /search); all when absent. */
    collections: z.array(z.string().min(1)).min(1).optional(),
    ...rasterDefaults,
    ...optionalSource,
  }),
  z.object({
    kind: z.literal('ogc-features'),
    /** The backend's landing page; `{self}` stands for this service's own listening address (resolved at start). */
    url: z.string().refine((v) => /^\{self\}(\/|$)/.test(v) || /^https?:\/\/[^/]/i.test(v), 'an http(s) URL, or {self}/... for this service'),
    collection: z.string().min(1),
    /** Sent with every request to the backend's own origin (API keys). */
    headers: z.record(z.string(), z.string()).optional(),
    /** The temporal property `datetime` is checked on, when the backend's queryables do not mark one. */
    datetimeProperty: z.string().min(1).optional(),
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
      /** Request body bound, counted after decoding any Content-Encoding. */
      maxBodyBytes: positiveInt(1_048_576),
      /** Time for a request's line, headers and body to arrive (not the time to answer it). */
      requestTimeoutMs: positiveInt(60_000),
      /** Time for the request line and headers to arrive. */
      headersTimeoutMs: positiveInt(10_000),
      /** An idle keep-alive connection closes after this. */
      keepAliveTimeoutMs: positiveInt(5_000),
      /** A connection with no traffic closes after this, unless its request is still being computed. */
      idleTimeoutMs: positiveInt(30_000),
      maxConnections: positiveInt(1024),
      /** Per client address (IPv6: per /64). Behind a reverse proxy every client shares its address: raise it. */
      maxConnectionsPerPeer: positiveInt(128),
      /** Request target (path and query) bound: 414 above. */
      maxUrlBytes: positiveInt(16_384),
      /** Header names and values in all: 431 above. */
      maxHeaderBytes: positiveInt(16_384),
      logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /** After a second of idle event loop, a heap grown by this much (MiB) since the last release is collected and given back (0: never). */
      idleMemoryReleaseMiB: nonNegativeInt(64),
      /** Encoded zone info answers of the grids (not of collections) kept, in bytes (0: none). */
      zoneInfoCacheBytes: nonNegativeInt(8 * 1024 * 1024),
    })
    .prefault({}),
  datastore: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('sqlite'), file: z.string().default('data/runtime/dggs.sqlite'), autoInitialize: z.boolean().default(true) }),
      z.object({ kind: z.literal('postgres'), url: z.string().min(1), schema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(), autoInitialize: z.boolean().default(false) }),
    ])
    .prefault({ kind: 'sqlite' }),
  lake: z
    .object({
      /** A directory, or `s3://bucket[/prefix]` for a lake on an S3-compatible object store (read by ranged GETs). */
      root: z.string().default('data/demo/lake'),
      /** Worker threads finding the zones of lake rows for zone data (0: on the event loop's thread, in slices). */
      aggregationThreads: z.number().int().min(0).max(64).default(2),
      /** Directory lakes: rows DuckDB's threads may read ahead of a streamed scan, in bytes, per scan (more lets more threads scan at once). */
      streamBufferBytes: z.number().int().min(64 * 1024).max(1024 * 1024 * 1024).default(16 * 1024 * 1024),
      /** Object-store lakes only. Unset credentials, region and endpoint come from the AWS SDK's chain (AWS_ACCESS_KEY_ID, AWS_REGION, AWS_ENDPOINT_URL_S3, profiles...). */
      s3: z
        .object({
          endpoint: z.string().url().optional(),
          region: z.string().min(1).optional(),
          accessKeyId: z.string().min(1).optional(),
          secretAccessKey: z.string().min(1).optional(),
          sessionToken: z.string().min(1).optional(),
          /** `endpoint/bucket/key` addressing (MinIO and most S3-compatible services). */
          forcePathStyle: z.boolean().default(false),
          requestTimeoutMs: positiveInt(20_000),
          /** Parquet footers kept, counted by their bytes (LRU). */
          footerCacheBytes: positiveInt(64 * 1024 * 1024),
          /** Bytes read from a file's end to find its footer in one request. */
          footerReadBytes: z.number().int().min(16).default(64 * 1024),
          /** A collection's object listing is reused this long. */
          listCacheSeconds: z.number().min(0).default(5),
          /** Bytes one request may read from the store (footers and column chunks). */
          maxRequestBytes: positiveInt(256 * 1024 * 1024),
          /** Rows one filtered items request may test in the service to count its matches. */
          maxFilterRows: positiveInt(5_000_000),
          /** Objects under one collection's prefix. */
          maxObjects: positiveInt(100_000),
        })
        .refine((s) => (s.accessKeyId === undefined) === (s.secretAccessKey === undefined), 'accessKeyId and secretAccessKey go together')
        .prefault({}),
    })
    .prefault({}),
  grids: z
    .object({
      enabled: z.array(z.string()).min(1).default(['IVEA7H', 'ISEA7H', 'H3']),
      default: z.string().default('IVEA7H'),
    })
    .prefault({}),
  limits: z
    .object({
      /** Zone lists longer than this are paged. */
      maxZonesPerPage: positiveInt(10_000),
      /** Sub-zones a zone-data request may resolve in all its depths together. */
      maxSubZones: positiveInt(50_000),
      /** Values one zone-data answer may carry: sub-zones x output columns (fields, statistics, joined columns). */
      maxZoneDataValues: positiveInt(500_000),
      /** Outline vertices one geo+json / geoparquet zone-data answer may write. */
      maxGeometryVertices: positiveInt(1_000_000),
      /** Values one lake zone-data request may keep to compute medians (12 bytes each). */
      maxMedianValues: positiveInt(2_000_000),
      itemsMaxLimit: positiveInt(1000),
      /** Lake rows per request whose exact geometry test runs in the service (rows the database settles do not count). */
      maxExactGeometryTests: positiveInt(100_000),
      /**
       * A zone list filtered by a spatial predicate on zone geometry (rasters): zones tested times the
       * vertices of the geometry literals they are compared with, checked before the zones are walked.
       */
      maxSpatialZoneVertices: positiveInt(20_000_000),
      /** Raster samples (window pixels x bands) one zone-data request may read. */
      maxRasterWindowSamples: positiveInt(4_194_304),
      /** Sub-zones all zone-data computations in progress may hold together (admission control); default twice maxSubZones. */
      maxSubZonesInFlight: z.number().int().positive().optional(),
      /** Longest a zone-data computation waits for room in that budget before a 503 with Retry-After. */
      zoneDataQueueSeconds: nonNegativeInt(20),
      /** Longest the lake work of one request (items, lake zone data, zone-list filters, jobs) may run; past it the work is stopped and the answer is 503 with Retry-After. */
      lakeQuerySeconds: z.number().positive().max(86_400).default(30),
    })
    .prefault({}),
  rasters: z
    .object({
      /** Bytes of decoded raster tiles kept between requests, shared by every configured raster (least recently used evicted); 0 disables. */
      tileCacheBytes: nonNegativeInt(64 * 1024 * 1024),
    })
    .prefault({}),
  rasterFetch: z
    .object({
      allowedSchemes: z.array(z.enum(['http', 'https', 'file'])).default(['https', 'http']),
      /** Empty means any public host. */
      allowedHosts: z.array(z.string()).default([]),
      allowPrivateNetworks: z.boolean().default(false),
      /** CIDR ranges of private addresses allowed anyway (an internal object store); see url-guard. */
      allowedPrivateRanges: z.array(z.string().refine(isCidr, 'a CIDR range like 10.1.0.0/16 or fd00::/8')).default([]),
      /** Bound of any one upstream response. */
      maxBytes: positiveInt(512 * 1024 * 1024),
      /** Bound of all bytes one request fetches from upstream (ranges and hops together). */
      maxRequestBytes: positiveInt(64 * 1024 * 1024),
      /** Bound of the bytes of all upstream bodies being received at once, over every request: rasters, feature backends and STAC APIs (503 with Retry-After past it). */
      maxInFlightBytes: positiveInt(128 * 1024 * 1024),
      timeoutMs: positiveInt(20_000),
      maxRedirects: nonNegativeInt(3),
    })
    .prefault({}),
  orders: z
    .object({
      /** Where finished jobs write their parquet: `<resultsRoot>/<order id>/data/part-<job id>.parquet` (shared storage when workers run elsewhere). */
      resultsRoot: z.string().default('data/runtime/results'),
      /** `auto`: in-process on SQLite, pg-boss on PostgreSQL. */
      queue: z.enum(['auto', 'in-process', 'pg-boss']).default('auto'),
      /** pg-boss's schema (its tables: job, queue, version, ...); default the datastore's schema, else `pgboss`. */
      queueSchema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
      /** The HTTP server runs jobs too; false for API replicas when `npm run worker` processes do the work. */
      runInServer: z.boolean().default(true),
      /** Jobs one process runs at once. */
      concurrency: z.number().int().min(1).max(64).default(2),
      /** Attempts of one job (a process that stops mid-job costs one) before it fails. */
      maxAttempts: z.number().int().min(1).max(20).default(3),
      /** Backoff before the second attempt; doubles for each further one. */
      retryDelaySeconds: z.number().int().min(0).max(3600).default(2),
      /** pg-boss: a job whose process sent no heartbeat for this long is retried. */
      heartbeatSeconds: z.number().int().min(10).max(3600).default(10),
      /** pg-boss: how often each process looks for jobs whose heartbeat stopped. */
      superviseSeconds: z.number().int().min(1).max(3600).default(5),
      /** pg-boss: idle poll interval of workers. */
      pollSeconds: z.number().min(0.5).max(60).default(1),
      /** Orders of one owner accepted or running at once; more is 429. */
      maxOpenOrders: z.number().int().min(1).default(20),
      /** Jobs one order may spawn; more is 429. */
      maxJobsPerOrder: z.number().int().min(1).max(1000).default(1000),
      /** Retry-After of a 429. */
      retryAfterSeconds: z.number().int().min(1).default(30),
    })
    .prefault({}),
  /** OGC API Features backends and STAC APIs: the rasterFetch SSRF policy applies to their URLs, except allowlisted origins. */
  remoteBackends: z
    .object({
      /** Origins (`http://host:port`, or `{self}`) reached even on private networks: the operator's own backends. */
      allowedOrigins: z.array(z.string()).default([]),
      timeoutMs: positiveInt(20_000),
      /** Bound of one backend response. */
      maxResponseBytes: positiveInt(32 * 1024 * 1024),
      maxRedirects: nonNegativeInt(3),
      /** Features asked per page (`limit`). */
      pageSize: positiveInt(1000),
      /** Pages one client request may read from feature backends, over all its reads of them (a STAC search: per search). */
      maxPages: positiveInt(50),
      /** Features one client request may read from feature backends, over all its reads (STAC items: per search): about 10 s of paging against our own items endpoint. */
      maxFeatures: positiveInt(20_000),
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
