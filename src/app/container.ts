import 'reflect-metadata';
import { Container } from 'inversify';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import type { Request } from 'restify';
import { TOKENS } from './tokens.js';
import type { Config } from './config/config-schema.js';
import { EnabledGridRegistry } from './grid-registry.js';
import { GRID_FACTORIES } from './grid-factories.js';
import { ConfigCollectionCatalog, ConfigFieldSource } from './config-collection-catalog.js';
import { CollectionsService } from './use-cases/collections-service.js';
import { OrdersService } from './use-cases/orders-service.js';
import { UnauthorizedError } from './errors.js';
import { KnexDatastore } from '../adapters/datastore/knex-datastore.js';
import { Sha256TokenVerifier } from '../adapters/auth/sha256-token-verifier.js';
import { createHttpServer, type HttpServer } from '../adapters/http/server.js';
import { serviceRoutes } from '../adapters/http/routes/service.js';
import { collectionRoutes } from '../adapters/http/routes/collections.js';
import { adminRoutes } from '../adapters/http/routes/admin.js';
import { conceptRoutes } from '../adapters/http/routes/concepts.js';
import { orderRoutes } from '../adapters/http/routes/orders.js';
import { itemRoutes } from '../adapters/http/routes/items.js';
import { DuckDbLake } from '../adapters/lake/duckdb-lake.js';
import { LakeZoneDataSource } from '../adapters/lake/lake-zone-data-source.js';
import { ItemsService } from './use-cases/items-service.js';
import type { LakeReader } from '../ports/lake-reader.js';
import { dggsRoutes } from '../adapters/http/routes/dggs.js';
import { ZonesService } from './use-cases/zones-service.js';
import { zoneDataRoutes } from '../adapters/http/routes/zone-data.js';
import { ZoneDataService } from './use-cases/zone-data-service.js';
import { GeoTiffRasterReader } from '../adapters/rasters/geotiff-raster-reader.js';
import { PmtilesRasterReader } from '../adapters/rasters/pmtiles-raster-reader.js';
import { FormatDispatchingRasterReader } from '../adapters/rasters/format-dispatching-raster-reader.js';
import { RasterUrlZoneDataSource } from '../adapters/rasters/raster-url-zone-data-source.js';
import { collectionRasterFields, rasterZoneData } from '../adapters/rasters/raster-zone-data.js';
import { StaticStacCatalog } from '../adapters/stac/static-stac-catalog.js';
import { StacZoneDataSource } from './stac-zone-data-source.js';
import type { RasterReader } from '../ports/raster-reader.js';
import type { ZoneDataSource } from '../ports/zone-data-source.js';
import type { RouteModule } from '../adapters/http/route-module.js';
import type { GridRegistry } from '../ports/grid-registry.js';
import type { CollectionCatalog, FieldSource } from '../ports/collection-catalog.js';
import type { ConceptStore, DatastoreAdmin, OrderStore } from '../ports/datastore.js';
import type { TokenVerifier } from '../ports/token-verifier.js';
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
  c.bind(TOKENS.LakeReader).toDynamicValue(() => new DuckDbLake(config.lake.root));
  c.bind(TOKENS.FieldSources).toDynamicValue((ctx) => {
    const fromConfig = new ConfigFieldSource();
    const sources: Partial<Record<BackingKind, FieldSource>> = { 'raster-url': fromConfig, stac: fromConfig, 'ogc-features': fromConfig, 'parquet-lake': ctx.get<LakeReader>(TOKENS.LakeReader) };
    return sources;
  });

  c.bind(TOKENS.DatastoreAdmin).toDynamicValue(() => {
    const ds = config.datastore;
    if (ds.kind === 'sqlite') {
      if (ds.file !== ':memory:') mkdirSync(path.dirname(path.resolve(ds.file)), { recursive: true });
      return new KnexDatastore({ kind: 'sqlite', file: ds.file });
    }
    return new KnexDatastore({ kind: 'postgres', url: ds.url, schema: ds.schema });
  });
  c.bind(TOKENS.ConceptStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.OrderStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.TokenVerifier).toDynamicValue(() => new Sha256TokenVerifier(config.auth.tokenSha256));

  c.bind(TOKENS.CollectionsService).toDynamicValue(
    (ctx) => new CollectionsService(ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog), ctx.get(TOKENS.FieldSources)),
  );
  c.bind(TOKENS.RasterReader).toDynamicValue(() => {
    // raster-url collections name their format and PMTiles value encoding in config; the readers look them up by url.
    const rasterUrls = new Map(config.collections.flatMap((col) => (col.backing.kind === 'raster-url' ? [[col.backing.url, col.backing] as const] : [])));
    const pmtiles = new PmtilesRasterReader(config.rasterFetch, { encodingFor: (href) => rasterUrls.get(href)?.valueEncoding });
    return new FormatDispatchingRasterReader({ geotiff: new GeoTiffRasterReader(config.rasterFetch), pmtiles }, (href) => rasterUrls.get(href)?.rasterFormat);
  });
  c.bind(TOKENS.ZoneDataService).toDynamicValue((ctx) => {
    const rasters = new RasterUrlZoneDataSource(ctx.get<RasterReader>(TOKENS.RasterReader));
    // Zone-data sources by backing kind: adding a kind is one line here.
    const sources: Partial<Record<BackingKind, ZoneDataSource>> = {
      'raster-url': rasters,
      stac: new StacZoneDataSource((href) => new StaticStacCatalog(href), ctx.get<RasterReader>(TOKENS.RasterReader), { collectionRasterFields, rasterZoneData }),
      'parquet-lake': new LakeZoneDataSource(ctx.get<LakeReader>(TOKENS.LakeReader)),
    };
    return new ZoneDataService(ctx.get<GridRegistry>(TOKENS.GridRegistry), ctx.get<CollectionCatalog>(TOKENS.CollectionCatalog), sources, rasters, config.limits);
  });
  return c;
}

/** The route families, in the order they are matched and documented. */
export function routeModules(c: Container, late: { conformance: () => string[]; openApi: () => object }): RouteModule[] {
  const datastore = c.get<DatastoreAdmin>(TOKENS.DatastoreAdmin);
  const orders = new OrdersService(c.get<OrderStore>(TOKENS.OrderStore), datastore, c.get<GridRegistry>(TOKENS.GridRegistry), c.get<CollectionCatalog>(TOKENS.CollectionCatalog));
  return [
    serviceRoutes({
      title: 'Discrete Global Grid Data API',
      description: 'Geospatial data addressed by the zones of discrete global grid reference systems (OGC API - DGGS).',
      datastore,
      ...late,
    }),
    collectionRoutes(c.get<CollectionsService>(TOKENS.CollectionsService)),
    dggsRoutes(new ZonesService(c.get<GridRegistry>(TOKENS.GridRegistry), c.get<CollectionsService>(TOKENS.CollectionsService), c.get<Config>(TOKENS.Config).limits.maxZonesPerPage), c.get<ZoneDataService>(TOKENS.ZoneDataService)),
    itemRoutes(new ItemsService(c.get<CollectionCatalog>(TOKENS.CollectionCatalog), c.get<LakeReader>(TOKENS.LakeReader), c.get<Config>(TOKENS.Config).limits.itemsMaxLimit)),
    zoneDataRoutes(c.get<ZoneDataService>(TOKENS.ZoneDataService)),
    conceptRoutes(c.get<ConceptStore>(TOKENS.ConceptStore), datastore),
    orderRoutes(orders),
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
  http = createHttpServer({
    routes: modules.flatMap((m) => m.routes),
    logger: log,
    publicBaseUrl: config.server.publicBaseUrl,
    maxBodyBytes: config.server.maxBodyBytes,
    requestTimeoutMs: config.server.requestTimeoutMs,
    authenticate: (req: Request) => {
      const header = req.header('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match || !verifier.verify(match[1]!)) throw new UnauthorizedError();
    },
  });
  const server = http.server;
  return {
    container,
    http,
    logger: log,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.server.port, config.server.host, () => resolve(server.address().port));
      }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([datastore.close(), container.get<LakeReader>(TOKENS.LakeReader).close()]);
    },
  };
}
