import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../support/test-server.js';
import { startPostgres, type PostgresHandle } from '../support/postgres.js';

/**
 * Durability of orders (npm run test:durability): processes are killed with SIGKILL at random
 * moments while orders are posted and jobs run, then restarted; right after each restart no job
 * may show `running` under a killed process; in the end every acknowledged order must be there
 * with all its jobs, every job must have completed exactly once, only killed processes' attempts
 * may be interrupted, and every order must reach a final state.
 */

const TOKEN = 'demo-token-change-me';
const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
const ZONES = ['F4-120-B', 'F4-121-E', 'F4-ED-G', 'F4-121-F', 'F4-EF-E', 'F4-152-G'];
const ROUNDS = 10;
const FINAL = ['successful', 'failed', 'dismissed'];
/** PostgreSQL: pg-boss's heartbeat, and the bound for a killed worker's jobs to stop showing `running` (the other worker sweeps every 10 s). */
const HEARTBEAT_S = 30;
const PUT_BACK_BOUND_MS = 15_000;

type Json = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

class Proc {
  child?: ChildProcess;
  log = '';
  constructor(
    private readonly script: string,
    private readonly configFile: string,
  ) {}
  start(): void {
    this.child = spawn(process.execPath, ['--import', 'tsx', this.script], { cwd: REPO_ROOT, env: { ...process.env, DGGS_CONFIG: this.configFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => (this.log = (this.log + d.toString()).slice(-20_000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
  }
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

async function ready(base: string, server: Proc, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${base}/conformance`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`server not ready:\n${server.log}`);
    await sleep(100);
  }
}

function writeConfig(dir: string, port: number, extra: Json): string {
  const base = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8'));
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...base,
      server: { host: '127.0.0.1', port, logLevel: process.env.DURABILITY_LOG_LEVEL ?? 'warn' },
      ...extra,
      orders: { resultsRoot: path.join(dir, 'results'), maxOpenOrders: 100_000, maxAttempts: 10, retryDelaySeconds: 1, concurrency: 2, ...extra.orders },
    }),
  );
  return file;
}

/** Posts orders one after another until stopped; keeps those the server acknowledged (201). */
function poster(base: string, acknowledged: Map<number, string[]>) {
  let running = true;
  const loop = (async () => {
    let i = 0;
    while (running) {
      const zones = [ZONES[i % ZONES.length]!, ZONES[(i + 1) % ZONES.length]!, ZONES[(i + 2) % ZONES.length]!];
      i++;
      try {
        const res = await fetch(`${base}/orders`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ collection: 'demo-elevation', zones, zone_depth: 3 }) });
        if (res.status === 201) acknowledged.set(((await res.json()) as Json).id, zones);
        else await res.body?.cancel();
      } catch {
        await sleep(50); // the server is down: an unacknowledged order may or may not exist
      }
      await sleep(rand(20, 150));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function allOrders(base: string): Promise<Json[]> {
  const out: Json[] = [];
  let next: string | undefined = `${base}/orders?limit=1000`;
  while (next) {
    const page = (await (await fetch(next, { headers: HEADERS })).json()) as Json;
    out.push(...page.orders);
    next = page.links.find((l: Json) => l.rel === 'next')?.href;
  }
  return out;
}

/** Jobs shown `running` right now, with the worker (host:pid) of their running attempt. */
async function runningJobs(base: string): Promise<{ job: number; worker: string }[]> {
  const out: { job: number; worker: string }[] = [];
  for (const order of await allOrders(base)) {
    if (order.job_counts.running === 0) continue;
    const page = (await (await fetch(`${base}/orders/${order.id}/jobs?status=running&limit=1000`, { headers: HEADERS })).json()) as Json;
    for (const job of page.jobs) {
      const last = job.attempts[job.attempts.length - 1];
      expect(last?.outcome, `job ${job.id} is running: its last attempt too`).to.equal('running');
      out.push({ job: job.id, worker: last.worker });
    }
  }
  return out;
}

const pidOf = (worker: string) => Number(worker.slice(worker.lastIndexOf(':') + 1));

async function settle(base: string, ms: number, diagnose: (jobIds: number[]) => Promise<string>): Promise<Json[]> {
  const end = Date.now() + ms;
  for (;;) {
    const orders = await allOrders(base);
    if (orders.every((o) => FINAL.includes(o.status) && o.job_counts.accepted + o.job_counts.running === 0)) return orders;
    if (Date.now() > end) {
      const open = orders.filter((o) => !FINAL.includes(o.status) || o.job_counts.accepted + o.job_counts.running > 0);
      const jobs = (await Promise.all(open.map(async (o) => ((await (await fetch(`${base}/orders/${o.id}`, { headers: HEADERS })).json()) as Json).jobs))).flat().filter((j: Json) => !FINAL.includes(j.status));
      throw new Error(`orders not final after ${ms} ms: ${JSON.stringify(jobs.map((j: Json) => ({ id: j.id, status: j.status, message: j.message, attempts: j.attempts })))}\n${await diagnose(jobs.map((j: Json) => j.id))}`);
    }
    await sleep(250);
  }
}

/** Every acknowledged order exists with all its jobs; every job completed exactly once; results on disk match. */
async function check(base: string, resultsRoot: string, acknowledged: Map<number, string[]>, killed: Set<number>, diagnose: (jobIds: number[]) => Promise<string> = async () => ''): Promise<{ orders: number; jobs: number; interrupted: number }> {
  const orders = await settle(base, 120_000, diagnose);
  const ids = new Set(orders.map((o) => o.id));
  for (const id of acknowledged.keys()) expect(ids.has(id), `acknowledged order ${id} present`).to.equal(true);
  let jobs = 0;
  let interrupted = 0;
  for (const o of orders) {
    const order = (await (await fetch(`${base}/orders/${o.id}`, { headers: HEADERS })).json()) as Json;
    const zones = acknowledged.get(o.id);
    if (zones) expect(order.jobs.map((j: Json) => j.zone_id), `jobs of order ${o.id}`).to.deep.equal(zones);
    expect(order.status, `order ${o.id}`).to.equal('successful');
    for (const job of order.jobs) {
      jobs++;
      const outcomes = job.attempts.map((a: Json) => a.outcome);
      expect(job.status, `job ${job.id}`).to.equal('successful');
      expect(outcomes.filter((x: string) => x === 'successful'), `job ${job.id} completed once: ${outcomes}`).to.have.length(1);
      expect(outcomes[outcomes.length - 1]).to.equal('successful');
      expect(outcomes).to.not.include('running');
      interrupted += outcomes.filter((x: string) => x === 'interrupted' || x === 'failed').length;
      for (const a of job.attempts.filter((x: Json) => x.outcome === 'interrupted')) expect(killed.has(pidOf(a.worker)), `job ${job.id}: attempt ${a.attempt} of ${a.worker} interrupted, a process never killed`).to.equal(true);
      expect(existsSync(path.join(resultsRoot, order.results_collection, 'data', `part-${job.id}.parquet`)), `result of job ${job.id}`).to.equal(true);
    }
  }
  return { orders: orders.length, jobs, interrupted };
}

describe('durability: kill -9 at random moments, restart, nothing lost or done twice', function () {
  this.timeout(600_000);

  it('SQLite, embedded runner: the server is killed 10 times mid-job', async () => {
    const t0 = Date.now();
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-durable-sqlite-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = writeConfig(dir, port, { datastore: { kind: 'sqlite', file: path.join(dir, 'dggs.sqlite'), autoInitialize: true } });
    const server = new Proc('src/main.ts', config);
    const acknowledged = new Map<number, string[]>();
    const killed = new Set<number>();
    let cutShort = 0;
    // Right after a restart, a job shows `running` only under the new process: the killed one's
    // attempts were recorded interrupted before the service answered.
    const runningOnlyHere = async () => {
      for (const r of await runningJobs(base)) expect(pidOf(r.worker), `job ${r.job} shown running under ${r.worker} after the restart`).to.equal(server.child!.pid);
    };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        server.start();
        await ready(base, server);
        if (round > 0) await runningOnlyHere();
        const p = poster(base, acknowledged);
        await sleep(rand(400, 2500));
        cutShort += (await runningJobs(base)).length;
        killed.add(server.child!.pid!);
        await server.kill('SIGKILL');
        await p.stop();
      }
      server.start();
      await ready(base, server);
      await runningOnlyHere();
      const seen = await check(base, path.join(dir, 'results'), acknowledged, killed);
      console.log(`      sqlite: ${acknowledged.size} acknowledged orders, ${seen.orders} orders, ${seen.jobs} jobs, ${seen.interrupted} attempts cut by a kill (about ${cutShort} running just before the kills); ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      expect(acknowledged.size).to.be.greaterThan(ROUNDS);
      expect(seen.interrupted).to.be.greaterThan(0, 'kills hit running jobs');
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('PostgreSQL, pg-boss: the API server and one of two workers are killed 10 times mid-job', async () => {
    const t0 = Date.now();
    const pg: PostgresHandle = await startPostgres();
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-durable-pg-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = writeConfig(dir, port, {
      datastore: { kind: 'postgres', url: pg.url, schema: pg.schema, autoInitialize: true },
      // A heartbeat far longer than the bound below: pg-boss's own retry of a killed worker's job
      // cannot be what puts it back in time.
      orders: { runInServer: false, heartbeatSeconds: HEARTBEAT_S, superviseSeconds: 1, pollSeconds: 0.5, concurrency: 1 },
    });
    const server = new Proc('src/main.ts', config);
    const workers = [new Proc('src/worker.ts', config), new Proc('src/worker.ts', config)];
    const acknowledged = new Map<number, string[]>();
    const killed = new Set<number>();
    const putBackMs: number[] = [];
    try {
      server.start();
      await ready(base, server);
      for (const w of workers) w.start();
      const { default: knex } = await import('knex');
      const db = knex({ client: 'pg', connection: pg.url, searchPath: [pg.schema] });
      // Mid-job: the victim is killed while it runs an attempt (up to 5 s are given for it to start one).
      const runningOn = async (proc: Proc): Promise<boolean> =>
        (await db('job_attempts').where({ outcome: 'running' }).andWhere('worker', 'like', `%:${proc.child?.pid}`).first()) !== undefined;
      for (let round = 0; round < ROUNDS; round++) {
        const p = poster(base, acknowledged);
        await sleep(rand(1500, 3500));
        const victim = workers[round % 2]!;
        for (let waited = 0; waited < 5000 && !(await runningOn(victim)); waited += 20) await sleep(20);
        const victimPid = victim.child!.pid!;
        killed.add(victimPid);
        await Promise.all([victim.kill('SIGKILL'), server.kill('SIGKILL')]);
        const killedAt = Date.now();
        await p.stop();
        victim.start();
        server.start();
        await ready(base, server);
        // The killed worker's attempts are put back (by its successor at start, or by the other
        // worker's sweep) long before pg-boss's heartbeat would notice.
        for (;;) {
          const stale = (await runningJobs(base)).filter((r) => pidOf(r.worker) === victimPid);
          if (stale.length === 0) break;
          expect(Date.now() - killedAt, `jobs ${stale.map((r) => r.job)} still shown running under killed worker ${victimPid}`).to.be.below(PUT_BACK_BOUND_MS);
          await sleep(100);
        }
        putBackMs.push(Date.now() - killedAt);
      }
      await db.destroy();
      const seen = await check(base, path.join(dir, 'results'), acknowledged, killed, async (ids) => {
        const { default: knex } = await import('knex');
        const db = knex({ client: 'pg', connection: pg.url });
        try {
          const rows = await db.raw(`SELECT id, state, retry_count, start_after, created_on, blocked, policy, singleton_key, started_on, heartbeat_on, heartbeat_seconds, completed_on, output, now() AS db_now FROM ??.job WHERE (data->>'jobId')::int = ANY(?)`, [pg.schema, ids]);
          const queues = await db.raw(`SELECT * FROM ??.queue`, [pg.schema]);
          const sessions = await db.raw(`SELECT pid, application_name, state, wait_event_type, wait_event, now() - state_change AS for, left(query, 200) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
          return `pg-boss: ${JSON.stringify(rows.rows)}\nqueues: ${JSON.stringify(queues.rows)}\nsessions: ${JSON.stringify(sessions.rows)}\nworkers:\n${workers.map((w) => w.log.slice(-3000)).join('\n----\n')}`;
        } finally {
          await db.destroy();
        }
      });
      console.log(`      postgres: ${acknowledged.size} acknowledged orders, ${seen.orders} orders, ${seen.jobs} jobs, ${seen.interrupted} attempts cut by a kill; no job shown running under a killed worker after its kill: ${putBackMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s (pg-boss heartbeat ${HEARTBEAT_S} s); ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      expect(acknowledged.size).to.be.greaterThan(ROUNDS);
      expect(seen.interrupted).to.be.greaterThan(0, 'kills hit running jobs');
    } finally {
      await Promise.all([server.kill('SIGTERM'), ...workers.map((w) => w.kill('SIGTERM'))]);
      await pg.stop();
    }
  });
});
