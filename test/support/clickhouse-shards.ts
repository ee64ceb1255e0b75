/**
 * Two ClickHouse shard servers forming the cluster `dggs` (each server's `remote_servers` names
 * both), for the pyramid store's contract suite. Where a Docker engine is reachable: two
 * `@testcontainers/clickhouse` containers on one network. Otherwise: two plain child processes of
 * the machine's `clickhouse-server` (Debian's package, 18.16), each with its own generated config,
 * data, tmp and log directories in a temporary directory, listening on 127.0.0.1 only on free ports.
 * With neither it throws, saying how to install the server: a suite never passes by skipping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CLUSTER = 'dggs';
const SERVER_BINARY = process.env.DGGS_TEST_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
const START_TIMEOUT_MS = 30_000;

export interface ClickHouseShards {
  /** HTTP URL of each shard's server, in the cluster's order (read again after a restart: a container's port may change). */
  urls(): string[];
  username: string;
  password: string;
  /** Kills shard `i` (SIGKILL: no goodbye to its peers) and waits until it is gone. */
  kill(i: number): Promise<void>;
  /** Starts shard `i` again on its data and ports, and waits until it answers. */
  restart(i: number): Promise<void>;
  /** Stops both and removes what they wrote. */
  stop(): Promise<void>;
}

export async function startClickHouseShards(): Promise<ClickHouseShards> {
  if (process.env.DOCKER_HOST || existsSync('/var/run/docker.sock')) return startContainers();
  return startProcesses();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface ShardPorts {
  http: number;
  tcp: number;
  interserver: number;
}

function remoteServers(hosts: { host: string; port: number }[], credentials = ''): string {
  const shards = hosts.map((h) => `<shard><replica><host>${h.host}</host><port>${h.port}</port>${credentials}</replica></shard>`).join('');
  return `<remote_servers><${CLUSTER}>${shards}</${CLUSTER}></remote_servers>`;
}

function serverConfig(dir: string, ports: ShardPorts, cluster: string): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/error.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${ports.http}</http_port>
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/data/user_files/</user_files_path>
  <format_schema_path>${dir}/data/format_schemas/</format_schema_path>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>100</max_concurrent_queries>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <users_config>${dir}/users.xml</users_config>
  ${cluster}
</yandex>
`;
}

const USERS = `<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
`;

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
    return res.ok && (await res.text()).startsWith('Ok');
  } catch {
    return false;
  }
}

async function startProcesses(): Promise<ClickHouseShards> {
  if (!existsSync(SERVER_BINARY)) {
    throw new Error(
      `ClickHouse server not found at ${SERVER_BINARY}: the pyramid store's client tests run two real shard servers. ` +
        'Install it (Debian/Ubuntu: apt-get install clickhouse-server; .ci/run does), set DGGS_TEST_CLICKHOUSE_SERVER to its path, or make a Docker engine reachable for testcontainers.',
    );
  }
  const root = mkdtempSync(join(tmpdir(), 'dggs-clickhouse-'));
  const ports: ShardPorts[] = [];
  // Ports are taken one after the other so the six differ; a port taken by someone else between
  // this probe and the server's bind makes the start fail loudly below.
  for (let i = 0; i < 2; i++) ports.push({ http: await freePort(), tcp: await freePort(), interserver: await freePort() });
  const cluster = remoteServers(ports.map((p) => ({ host: '127.0.0.1', port: p.tcp })));
  const dirs = ports.map((p, i) => {
    const dir = join(root, `shard${i}`);
    for (const sub of ['data', 'tmp', 'log']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'config.xml'), serverConfig(dir, p, cluster));
    writeFileSync(join(dir, 'users.xml'), USERS);
    return dir;
  });
  const urls = ports.map((p) => `http://127.0.0.1:${p.http}`);
  const processes: (ChildProcess | undefined)[] = [undefined, undefined];

  const launch = async (i: number) => {
    const child = spawn(SERVER_BINARY, [`--config-file=${join(dirs[i]!, 'config.xml')}`], { cwd: dirs[i], stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4000);
    });
    processes[i] = child;
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await answers(urls[i]!))) {
      if (exited || Date.now() > deadline) {
        const logFile = join(dirs[i]!, 'log', 'error.log');
        const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
        child.kill('SIGKILL');
        throw new Error(`ClickHouse shard ${i} (${SERVER_BINARY}) did not answer on ${urls[i]}${exited ? ': it exited' : ` within ${START_TIMEOUT_MS} ms`}.\n${stderr}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kill = async (i: number) => {
    const child = processes[i];
    processes[i] = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  };
  try {
    await Promise.all([launch(0), launch(1)]);
  } catch (err) {
    await Promise.all([kill(0), kill(1)]);
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    urls: () => [...urls],
    username: 'default',
    password: '',
    kill,
    restart: async (i) => {
      await kill(i);
      await launch(i);
    },
    stop: async () => {
      await Promise.all([kill(0), kill(1)]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Untested here (no Docker engine on the machine this was written on): two containers of a modern
 * ClickHouse on one network, each with a config.d file naming both as the shards of `dggs`.
 */
async function startContainers(): Promise<ClickHouseShards> {
  const { ClickHouseContainer } = await import('@testcontainers/clickhouse');
  const { Network } = await import('testcontainers');
  const network = await new Network().start();
  const aliases = ['shard0', 'shard1'];
  const username = 'dggs';
  const password = 'dggs';
  // The image replaces its `default` user by the one it is given: the shards talk to each other as that one.
  const cluster = `<clickhouse>${remoteServers(aliases.map((host) => ({ host, port: 9000 })), `<user>${username}</user><password>${password}</password>`)}</clickhouse>`;
  const build = (alias: string) =>
    new ClickHouseContainer('clickhouse/clickhouse-server:24.8')
      .withNetwork(network)
      .withNetworkAliases(alias)
      .withUsername(username)
      .withPassword(password)
      .withCopyContentToContainer([{ content: cluster, target: '/etc/clickhouse-server/config.d/dggs-cluster.xml' }]);
  const containers = await Promise.all(aliases.map((a) => build(a).start()));
  return {
    urls: () => containers.map((c) => `http://${c.getHost()}:${c.getHttpPort()}`),
    username,
    password,
    kill: async (i) => {
      await containers[i]!.stop({ remove: false, timeout: 0 });
    },
    restart: async (i) => {
      // A restarted container may get other host ports: callers read urls() again.
      await containers[i]!.restart();
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!(await answers(`http://${containers[i]!.getHost()}:${containers[i]!.getHttpPort()}`))) {
        if (Date.now() > deadline) throw new Error(`ClickHouse container ${aliases[i]} did not answer after a restart`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stop: async () => {
      await Promise.all(containers.map((c) => c.stop()));
      await network.stop();
    },
  };
}
