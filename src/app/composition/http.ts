import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import type { DatastoreReadiness } from '../datastore-readiness.js';
import { BearerGuard } from '../../http/bearer-guard.js';
import { SourceFiles } from '../../http/source-files.js';
import { createHttpServer, type HttpServer } from '../../http/server.js';
import type { ServiceMetrics } from '../../http/metrics.js';
import type { RouteModule } from '../../http/route-module.js';
import { serviceRoutes } from '../../http/routes/service.js';
import { collectionRoutes } from '../../http/routes/collections.js';
import { dggsRoutes } from '../../http/routes/dggs.js';
import { itemRoutes } from '../../http/routes/items.js';
import { zoneDataRoutes } from '../../http/routes/zone-data.js';
import { conceptRoutes } from '../../http/routes/concepts.js';
import { orderRoutes } from '../../http/routes/orders.js';
import { assetRoutes } from '../../http/routes/assets.js';
import { tileRoutes } from '../../http/routes/tiles.js';
import { bindTiles } from './tiles.js';
import { HttpCaching } from '../../http/caching.js';
import { API_VERSION } from '../../http/openapi/document.js';
import { serviceRevision } from '../service-revision.js';
import type { SourceVersions } from '../collections/source-versions.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';

/** The route families, the bearer guard of the secured ones, and the server that serves them. */
export function bindHttp(c: Container, config: Config): void {
  c.bind(TOKENS.BearerGuard).toDynamicValue((ctx) => new BearerGuard(ctx.get(TOKENS.TokenVerifier), ctx.get(TOKENS.DatastoreReadiness)));
  const ready = (readiness: DatastoreReadiness) => () => readiness.check();
  // The landing routes describe the whole API, whose conformance classes and document exist only
  // once every route module and the server are built: they are looked up when first asked for.
  c.bind(TOKENS.ServiceRoutes).toDynamicValue((ctx) =>
    serviceRoutes({
      title: 'Discrete Global Grid Data API',
      description: 'Geospatial data addressed by the zones of discrete global grid reference systems (OGC API - DGGS).',
      ready: ready(ctx.get(TOKENS.DatastoreReadiness)),
      conformance: () => ctx.get<string[]>(TOKENS.Conformance),
      openApi: () => ctx.get<HttpServer>(TOKENS.HttpServer).openApi(),
    }),
  );
  // The collections' served files, indexed once per collection on first use.
  c.bind(TOKENS.SourceFiles).toDynamicValue(() => new SourceFiles());
  c.bind(TOKENS.CollectionRoutes).toDynamicValue((ctx) => collectionRoutes(ctx.get(TOKENS.CollectionsService), ctx.get(TOKENS.SourceFiles), config.grids.default));
  c.bind(TOKENS.DggsRoutes).toDynamicValue((ctx) => dggsRoutes(ctx.get(TOKENS.ZonesService), ctx.get(TOKENS.ZoneInfoService), config.server.zoneInfoCacheBytes, { maxRasterCells: config.limits.maxRasterCells }));
  // The tiles' use case is bound here, beside its only client.
  bindTiles(c, config);
  c.bind(TOKENS.TileRoutes).toDynamicValue((ctx) => tileRoutes(ctx.get(TOKENS.TilesService)));
  c.bind(TOKENS.ItemRoutes).toDynamicValue((ctx) => itemRoutes(ctx.get(TOKENS.ItemsService)));
  c.bind(TOKENS.ZoneDataRoutes).toDynamicValue((ctx) => zoneDataRoutes(ctx.get(TOKENS.ZoneDataService), ctx.get(TOKENS.ZoneFeaturesService)));
  c.bind(TOKENS.ConceptRoutes).toDynamicValue((ctx) => conceptRoutes(ctx.get(TOKENS.ConceptStore), ready(ctx.get(TOKENS.DatastoreReadiness))));
  c.bind(TOKENS.OrderRoutes).toDynamicValue((ctx) => orderRoutes(ctx.get(TOKENS.OrdersService), ctx.get(TOKENS.BearerGuard)));
  // The order they are matched and documented in.
  const families = [TOKENS.ServiceRoutes, TOKENS.CollectionRoutes, TOKENS.DggsRoutes, TOKENS.ItemRoutes, TOKENS.ZoneDataRoutes, TOKENS.TileRoutes, TOKENS.ConceptRoutes, TOKENS.OrderRoutes, TOKENS.OperationsRoutes];
  // The pages' static files (maps, favicon) last: not OGC resources, hidden from the API document.
  const assets = assetRoutes({ basemapStyle: config.map.basemapStyle });
  c.bind(TOKENS.RouteModules).toDynamicValue((ctx) => [...families.map((family) => ctx.get<RouteModule>(family)), assets]);
  c.bind(TOKENS.Conformance).toDynamicValue((ctx) => [...new Set(ctx.get<RouteModule[]>(TOKENS.RouteModules).flatMap((m) => m.conformance ?? []))].sort());
  // Before the server listens, so the configuration is hashed as written (see serviceRevision).
  const revision = serviceRevision(API_VERSION, config);
  const httpCaching = (versions: SourceVersions, catalog: CollectionCatalog) => {
    // Taken at the first answer, once the start-up check has filled the extents the data gives.
    let taken: string | undefined;
    return new HttpCaching({ policy: config.server.caching, revision: () => (taken ??= revision(catalog.list())), versions: (ids) => versions.of(ids) });
  };
  c.bind(TOKENS.HttpServer).toDynamicValue((ctx) => {
    const guard = ctx.get<BearerGuard>(TOKENS.BearerGuard);
    return createHttpServer({
      routes: ctx.get<RouteModule[]>(TOKENS.RouteModules).flatMap((m) => m.routes),
      logger: ctx.get<Logger>(TOKENS.Logger),
      publicBaseUrl: config.server.publicBaseUrl,
      trustedProxies: config.server.trustedProxies,
      limits: config.server,
      authenticate: (req) => guard.authenticate(req),
      ...(config.server.metrics.enabled ? { observer: ctx.get<ServiceMetrics>(TOKENS.ServiceMetrics) } : {}),
      cors: config.server.cors,
      compression: config.server.compression,
      caching: httpCaching(ctx.get(TOKENS.SourceVersions), ctx.get(TOKENS.CollectionCatalog)),
    });
  });
}
