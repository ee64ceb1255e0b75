/**
 * Runs the fuzz cases against the service in a child process with bounded concurrency, and
 * watches it the whole time: process exits (then restarts it and replays the requests that were
 * in flight, one by one, to name the one that kills it), a /conformance canary for event-loop
 * stalls (a service that stops answering it is restarted), the child's RSS, and the requests its
 * `{self}` remote collections send to their backend. Stalls, timeouts, memory peaks and backend
 * fan-out seen under load count once a replay of the request alone reproduces them; a timeout
 * replayed alone also shows whether the work went on after the client left.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { startLoopbackS3 } from '../../test/support/s3-server.js';
import { startBackendProxy } from './backend-proxy.js';
import { buildCases, type FuzzCase } from './cases.js';
import { blockedMs, describePing, ping, type Ping } from './canary.js';
import { isShed, judge, type FailureKind } from './checks.js';
import { send, type SendResult } from './http-client.js';
import { HIDDEN_OPERATIONS, operationsOf } from './operations.js';
import { traitsOf } from './request-traits.js';
import { createSeedOrder, discoverSeeds } from './seeds.js';
import { REPO_ROOT, startServerProcess, type ServerProcess } from './server-process.js';
import { UPSTREAM_ADDRESS, startUpstream } from './upstream.js';

export const FUZZ_TOKEN = 'fuzz-token-0123456789abcdef';

export interface FuzzOptions {
  seed: number;
  /** Random cases on top of the sweep. */
  random: number;
  /** Requests with a generated CQL2 filter on top (default 0). */
  filters?: number;
  /** Cross-collection POSTs with a valid body, as is or with a mistake, on top (default 0). */
  cross?: number;
  /** Serve the lake from an S3 server on loopback (s3rver, `lake.root: s3://...`) instead of the directory. */
  s3Lake?: boolean;
  /** `full` sweep, or a strided sample of about this many cases. */
  sweep: 'full' | number;
  /** Each parameter gets every thin-th generic hostile value (1: all of them on every parameter). */
  thin?: number;
  concurrency: number;
  /** A request slower than this is a `timeout` failure (the client leaves then). */
  timeoutMs: number;
  /** Inflated size of the gzip bombs. */
  bombBytes: number;
  /** A /conformance probe the service kept waiting longer than this (wall time and main-thread CPU both) makes its in-flight requests stall suspects. */
  stallMs: number;
  /** A suspect is a `stall` when, replayed alone, it keeps a probe waiting longer than this (default 200 ms, the bound the hardening tests hold GET /conformance to). */
  stallAloneMs?: number;
  /** Observations of each kind replayed alone at most (default MAX_REPLAYS). */
  maxReplays?: number;
  /** Child RSS above its start-up RSS by more than this is a `memory` failure. */
  rssBoundBytes: number;
  /** Stop restarting after this many crashes. */
  maxRestarts: number;
  /** Keep a second service booted so a crash costs a swap, not a start-up (default true). */
  warmSpare?: boolean;
  /** Only operations whose id contains one of these (all when empty). */
  only?: string[];
  /**
   * Send the cases this many times to the same service (default 1). The child's RSS once idle after
   * each pass tells a leak (it climbs pass after pass) from a high-water mark (it levels off).
   */
  passes?: number;
  /**
   * After each pass, have the child write a V8 heap snapshot (--heapsnapshot-signal) and report its
   * size: it holds only live objects, so a leak shows as snapshots growing pass after pass.
   */
  heapSnapshots?: boolean;
  progress?: (line: string) => void;
}

export interface FailureRecord {
  kind: FailureKind;
  detail: string;
  area: string;
  op: string;
  family: string;
  note: string;
  method: string;
  url: string;
  headers: [string, string][];
  body?: { bytes: number; excerpt: string; encoding: 'utf8' | 'base64' };
  status?: number;
  response?: string;
  ms?: number;
  serverLog?: string[];
  suspects?: { op: string; method: string; url: string; note: string }[];
}

export interface FuzzSummary {
  seed: number;
  durationMs: number;
  /** One-minute load average of the machine at the start and the end (timing checks mean less when high). */
  machineLoad: [number, number];
  requests: number;
  /** Cases not sent because the same hostile part had already crashed the service. */
  skippedKnownCrashers: number;
  /** Stalls, timeouts and memory peaks seen under load that no replay alone reproduced, or that were not replayed (see MAX_REPLAYS): not failures. */
  unconfirmed: { count: Record<string, number>; examples: FailureRecord[] };
  byClass: Record<string, number>;
  byStatus: Record<string, number>;
  fiveXX: number;
  /** 503 "Service busy" with Retry-After: the zone-data admission control shedding load (not failures). */
  shed: number;
  crashes: number;
  /** Restarts of a service that answered no GET /conformance for WEDGE_MS (its stalls are recorded). */
  wedgeRestarts: number;
  nonApiError: number;
  timeouts: number;
  failures: Record<FailureKind, number>;
  groups: { key: string; count: number; area: string; example: FailureRecord }[];
  examples: FailureRecord[];
  coverage: {
    operations: Record<string, number>;
    parameters: Record<string, number>;
    uncovered: string[];
    statusesByOperation: Record<string, Record<string, number>>;
    /** Requests carrying a CQL2 filter, by operation and outcome (status class or client error). */
    filteredByOperation: Record<string, Record<string, number>>;
    /** Cross-collection POSTs by outcome. */
    crossCollection: Record<string, number>;
  };
  /** `settledBytes`: the child's RSS idle for SETTLE_MS after each pass (see `passes`). */
  rss: { startBytes: number; peakBytes: number; peakAboveStartBytes: number; settledBytes: number[]; heapSnapshotBytes?: number[] };
  canary: { samples: number; p50Ms: number; p99Ms: number; maxMs: number };
}

/**
 * Which part of the service a failure most likely belongs to (for whoever fixes it), by
 * what was varied and by the path (operation ids get renamed, paths rarely).
 */
export function areaOf(c: FuzzCase): string {
  if (c.family.startsWith('header:host') || c.family === 'raw' || c.family === 'method' || c.family === 'encoding' || c.family === 'path' || c.family === 'header:content-type') return 'A (HTTP layer)';
  const path = c.req.path.split('?')[0]!;
  if (path.startsWith('/orders') || path.startsWith('/concepts')) return 'E (orders/datastore)';
  if (path.startsWith('/admin')) return 'A (HTTP layer)';
  if (/\/data$/.test(path)) return /[?&]cog-url=/.test(c.req.path) ? 'D (rasters/cog-url) or F (zone data)' : 'F (zone data)';
  if (/\/items(\/|$)|\/queryables$|\/schema$/.test(path)) return 'C (lake/items)';
  if (/\/dggs(\/|$)/.test(path)) return 'B (zone lists)';
  if (/\/source\//.test(path)) return 'owner of /collections/{id}/source (D or H)';
  return 'A (HTTP layer)';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A service that answers no GET /conformance for this long is held (a wedged event loop): it is restarted so the run goes on. */
const WEDGE_MS = 15_000;
/** After a client gave up on a request alone, the service's CPU is read over this window after a grace (work that goes on without a client). */
const ABANDON_GRACE_MS = 1000;
const ABANDON_WINDOW_MS = 2000;
/** Observations under load of each kind are replayed alone at most this many times, stalls first; per kind and shape (shapeOf), replays stop after a few cases confirmed. */
const MAX_REPLAYS = 30;
const REPLAY_ORDER: FailureKind[] = ['stall', 'memory', 'amplification', 'timeout'];
const CONFIRMED_PER_SHAPE = 3;

/** What a case varies, coarsely: its operation and family, for a generated filter the collection and the predicate's first word (`like`, `s_intersects`, `or`); each regression is its own. */
function shapeOf(c: FuzzCase): string {
  if (c.family === 'regression') return `${c.op} regression ${c.note}`;
  const m = /^filter \S+ on ([^:]+): (\w+)/.exec(c.note);
  return `${c.op} ${c.family}${m ? ` ${m[1]} ${m[2]}` : ''}`;
}

/**
 * Backend requests one client request may cause: remoteBackends.maxPages (50) pages and the
 * backend's conformance, collection and queryables. Past it: `amplification` (a zone-list filter on a remote collection once made 452).
 */
const BACKEND_REQUESTS_BOUND = 60;
/** Idle time after a pass before its settled RSS is read (jobs of the run's orders finish meanwhile). */
const SETTLE_MS = 5000;

function excerpt(buf: Buffer | undefined, max = 600): FailureRecord['body'] {
  if (!buf) return undefined;
  const head = buf.subarray(0, max);
  const text = head.toString('utf8');
  const printable = !/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text);
  return { bytes: buf.length, excerpt: printable ? text : head.toString('base64'), encoding: printable ? 'utf8' : 'base64' };
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzSummary> {
  const say = opts.progress ?? (() => {});
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const upstream = await startUpstream();
  // The demo lake copied to an S3 server on loopback: the object-store lake gets the same cases.
  const s3 = opts.s3Lake ? await startLoopbackS3() : undefined;
  if (s3) say(`S3 lake: ${await s3.upload(path.join(REPO_ROOT, 'data/demo/lake'), 'lakes/demo')} objects on ${s3.endpoint}`);
  // Remote collections served by the service itself (`{self}`) reach it through a counting proxy.
  // `server` is read per backend request, so the proxy follows restarts.
  const backend = await startBackendProxy(() => server.base);
  const defaults = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections?: { backing?: { kind?: string; url?: string } }[] };
  const collections = defaults.collections?.map((c) => (c.backing?.kind === 'ogc-features' && c.backing.url === '{self}' ? { ...c, backing: { ...c.backing, url: backend.base } } : c));
  const serverConfig = {
    auth: { tokenSha256: [createHash('sha256').update(FUZZ_TOKEN).digest('hex')] },
    ...(collections ? { collections, remoteBackends: { allowedOrigins: ['{self}', backend.base] } } : {}),
    // cog-url reaches the local raster host and nothing else private; upstream waits stay under the client's bound.
    rasterFetch: { timeoutMs: Math.min(5000, Math.floor(opts.timeoutMs / 2)), allowedPrivateRanges: [`${UPSTREAM_ADDRESS}/32`] },
    // The fuzzer is the service's trusted proxy, so its forwarded headers are parsed, not ignored.
    server: { trustedProxies: ['loopback'] },
    ...(s3 ? { lake: { root: `s3://${s3.bucket}/lakes/demo`, s3: s3.options } } : {}),
  };
  const snapshotDir = opts.heapSnapshots ? mkdtempSync(path.join(tmpdir(), 'dggs-fuzz-heap-')) : undefined;
  const nodeFlags = snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : [];
  const boot = () => startServerProcess({ config: serverConfig, logLines: 3000, nodeFlags });
  // A warm spare makes a crash cost a swap instead of a start-up (several seconds of tsx).
  let spare: Promise<ServerProcess> | undefined;
  let orderBody: string | undefined;
  const start = async (): Promise<ServerProcess> => {
    const ready = spare ? await spare.catch(() => boot()) : await boot();
    if (opts.warmSpare !== false) {
      spare = boot();
      spare.catch(() => {});
    } else spare = undefined;
    if (orderBody) await createSeedOrder(ready.base, FUZZ_TOKEN, orderBody);
    return ready;
  };

  let server: ServerProcess = await start();
  say(`server pid ${server.pid} on ${server.base}`);
  const doc = (await (await fetch(`${server.base}/api/openapi.json`)).json()) as Record<string, unknown>;
  const documented = operationsOf(doc);
  let ops = [...documented, ...HIDDEN_OPERATIONS.filter((h) => !documented.some((d) => d.method === h.method && d.path === h.path))];
  if (opts.only?.length) ops = ops.filter((o) => opts.only!.some((w) => o.id.includes(w)));
  const seeds = await discoverSeeds(server.base, FUZZ_TOKEN);
  seeds.upstream = upstream.base;
  orderBody = seeds.orderBody;
  const hostPort = new URL(server.base).host;
  const cases = buildCases(ops, seeds, { seed: opts.seed, random: opts.random, filters: opts.filters, cross: opts.cross, sweep: opts.sweep, thin: opts.thin ?? 1, bombBytes: opts.bombBytes, hugeBodyBytes: 2 * 1024 * 1024 }, hostPort);
  say(`cross-collection zones on ${seeds.crossZones.length} grids (${seeds.crossZones.map((g) => `${g.grid}@${g.level}`).join(', ')}); zone-data fields: ${seeds.collections.map((c) => `${c.id} [${c.zoneDataFields.join(', ')}]${c.rowFilter ? ' filterable' : ''}`).join('; ')}`);
  say(`${ops.length} operations, ${cases.length} cases (seed ${opts.seed}, concurrency ${opts.concurrency})`);

  const leakMarkers = [REPO_ROOT, '/tmp/dggs-child-'];
  const byClass: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const failures = { '5xx': 0, 'non-api-error': 0, timeout: 0, 'no-response': 0, truncated: 0, 'bad-host-accepted': 0, 'bad-forwarded-accepted': 0, leak: 0, crash: 0, stall: 0, memory: 0, amplification: 0 } as Record<FailureKind, number>;
  const records: FailureRecord[] = [];
  const groups = new Map<string, { count: number; area: string; example: FailureRecord }>();
  const opCount: Record<string, number> = Object.fromEntries(ops.map((o) => [o.id, 0]));
  const statusesByOp: Record<string, Record<string, number>> = {};
  const filteredByOp: Record<string, Record<string, number>> = {};
  const crossCollection: Record<string, number> = {};
  const bump = (tally: Record<string, number>, key: string) => (tally[key] = (tally[key] ?? 0) + 1);
  const paramCount: Record<string, number> = Object.fromEntries(ops.flatMap((o) => o.params.map((p) => [`${o.id} ${p.name}`, 0])));

  // Stalls, timeouts and memory peaks can come from a loaded machine rather than the request:
  // they count only once a replay of the request alone reproduces them (see `confirm`).
  const CONFIRMABLE = new Set<FailureKind>(['stall', 'timeout', 'memory', 'amplification']);
  const pending: { rec: FailureRecord; cases: FuzzCase[] }[] = [];
  const unconfirmed: FailureRecord[] = [];
  const commit = (rec: FailureRecord) => {
    failures[rec.kind]++;
    let message = '';
    try {
      message = String((JSON.parse(rec.response ?? '') as { message?: string }).message ?? '');
    } catch {
      message = rec.detail.replace(/\d+/g, 'N').slice(0, 60);
    }
    const key = `${rec.kind} | ${rec.op} | ${rec.family} | ${rec.status ?? '-'} | ${message}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { count: 1, area: rec.area, example: rec });
    if (records.filter((r) => r.kind === rec.kind && r.op === rec.op && r.family === rec.family).length < 5) records.push(rec);
  };
  const record = (c: FuzzCase | undefined, kind: FailureKind, detail: string, res?: SendResult, extra: Partial<FailureRecord> = {}, cases: FuzzCase[] = c ? [c] : []) => {
    const rec: FailureRecord = {
      kind,
      detail,
      area: c ? areaOf(c) : 'A (HTTP layer)',
      op: c?.op ?? '-',
      family: c?.family ?? '-',
      note: c?.note ?? '',
      method: c?.req.method ?? '-',
      url: c?.req.path ?? '-',
      headers: c?.req.headers ?? [],
      body: c?.req.raw ? excerpt(c.req.raw, 2000) : excerpt(c?.req.body),
      status: res?.response?.status,
      response: res?.response ? res.response.body.subarray(0, 600).toString('utf8') : res?.error?.message,
      ms: res?.response ? Math.round(res.response.ms) : res?.error ? Math.round(res.error.ms) : undefined,
      ...extra,
    };
    if (CONFIRMABLE.has(kind) && cases.length) pending.push({ rec, cases });
    else commit(rec);
    return rec;
  };
  const logFor = (srv: ServerProcess, url: string) =>
    srv.logTail().filter((line) => {
      try {
        return (JSON.parse(line) as { url?: string }).url === url;
      } catch {
        return false;
      }
    });

  // ---- watchers: crash, canary, RSS ----
  const inflight = new Map<number, { c: FuzzCase; t0: number }>();
  const recent: { c: FuzzCase; t1: number }[] = [];
  let gate: Promise<void> | undefined;
  let replaying = false;
  let stopping = false;
  let crashes = 0;
  let wedgeRestarts = 0;
  /** Services stopped on purpose (wedged): their exit is no crash. */
  const retired = new Set<ServerProcess>();
  let startRss = server.rss() ?? 0;
  let peakAbove = 0;
  let peakRss = startRss;
  let overBound = false;
  const canary: number[] = [];
  /** Hostile parts that killed the service when replayed alone: later cases with them are skipped. */
  const crashers = new Set<string>();
  let skipped = 0;
  const clientOpts = { timeoutMs: opts.timeoutMs };

  const restart = async () => {
    if (server.alive()) await server.stop();
    for (let attempt = 1; ; attempt++) {
      try {
        server = await start();
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        say(`restart attempt ${attempt} failed: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    startRss = server.rss() ?? 0;
    watch(server);
    say(`restarted: pid ${server.pid} on ${server.base}`);
  };
  /** Holds the workers while `work` (a restart) runs; a service that no longer starts ends the run. */
  const holdWhile = (work: Promise<void>) => {
    gate = work
      .catch((err: Error) => {
        say(`cannot restart the service: ${err.message}`);
        record(undefined, 'crash', `the service no longer starts: ${err.message.slice(0, 500)}`);
        stopping = true;
      })
      .finally(() => {
        gate = undefined;
      });
  };
  const onCrash = (dead: ServerProcess, exit: { code: number | null; signal: NodeJS.Signals | null }) => {
    crashes++;
    const now = performance.now();
    const suspects = [...[...inflight.values()].map((x) => x.c), ...recent.filter((r) => now - r.t1 < 1000).map((r) => r.c)];
    const tail = dead.logTail().slice(-40);
    say(`CRASH ${crashes}: exit ${exit.code ?? exit.signal}; ${suspects.length} suspects`);
    holdWhile((async () => {
      for (let i = 0; i < 200 && inflight.size > 0; i++) await sleep(50);
      await dead.stop();
      if (crashes > opts.maxRestarts) {
        record(undefined, 'crash', `exit ${exit.code ?? exit.signal}; restart limit reached`, undefined, { serverLog: tail });
        stopping = true;
        return;
      }
      await restart();
      // Name the culprit: replay each suspect alone on the fresh process.
      replaying = true;
      let named = false;
      for (const s of suspects) {
        await send(new URL(server.base), s.req, clientOpts);
        await sleep(150);
        if (!server.alive()) {
          named = true;
          const log = server.logTail().slice(-40);
          record(s, 'crash', `process exit (reproduced alone)`, undefined, { serverLog: log });
          if (s.family !== 'random') crashers.add(s.note);
          await restart();
        }
      }
      if (!named) {
        record(suspects[0], 'crash', `process exit ${exit.code ?? exit.signal}; not reproduced by any single suspect`, undefined, {
          serverLog: tail,
          suspects: suspects.map((s) => ({ op: s.op, method: s.req.method, url: s.req.path.slice(0, 300), note: s.note })),
        });
      }
      replaying = false;
    })());
  };
  function watch(srv: ServerProcess) {
    void srv.exited.then((exit) => {
      if (!stopping && !replaying && srv === server && !retired.has(srv)) onCrash(srv, exit);
    });
  }
  watch(server);
  /** The service answered no probe for WEDGE_MS: its stall is recorded; restart it so the rest of the run is not lost in timeouts. */
  const onWedge = (held: ServerProcess) => {
    wedgeRestarts++;
    retired.add(held);
    say(`no answer to GET /conformance for ${WEDGE_MS / 1000} s: restarting the service (${wedgeRestarts})`);
    holdWhile(restart());
  };

  const rssTimer = setInterval(() => {
    const rss = server.rss();
    if (rss === undefined) return;
    peakRss = Math.max(peakRss, rss);
    const above = rss - startRss;
    peakAbove = Math.max(peakAbove, above);
    if (above > opts.rssBoundBytes && !overBound) {
      overBound = true;
      const now = performance.now();
      const suspects = [...[...inflight.values()].sort((a, b) => a.t0 - b.t0).map((x) => x.c), ...recent.filter((r) => now - r.t1 < 2000).map((r) => r.c)];
      record(suspects[0], 'memory', `child RSS ${(rss / 2 ** 20).toFixed(0)} MiB, ${(above / 2 ** 20).toFixed(0)} MiB above its start`, undefined, {
        suspects: suspects.map((s) => ({ op: s.op, method: s.req.method, url: s.req.path.slice(0, 300), note: s.note })),
      }, suspects.slice(0, 4));
    } else if (above < opts.rssBoundBytes / 2) overBound = false;
  }, 200);

  /** Set while the child writes a heap snapshot (--heap-snapshots), which stops its main thread on purpose. */
  let snapshotting = false;
  let snapshotEpoch = 0;
  const canaryLoop = (async () => {
    while (!stopping) {
      await sleep(500);
      if (gate || stopping || snapshotting) continue;
      const srv = server;
      const t0 = performance.now();
      const epoch = snapshotEpoch;
      const before = new Set(inflight.keys());
      const p = await ping(srv, WEDGE_MS);
      // A heap snapshot holds the main thread on purpose: no stall of any request.
      if (srv !== server || gate || snapshotting || epoch !== snapshotEpoch) continue;
      canary.push(p.wallMs);
      const ms = blockedMs(p);
      if (ms > opts.stallMs) {
        const suspects = [...before].flatMap((id) => (inflight.has(id) || recent.some((x) => x.c.id === id && x.t1 > t0) ? [inflight.get(id)?.c ?? recent.find((x) => x.c.id === id)!.c] : []));
        // Up to 8 of them are replayed: every request a worker had in flight (concurrency 6) and a couple that just ended.
        record(suspects[0], 'stall', `GET /conformance waited ${describePing(p)}`, undefined, {
          suspects: suspects.map((s) => ({ op: s.op, method: s.req.method, url: s.req.path.slice(0, 300), note: s.note })),
        }, suspects.slice(0, 8));
      }
      if (!p.answered && srv === server && !gate && !stopping) onWedge(srv);
    }
  })();

  /** Replays a case alone: with a back-to-back canary (stall, timeout) or, after one warm-up copy, eight copies at once (memory). */
  async function reproduces(kind: FailureKind, c: FuzzCase): Promise<string | undefined> {
    // A replay before may have left the service held, or still working (and calling its backend) for a client long gone: start afresh.
    if (!server.alive() || kind === 'amplification' || !(await ping(server, 5000)).answered) await restart();
    await sleep(300);
    const base = new URL(server.base);
    if (kind === 'amplification') {
      const before = backend.requests();
      await send(base, c.req, clientOpts);
      await sleep(200);
      const n = backend.requests() - before;
      return n > BACKEND_REQUESTS_BOUND ? `alone: ${n} backend requests for this one request` : undefined;
    }
    if (kind === 'memory') {
      // One copy first: code compiled and tables built on first use are paid once, not per request.
      await send(base, c.req, clientOpts);
      await sleep(300);
      const before = server.rss() ?? 0;
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, server.rss() ?? 0)), 20);
      await Promise.all(Array.from({ length: 8 }, () => send(base, c.req, clientOpts)));
      await sleep(300);
      clearInterval(timer);
      return peak - before > opts.rssBoundBytes ? `8 copies alone: RSS +${((peak - before) / 2 ** 20).toFixed(0)} MiB` : undefined;
    }
    let finished = false;
    const heavy = send(base, c.req, clientOpts).finally(() => (finished = true));
    let worst: Ping | undefined;
    do {
      // A probe left unanswered as long as the client waits is a held service: no need to wait longer.
      const p = await ping(server, opts.timeoutMs);
      if (!worst || blockedMs(p) > blockedMs(worst)) worst = p;
    } while (!finished);
    const r = await heavy;
    const ms = r.response ? r.response.ms : r.error!.ms;
    if (kind === 'timeout') {
      if (r.error?.kind !== 'timeout' && ms <= opts.timeoutMs) return undefined;
      return `alone: ${Math.round(ms)} ms${r.error ? await workAfterLeaving() : ''}`;
    }
    return blockedMs(worst!) > (opts.stallAloneMs ?? 200) ? `alone: GET /conformance waited ${describePing(worst!)} while it ran (${Math.round(ms)} ms)` : undefined;
  }

  /** After the client left: CPU the service (every thread) spent in a window after a grace; half a core or more means the work went on. */
  async function workAfterLeaving(): Promise<string> {
    await sleep(ABANDON_GRACE_MS);
    const cpu0 = server.cpuMs() ?? 0;
    await sleep(ABANDON_WINDOW_MS);
    const used = (server.cpuMs() ?? cpu0) - cpu0;
    return used >= ABANDON_WINDOW_MS / 2 ? `; the work went on after the client left: ${used} ms of CPU in the ${ABANDON_WINDOW_MS / 1000} s from ${ABANDON_GRACE_MS / 1000} s after` : '';
  }

  /**
   * Replays the suspects of every observation alone; each case that reproduces is one failure
   * (however many observations it was a suspect of), and an observation none of whose suspects
   * reproduces is unconfirmed.
   */
  async function confirmAll(): Promise<void> {
    // "Alone" means on a fresh process: the run's own orders keep jobs running in the old one.
    await restart();
    const verdicts = new Map<string, string | undefined>();
    const confirmedPerShape = new Map<string, number>();
    const replays = new Map<FailureKind, number>();
    // Stalls first: a held lake makes many later requests time out, and those must not use up the replays.
    const ordered = [...pending].sort((a, b) => REPLAY_ORDER.indexOf(a.rec.kind) - REPLAY_ORDER.indexOf(b.rec.kind));
    for (const p of ordered) {
      let explained = false;
      for (const c of p.cases) {
        const key = `${p.rec.kind} ${c.id}`;
        const shape = `${p.rec.kind} ${shapeOf(c)}`;
        if (!verdicts.has(key) && (replays.get(p.rec.kind) ?? 0) < (opts.maxReplays ?? MAX_REPLAYS) && (confirmedPerShape.get(shape) ?? 0) < CONFIRMED_PER_SHAPE) {
          replays.set(p.rec.kind, (replays.get(p.rec.kind) ?? 0) + 1);
          const how = await reproduces(p.rec.kind, c);
          verdicts.set(key, how);
          if (how) {
            confirmedPerShape.set(shape, (confirmedPerShape.get(shape) ?? 0) + 1);
            commit({ ...p.rec, area: areaOf(c), op: c.op, family: c.family, note: c.note, method: c.req.method, url: c.req.path, headers: c.req.headers, body: excerpt(c.req.body), detail: `${p.rec.detail}; reproduced ${how}` });
          }
        }
        explained ||= verdicts.get(key) !== undefined;
      }
      if (!explained) unconfirmed.push(p.rec);
    }
  }

  // ---- the run ----
  let next = 0;
  let sent = 0;
  let shed = 0;
  const passes = Math.max(1, opts.passes ?? 1);
  const settled: number[] = [];
  const snapshots: number[] = [];
  let lastReport = performance.now();
  const worker = async () => {
    for (;;) {
      while (gate) await gate;
      if (stopping) return;
      const idx = next++;
      if (idx >= cases.length) return;
      const c = cases[idx]!;
      if (crashers.has(c.note)) {
        skipped++;
        continue;
      }
      const srv = server;
      inflight.set(c.id, { c, t0: performance.now() });
      const backend0 = backend.requests();
      const r = await send(new URL(srv.base), c.req, clientOpts);
      // Backend requests while it ran, its own and those of requests running beside it (a replay alone tells them apart).
      const fanOut = backend.requests() - backend0;
      inflight.delete(c.id);
      recent.push({ c, t1: performance.now() });
      if (recent.length > 200) recent.splice(0, 100);
      sent++;
      opCount[c.op] = (opCount[c.op] ?? 0) + 1;
      for (const p of c.params) if (`${c.op} ${p}` in paramCount) paramCount[`${c.op} ${p}`]!++;
      if (r.error && r.error.kind !== 'timeout') await Promise.race([srv.exited, sleep(500)]);
      // The crash handler owns this one; a held service being restarted answers nothing worth judging.
      if (!srv.alive() || srv !== server || retired.has(srv)) continue;
      if (r.response) {
        const cls = `${Math.floor(r.response.status / 100)}xx`;
        byClass[cls] = (byClass[cls] ?? 0) + 1;
        byStatus[r.response.status] = (byStatus[r.response.status] ?? 0) + 1;
        if (isShed(r.response)) shed++;
        const perOp = (statusesByOp[c.op] ??= {});
        perOp[r.response.status] = (perOp[r.response.status] ?? 0) + 1;
      } else byClass[r.error!.kind] = (byClass[r.error!.kind] ?? 0) + 1;
      const outcome = r.response ? `${Math.floor(r.response.status / 100)}xx` : r.error!.kind;
      const traits = traitsOf(c.req);
      if (traits.filtered) bump((filteredByOp[c.op] ??= {}), outcome);
      if (traits.crossCollection) bump(crossCollection, outcome);
      // A request that timed out while calling the backend may not have reached the bound yet (a loaded service pages slowly): the replay alone counts.
      if (fanOut > BACKEND_REQUESTS_BOUND || (r.error?.kind === 'timeout' && fanOut > 0)) {
        record(c, 'amplification', `${fanOut} requests to the remote backend while it ran (at most ${BACKEND_REQUESTS_BOUND} per client request)`, r);
      }
      for (const v of judge(c, r, leakMarkers, opts.timeoutMs)) {
        const rec = record(c, v.kind, v.detail, r);
        if (v.kind === '5xx') setTimeout(() => (rec.serverLog = logFor(srv, c.req.path).slice(-5)), 150);
      }
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        const failed = Object.values(failures).reduce((a, b) => a + b, 0);
        say(`${sent}/${cases.length * passes} sent, ${failed} failures, ${crashes} crashes, RSS ${((server.rss() ?? 0) / 2 ** 20).toFixed(0)} MiB`);
      }
    }
  };
  for (let pass = 1; pass <= passes; pass++) {
    next = 0;
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    while (gate) await gate;
    await sleep(SETTLE_MS);
    settled.push(server.rss() ?? 0);
    say(`pass ${pass}/${passes} done: child RSS ${(settled.at(-1)! / 2 ** 20).toFixed(0)} MiB after ${SETTLE_MS / 1000} s idle (peak so far ${(peakRss / 2 ** 20).toFixed(0)} MiB)`);
    if (snapshotDir) {
      snapshotting = true;
      snapshotEpoch++;
      snapshots.push(await heapSnapshotBytes(server, snapshotDir));
      snapshotting = false;
      say(`pass ${pass}/${passes}: heap snapshot ${(snapshots.at(-1)! / 2 ** 20).toFixed(0)} MiB`);
    }
  }
  await sleep(200); // late server log lines for the last 5xx
  stopping = true;
  clearInterval(rssTimer);
  await canaryLoop;
  if (pending.length) {
    say(`replaying the suspects of ${pending.length} stall/timeout/memory observations alone`);
    await confirmAll();
  }
  if (server.alive()) await server.stop();
  if (spare) await (await spare.catch(() => undefined))?.stop();
  await upstream.close();
  await backend.close();
  await s3?.close();
  if (snapshotDir) rmSync(snapshotDir, { recursive: true, force: true });

  const sortedCanary = [...canary].sort((a, b) => a - b);
  const uncovered = [...Object.entries(opCount).filter(([, n]) => n === 0).map(([k]) => `operation ${k}`), ...Object.entries(paramCount).filter(([, n]) => n === 0).map(([k]) => `parameter ${k}`)];
  return {
    seed: opts.seed,
    durationMs: Math.round(performance.now() - started),
    machineLoad: [loadAtStart, loadavg()[0]!],
    requests: sent,
    skippedKnownCrashers: skipped,
    unconfirmed: {
      count: unconfirmed.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.kind]: (acc[r.kind] ?? 0) + 1 }), {}),
      examples: unconfirmed.slice(0, 20),
    },
    byClass,
    byStatus,
    fiveXX: failures['5xx'],
    shed,
    crashes,
    wedgeRestarts,
    nonApiError: failures['non-api-error'],
    timeouts: failures.timeout,
    failures,
    groups: [...groups.entries()].sort((a, b) => b[1].count - a[1].count).map(([key, g]) => ({ key, count: g.count, area: g.area, example: g.example })),
    examples: records,
    coverage: { operations: opCount, parameters: paramCount, uncovered, statusesByOperation: statusesByOp, filteredByOperation: filteredByOp, crossCollection },
    rss: { startBytes: startRss, peakBytes: peakRss, peakAboveStartBytes: peakAbove, settledBytes: settled, ...(snapshotDir ? { heapSnapshotBytes: snapshots } : {}) },
    canary: { samples: canary.length, p50Ms: Math.round(percentile(sortedCanary, 50)), p99Ms: Math.round(percentile(sortedCanary, 99)), maxMs: Math.round(sortedCanary.at(-1) ?? 0) },
  };
}

/**
 * Has the child write a heap snapshot and gives its size. The snapshot is taken on the main thread
 * (the service answers nothing meanwhile), so once GET /conformance answers again and the file
 * stops growing it is complete; it is deleted after being measured.
 */
async function heapSnapshotBytes(server: ServerProcess, dir: string): Promise<number> {
  const before = new Set(readdirSync(dir));
  process.kill(server.pid, 'SIGUSR2');
  await sleep(500);
  await ping(server, 300_000);
  let size = -1;
  for (let i = 0; i < 600; i++) {
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    const now = file ? statSync(path.join(dir, file)).size : -1;
    if (file && now > 0 && now === size) {
      rmSync(path.join(dir, file), { force: true });
      return now;
    }
    size = now;
    await sleep(500);
  }
  return NaN;
}

export function failureCount(s: FuzzSummary): number {
  return Object.values(s.failures).reduce((a, b) => a + b, 0);
}

/** `1234 (2xx 700, 4xx 534)`: a tally's total and its parts. */
function tallyLine(t: Record<string, number>): string {
  const total = Object.values(t).reduce((a, b) => a + b, 0);
  return `${total}${total ? ` (${Object.entries(t).sort().map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`;
}

export function formatSummary(s: FuzzSummary, reportPath?: string): string {
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  const lines = [
    '',
    `fuzz: ${s.requests} requests in ${(s.durationMs / 1000).toFixed(1)} s (seed ${s.seed}; machine load average ${s.machineLoad[0].toFixed(1)} at the start, ${s.machineLoad[1].toFixed(1)} at the end)`,
    `  by class:    ${Object.entries(s.byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  5xx:         ${s.fiveXX}${s.shed ? ` (besides ${s.shed} 503 "Service busy" with Retry-After: load shed, not failures)` : ''}`,
    `  crashes:     ${s.crashes} (process exits)${s.skippedKnownCrashers ? `; ${s.skippedKnownCrashers} later cases skipped whose hostile part had already crashed it` : ''}${s.wedgeRestarts ? `; ${s.wedgeRestarts} restarts of a service that answered nothing for ${WEDGE_MS / 1000} s` : ''}`,
    `  non-ApiError error bodies: ${s.nonApiError}`,
    `  timeouts:    ${s.timeouts}`,
    `  other:       ${Object.entries(s.failures).filter(([k]) => !['5xx', 'non-api-error', 'timeout', 'crash'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  unconfirmed: ${Object.entries(s.unconfirmed.count).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} (seen under load, not reproduced alone, or not replayed: past the replays of the kind or ${CONFIRMED_PER_SHAPE} confirmed of its shape; not failures)`,
    `  child RSS:   start ${mib(s.rss.startBytes)}, peak ${mib(s.rss.peakBytes)} (+${mib(s.rss.peakAboveStartBytes)}); idle after each pass: ${s.rss.settledBytes.map(mib).join(', ')}${s.rss.heapSnapshotBytes ? `; heap snapshots after each pass: ${s.rss.heapSnapshotBytes.map(mib).join(', ')}` : ''}`,
    `  canary GET /conformance: p50 ${s.canary.p50Ms} ms, p99 ${s.canary.p99Ms} ms, max ${s.canary.maxMs} ms (${s.canary.samples} samples)`,
    `  cross-collection POSTs: ${tallyLine(s.coverage.crossCollection)}`,
    `  filtered requests: ${tallyLine(Object.values(s.coverage.filteredByOperation).reduce<Record<string, number>>((acc, t) => { for (const [k, v] of Object.entries(t)) acc[k] = (acc[k] ?? 0) + v; return acc; }, {}))}`,
    ...Object.entries(s.coverage.filteredByOperation).sort().map(([op, t]) => `    ${op}: ${tallyLine(t)}`),
    `  no 2xx at all (generation never got past validation): ${Object.entries(s.coverage.statusesByOperation).filter(([op, st]) => op !== 'raw' && !HIDDEN_OPERATIONS.some((h) => h.id === op) && !Object.keys(st).some((k) => k.startsWith('2'))).map(([op]) => op).join(', ') || 'none'}`,
    `  coverage:    ${Object.keys(s.coverage.operations).length} operations, ${Object.keys(s.coverage.parameters).length} parameters${s.coverage.uncovered.length ? `; NOT covered: ${s.coverage.uncovered.join(', ')}` : ', all covered'}`,
  ];
  if (s.groups.length) {
    lines.push('', 'failure groups (count | kind | operation | family | status | message → area; one example):');
    for (const g of s.groups.slice(0, 60)) {
      const e = g.example;
      lines.push(`  ${String(g.count).padStart(5)}  ${g.key}  → ${g.area}`, `         e.g. ${e.method} ${e.url.slice(0, 160)}${e.url.length > 160 ? '…' : ''}  [${e.note.slice(0, 120)}] ${e.detail}`);
    }
    if (s.groups.length > 60) lines.push(`  … ${s.groups.length - 60} more groups in the report`);
  }
  if (reportPath) lines.push('', `report: ${reportPath}`);
  return lines.join('\n');
}
