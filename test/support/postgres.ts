import { existsSync } from 'node:fs';
import net from 'node:net';
import knexFactory from 'knex';

export interface PostgresHandle {
  url: string;
  /** A fresh schema for this suite; dropped by `stop`. */
  schema: string;
  stop(): Promise<void>;
}

const LOCAL_URL = process.env.DGGS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A PostgreSQL for contract suites: a testcontainers container when a Docker engine is
 * reachable, else the machine's local service. With neither it throws: a suite never passes by
 * skipping.
 */
export async function startPostgres(): Promise<PostgresHandle> {
  let url: string;
  let stopContainer = async () => {};
  if (process.env.DOCKER_HOST || existsSync('/var/run/docker.sock')) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    url = container.getConnectionUri();
    stopContainer = async () => {
      await container.stop();
    };
  } else {
    const { hostname, port } = new URL(LOCAL_URL);
    if (!(await reachable(hostname, Number(port || 5432)))) {
      throw new Error(
        `No Docker engine and no PostgreSQL at ${hostname}:${port}. Start it (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) or set DGGS_TEST_POSTGRES_URL.`,
      );
    }
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

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
