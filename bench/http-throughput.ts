/**
 * Requests per second of HTTP services on 1 and 2 threads. The service runs its event loop on one
 * thread, so "2 threads" means two service processes (two replicas, each on its own port), each
 * loaded by its own autocannon at the same time, their requests per second summed; the restify
 * hello-world reference is run the same way. RSS is each process's own VmRSS (the load generator
 * runs in the bench process, not in the service).
 */
import autocannon, { type Result } from 'autocannon';
import { spawn } from 'node:child_process';
import { readMainThreadCpuMs, readRss, REPO_ROOT, startServerProcess, type ServerProcess } from '../scripts/fuzz/server-process.js';

export interface Target {
  base: string;
  pid: number;
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

/** A restify server answering `{hello: 'world'}`: the floor any route of ours stands on. */
export async function startHelloWorld(): Promise<Target & { stop: () => void }> {
  const code = `const restify = require('restify');
const s = restify.createServer();
s.get('/', (req, res, next) => { res.send({ hello: 'world' }); next(); });
s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  return spawnTarget(code);
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

/** A Node child running `code`, which prints its port once listening. */
async function spawnTarget(code: string, env: Record<string, string> = {}): Promise<Target & { stop: () => void }> {
  const child = spawn(process.execPath, ['-e', code], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
  return { base: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() };
}

/** `n` service processes (config/default.json, loopback), started one after the other. */
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
  const before = targets.map((t) => readRss(t.pid) ?? 0);
  const cpu0 = targets.reduce((sum, t) => sum + (readMainThreadCpuMs(t.pid) ?? NaN), 0);
  const peak = [...before];
  const sampler = setInterval(() => targets.forEach((t, i) => (peak[i] = Math.max(peak[i]!, readRss(t.pid) ?? 0))), 50);
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
  const cpu = targets.reduce((sum, t) => sum + (readMainThreadCpuMs(t.pid) ?? NaN), 0) - cpu0;
  await new Promise((r) => setTimeout(r, o.settleMs ?? 2000));
  clearInterval(sampler);
  const after = targets.map((t) => readRss(t.pid) ?? 0);
  const total = results.reduce((s, r) => s + r['2xx'] + r.non2xx, 0);
  return {
    reqPerSec: results.reduce((s, r) => s + (r['2xx'] + r.non2xx) / r.duration, 0),
    latencyMs: results.reduce((s, r) => s + r.latency.average * (r['2xx'] + r.non2xx), 0) / Math.max(1, total),
    errors: results.reduce((s, r) => s + r.errors, 0),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    cpuMsPerRequest: cpu / Math.max(1, total),
    rss: targets.map((_, i) => ({ before: before[i]!, peak: Math.max(peak[i]!, after[i]!), after: after[i]! })),
  };
}

export const MiB = 2 ** 20;
