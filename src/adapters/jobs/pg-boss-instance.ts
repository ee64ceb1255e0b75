import { PgBoss } from 'pg-boss';

/** What both queues of this family are configured with (from `orders` and the datastore). */
export interface PgBossConnection {
  url: string;
  /** Schema of pg-boss's own tables. */
  schema: string;
  /** First retry delay; later ones double (pg-boss backoff, with jitter). */
  retryDelaySeconds: number;
  /** A running job whose process sent no heartbeat for this long is retried (pg-boss: at least 10). */
  heartbeatSeconds: number;
  /** How often each instance looks for jobs whose heartbeat stopped. */
  superviseSeconds: number;
  /** Idle poll interval of workers. */
  pollSeconds: number;
  onError?: (err: unknown) => void;
}

/**
 * A pg-boss instance as both queues of this family use it (order jobs, pyramid parts): its own
 * pool of `max` connections, supervision at the configured interval, a name PostgreSQL shows in
 * pg_stat_activity, and errors handed to the owner's log.
 */
export function pgBossOf(c: PgBossConnection, max: number, applicationName: string): PgBoss {
  const boss = new PgBoss({
    connectionString: c.url,
    schema: c.schema,
    max,
    superviseIntervalSeconds: c.superviseSeconds,
    monitorIntervalSeconds: c.superviseSeconds,
    application_name: applicationName,
  });
  boss.on('error', (err) => c.onError?.(err));
  return boss;
}
