import { existsSync } from 'node:fs';
import knexFactory from 'knex';
import { POSTGRES_URL_VARIABLE, probePostgres } from './postgres-probe.js';

export interface PostgresHandle {
  url: string;
  /** A fresh schema for this suite; dropped by `stop`. */
  schema: string;
  stop(): Promise<void>;
}

const LOCAL_URL = process.env[POSTGRES_URL_VARIABLE] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** One probe per run: every suite that needs PostgreSQL fails at once with the same first line. */
let localProbe: Promise<void> | undefined;

/**
 * A PostgreSQL for contract suites: the one DGGS_TEST_POSTGRES_URL names, else a testcontainers
 * container when a Docker engine is reachable, else the machine's local service. With neither it throws: a suite never passes by
 * skipping.
 */
export async function startPostgres(): Promise<PostgresHandle> {
  let url: string;
  let stopContainer = async () => {};
  // A URL given is the one to use, Docker or not: the unreachable message tells people to set it.
  if (!process.env[POSTGRES_URL_VARIABLE] && (process.env.DOCKER_HOST || existsSync('/var/run/docker.sock'))) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    url = container.getConnectionUri();
    stopContainer = async () => {
      await container.stop();
    };
  } else {
    await (localProbe ??= probePostgres(LOCAL_URL));
    url = LOCAL_URL;
  }
  const schema = `dggs_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = knexFactory({ client: 'pg', connection: url });
  await admin.raw('CREATE SCHEMA ??', [schema]);
  await admin.destroy();
  return {
    url,
    schema,
    stop: async () => {
      const db = knexFactory({ client: 'pg', connection: url });
      await db.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      await db.destroy();
      await stopContainer();
    },
  };
}
