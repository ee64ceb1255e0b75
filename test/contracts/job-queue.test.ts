import { jobQueueContract } from './job-queue.contract.js';
import { InProcessJobQueue } from '../../src/adapters/jobs/in-process-job-queue.js';
import { PgBossJobQueue } from '../../src/adapters/jobs/pg-boss-job-queue.js';
import { startPostgres } from '../support/postgres.js';

jobQueueContract('in-process runner', async () => ({
  factory: async (s) => new InProcessJobQueue({ concurrency: s.concurrency, maxDeliveries: s.maxDeliveries, retryDelayMs: s.retryDelaySeconds * 1000 }),
  cleanup: async () => {},
}));

jobQueueContract('pg-boss on PostgreSQL', async () => {
  const pg = await startPostgres();
  return {
    factory: async (s) =>
      new PgBossJobQueue({
        url: pg.url,
        schema: pg.schema,
        concurrency: s.concurrency,
        maxDeliveries: s.maxDeliveries,
        retryDelaySeconds: s.retryDelaySeconds,
        heartbeatSeconds: 10,
        superviseSeconds: 1,
        pollSeconds: s.pollSeconds ?? 0.5,
      }),
    cleanup: () => pg.stop(),
  };
});
