import { hostname } from 'node:os';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { JobRunner, type JobRunnerOptions } from '../orders/job-runner.js';
import { OrdersService, type OrderLimits } from '../orders/orders-service.js';
import { InProcessJobQueue } from '../../adapters/jobs/in-process-job-queue.js';
import { PgBossJobQueue } from '../../adapters/jobs/pg-boss-job-queue.js';
import { FileJobResults } from '../../adapters/jobs/file-job-results.js';
import { encodeZoneData, zoneDataEncoding } from '../../formats/zone-data/encodings.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { ProcessGroup } from '../../ports/process-group.js';
import { HandOverJobQueue, takeHandedOverJobs } from '../../adapters/jobs/hand-over-job-queue.js';

/** The queue the config names (`auto`: in-process on SQLite, pg-boss on PostgreSQL). */
function queueKind(config: Config): 'in-process' | 'pg-boss' {
  const o = config.orders;
  return o.queue === 'auto' ? (config.datastore.kind === 'postgres' ? 'pg-boss' : 'in-process') : o.queue;
}

/**
 * Whether this HTTP process runs jobs: with `orders.runInServer`, every process of the group on
 * pg-boss (they share its queue), but only process 1 on the in-process queue, which must be the
 * one runner of its datastore; the others hand their jobs over to it.
 */
export function jobsRunHere(config: Config, group: ProcessGroup): boolean {
  return config.orders.runInServer && (queueKind(config) !== 'in-process' || group.index === 1);
}

/** The job queue the config names, where results go, the runner and the orders use case. */
export function bindJobs(c: Container, config: Config): void {
  const o = config.orders;
  const ds = config.datastore;
  c.bind(TOKENS.JobQueue).toDynamicValue((ctx) => {
    const kind = queueKind(config);
    // One delivery more than attempts: the last one records the verdict on a job whose final attempt's process stopped.
    const maxDeliveries = o.maxAttempts + 1;
    if (kind === 'in-process') {
      const group = ctx.get<ProcessGroup>(TOKENS.ProcessGroup);
      if (group.size > 1 && o.runInServer && group.index !== 1) return new HandOverJobQueue(group, 1);
      const queue = new InProcessJobQueue({ concurrency: o.concurrency, maxDeliveries, retryDelayMs: o.retryDelaySeconds * 1000 });
      if (group.size > 1) takeHandedOverJobs(group, queue);
      return queue;
    }
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
    return new FileJobResults(o.resultsRoot, (data) => encodeZoneData(zoneDataEncoding('geoparquet')!, data, { grid: grids.get(data.dggrsId)!, links: [], refined: false }));
  });
  c.bind<JobRunnerOptions>(TOKENS.JobRunnerOptions).toConstantValue({ worker: `${hostname()}:${process.pid}`, maxAttempts: o.maxAttempts, retryDelayMs: o.retryDelaySeconds * 1000, sweepIntervalMs: 10_000, sweepAfterMs: 5_000 });
  c.bind(TOKENS.JobRunner).to(JobRunner);
  c.bind<OrderLimits>(TOKENS.OrderLimits).toConstantValue({ maxOpenOrders: o.maxOpenOrders, maxJobsPerOrder: o.maxJobsPerOrder, retryAfterSeconds: o.retryAfterSeconds, maxSubZones: config.limits.maxSubZones });
  c.bind(TOKENS.OrdersService).to(OrdersService);
}
