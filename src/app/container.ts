import 'reflect-metadata';
import { Container } from 'inversify';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import type { Request } from 'restify';
import { TOKENS } from './tokens.js';
import type { Config } from './config/config-schema.js';
import { EnabledGridRegistry } from './grid-registry.js';
import { GRID_FACTORIES } from './grid-factories.js';
import { ConfigCollectionCatalog, ConfigFieldSource } from './config/config-collection-catalog.js';
import { CollectionsService } from './use-cases/collections-service.js';
import { OrdersService } from './use-cases/orders-service.js';
import { JobRunner } from './use-cases/job-runner.js';
import { NotAuthenticatedError, DatastoreNotInitializedError } from '../ports/errors.js';
import { KnexDatastore } from '../adapters/datastore/knex-datastore.js';
import { DatastoreReadiness } from './datastore-readiness.js';
import { Sha256TokenVerifier } from '../adapters/auth/sha256-token-verifier.js';
import { InProcessJobQueue } from '../adapters/jobs/in-process-job-queue.js';
import { PgBossJobQueue } from '../adapters/jobs/pg-boss-job-queue.js';
import { FileJobResults } from '../adapters/jobs/file-job-results.js';
import { ZONE_DATA_ENCODERS } from '../http/encoders/zone-data-encoders.js';
import { createHttpServer, type HttpServer } from '../http/server.js';
import { serviceRoutes } from '../http/routes/service.js';
import { collectionRoutes } from '../http/routes/collections.js';
import { adminRoutes } from '../http/routes/admin.js';
import { conceptRoutes } from '../http/routes/concepts.js';
import { orderRoutes } from '../http/routes/orders.js';
import { itemRoutes } from '../http/routes/items.js';
import { DuckDbLake } from '../adapters/lake/duckdb-lake.js';
import { LakeZoneDataSource } from './zone-data/lake-zone-data-source.js';
import { ZoneBinningPool } from '../adapters/lake/zone-binning-pool.js';
import { S3ParquetLake } from '../adapters/lake-s3/s3-parquet-lake.js';
import { isS3Root } from '../adapters/lake-s3/s3-objects.js';
import { ItemsService } from './items/items-service.js';
import type { LakeReader } from '../ports/lake-reader.js';
import { dggsRoutes } from '../http/routes/dggs.js';
import { ZonesService } from './use-cases/zones-service.js';
import { zoneDataRoutes } from '../http/routes/zone-data.js';
import { ZoneFeaturesService } from './items/zone-features-service.js';
import { ZoneDataService } from './zone-data/zone-data-service.js';
import { GeoTiffRasterReader } from '../adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../adapters/rasters/pmtiles-raster-reader.js';
import { DecodedTileCache } from '../adapters/rasters/decoded-tile-cache.js';
import { FormatDispatchingRasterReader } from '../adapters/rasters/format-dispatching-raster-reader.js';
import { RasterUrlZoneDataSource } from './zone-data/raster-url-zone-data-source.js';
import { stacCatalogFactory } from '../adapters/stac/stac-catalog-factory.js';
import { StacZoneDataSource } from './zone-data/stac-zone-data-source.js';
import { GuardedRemoteHttp } from '../adapters/features/guarded-remote-http.js';
import { policyUrlGuard } from '../adapters/features/policy-url-guard.js';
import { OgcFeaturesSource } from '../adapters/features/ogc-features-source.js';
import { FeaturesZoneDataSource } from './zone-data/features-zone-data-source.js';
import { checkUrl } from '../adapters/rasters/url-guard.js';
import { resolveSelf } from './self-url.js';
import { InFlightBytesBudget } from './zone-data/in-flight-bytes.js';
import type { RemoteHttp } from '../ports/remote-http.js';
import type { FeatureSource } from '../ports/feature-source.js';
import type { RasterReader } from '../ports/raster-reader.js';
import type { ZoneDataSource } from '../ports/zone-data-source.js';
import type { RouteModule } from '../http/route-module.js';
import type { GridRegistry } from '../ports/grid-registry.js';
import type { CollectionCatalog, FieldSource } from '../ports/collection-catalog.js';
import type { ConceptStore, DatastoreAdmin, JobLedger, OrderStore } from '../ports/datastore.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { JobResults } from '../ports/job-results.js';
import type { BackingKind } from '../domain/collection.js';

/**
 * The composition root: binds every port to the adapter the config names. Nothing else in the
 * code base constructs adapters.
 */
export function buildContainer(config: Config, logger?: Logger): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Config).toConstantValue(config);
  c.bind(TOKENS.Logger).toConstantValue(logger ?? pino({ level: config.server.logLevel, name: 'dggs-api' }));

  c.bind(TOKENS.GridRegistry).toDynamicValue(() => {
    const grids = config.grids.enabled.map((id) => {
      const make = GRID_FACTORIES[id];
      if (!make) throw new Error(`grids.enabled: unknown grid "${id}" (known: ${Object.keys(GRID_FACTORIES).join(', ')})`);
      return make();
    });
    return new EnabledGridRegistry(grids, config.grids.default);
  });

  c.bind(TOKENS.CollectionCatalog).toDynamicValue(() => new ConfigCollectionCatalog(config.collections));
  c.bind(TOKENS.LakeReader).toDynamicValue(() => {
    // The lake root's scheme picks the adapter: s3:// is the object store, anything else a directory.
    const { root, s3 } = config.lake;
    if (!isS3Root(root)) return new DuckDbLake(root, config.limits.maxExactGeometryTests, { streamBufferBytes: config.lake.streamBufferBytes });
    const { maxRequestBytes, maxFilterRows, maxObjects, footerCacheBytes, footerReadBytes, listCacheSeconds, ...connection } = s3;
    const limits = { maxExactGeometryTests: config.limits.maxExactGeometryTests, maxRequestBytes, maxFilterRows, maxObjects, footerCacheBytes, footerReadBytes, listCacheMs: listCacheSeconds * 1000 };
    return new S3ParquetLake(root, connection, limits);
  });
  c.bind(TOKENS.FieldSources).toDynamicValue((ctx) => {
    const fromConfig = new ConfigFieldSource();
    const sources: Partial<Record<BackingKind, FieldSource>> = { 'raster-url': fromConfig, stac: fromConfig, 'ogc-features': ctx.get<FeatureSource>(TOKENS.FeatureSource), 'parquet-lake': ctx.get<LakeReader>(TOKENS.LakeReader) };
    return sources;
  });

  // One budget of the bytes of every upstream body being received at once: rasters, feature backends, STAC APIs.
  const inFlight = new InFlightBytesBudget(config.rasterFetch.maxInFlightBytes, 'rasterFetch.maxInFlightBytes');
  const rasterFetch = { ...config.rasterFetch, inFlight };
  // Remote backends (OGC API Features, STAC APIs): cog-url's SSRF check, lifted for allowlisted origins.
  const remote = config.remoteBackends;
  const remoteGuard = policyUrlGuard((url, policy) => checkUrl(url, policy), config.rasterFetch, () => remote.allowedOrigins);
  c.bind(TOKENS.RemoteHttp).toDynamicValue(() => new GuardedRemoteHttp(remoteGuard, { timeoutMs: remote.timeoutMs, maxBytes: remote.maxResponseBytes, maxRedirects: remote.maxRedirects, inFlight }));
  c.bind(TOKENS.FeatureSource).toDynamicValue(
    (ctx) => new OgcFeaturesSource({ http: ctx.get<RemoteHttp>(TOKENS.RemoteHttp), limits: config.remoteBackends }),
  );

  c.bind(TOKENS.DatastoreAdmin).toDynamicValue(() => {
    const ds = config.datastore;
    if (ds.kind === 'sqlite') {
      if (ds.file !== ':memory:') mkdirSync(path.dirname(path.resolve(ds.file)), { recursive: true });
      return new KnexDatastore({ kind: 'sqlite', file: ds.file });
    }
    return new KnexDatastore({ kind: 'postgres', url: ds.url, schema: ds.schema });
  });
  c.bind(TOKENS.DatastoreReadiness).toDynamicValue((ctx) => new DatastoreReadiness(ctx.get<DatastoreAdmin>(TOKENS.DatastoreAdmin)));
  c.bind(TOKENS.ConceptStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.OrderStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.JobLedger).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.TokenStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.TokenVerifier).toDynamicValue((ctx) => new Sha256TokenVerifier(config.auth.tokenSha256, ctx.get(TOKENS.TokenStore)));
  bindJobs(c, config);

  c.bind(TOKENS.CollectionsService).toDynamicValue(
    (ctx) => new CollectionsService(ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog), ctx.get(TOKENS.FieldSources)),
  );
  c.bind(TOKENS.RasterReader).toDynamicValue(() => {
    // raster-url collections name their format and PMTiles value encoding in config; the readers look them up by url.
    const rasterUrls = new Map(config.collections.flatMap((col) => (col.backing.kind === 'raster-url' ? [[col.backing.url, col.backing] as const] : [])));
    const maxWindowSamples = config.limits.maxRasterWindowSamples;
    // One bound of decoded tiles for all formats' configured rasters.
    const tileCache = new DecodedTileCache(config.rasters.tileCacheBytes);
    const pmtiles = new PmtilesRasterReader(rasterFetch, { encodingFor: (href) => rasterUrls.get(href)?.valueEncoding, maxWindowSamples, tileCache });
    return new FormatDispatchingRasterReader({ geotiff: new GeoTiffRasterReader(rasterFetch, process.cwd(), maxWindowSamples, tileCache), pmtiles }, (href) => rasterUrls.get(href)?.rasterFormat);
  });
  c.bind(TOKENS.ZoneDataService).toDynamicValue((ctx) => {
    const rasters = new RasterUrlZoneDataSource(ctx.get<RasterReader>(TOKENS.RasterReader));
    // Zone-data sources by backing kind: adding a kind is one line here.
    const sources: Partial<Record<BackingKind, ZoneDataSource>> = {
      'raster-url': rasters,
      stac: new StacZoneDataSource(
        stacCatalogFactory({ http: ctx.get<RemoteHttp>(TOKENS.RemoteHttp), assetGuard: remoteGuard, limits: { pageSize: Math.min(remote.pageSize, 100), maxPages: remote.maxPages, maxItems: remote.maxFeatures } }),
        ctx.get<RasterReader>(TOKENS.RasterReader),
      ),
      'parquet-lake': new LakeZoneDataSource(ctx.get<LakeReader>(TOKENS.LakeReader), config.limits, lakeBinning(config)),
      'ogc-features': new FeaturesZoneDataSource(ctx.get<FeatureSource>(TOKENS.FeatureSource), (col) => (col.backing.kind === 'ogc-features' ? `${col.backing.url.replace(/\/+$/, '')}/collections/${encodeURIComponent(col.backing.collection)}/items` : ''), config.limits),
    };
    return new ZoneDataService(ctx.get<GridRegistry>(TOKENS.GridRegistry), ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog), sources, rasters, config.limits);
  });
  return c;
}

/** Worker pools by size, one per process: workers keep nothing between requests, and a process may build several containers. */
const binningPools = new Map<number, ZoneBinningPool>();

/** Worker threads binning lake rows into zones; they rebuild the grids from grid-factories' GRID_FACTORIES. */
function lakeBinning(config: Config): ZoneBinningPool | undefined {
  const threads = config.lake.aggregationThreads;
  if (threads === 0) return undefined;
  let pool = binningPools.get(threads);
  if (!pool) binningPools.set(threads, (pool = new ZoneBinningPool(threads, new URL('./grid-factories.js', import.meta.url).href)));
  return pool;
}

/** The job queue the config names, where results go, the runner and the orders use case. */
function bindJobs(c: Container, config: Config): void {
  const o = config.orders;
  const ds = config.datastore;
  c.bind(TOKENS.JobQueue).toDynamicValue((ctx) => {
    const kind = o.queue === 'auto' ? (ds.kind === 'postgres' ? 'pg-boss' : 'in-process') : o.queue;
    // One delivery more than attempts: the last one records the verdict on a job whose final attempt's process stopped.
    const maxDeliveries = o.maxAttempts + 1;
    if (kind === 'in-process') return new InProcessJobQueue({ concurrency: o.concurrency, maxDeliveries, retryDelayMs: o.retryDelaySeconds * 1000 });
    if (ds.kind !== 'postgres') throw new Error('orders.queue "pg-boss" needs datastore.kind "postgres"');
    const log = ctx.get<Logger>(TOKENS.Logger);
    return new PgBossJobQueue({
      url: ds.url,
      schema: o.queueSchema ?? ds.schema ?? 'pgboss',
      concurrency: o.concurrency,
      maxDeliveries,
      retryDelaySeconds: o.retryDelaySeconds,
      heartbeatSeconds: o.heartbeatSeconds,
      superviseSeconds: o.superviseSeconds,
      pollSeconds: o.pollSeconds,
      onError: (err) => log.warn({ err }, 'job queue error'),
    });
  });
  c.bind(TOKENS.JobResults).toDynamicValue((ctx) => {
    const grids = ctx.get<GridRegistry>(TOKENS.GridRegistry);
    // Results are the zone-data GeoParquet encoding, so a result file is what the zone-data route would answer.
    return new FileJobResults(o.resultsRoot, async (data) => {
      const reply = await ZONE_DATA_ENCODERS.geoparquet!(data, { grid: grids.get(data.dggrsId)!, links: [], refined: false, title: '', crumbs: [] });
      return reply.body as Uint8Array;
    });
  });
  c.bind(TOKENS.JobRunner).toDynamicValue(
    (ctx) =>
      new JobRunner(
        ctx.get(TOKENS.JobLedger),
        ctx.get<JobQueue>(TOKENS.JobQueue),
        ctx.get<JobResults>(TOKENS.JobResults),
        ctx.get<ZoneDataService>(TOKENS.ZoneDataService),
        { worker: `${hostname()}:${process.pid}`, maxAttempts: o.maxAttempts, retryDelayMs: o.retryDelaySeconds * 1000, sweepIntervalMs: 10_000, sweepAfterMs: 5_000 },
        ctx.get<Logger>(TOKENS.Logger),
      ),
  );
  c.bind(TOKENS.OrdersService).toDynamicValue(
    (ctx) =>
      new OrdersService(
        ctx.get<OrderStore>(TOKENS.OrderStore),
        ctx.get<JobLedger>(TOKENS.JobLedger),
        ctx.get<DatastoreReadiness>(TOKENS.DatastoreReadiness),
        ctx.get<ConceptStore>(TOKENS.ConceptStore),
        ctx.get<GridRegistry>(TOKENS.GridRegistry),
        ctx.get<ZoneDataService>(TOKENS.ZoneDataService),
        ctx.get<JobQueue>(TOKENS.JobQueue),
        ctx.get<JobResults>(TOKENS.JobResults),
        { maxOpenOrders: o.maxOpenOrders, maxJobsPerOrder: o.maxJobsPerOrder, retryAfterSeconds: o.retryAfterSeconds, maxSubZones: config.limits.maxSubZones },
        ctx.get<Logger>(TOKENS.Logger),
      ),
  );
}

/** Who each authenticated request acts for, set by `authenticate` and read by the order routes. */
const principals = new WeakMap<Request, Principal>();

function ownerOf(req: Request): string {
  const principal = principals.get(req);
  // Reached only when authentication did not run for this request: refuse rather than guess.
  if (!principal) throw new NotAuthenticatedError();
  return principal.owner;
}

/** The route families, in the order they are matched and documented. */
export function routeModules(c: Container, late: { conformance: () => string[]; openApi: () => object }): RouteModule[] {
  const datastore = c.get<DatastoreAdmin>(TOKENS.DatastoreAdmin);
  const readiness = c.get<DatastoreReadiness>(TOKENS.DatastoreReadiness);
  const ready = () => readiness.check();
  const orders = c.get<OrdersService>(TOKENS.OrdersService);
  return [
    serviceRoutes({
      title: 'Discrete Global Grid Data API',
      description: 'Geospatial data addressed by the zones of discrete global grid reference systems (OGC API - DGGS).',
      ready,
      ...late,
    }),
    collectionRoutes(c.get<CollectionsService>(TOKENS.CollectionsService)),
    dggsRoutes(new ZonesService(c.get<GridRegistry>(TOKENS.GridRegistry), c.get<CollectionsService>(TOKENS.CollectionsService), c.get<Config>(TOKENS.Config).limits.maxZonesPerPage), c.get<ZoneDataService>(TOKENS.ZoneDataService), c.get<Config>(TOKENS.Config).server.zoneInfoCacheBytes),
    itemRoutes(new ItemsService(c.get<CollectionCatalog>(TOKENS.CollectionCatalog), c.get<LakeReader>(TOKENS.LakeReader), c.get<Config>(TOKENS.Config).limits.itemsMaxLimit, c.get<Config>(TOKENS.Config).limits.lakeQuerySeconds)),
    zoneDataRoutes(
      c.get<ZoneDataService>(TOKENS.ZoneDataService),
      new ZoneFeaturesService(c.get<GridRegistry>(TOKENS.GridRegistry), c.get<CollectionCatalog>(TOKENS.CollectionCatalog), c.get<LakeReader>(TOKENS.LakeReader), c.get<Config>(TOKENS.Config).limits.maxSubZones, c.get<Config>(TOKENS.Config).limits.lakeQuerySeconds),
    ),
    conceptRoutes(c.get<ConceptStore>(TOKENS.ConceptStore), ready),
    orderRoutes(orders, ownerOf),
    adminRoutes(datastore),
  ];
}

export interface App {
  container: Container;
  http: HttpServer;
  logger: Logger;
  /** Listens; resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export async function createApp(config: Config, logger?: Logger): Promise<App> {
  const container = buildContainer(config, logger);
  const log = container.get<Logger>(TOKENS.Logger);
  const datastore = container.get<DatastoreAdmin>(TOKENS.DatastoreAdmin);
  if (config.datastore.autoInitialize) await datastore.initialize();

  let conformance: string[] = [];
  let http: HttpServer | undefined;
  const modules = routeModules(container, { conformance: () => conformance, openApi: () => http!.openApi() });
  conformance = [...new Set(modules.flatMap((m) => m.conformance ?? []))].sort();
  const verifier = container.get<TokenVerifier>(TOKENS.TokenVerifier);
  const readiness = container.get<DatastoreReadiness>(TOKENS.DatastoreReadiness);
  http = createHttpServer({
    routes: modules.flatMap((m) => m.routes),
    logger: log,
    publicBaseUrl: config.server.publicBaseUrl,
    limits: config.server,
    authenticate: async (req: Request) => {
      const header = req.header('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new NotAuthenticatedError();
      let principal: Principal | undefined;
      try {
        principal = await verifier.verify(match[1]!);
      } catch (err) {
        // Stored tokens live in the datastore: before initialisation there are none to check.
        await readiness.check().catch((notReady: unknown) => {
          if (notReady instanceof DatastoreNotInitializedError) throw notReady;
        });
        throw err;
      }
      if (!principal) throw new NotAuthenticatedError();
      principals.set(req, principal);
    },
  });
  const server = http.server;
  const runner = container.get<JobRunner>(TOKENS.JobRunner);
  if (config.orders.runInServer) await runner.start();
  return {
    container,
    http,
    logger: log,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.server.port, config.server.host, () => {
          resolveSelf(config, server.address().port);
          resolve(server.address().port);
        });
      }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runner.stop();
      await Promise.all([datastore.close(), container.get<LakeReader>(TOKENS.LakeReader).close()]);
    },
  };
}
