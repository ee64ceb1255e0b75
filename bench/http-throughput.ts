/**
 * Requests per second of HTTP services on 1 and N cores. The service runs its event loop on one
 * thread, so N cores means N HTTP processes: one service with `server.processes` N, its processes
 * sharing the one port (node:cluster), loaded by one autocannon; the restify hello-world reference
 * is run the same way (N cluster workers on one port). CPU and RSS are those of the processes that
 * serve (a supervisor's workers, not the supervisor; the load generator runs in the bench process).
 */
import autocannon, { type Result } from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, readMainThreadCpuMs, readRss, REPO_ROOT, startServerProcess, type ServerProcess } from '../scripts/fuzz/server-process.js';

export interface Target {
  base: string;
  pid: number;
  /** The processes that serve, when not `pid` itself (the HTTP processes of a supervisor); read when the run starts. */
  servingPids?: () => number[];
}

/** The children of `pid`, from /proc (their parent is field 4 of each /proc/<pid>/stat). */
export function childPids(pid: number): number[] {
  return readdirSync('/proc').flatMap((d) => {
    if (!/^\d+$/.test(d)) return [];
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(d)] : [];
    } catch {
      return [];
    }
  });
}

export interface Throughput {
  reqPerSec: number;
  /** Mean latency, ms. */
  latencyMs: number;
  errors: number;
  non2xx: number;
  /**
   * CPU time of the services' main threads (the event loops) per request, ms: unlike requests per
   * second, it hardly moves with other load on the machine; 1000 / cpuMsPerRequest is what one core
   * would answer.
   */
  cpuMsPerRequest: number;
  /** Per process, bytes: RSS when the run starts, its peak, and `settleMs` after the run. */
  rss: { before: number; peak: number; after: number }[];
}

/**
 * A restify server answering `{hello: 'world'}`: the floor any route of ours stands on; with
 * `processes` > 1, that many cluster workers sharing its port, as `server.processes` runs ours.
 */
export async function startHelloWorld(processes = 1): Promise<Target & { stop: () => void }> {
  const code = `const restify = require('restify'), cluster = require('node:cluster');
const n = ${processes};
if (n > 1 && cluster.isPrimary) {
  let ready = 0;
  for (let i = 0; i < n; i++) cluster.fork().on('message', (port) => { if (++ready === n) console.log(port); });
} else {
  const s = restify.createServer();
  s.get('/', (req, res, next) => { res.send({ hello: 'world' }); next(); });
  s.listen(${processes > 1 ? 'process.env.BENCH_PORT' : '0'}, '127.0.0.1', () => (n > 1 ? process.send(s.address().port) : console.log(s.address().port)));
}`;
  if (processes === 1) return spawnTarget(code);
  // Cluster workers run the primary's script (a file, not -e) and share its socket: with port 0
  // each would get one, so they are given a free port.
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hello-'));
  const file = path.join(dir, 'hello.cjs');
  writeFileSync(file, `const require_ = require('node:module').createRequire(${JSON.stringify(`${REPO_ROOT}/`)});\n${code.replace("require('restify')", "require_('restify')")}`);
  const target = await spawnTarget(undefined, { BENCH_PORT: String(await freePort()) }, file);
  return { ...target, servingPids: () => childPids(target.pid), stop: () => (target.stop(), rmSync(dir, { recursive: true, force: true })) };
}

/**
 * A restify server answering one JSON body, as the bound of a route whose answer it is: at
 * `/encoded` from bytes encoded once, at `/stringify` by JSON.stringify of the parsed body on every
 * request (what a route building its answer must at least do).
 */
export async function startBodyServer(body: string): Promise<Target & { stop: () => void }> {
  const code = `const restify = require('restify');
const text = process.env.BENCH_BODY, value = JSON.parse(text), encoded = Buffer.from(text);
const s = restify.createServer();
const send = (res, b) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': b.length }); res.end(b); };
s.get('/encoded', (req, res, next) => { send(res, encoded); next(); });
s.get('/stringify', (req, res, next) => { send(res, Buffer.from(JSON.stringify(value))); next(); });
s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  return spawnTarget(code, { BENCH_BODY: body });
}

/** A Node child running `code` (or the script `file`), which prints its port once listening. */
async function spawnTarget(code: string | undefined, env: Record<string, string> = {}, file?: string): Promise<Target & { stop: () => void }> {
  const child = spawn(process.execPath, file ? [file] : ['-e', code!], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
  return { base: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() };
}

/**
 * One service (config/default.json, loopback) with `server.processes` = `processes`, once every
 * process serves (its `/metrics` sums that many).
 */
export async function startService(processes: number, config: Record<string, unknown> = {}): Promise<ServerProcess & Target> {
  const service = await startServerProcess({ config: { ...config, server: { processes } }, startTimeoutMs: 180_000 });
  for (;;) {
    const text = await (await fetch(`${service.base}/metrics`)).text();
    if (Number(/^dggs_processes (\d+)/m.exec(text)?.[1]) === processes) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return processes > 1 ? { ...service, servingPids: () => childPids(service.pid) } : service;
}

/** `n` service processes (config/default.json, loopback), each on its own port, started one after the other. */
export async function startServices(n: number): Promise<ServerProcess[]> {
  const out: ServerProcess[] = [];
  for (let i = 0; i < n; i++) out.push(await startServerProcess());
  return out;
}

/**
 * Loads every target at once for `seconds`, `connections` each, cycling through `paths`; then waits
 * `settleMs` and reads each process's RSS again.
 */
export async function throughput(targets: Target[], paths: string[], o: { seconds: number; connections: number; settleMs?: number }): Promise<Throughput> {
  const pids = targets.flatMap((t) => t.servingPids?.() ?? [t.pid]);
  const before = pids.map((pid) => readRss(pid) ?? 0);
  const cpu0 = pids.reduce((sum, pid) => sum + (readMainThreadCpuMs(pid) ?? NaN), 0);
  const peak = [...before];
  const sampler = setInterval(() => pids.forEach((pid, i) => (peak[i] = Math.max(peak[i]!, readRss(pid) ?? 0))), 50);
  const results: Result[] = await Promise.all(
    targets.map((t) => {
      let next = 0;
      return autocannon({
        url: t.base,
        connections: o.connections,
        duration: o.seconds,
        timeout: 60,
        requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
      });
    }),
  );
  const cpu = pids.reduce((sum, pid) => sum + (readMainThreadCpuMs(pid) ?? NaN), 0) - cpu0;
  await new Promise((r) => setTimeout(r, o.settleMs ?? 2000));
  clearInterval(sampler);
  const after = pids.map((pid) => readRss(pid) ?? 0);
  const total = results.reduce((s, r) => s + r['2xx'] + r.non2xx, 0);
  return {
    reqPerSec: results.reduce((s, r) => s + (r['2xx'] + r.non2xx) / r.duration, 0),
    latencyMs: results.reduce((s, r) => s + r.latency.average * (r['2xx'] + r.non2xx), 0) / Math.max(1, total),
    errors: results.reduce((s, r) => s + r.errors, 0),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    cpuMsPerRequest: cpu / Math.max(1, total),
    rss: pids.map((_, i) => ({ before: before[i]!, peak: Math.max(peak[i]!, after[i]!), after: after[i]! })),
  };
}

export const MiB = 2 ** 20;
