import { z } from 'zod';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

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

/** A value proxy-addr's `compile` accepts (the same function that decides trust at run time). */
function isTrustValue(s: string): boolean {
  try {
    proxyaddr.compile(s);
    return true;
  } catch {
    return false;
  }
}

/**
 * An origin as browsers send it in `Origin` (`scheme://host[:port]`, lower case, no default port,
 * no path), so that configured and sent origins compare as strings; `"*"` where `wildcard`.
 */
const originSchema = (wildcard: boolean) =>
  z.string().refine((s) => (wildcard && s === '*') || serializedOrigin(s) === s, {
    message: `must be an origin as browsers send it: scheme://host[:port], lower case, without the default port, a path or a trailing slash (https://maps.example.org)${wildcard ? ', or "*"' : ''}`,
  });

function serializedOrigin(s: string): string | undefined {
  try {
    const url = new URL(s);
    return /^https?:$/.test(url.protocol) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export const fieldSchema = z.object({
  title: z.string().describe('Human-readable name of the field.'),
  type: z.enum(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']).describe('JSON type of the field\'s values.'),
  description: z.string().optional().describe('What the field holds.'),
  format: z.string().optional().describe('JSON Schema format of the values (`date-time`, ...).'),
  enum: z.array(z.string()).optional().describe('The values the field may take.'),
  minimum: z.number().optional().describe('Smallest value the field takes.'),
  maximum: z.number().optional().describe('Largest value the field takes.'),
  svc_band_index: z.number().int().optional().describe('Rasters: the 1-based band the field is read from (default 1).'),
  svc_data_type: z.string().optional().describe('Storage type of the values (`float32`, ...), shown to clients.'),
  svc_dggs_stat: z.string().optional().describe('Rasters: the statistic a sub-zone\'s value is: `count`, `valid`, `min`, `max`, `mean` (default), `median` or `stdDev`.'),
  svc_gsd: z.number().optional().describe('Ground sample distance of the source, in metres, shown to clients.'),
  svc_unit: z.string().optional().describe('Unit of the values (`m`, `K`, ...).'),
}).describe('A field: the contract\'s SchemaProperty with its `svc_*` extensions; it becomes one of the collection\'s queryables.');
export type FieldConfig = z.infer<typeof fieldSchema>;

const rasterDefaults = {
  noData: z.number().optional().describe('The raw pixel value that means "no data", compared before scale and offset; default the file\'s own.'),
  fields: z.record(z.string(), fieldSchema).optional().describe('Band fields by name: the name is what clients select with `properties`. Default one field per band (`band1`, ...).'),
};

const stacStrategy = z.enum(['single', 'latest', 'mosaic']);

/** Local sources are checked at start; only the operator knows which may legitimately be absent. */
const optionalSource = {
  optional: z
    .boolean()
    .default(false)
    .describe('A local source (raster file, lake folder, static catalog) missing at start stops the start; with `true` it is a warning instead and the collection\'s data routes answer 503 until the source is in place and the service restarts.'),
};

export const backingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('parquet-lake').describe('Rows of GeoParquet files under `<lake.root>/<collection id>/data/`.'),
    geometryColumn: z.string().default('geometry').describe('The WKB geometry column.'),
    datetimeColumn: z.string().optional().describe('The column `datetime` filters on; without it `datetime` is ignored.'),
    ...optionalSource,
  }).describe('A collection of GeoParquet rows in the lake: items, zone data and zone-list filters.'),
  z.object({
    kind: z.literal('raster-url').describe('One raster file: a Cloud-Optimized GeoTIFF or a raster PMTiles archive.'),
    url: z.string().min(1).describe('A local path or an http(s) URL of the raster.'),
    rasterFormat: z.enum(['geotiff', 'pmtiles']).optional().describe('Reader to use; by default the url\'s extension decides (`.pmtiles`: PMTiles, else GeoTIFF).'),
    valueEncoding: z.enum(['terrarium', 'mapbox-terrain-rgb', 'gray']).optional().describe('How PMTiles PNG colours encode values; default the archive metadata\'s `encoding`.'),
    ...rasterDefaults,
    ...optionalSource,
  }).describe('A collection served from one raster: zone data by zonal statistics.'),
  z.object({
    kind: z.literal('stac').describe('Raster scenes found through STAC.'),
    catalog: z.string().min(1).describe('A static catalog (a local path or an http(s) URL of its `catalog.json`) or the landing page of a STAC API.'),
    strategy: stacStrategy.default('single').describe('How the scenes of a zone are chosen: `latest` the newest item; `single` the newest item covering `intersectionPercent` of the zone alone; `mosaic` the newest items that together cover it (needs `datetime`).'),
    intersectionPercent: z.number().min(0).max(100).optional().describe('Coverage of the zone the chosen items must reach; `single`: default 0 (no check), `mosaic`: default 100.'),
    cloudCoverPercent: z.number().min(0).max(100).optional().describe('Items with a larger `eo:cloud_cover`, or none, are left out.'),
    asset: z.string().default('data').describe('The key of the item asset read as the raster.'),
    collections: z.array(z.string().min(1)).min(1).optional().describe('STAC API: the collections searched (`collections` of /search); all when absent.'),
    ...rasterDefaults,
    ...optionalSource,
  }).describe('A collection served from the raster assets of STAC items, chosen per zone.'),
  z.object({
    kind: z.literal('ogc-features').describe('Features of an OGC API - Features backend.'),
    url: z.string().refine((v) => /^\{self\}(\/|$)/.test(v) || /^https?:\/\/[^/]/i.test(v), 'an http(s) URL, or {self}/... for this service').describe('The backend\'s landing page (http or https); `{self}` stands for this service\'s own listening address over loopback, resolved at start.'),
    collection: z.string().min(1).describe('The backend\'s collection id.'),
    headers: z.record(z.string(), z.string()).optional().describe('Headers sent with every request to the backend\'s own origin (API keys).'),
    datetimeProperty: z.string().min(1).optional().describe('The temporal property `datetime` is checked on, when the backend\'s queryables do not mark one.'),
    fields: z.record(z.string(), fieldSchema).optional().describe('Fields by name; they override those read from the backend\'s queryables or schema.'),
  }).describe('A collection read from a remote OGC API - Features backend: items as zone data and zone-list filters.'),
  z.object({
    kind: z.literal('clickhouse-pyramid').describe('A zone pyramid in ClickHouse (`clickhouse`): per-level aggregates of a lake collection\'s rows, keyed by zone.'),
    table: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _ (a ClickHouse identifier)').describe('The pyramid\'s table in `clickhouse.database` (the ingest creates it and its shard tables).'),
    source: z.string().min(1).describe('The `parquet-lake` collection whose rows `npm run ingest -- <id> --pyramid clickhouse` aggregates.'),
    grid: z.string().default('IVEA7H').describe('The grid of the pyramid\'s zones (one with numeric zone keys).'),
    levels: z.array(z.number().int().min(0).max(20)).min(1).default([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).describe('Levels the ingest aggregates (`--levels` overrides).'),
    coarseLevel: z.number().int().min(0).max(20).optional().describe('Level of the coarse key: the first sort key, the sharding key and the unit of ingest jobs; default the ingest\'s choice from the levels.'),
    period: z.enum(['hour', 'day', 'month', 'year']).optional().describe('With a `datetimeColumn` on the source: cells per period (UTC) besides the all-time ones, so `datetime` on whole periods is answered; without it `datetime` is refused on this collection.'),
  }).describe('A collection served from a zone pyramid: zone data, zone lists with `filter` and tiles in O(sub-zones); no items.'),
]).describe('Where the collection\'s data comes from, by `kind`.');
export type BackingConfig = z.infer<typeof backingSchema>;

export const collectionSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'letters, digits, _ . - only').describe('The collection\'s id in URLs (`/collections/{id}`); for a lake also its folder name.'),
  title: z.string().describe('Human-readable title.'),
  description: z.string().optional().describe('What the collection holds.'),
  attribution: z.string().optional().describe('Who to credit for the data.'),
  extent: z
    .object({
      spatial: z.object({ bbox: z.array(bboxSchema).min(1).describe('Boxes `[west, south, east, north]` in CRS84 degrees; the first holds all the data and bounds the collection\'s zone lists.'), crs: z.string().optional().describe('Written into the collection document as given; the boxes are read as CRS84.') }).optional().describe('Spatial extent.'),
      temporal: z
        .object({ interval: z.array(z.tuple([z.string().nullable(), z.string().nullable()])).describe('Intervals `[start, end]` as RFC 3339 timestamps, `null` for an open end.'), trs: z.string().optional().describe('Written into the collection document as given.') })
        .optional()
        .describe('Temporal extent; it enables `datetime` and `subset=time(...)` on zone queries.'),
    })
    .optional()
    .describe('The collection\'s extent as in OGC API - Common. Zone lists of the collection cover its spatial extent. When left out it is taken from the data.'),
  backing: backingSchema,
}).describe('A collection served by the service.');
export type CollectionConfig = z.infer<typeof collectionSchema>;

export const configSchema = z.object({
  server: z
    .object({
      host: z.string().default('0.0.0.0').describe('Address the service listens on (`HOST` overrides it).'),
      port: z.number().int().min(0).max(65535).default(8080).describe('Port the service listens on (`PORT` overrides it; 0: any free port).'),
      processes: z
        .union([z.number().int().min(1).max(256), z.literal('auto')])
        .default(1)
        .describe('HTTP processes serving the one port: 1 runs the service in this process; more (or `auto`, the machine\'s cores) makes `npm start` a supervisor that forks them, restarts one that dies and sums their metrics. Caches and admission bounds are per process (see docs/operations.md, Processes).'),
      publicBaseUrl: z.string().url().optional().describe('Base of the links the service writes. When absent it is taken from each request: the scheme, host and path prefix a trusted proxy forwards, else the Host header. When set it wins over forwarded values.'),
      maxBodyBytes: positiveInt(1_048_576).describe('Request body bound, counted after decoding any Content-Encoding.'),
      requestTimeoutMs: positiveInt(60_000).describe('Time for a request\'s line, headers and body to arrive (not the time to answer it).'),
      headersTimeoutMs: positiveInt(10_000).describe('Time for the request line and headers to arrive.'),
      keepAliveTimeoutMs: positiveInt(5_000).describe('An idle keep-alive connection closes after this.'),
      idleTimeoutMs: positiveInt(30_000).describe('A connection with no traffic closes after this, unless its request is still being computed.'),
      maxConnections: positiveInt(1024).describe('Open connections in all. At the cap a connection serving no request gives up its slot to a newcomer; once every slot serves a request, newcomers get 503.'),
      maxConnectionsPerPeer: positiveInt(128).describe('Open connections per client address (IPv6: per /64). A trusted proxy (`trustedProxies`) is exempt; the requests in flight of each client it forwards are held to this bound instead (429 past it).'),
      maxUrlBytes: positiveInt(16_384).describe('Request target (path and query) bound: 414 above.'),
      maxHeaderBytes: positiveInt(16_384).describe('Header names and values in all: 431 above.'),
      logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level; `info` logs every request with its status and time.'),
      idleMemoryReleaseMiB: nonNegativeInt(64).describe('After a second of idle event loop, a heap grown by this much (MiB) since the last release is collected and given back (0: never).'),
      zoneInfoCacheBytes: nonNegativeInt(8 * 1024 * 1024).describe('Encoded zone info answers of the grids (not of collections) kept, in bytes (0: none).'),
      trustedProxies: z
        .array(z.string().refine(isTrustValue, 'a proxy-addr trust value: `loopback`, `linklocal`, `uniquelocal`, an IP address or a CIDR range such as 10.0.0.0/8'))
        .default([])
        .describe('Peers whose `Forwarded` / `X-Forwarded-*` headers are believed (`loopback`, `linklocal`, `uniquelocal`, addresses, CIDR ranges): they give the client\'s address, scheme, host and path prefix (see docs/operations.md). Empty: every such header is ignored.'),
      admin: z
        .object({
          host: z.string().min(1).optional().describe('TCP address of the admin listener, with `port` (default `127.0.0.1`); it answers loopback peers only.'),
          port: z.number().int().min(0).max(65535).optional().describe('TCP port of the admin listener (0: any free port).'),
          socket: z.string().min(1).optional().describe('Unix socket path of the admin listener, instead of `host`/`port`; made owner-only (0600), replaced when stale, removed on stop.'),
        })
        .refine((a) => (a.port === undefined) !== (a.socket === undefined), 'give either port (TCP, with an optional host) or socket (a Unix socket path)')
        .refine((a) => a.socket === undefined || a.host === undefined, 'host goes with port; a socket has none')
        .transform((a): { host: string; port: number } | { socket: string } => (a.socket !== undefined ? { socket: a.socket } : { host: a.host ?? '127.0.0.1', port: a.port! }))
        .optional()
        .describe('The admin listener, serving `/admin/*` (datastore status, initialise, migrate) apart from the public one. Absent: the admin routes are served nowhere.'),
      health: z
        .object({
          checkTimeoutMs: positiveInt(800).describe('Longest each readiness check (the datastore, each local collection source) may take; one that does not answer in time fails the probe.'),
          cacheMs: nonNegativeInt(1000).describe('A readiness answer is reused this long, so frequent or simultaneous probes cost one round of checks.'),
        })
        .describe('`GET /health/ready`: what readiness checks may cost (see docs/operations.md).')
        .prefault({}),
      metrics: z
        .object({
          enabled: z.boolean().default(true).describe('Serve `GET /metrics` (Prometheus text format) and count what it reports; false: no route, nothing counted.'),
          processMetrics: z.boolean().default(true).describe('Include the Node.js process series (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, garbage collection).'),
          datastoreTimeoutMs: positiveInt(1000).describe('Longest the datastore read of the job counts may take at a scrape; past it that scrape leaves the job series out.'),
        })
        .describe('`GET /metrics`: the series are listed in docs/operations.md.')
        .prefault({}),
      cors: z
        .object({
          origins: z.array(originSchema(true)).default([]).describe('Web page origins (`https://maps.example.org`) whose scripts may read the public routes\' answers; `"*"` for any origin (the answers then carry `Access-Control-Allow-Origin: *`). None: no cross-origin reads.'),
          securedOrigins: z.array(originSchema(false)).default([]).describe('Origins whose scripts may also call the secured routes (`/orders`) with an `Authorization` header; the only ones those routes accept. Never `"*"`.'),
          maxAgeSeconds: nonNegativeInt(600).describe('How long a browser may reuse a preflight answer (`Access-Control-Max-Age`; browsers cap it at 2 hours or less).'),
        })
        .describe('Cross-origin resource sharing: which web pages\' scripts may read the answers (see docs/operations.md).')
        .prefault({}),
      compression: z
        .object({
          enabled: z.boolean().default(true).describe('Compress answers with gzip or br when the client\'s `Accept-Encoding` allows it (never media that are compressed already, nor byte ranges).'),
          minBytes: nonNegativeInt(1024).describe('Bodies known to be smaller than this are sent as they are (compressing them saves less than it costs).'),
          brotliQuality: z.number().int().min(0).max(11).default(4).describe('br quality, 0-11: at 4-5 br is about as small as gzip at level 9, or smaller, in the time of gzip at 6; 11 takes a hundred times longer and more, far too slow for answers made while the client waits.'),
          gzipLevel: z.number().int().min(1).max(9).default(6).describe('gzip level, 1 (fastest) to 9 (smallest).'),
        })
        .describe('Compression of answers (`Content-Encoding`, see docs/operations.md).')
        .prefault({}),
      caching: z
        .object({
          gridMaxAgeSeconds: nonNegativeInt(3600).describe('`max-age` of answers that depend on the request and the configuration alone (landing page, conformance, API document, grids, zone info and zone lists of grids, collection documents): they change only with a new version or configuration (0: `no-cache`, every use revalidates).'),
          dataMaxAgeSeconds: nonNegativeInt(0).describe('`max-age` of answers computed from collection data (zone data, items, filtered zone lists, a collection\'s zone info and queryables, source files); 0: `no-cache`, caches keep them but revalidate every use, a cheap 304 while the data is unchanged.'),
          public: z.boolean().default(true).describe('`public`: shared caches (a reverse proxy, a CDN) may keep answers; false: `private`, only the client\'s own cache. Secured routes (`/orders`) are `private, no-store` either way.'),
        })
        .describe('HTTP caching: ETag and Last-Modified validators, 304 Not Modified, and the Cache-Control of answers (see docs/operations.md, Caching).')
        .prefault({}),
    })
    .describe('HTTP listener, connection and request bounds.')
    .prefault({}),
  datastore: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('sqlite').describe('An embedded SQLite file; one process runs jobs.'), file: z.string().default('data/runtime/dggs.sqlite').describe('The database file, created when missing.'), autoInitialize: z.boolean().default(true).describe('Migrate and seed the schema at start; otherwise `/conformance`, `/concepts` and `/orders` answer 503 until `POST /admin/initialize` on the admin listener (`server.admin`).') }).describe('SQLite datastore.'),
      z.object({ kind: z.literal('postgres').describe('PostgreSQL, shared by API replicas and workers.'), url: z.string().min(1).describe('Connection URL (`postgres://user:password@host:5432/db`).'), schema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional().describe('Schema holding the tables, created by `initialize`/`migrate` (and `autoInitialize`) when missing; the connection\'s search path (usually `public`) when absent.'), autoInitialize: z.boolean().default(false).describe('Migrate and seed the schema at start; otherwise `/conformance`, `/concepts` and `/orders` answer 503 until `POST /admin/initialize` on the admin listener (`server.admin`).') }).describe('PostgreSQL datastore.'),
    ])
    .describe('Where orders, jobs, tokens and concepts are kept, by `kind`.')
    .prefault({ kind: 'sqlite' }),
  lake: z
    .object({
      root: z.string().default('data/demo/lake').describe('A directory, or `s3://bucket[/prefix]` for a lake on an S3-compatible object store (read by ranged GETs).'),
      aggregationThreads: z.number().int().min(0).max(64).default(2).describe('Worker threads finding the zones of lake rows for zone data (0: on the event loop\'s thread, in slices).'),
      streamBufferBytes: z.number().int().min(64 * 1024).max(1024 * 1024 * 1024).default(16 * 1024 * 1024).describe('Directory lakes: rows DuckDB\'s threads may read ahead of a streamed scan, in bytes, per scan (more lets more threads scan at once).'),
      s3: z
        .object({
          endpoint: z.string().url().optional().describe('S3 endpoint URL (MinIO, other S3-compatible services); AWS when absent.'),
          region: z.string().min(1).optional().describe('Region; from the AWS SDK chain, else `us-east-1`.'),
          accessKeyId: z.string().min(1).optional().describe('Access key id; with `secretAccessKey`.'),
          secretAccessKey: z.string().min(1).optional().describe('Secret access key; with `accessKeyId`.'),
          sessionToken: z.string().min(1).optional().describe('Session token of temporary credentials.'),
          forcePathStyle: z.boolean().default(false).describe('`endpoint/bucket/key` addressing (MinIO and most S3-compatible services).'),
          requestTimeoutMs: positiveInt(20_000).describe('Bound of one S3 call.'),
          footerCacheBytes: positiveInt(64 * 1024 * 1024).describe('Parquet footers kept, counted by their bytes (LRU).'),
          footerReadBytes: z.number().int().min(16).default(64 * 1024).describe('Bytes read from a file\'s end to find its footer in one request.'),
          listCacheSeconds: z.number().min(0).default(5).describe('A collection\'s object listing is reused this long.'),
          maxRequestBytes: positiveInt(256 * 1024 * 1024).describe('Bytes one request may read from the store (footers and column chunks).'),
          maxFilterRows: positiveInt(5_000_000).describe('Rows one filtered items request may test in the service to count its matches.'),
          maxObjects: positiveInt(100_000).describe('Objects under one collection\'s prefix.'),
        })
        .refine((s) => (s.accessKeyId === undefined) === (s.secretAccessKey === undefined), 'accessKeyId and secretAccessKey go together')
        .describe('Object-store lakes only (`lake.root` `s3://...`). Unset credentials, region and endpoint come from the AWS SDK chain (`AWS_ACCESS_KEY_ID`, `AWS_REGION`, `AWS_ENDPOINT_URL_S3`, profiles).')
        .prefault({}),
    })
    .describe('The GeoParquet lake of `parquet-lake` collections.')
    .prefault({}),
  clickhouse: z
    .object({
      shards: z.array(z.string().url()).default([]).describe('HTTP URL of one server of each shard (`http://host:8123`), in the order of the servers\' `remote_servers` cluster; reads go to the first that answers, table creation to each.'),
      cluster: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('dggs').describe('The cluster name in the servers\' `remote_servers` that the Distributed tables span.'),
      database: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('default').describe('Database holding the pyramids\' tables.'),
      username: z.string().default('default').describe('User of every connection.'),
      password: z.string().default('').describe('Its password.'),
      timeoutMs: positiveInt(10_000).describe('Bound of one query (the server stops it too: `max_execution_time`); 504 past it.'),
      maxConnections: z.number().int().min(1).max(256).default(8).describe('Open connections per shard server, per process; requests beyond wait their turn.'),
      retryAfterSeconds: z.number().int().min(1).max(3600).default(10).describe('Retry-After of the 503 a shard down gives.'),
    })
    .describe('The ClickHouse cluster holding zone pyramids (`clickhouse-pyramid` collections).')
    .prefault({}),
  grids: z
    .object({
      enabled: z.array(z.string()).min(1).default(['IVEA7H', 'ISEA7H', 'H3']).describe('Ids of the grids served (see docs/grids.md).'),
      default: z.string().default('IVEA7H').describe('The grid `/dggs` lists first and HTML pages use; one of `enabled`.'),
    })
    .describe('The grids served.')
    .prefault({}),
  limits: z
    .object({
      maxZonesPerPage: positiveInt(10_000).describe('Zone lists longer than this are paged.'),
      maxSubZones: positiveInt(50_000).describe('Sub-zones a zone-data request may resolve in all its depths together.'),
      maxZoneDataValues: positiveInt(500_000).describe('Values one zone-data answer may carry: sub-zones x output columns (fields, statistics, joined columns).'),
      maxGeometryVertices: positiveInt(1_000_000).describe('Outline vertices one geo+json / geoparquet zone-data answer may write.'),
      maxMedianValues: positiveInt(2_000_000).describe('Values one lake zone-data request may keep to compute medians (12 bytes each).'),
      itemsMaxLimit: positiveInt(1000).describe('Largest `limit` of an items page.'),
      maxExactGeometryTests: positiveInt(100_000).describe('Lake rows per request whose exact geometry test runs in the service (rows the database settles do not count).'),
      maxSpatialZoneVertices: positiveInt(20_000_000).describe('A zone list or zone data filtered by a spatial predicate on zone geometry: zones (sub-zones) tested times the vertices of the geometry literals they are compared with, checked before any value is read.'),
      maxRasterCells: positiveInt(4_000_000).describe('Cells (pixels times samples per pixel) the rasterized zone-data and zone-list encodings (GeoTIFF, PNG, JPEG-XL) may write for one answer, all images together; refused before any value is computed (GeoTIFF zone lists: once the page is listed, before any pixel is located).'),
      maxRasterWindowSamples: positiveInt(4_194_304).describe('Raster samples (window pixels x bands) one zone-data request may read.'),
      maxSubZonesInFlight: z.number().int().positive().optional().describe('Sub-zones all zone-data computations in progress may hold together (admission control); default twice maxSubZones.'),
      zoneDataQueueSeconds: nonNegativeInt(20).describe('Longest a zone-data computation waits for room in that budget before a 503 with Retry-After.'),
      lakeQuerySeconds: z.number().positive().max(86_400).default(30).describe('Longest the lake work of one request (items, lake zone data, zone-list filters, jobs) may run; past it the work is stopped and the answer is 503 with Retry-After.'),
    })
    .describe('Bounds of one request\'s work; each refusal names its key.')
    .prefault({}),
  tiles: z
    .object({
      zonePixels: z.number().min(2).max(256).default(16).describe('Zoom-to-level rule of the vector tiles (docs/tiles.md): a tile of zoom z holds the zones of the coarsest level whose regular zone is at most this many pixels wide at the equator on a 256-pixel tile; zones are then between zonePixels / sqrt(aperture) and zonePixels wide.'),
      levelOffset: z.record(z.string(), z.number().int().min(-10).max(10)).default({}).describe('Levels added to the rule\'s level per grid id (e.g. `{ "H3": -1 }` for coarser H3 tiles); the level stays within the grid\'s levels.'),
      maxZonesPerTile: positiveInt(20_000).describe('Zones one tile may list (estimated before any is listed; a `zone-level` asking more is refused).'),
      maxZoneLevelDelta: nonNegativeInt(3).describe('How many levels finer than the rule\'s a tile request\'s `zone-level` may ask.'),
    })
    .describe('Vector tiles of zones (`.../tiles/WebMercatorQuad/{z}/{y}/{x}`).')
    .prefault({}),
  rasters: z
    .object({
      tileCacheBytes: nonNegativeInt(64 * 1024 * 1024).describe('Bytes of decoded raster tiles kept between requests, shared by every configured raster (least recently used evicted); 0 disables.'),
    })
    .describe('Configured rasters (`raster-url` and `stac` collections).')
    .prefault({}),
  rasterFetch: z
    .object({
      allowedSchemes: z.array(z.enum(['http', 'https', 'file'])).default(['https', 'http']).describe('URL schemes a `cog-url` may use (`file` never applies to remote backends).'),
      allowedHosts: z.array(z.string()).default([]).describe('Empty means any public host.'),
      allowPrivateNetworks: z.boolean().default(false).describe('Lift the check of addresses against special-purpose ranges (loopback, private, link-local, ...).'),
      allowedPrivateRanges: z.array(z.string().refine(isCidr, 'a CIDR range like 10.1.0.0/16 or fd00::/8')).default([]).describe('CIDR ranges (`10.1.0.0/16`, `fd00::/8`) of private addresses allowed anyway (an internal object store).'),
      maxBytes: positiveInt(512 * 1024 * 1024).describe('Bound of any one upstream response.'),
      maxRequestBytes: positiveInt(64 * 1024 * 1024).describe('Bound of all bytes one request fetches from upstream (ranges and hops together).'),
      maxInFlightBytes: positiveInt(128 * 1024 * 1024).describe('Bound of the bytes of all upstream bodies being received at once, over every request: rasters, feature backends and STAC APIs (503 with Retry-After past it).'),
      timeoutMs: positiveInt(20_000).describe('Bound of one upstream exchange (504 past it).'),
      maxRedirects: nonNegativeInt(3).describe('Redirects followed, each hop checked again.'),
    })
    .describe('The fetch policy of `cog-url` rasters, also applied to remote backends: schemes, hosts, address ranges and byte bounds.')
    .prefault({}),
  orders: z
    .object({
      resultsRoot: z.string().default('data/runtime/results').describe('Where finished jobs write their parquet: `<resultsRoot>/<order id>/data/part-<job id>.parquet` (shared storage when workers run elsewhere).'),
      queue: z.enum(['auto', 'in-process', 'pg-boss']).default('auto').describe('`auto`: in-process on SQLite, pg-boss on PostgreSQL.'),
      queueSchema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional().describe('pg-boss\'s schema (its tables: job, queue, version, ...); default the datastore\'s schema, else `pgboss`.'),
      runInServer: z.boolean().default(true).describe('The HTTP server runs jobs too; false for API replicas when `npm run worker` processes do the work.'),
      concurrency: z.number().int().min(1).max(64).default(2).describe('Jobs one process runs at once.'),
      maxAttempts: z.number().int().min(1).max(20).default(3).describe('Attempts of one job (a process that stops mid-job costs one) before it fails.'),
      retryDelaySeconds: z.number().int().min(0).max(3600).default(2).describe('Backoff before the second attempt; doubles for each further one.'),
      heartbeatSeconds: z.number().int().min(10).max(3600).default(10).describe('pg-boss: a job whose process sent no heartbeat for this long is retried.'),
      superviseSeconds: z.number().int().min(1).max(3600).default(5).describe('pg-boss: how often each process looks for jobs whose heartbeat stopped.'),
      pollSeconds: z.number().min(0.5).max(60).default(1).describe('pg-boss: idle poll interval of workers.'),
      maxOpenOrders: z.number().int().min(1).default(20).describe('Orders of one owner accepted or running at once; more is 429.'),
      maxJobsPerOrder: z.number().int().min(1).max(1000).default(1000).describe('Jobs one order may spawn; more is 429.'),
      retryAfterSeconds: z.number().int().min(1).default(30).describe('Retry-After of a 429.'),
    })
    .describe('Orders and the jobs that compute them.')
    .prefault({}),
  remoteBackends: z
    .object({
      allowedOrigins: z.array(z.string()).default([]).describe('Origins (`http://host:port`, or `{self}`) reached even on private networks: the operator\'s own backends.'),
      timeoutMs: positiveInt(20_000).describe('Bound of one request to a backend (504 past it).'),
      maxResponseBytes: positiveInt(32 * 1024 * 1024).describe('Bound of one backend response.'),
      maxRedirects: nonNegativeInt(3).describe('Redirects followed per backend request, each hop checked again.'),
      pageSize: positiveInt(1000).describe('Features asked per page (`limit`).'),
      maxPages: positiveInt(50).describe('Pages one client request may read from feature backends, over all its reads of them (a STAC search: per search).'),
      maxFeatures: positiveInt(20_000).describe('Features one client request may read from feature backends, over all its reads (STAC items: per search): about 10 s of paging against our own items endpoint.'),
    })
    .describe('OGC API Features backends and STAC APIs: the `rasterFetch` policy applies to their URLs, except allowlisted origins.')
    .prefault({}),
  auth: z
    .object({
      tokenSha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)).default([]).describe('SHA-256 hex digests of the accepted bearer tokens (never the tokens themselves).'),
    })
    .describe('Bearer tokens of `/orders`.')
    .prefault({}),
  map: z
    .object({
      basemapStyle: z
        .string()
        .url()
        .optional()
        .describe('URL of a MapLibre style the HTML pages\' maps draw over, in place of the offline Natural Earth basemap the service serves itself (`/assets/style.json` redirects to it). Unset: the offline one, which needs no network.'),
    })
    .describe('The interactive maps of the HTML pages (docs/maps.md).')
    .prefault({}),
  collections: z.array(collectionSchema).default([]).describe('The collections served.'),
});
export type Config = z.infer<typeof configSchema>;
