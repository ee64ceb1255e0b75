import { PgBoss } from 'pg-boss';

export interface PgBossConnection {
  url: string;
  schema: string;
  superviseSeconds: number;
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
