import knexFactory from 'knex';

/** The variable that points the suite at a PostgreSQL, and the form of its value. */
export const POSTGRES_URL_VARIABLE = 'DGGS_TEST_POSTGRES_URL';
const FORM = `${POSTGRES_URL_VARIABLE}=postgres://user@host:port/db`;

/** The URL as it may be printed: without its password. */
export function printableUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Connects once and runs `SELECT 1`, within `timeoutMs`. When that fails, throws an error whose
 * first line says the suite has no PostgreSQL and how to give it one: mocha shows only that line
 * in its summary, and a bare ECONNREFUSED (or a hook that times out) says neither.
 */
export async function probePostgres(url: string, timeoutMs = 3000): Promise<void> {
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString: url, connectionTimeoutMillis: timeoutMs },
    acquireConnectionTimeout: timeoutMs,
    pool: { min: 0, max: 1 },
    // knex would print each failed attempt ahead of our message; the message carries the cause.
    log: { warn: () => {}, error: () => {}, debug: () => {}, deprecate: () => {} },
  });
  try {
    await db.raw('SELECT 1');
  } catch (err) {
    throw unreachable(url, err);
  } finally {
    await db.destroy().catch(() => {});
  }
}

function unreachable(url: string, err: unknown): Error {
  const e = err as { code?: string; message?: string };
  const why = [e.code, e.message].filter(Boolean).join(': ') || String(err);
  return new Error(
    `PostgreSQL unreachable for the tests at ${printableUrl(url)}: set ${FORM} (a database the user may create schemas in), or start the local one\n` +
      `  cause: ${why}\n` +
      `  the local one: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start; with a Docker engine reachable the suites start a container instead`,
    { cause: err },
  );
}
