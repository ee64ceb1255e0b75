/**
 * IVEA7H point -> numeric zone key in bulk: i7hZoneKeysFromPoints (typed arrays in,
 * typed arrays out) on 1 and 2 worker threads (the points split in halves), beside the per-point
 * zoneKeyFromPoint call and h3-js latLngToCell at a resolution of similar zone area, in the same run
 * (alternating rounds, each figure's best kept).
 *
 * DGGAL (native C) is the reference. With DGGAL_BULK naming a program that locates points in bulk
 * through DGGAL's C API (`<program> IVEA7H <level> <points file> [rounds]`: the file holds lon/lat pairs as
 * little-endian doubles, in degrees; it prints `<points> <best ns for all of them> <sum of the 64-bit zone
 * ids mod 2^64> <points without a zone>`), the bulk rows are measured beside it on the same points, on 1
 * thread and on 2 (two processes, each half the points), and the sums tell whether both found the same
 * zones. DGGAL's own command-line tool `dgg` locates one point per process,
 * so its point location cannot be timed in bulk (the process start-up is thousands of times the work);
 * with DGGAL_DGG pointing at a built dgg, this prints that per-call time and, as the bulk comparison dgg
 * allows, `dgg IVEA7H list 6 -bbox 0,0,19,19` (the zone ids of a box, as a JSON array; its start-up,
 * timed with `dgg IVEA7H level 6`, subtracted) beside our zonesInBBox of the same box and
 * JSON.stringify of it. Without DGGAL_DGG it prints "reference not available".
 * `npm run bench zone-keys`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { latLngToCell } from 'h3-js';
import { createIvea7h } from '../src/domain/dggrs/grids/ivea-grids.js';
import type { I7HGrid } from '../src/domain/dggrs/lattices/7h/i7h-grid.js';
import { i7hZoneKeysFromPoints } from '../src/domain/dggrs/lattices/7h/i7h-zone-keys.js';
import { locate } from '../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { iveaProjection } from '../src/domain/dggrs/projections/ivea-projection.js';
import { randomPoints, rate } from './measure.js';
import { reportRow } from './summary-table.js';

const N = 200_000;
const LEVEL = 9;
/** H3 resolution whose cells are closest in area to IVEA7H level 9 (about 0.52 km² against 0.74 km²). */
const H3_RES = 8;
const MS = 1000;
const ROUNDS = 3;

/** Keys per second of `threads` workers at once, each on its share of the points. */
async function bulkOnWorkers(lons: Float64Array, lats: Float64Array, threads: number): Promise<number> {
  const share = Math.ceil(lons.length / threads);
  const runs = Array.from({ length: threads }, (_, i) => {
    const w = new Worker(new URL('./zone-keys-worker.ts', import.meta.url), {
      workerData: { lons: lons.slice(i * share, (i + 1) * share), lats: lats.slice(i * share, (i + 1) * share), level: LEVEL, ms: MS },
    });
    return new Promise<{ points: number; ms: number }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    }).finally(() => w.terminate());
  });
  return (await Promise.all(runs)).reduce((s, r) => s + (r.points * 1000) / r.ms, 0);
}

const fmt = (v: number): string => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${(v / 1e3).toFixed(1)} k/s`);

function medianMs(runs: number, fn: () => void): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

export async function run(): Promise<void> {
  const { lons, lats } = randomPoints(N, 42);
  const grid = createIvea7h();
  const out = new Float64Array(N);
  let sink = 0;
  // Alternating rounds, each one's best kept, to damp other load on the machine.
  let perPoint = 0, bulkHere = 0, h3 = 0;
  for (let round = 0; round < ROUNDS; round++) {
    perPoint = Math.max(perPoint, rate(MS, () => { for (let i = 0; i < N; i++) sink += grid.zoneKeyFromPoint(lons[i]!, lats[i]!, LEVEL); return N; }));
    bulkHere = Math.max(bulkHere, rate(MS, () => { i7hZoneKeysFromPoints(iveaProjection, lons, lats, LEVEL, out); return N; }));
    h3 = Math.max(h3, rate(MS, () => { for (let i = 0; i < N; i++) sink += latLngToCell(lats[i]!, lons[i]!, H3_RES).length; return N; }));
  }
  console.log(`${N.toLocaleString('en')} random points (uniform on the sphere), IVEA7H level ${LEVEL}; Node ${process.version}`);
  console.log(`  per point, zoneKeyFromPoint (main thread)        ${fmt(perPoint).padStart(11)}`);
  console.log(`  bulk, i7hZoneKeysFromPoints (main thread)        ${fmt(bulkHere).padStart(11)}   ${(bulkHere / perPoint).toFixed(2)}x the per-point call`);
  console.log(`  h3-js latLngToCell res ${H3_RES} (main thread)            ${fmt(h3).padStart(11)}   bulk IVEA7H is ${(bulkHere / h3).toFixed(2)}x`);

  const dgg = process.env.DGGAL_DGG;
  let dggal: { perCallMs: number; startupMs: number; listMs: number; zones: number } | undefined;
  if (dgg) {
    const startupMs = medianMs(5, () => execFileSync(dgg, ['IVEA7H', 'level', '6']));
    const perCallMs = medianMs(5, () => execFileSync(dgg, ['IVEA7H', 'zone', '45,9', String(LEVEL)]));
    let zones = 0;
    const listMs = medianMs(3, () => { zones = (JSON.parse(execFileSync(dgg, ['IVEA7H', 'list', '6', '-bbox', '0,0,19,19'], { maxBuffer: 1 << 26 }).toString()) as string[]).length; });
    dggal = { perCallMs, startupMs, listMs, zones };
    const oursMs = medianMs(5, () => JSON.stringify(grid.zonesInBBox(6, [0, 0, 19, 19])));
    const dggalNet = Math.max(listMs - startupMs, 1e-3);
    console.log(`  DGGAL dgg (${dgg}): one point per process, ${perCallMs.toFixed(1)} ms per call of which start-up about ${startupMs.toFixed(1)} ms: point location itself is below that noise`);
    console.log(`  bulk comparison dgg allows, the ${zones} zone ids of bbox 0,0,19,19 at level 6 as JSON: dgg list ${listMs.toFixed(1)} ms - ${startupMs.toFixed(1)} ms start-up = ${dggalNet.toFixed(1)} ms; ours (zonesInBBox + JSON.stringify) ${oursMs.toFixed(1)} ms; ratio ${(dggalNet / oursMs).toFixed(2)}x`);
    reportRow({ work: 'IVEA7H zones of a box (level 6, 0,0,19,19) vs DGGAL dgg list (start-up subtracted)', threads: 1, ours: `${oursMs.toFixed(1)} ms`, reference: `dgg ${dggalNet.toFixed(1)} ms`, ratio: `${(dggalNet / oursMs).toFixed(2)}x`, target: '(for scale: what dgg can do in bulk)' });
  } else console.log('  DGGAL: reference not available (set DGGAL_DGG to a built dgg, e.g. DGGAL_DGG=../dggal/dgg)');

  const bulkRef = process.env.DGGAL_BULK ? await dggalBulk(process.env.DGGAL_BULK, grid, lons, lats) : undefined;
  if (bulkRef) console.log(`  DGGAL bulk (${process.env.DGGAL_BULK}): ${fmt(bulkRef.rate[0]!)} on 1 thread, ${fmt(bulkRef.rate[1]!)} on 2; zones ${bulkRef.same ? 'the same as ours (sums of 64-bit ids agree)' : 'DIFFERENT from ours'}`);
  // Where a bulk key's time goes: the projection to the 5x6 net, then `locate` in it.
  const xy = new Float64Array(2), xs = new Float64Array(N), ys = new Float64Array(N);
  let forward = 0, located = 0;
  for (let round = 0; round < ROUNDS; round++) {
    forward = Math.max(forward, rate(MS, () => { for (let i = 0; i < N; i++) { iveaProjection.forward(lats[i]!, lons[i]!, xy); xs[i] = xy[0]!; ys[i] = xy[1]!; } return N; }));
    located = Math.max(located, rate(MS, () => { for (let i = 0; i < N; i++) sink += locate(LEVEL, xs[i]!, ys[i]!) ? 1 : 0; return N; }));
  }
  const ns = (r: number) => `${(1e9 / r).toFixed(0)} ns`;
  console.log(`  per point in bulk: ${ns(bulkHere)}, of which the projection ${ns(forward)} and locate ${ns(located)}${bulkRef ? `; DGGAL ${ns(bulkRef.rate[0]!)} for both` : ''}`);
  const onWorkers = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const threads of [1, 2]) onWorkers[threads - 1] = Math.max(onWorkers[threads - 1]!, await bulkOnWorkers(lons, lats, threads));
  }
  for (const threads of [1, 2]) {
    const bulk = onWorkers[threads - 1]!;
    console.log(`  bulk on ${threads} worker thread${threads > 1 ? 's' : ''}                           ${fmt(bulk).padStart(11)}   ${(bulk / perPoint).toFixed(2)}x the per-point call on one thread`);
    reportRow({
      work: 'IVEA7H point -> numeric zone key, bulk (typed arrays in and out)',
      threads,
      ours: fmt(bulk),
      reference: bulkRef
        ? `DGGAL C API in bulk ${fmt(bulkRef.rate[threads - 1]!)} (${bulkRef.same ? 'same zones' : 'DIFFERENT zones'})`
        : dggal ? `DGGAL dgg: one point per process (${dggal.perCallMs.toFixed(1)} ms/call), not timeable in bulk; per-point call ${fmt(perPoint)}` : `reference not available (DGGAL_BULK unset); per-point call ${fmt(perPoint)}`,
      ratio: bulkRef ? `${(bulk / bulkRef.rate[threads - 1]!).toFixed(2)}x DGGAL` : `${(bulk / perPoint).toFixed(2)}x per-point`,
      target: '>= 1.0x DGGAL in bulk',
    });
  }
  if (sink === -1) console.log(sink);
}

/**
 * DGGAL's bulk rate on the same points, on 1 thread and on 2 (two processes at once, each with half the
 * points), and whether its zones are ours (the sums of the 64-bit ids).
 */
async function dggalBulk(program: string, grid: I7HGrid, lons: Float64Array, lats: Float64Array): Promise<{ rate: number[]; same: boolean }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dggal-bulk-'));
  try {
    const write = (name: string, from: number, to: number): string => {
      const xy = new Float64Array(2 * (to - from));
      for (let i = from; i < to; i++) [xy[2 * (i - from)], xy[2 * (i - from) + 1]] = [lons[i]!, lats[i]!];
      const file = path.join(dir, name);
      writeFileSync(file, new Uint8Array(xy.buffer));
      return file;
    };
    const run = async (file: string) => {
      const { stdout } = await promisify(execFile)(program, ['IVEA7H', String(LEVEL), file, '5']);
      const [n, ns, sum] = stdout.trim().split(/\s+/);
      return { rate: Number(n) / (Number(ns) / 1e9), sum: BigInt(sum!) };
    };
    const n = lons.length, half = n >> 1;
    const one = await run(write('all.bin', 0, n));
    const two = await Promise.all([run(write('a.bin', 0, half)), run(write('b.bin', half, n))]);
    let ours = 0n;
    for (let i = 0; i < n; i++) ours += grid.zoneToUint64(grid.zoneFromPoint(lons[i]!, lats[i]!, LEVEL));
    return { rate: [one.rate, two[0]!.rate + two[1]!.rate], same: (ours & 0xffffffffffffffffn) === one.sum };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
