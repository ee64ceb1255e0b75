/**
 * npm run load [-- options]: sustained load with autocannon on the service in a child process,
 * route by route, each beside references measured in the same run (GET /conformance on the same
 * service, and a bare restify hello-world). Prints requests/s, latency p50/p99, errors (connection
 * errors and timeouts), non-2xx answers and the child's RSS before/peak/after; exits 1 when any
 * route had an error or a non-2xx answer, or when the peak RSS grew by more than the bound.
 * Options: --duration s [60]  --connections n [64]  --short (10 s)  --only name[,name]
 *          --rss-bound-mib n [500]  --timeout s [10]
 *          --mixed: instead, every route class at once for one duration, the connections shared
 *          among them (see MIXED), each class's requests/s and latency printed on its own line:
 *          whether one class (lake zone data) keeps making progress while the others run.
 */
import autocannon, { type Result } from 'autocannon';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readRss, startServerProcess, type ServerProcess } from '../scripts/fuzz/server-process.js';
import { startHelloWorld } from './http-throughput.js';

export interface LoadOptions {
  /** Seconds per route. */
  duration: number;
  connections: number;
  /** Peak RSS growth of the service over its start that still passes. */
  rssBoundBytes: number;
  /** Client timeout per request, seconds (a timeout counts as an error). */
  timeout: number;
  /** Only routes whose name contains one of these (the references always run). */
  only?: string[];
}

interface Target {
  name: string;
  /** Base URL and pid of the process under load. */
  base: string;
  pid: number;
  paths: string[];
}

interface Row {
  name: string;
  result: Result;
  rss: { before: number; peak: number; after: number };
}

async function zonesOf(base: string, collection: string, level: number, limit: number): Promise<string[]> {
  const res = await fetch(`${base}/collections/${collection}/dggs/IVEA7H/zones?zone-level=${level}&limit=${limit}`);
  if (res.status !== 200) throw new Error(`zone list of ${collection}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { zones: string[] }).zones;
}

/** The route classes of the mixed load and their share of the connections (parts of MIXED_PARTS). */
const MIXED: { name: string; share: number }[] = [
  { name: 'reference: GET /conformance', share: 2 },
  { name: 'zone info', share: 4 },
  { name: 'zone data (raster)', share: 4 },
  { name: 'items', share: 6 },
  { name: 'items bbox', share: 4 },
  { name: 'lake zone data', share: 8 },
  { name: 'lake zone list filter', share: 4 },
];
const MIXED_PARTS = MIXED.reduce((n, m) => n + m.share, 0);

async function load(t: Target, o: LoadOptions): Promise<Row> {
  await new Promise((r) => setTimeout(r, 1000)); // let the previous run's garbage go
  const before = readRss(t.pid) ?? 0;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, readRss(t.pid) ?? 0)), 100);
  let next = 0;
  const result = await autocannon({
    url: t.base,
    connections: o.connections,
    duration: o.duration,
    timeout: o.timeout,
    requests: [{ setupRequest: (req) => ({ ...req, path: t.paths[next++ % t.paths.length]! }) }],
  });
  await new Promise((r) => setTimeout(r, 2000));
  clearInterval(sampler);
  const after = readRss(t.pid) ?? 0;
  return { name: t.name, result, rss: { before, peak: Math.max(peak, after), after } };
}

function print(rows: Row[], o: LoadOptions, load: [number, number], mixed = false): void {
  const mib = (b: number) => (b / 2 ** 20).toFixed(0);
  const how = mixed ? `${o.connections} connections shared by ${rows.length} route classes at once (connections each in brackets), ${o.duration} s` : `${o.connections} connections, ${o.duration} s per route`;
  console.log(`\n${how}; latency in ms; RSS in MiB (the service child's VmRSS); machine load average ${load[0].toFixed(1)} at the start, ${load[1].toFixed(1)} at the end`);
  console.log('route                           req/s    p50     p99      2xx  non-2xx  errors  RSS before/peak/after');
  for (const r of rows) {
    const x = r.result;
    const codes = Object.entries(x.statusCodeStats ?? {}).filter(([c]) => !c.startsWith('2')).map(([c, s]) => `${c}×${s.count}`).join(' ');
    console.log(
      `${r.name.padEnd(30)} ${x.requests.average.toFixed(0).padStart(6)} ${x.latency.p50.toFixed(0).padStart(6)} ${x.latency.p99.toFixed(0).padStart(7)} ${String(x['2xx']).padStart(8)} ${String(x.non2xx).padStart(8)} ${String(x.errors).padStart(7)}  ${mib(r.rss.before)}/${mib(r.rss.peak)}/${mib(r.rss.after)}${codes ? `  (${codes})` : ''}${x.timeouts ? `  timeouts ${x.timeouts}` : ''}`,
    );
  }
}

/** The routes of the service under load, by class. */
async function serviceTargets(s: ServerProcess): Promise<Target[]> {
  const rasterZones = await zonesOf(s.base, 'demo-elevation', 5, 200);
  const lakeZones = await zonesOf(s.base, 'demo-stations', 5, 200);
  return [
    { name: 'reference: GET /conformance', base: s.base, pid: s.pid, paths: ['/conformance'] },
    { name: 'zone info', base: s.base, pid: s.pid, paths: rasterZones.map((z) => `/dggs/IVEA7H/zones/${z}`) },
    { name: 'zone data (raster)', base: s.base, pid: s.pid, paths: rasterZones.map((z) => `/collections/demo-elevation/dggs/IVEA7H/zones/${z}/data`) },
    { name: 'items', base: s.base, pid: s.pid, paths: Array.from({ length: 200 }, (_, i) => `/collections/demo-stations/items?limit=10&offset=${(i * 911) % 180_000}`) },
    { name: 'items bbox', base: s.base, pid: s.pid, paths: Array.from({ length: 50 }, (_, i) => `/collections/demo-stations/items?limit=10&bbox=${(i % 20) - 5},45,${(i % 20) - 4},46`) },
    { name: 'lake zone data', base: s.base, pid: s.pid, paths: lakeZones.map((z) => `/collections/demo-stations/dggs/IVEA7H/zones/${z}/data`) },
    {
      name: 'lake zone list filter',
      base: s.base,
      pid: s.pid,
      paths: Array.from({ length: 50 }, (_, i) => `/collections/demo-stations/dggs/IVEA7H/zones?zone-level=5&bbox=${(i % 20) - 5},44,${(i % 20) + 1},50&filter=${encodeURIComponent(`temperature > ${i % 10}`)}`),
    },
  ];
}

/**
 * Every route class at once, each on its share of the connections, for one duration: what each
 * class gets of the service while the others run (a class starved by the others shows here, not
 * in the route-by-route run).
 */
export async function runMixedLoad(o: LoadOptions): Promise<boolean> {
  const loadAtStart = loadavg()[0]!;
  const service = await startServerProcess();
  try {
    const s = service;
    const all = await serviceTargets(s);
    const classes = MIXED.map((m) => ({ target: all.find((t) => t.name === m.name)!, connections: Math.max(1, Math.round((o.connections * m.share) / MIXED_PARTS)) }));
    await new Promise((r) => setTimeout(r, 1000));
    const before = readRss(s.pid) ?? 0;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, readRss(s.pid) ?? 0)), 100);
    process.stdout.write(`load: ${classes.length} route classes at once for ${o.duration} s…\n`);
    const results = await Promise.all(
      classes.map(({ target, connections }) => {
        let next = 0;
        return autocannon({ url: target.base, connections, duration: o.duration, timeout: o.timeout, requests: [{ setupRequest: (req) => ({ ...req, path: target.paths[next++ % target.paths.length]! }) }] });
      }),
    );
    await new Promise((r) => setTimeout(r, 2000));
    clearInterval(sampler);
    const after = readRss(s.pid) ?? 0;
    if (!s.alive()) throw new Error(`the service died under the mixed load:\n${s.logTail().slice(-20).join('\n')}`);
    const rows = classes.map((c, i) => ({ name: `${c.target.name} [${c.connections}]`, result: results[i]!, rss: { before, peak: Math.max(peak, after), after } }));
    print(rows, o, [loadAtStart, loadavg()[0]!], true);
    const errors = rows.reduce((a, r) => a + r.result.errors, 0);
    const non2xx = rows.reduce((a, r) => a + r.result.non2xx, 0);
    const ok = errors === 0 && non2xx === 0 && peak - before <= o.rssBoundBytes;
    console.log(`\nservice: ${errors} errors, ${non2xx} non-2xx; RSS peak +${((peak - before) / 2 ** 20).toFixed(0)} MiB (bound ${(o.rssBoundBytes / 2 ** 20).toFixed(0)} MiB): ${ok ? 'OK' : 'FAILED'}`);
    return ok;
  } finally {
    await service.stop();
  }
}

/** Runs every route under load beside the references; true when the service had no error, no non-2xx and bounded RSS. */
export async function runLoad(o: LoadOptions): Promise<boolean> {
  const loadAtStart = loadavg()[0]!;
  const hello = await startHelloWorld();
  let service: ServerProcess | undefined;
  try {
    service = await startServerProcess();
    const s = service;
    const targets: Target[] = [
      { name: 'reference: restify hello', base: hello.base, pid: hello.pid, paths: ['/'] },
      // The zone-list filter runs in the mixed load only (this run's routes stay those of the earlier figures).
      ...(await serviceTargets(s)).filter((t) => t.name !== 'lake zone list filter'),
    ].filter((t) => !o.only || t.name.startsWith('reference') || o.only.some((w) => t.name.includes(w)));

    const rows: Row[] = [];
    for (const t of targets) {
      process.stdout.write(`load: ${t.name}…\n`);
      rows.push(await load(t, o));
      if (!s.alive()) throw new Error(`the service died under load on ${t.name}:\n${s.logTail().slice(-20).join('\n')}`);
    }
    print(rows, o, [loadAtStart, loadavg()[0]!]);

    const ours = rows.filter((r) => r.name !== 'reference: restify hello');
    const errors = ours.reduce((a, r) => a + r.result.errors, 0);
    const non2xx = ours.reduce((a, r) => a + r.result.non2xx, 0);
    const start = ours[0]?.rss.before ?? 0;
    const peak = Math.max(...ours.map((r) => r.rss.peak));
    const ok = errors === 0 && non2xx === 0 && peak - start <= o.rssBoundBytes;
    console.log(`\nservice: ${errors} errors, ${non2xx} non-2xx; RSS peak ${(peak / 2 ** 20).toFixed(0)} MiB, +${((peak - start) / 2 ** 20).toFixed(0)} MiB over its start (bound ${(o.rssBoundBytes / 2 ** 20).toFixed(0)} MiB): ${ok ? 'OK' : 'FAILED'}`);
    return ok;
  } finally {
    await service?.stop();
    hello.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string', default: '64' },
      short: { type: 'boolean', default: false },
      only: { type: 'string' },
      'rss-bound-mib': { type: 'string', default: '500' },
      timeout: { type: 'string', default: '10' },
      mixed: { type: 'boolean', default: false },
    },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const ok = await (values.mixed ? runMixedLoad : runLoad)({
    duration: Number(values.duration ?? (values.short ? 10 : 60)),
    connections: Number(values.connections),
    rssBoundBytes: Number(values['rss-bound-mib']) * 2 ** 20,
    timeout: Number(values.timeout),
    only: values.only?.split(',').filter(Boolean),
  });
  process.exitCode = ok ? 0 : 1;
}
