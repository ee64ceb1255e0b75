import type { Container, ResolutionContext } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { HealthService } from '../health/health-service.js';
import type { ZoneDataService } from '../zone-data/zone-data-service.js';
import type { JobLedger } from '../../ports/datastore.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { ReportedCache } from '../../ports/metrics.js';
import type { ProcessGroup } from '../../ports/process-group.js';
import type { DecodedTileCache } from '../../adapters/rasters/decoded-tile-cache.js';
import { METRICS_TOPICS, ServiceMetrics } from '../../http/metrics.js';
import type { RouteModule } from '../../http/route-module.js';
import { healthRoutes } from '../../http/routes/health.js';
import { metricsRoute } from '../../http/routes/metrics.js';

/** The health probes, the metrics (when `server.metrics.enabled`) and their routes. */
export function bindOperations(c: Container, config: Config): void {
  c.bind(TOKENS.HealthOptions).toConstantValue(config.server.health);
  c.bind(TOKENS.HealthService).to(HealthService);
  const { enabled, processMetrics, datastoreTimeoutMs } = config.server.metrics;
  if (enabled) {
    c.bind(TOKENS.ServiceMetrics).toDynamicValue((ctx) => {
      // Looked up at the first scrape: the route modules are built with the server this observes.
      let caches: ReportedCache[] | undefined;
      const group = ctx.get<ProcessGroup>(TOKENS.ProcessGroup);
      const metrics = new ServiceMetrics({
        processMetrics,
        caches: () => (caches ??= reportedCaches(ctx)),
        admission: () => ctx.get<ZoneDataService>(TOKENS.ZoneDataService).admission(),
        openJobs: () => ctx.get<JobLedger>(TOKENS.JobLedger).openJobCounts(),
        jobsTimeoutMs: datastoreTimeoutMs,
        // The supervisor asks each process for its series (each within the datastore bound of its
        // job counts, and a margin) and sums them.
        ...(group.size > 1 ? { groupSum: async () => String(await group.ask('supervisor', METRICS_TOPICS.sum, { timeoutMs: datastoreTimeoutMs + 2000 }, datastoreTimeoutMs + 4000)) } : {}),
      });
      if (group.size > 1) group.answer(METRICS_TOPICS.local, () => metrics.localSeries());
      return metrics;
    });
  }
  c.bind(TOKENS.OperationsRoutes).toDynamicValue((ctx): RouteModule => ({
    routes: [...healthRoutes(ctx.get(TOKENS.HealthService)), ...(enabled ? [metricsRoute(ctx.get(TOKENS.ServiceMetrics))] : [])],
  }));
}

/** Every cache the service keeps that counts its hits: of the routes' answers, raster tiles, the lake's. */
function reportedCaches(ctx: ResolutionContext): ReportedCache[] {
  const tiles = ctx.get<DecodedTileCache>(TOKENS.RasterTileCache);
  return [
    ...ctx.get<RouteModule[]>(TOKENS.RouteModules).flatMap((m) => m.caches ?? []),
    { name: 'raster_tiles', stats: () => ({ ...tiles.stats, bytes: tiles.bytes, entries: tiles.size }) },
    ...(ctx.get<LakeReader>(TOKENS.LakeReader).caches?.() ?? []),
  ];
}
