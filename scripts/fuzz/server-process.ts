/**
 * The service as a child process on loopback, for the fuzzer, the hardening test and the load
 * script: a crash is a process exit we can see (an in-process server would take the harness down
 * with it), and its memory is the child's own VmRSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  base: string;
  port: number;
  pid: number;
  /** Resolves with the exit code (or signal) when the process ends, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** Resident set size of the child in bytes (VmRSS), or undefined once it has gone. */
  rss(): number | undefined;
  /** CPU time (user + system, ms, 10 ms steps) of the child's main thread: the event loop's own work. */
  mainThreadCpuMs(): number | undefined;
  /** CPU time (ms) of the whole child, all threads: work going on whether or not it holds the event loop. */
  cpuMs(): number | undefined;
  /** The child's recent stdout/stderr lines (pino JSON at logLevel error, crash traces). */
  logTail(): string[];
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /** Merged over config/default.json (deep merge of plain objects). */
  config?: Record<string, unknown>;
  /** Ready bound: the child must answer GET /conformance within this time. */
  startTimeoutMs?: number;
  /** Extra Node flags for the child (e.g. --max-old-space-size). */
  nodeFlags?: string[];
  logLines?: number;
  /** Open-file limit of the child (ulimit -n), to reach descriptor exhaustion with fewer sockets. */
  fdLimit?: number;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(source)) {
    const t = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && t && typeof t === 'object' && !Array.isArray(t)) {
      deepMerge(t as Record<string, unknown>, v as Record<string, unknown>);
    } else target[k] = v;
  }
  return target;
}

/**
 * CPU time (user + system) in ms from a /proc stat file: fields 14 and 15 count clock ticks of
 * USER_HZ, 100 on Linux.
 */
function statCpuMs(file: string): number | undefined {
  try {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** CPU time in ms of a process's main thread (the one running the event loop). */
export const readMainThreadCpuMs = (pid: number): number | undefined => statCpuMs(`/proc/${pid}/task/${pid}/stat`);

/** CPU time in ms of a whole process: every thread (DuckDB's, libuv's pool, V8's) as well as the main one. */
export const readProcessCpuMs = (pid: number): number | undefined => statCpuMs(`/proc/${pid}/stat`);

export function readRss(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Boots src/main.ts with a config file of its own (config/default.json plus `config`, loopback,
 * a throwaway SQLite file, logLevel error) on a free port, and waits until it answers.
 */
export async function startServerProcess(opts: ServerProcessOptions = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-child-'));
  const port = await freePort();
  const config = deepMerge(JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as Record<string, unknown>, {
    server: { host: '127.0.0.1', port, logLevel: 'error' },
    datastore: { kind: 'sqlite', file: path.join(dir, 'dggs.sqlite'), autoInitialize: true },
  });
  if (opts.config) deepMerge(config, opts.config);
  const configFile = path.join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  // Only the config file path is passed: DGGS__* variables of the caller's shell must not leak in.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DGGS') && k !== 'PORT' && k !== 'HOST'));
  env.DGGS_CONFIG = configFile;
  const argv = [process.execPath, ...(opts.nodeFlags ?? []), '--import', 'tsx', 'src/main.ts'];
  // `exec` keeps one process: the pid we watch (and read VmRSS of) is the service itself.
  const [file, ...args] = opts.fdLimit ? ['/bin/sh', '-c', `ulimit -n ${Math.floor(opts.fdLimit)} && exec "$@"`, 'sh', ...argv] : argv;
  const child: ChildProcess = spawn(file!, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const maxLines = opts.logLines ?? 200;
  const tail: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line.length > 4000 ? `${line.slice(0, 4000)}…` : line);
      if (tail.length > maxLines) tail.shift();
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);

  // A harness killed mid-run must not leave services behind.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  let running = true;
  let exitStatus = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      process.removeListener('exit', orphanGuard);
      running = false;
      exitStatus = signal ?? `code ${code}`;
      resolve({ code, signal });
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (!running) {
      await stop();
      throw new Error(`server process exited during start-up (${exitStatus}):\n${tail.join('\n')}`);
    }
    try {
      const res = await fetch(`${base}/conformance`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server process did not answer within ${opts.startTimeoutMs ?? 60_000} ms:\n${tail.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }

  return {
    base,
    port,
    pid: child.pid!,
    exited,
    alive: () => running,
    rss: () => (running ? readRss(child.pid!) : undefined),
    mainThreadCpuMs: () => (running ? readMainThreadCpuMs(child.pid!) : undefined),
    cpuMs: () => (running ? readProcessCpuMs(child.pid!) : undefined),
    logTail: () => [...tail],
    stop,
  };
}
