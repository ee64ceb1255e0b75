/**
 * Worker threads that find the zones of points (zone-binning-worker.ts), so aggregating millions
 * of rows keeps the event loop free: the main thread reads DuckDB's vectors (DuckDB scans on its
 * own threads) and accumulates statistics in row order, the workers do zone-from-point.
 *
 * A request opens a session on every worker (its grid and zone lists), then hands batches round
 * robin; each batch's answer is a promise, and the caller consumes them in the order it asked, so
 * the numbers are those of one thread doing it all. Workers start on first use and stop after a
 * while without sessions; they hold the process open only while a session is open.
 */
import { Worker } from 'node:worker_threads';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';

/** Workers stop after this long without an open session. */
const IDLE_MS = 30_000;

export type BinRequest =
  | { kind: 'open'; session: number; gridId: string; levels: { level: number; zones: readonly string[] | null }[] }
  | { kind: 'bin'; session: number; seq: number; n: number; x: Float64Array; y: Float64Array }
  | { kind: 'close'; session: number };

export type BinReply = { session: number; seq: number; slots: Int32Array[]; met: string[] } | { session: number; seq: number; error: string };

interface Waiting {
  resolve: (r: { slots: Int32Array[]; met: string[] }) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  waiting: Map<string, Waiting>;
  /** Set once the worker failed: its sessions fail too. */
  dead?: Error;
}

export class ZoneBinningPool {
  private workers: PoolWorker[] = [];
  private nextSession = 1;
  private open = 0;
  private idle?: NodeJS.Timeout;
  private factories?: Promise<Record<string, () => Dggrs> | undefined>;
  private readonly rebuildable = new WeakMap<Dggrs, boolean>();

  /**
   * `gridsModule`: URL of the module exporting GRID_FACTORIES, from which workers rebuild grids.
   * Grids that did not come from it are binned on the calling thread instead.
   */
  constructor(
    readonly threads: number,
    private readonly gridsModule: string,
  ) {}

  /**
   * A session binning points at each level: into slots of `zones`, or (zones null) reporting the
   * zones met. Undefined when the grid cannot be rebuilt in a worker.
   */
  async session(grid: Dggrs, levels: { level: number; zones: readonly string[] | null }[]): Promise<ZoneBinningSession | undefined> {
    if (!(await this.canRebuild(grid))) return undefined;
    this.start();
    const id = this.nextSession++;
    const workers = [...this.workers];
    this.open++;
    clearTimeout(this.idle);
    for (const w of workers) {
      w.worker.ref();
      w.worker.postMessage({ kind: 'open', session: id, gridId: grid.id, levels } satisfies BinRequest);
    }
    let seq = 0;
    let closed = false;
    return {
      bin: (x, y, n) => {
        const w = workers[seq % workers.length]!;
        const s = seq++;
        if (w.dead) return Promise.reject(w.dead);
        return new Promise((resolve, reject) => {
          w.waiting.set(`${id}:${s}`, { resolve, reject });
          w.worker.postMessage({ kind: 'bin', session: id, seq: s, n, x, y } satisfies BinRequest, [x.buffer as ArrayBuffer, y.buffer as ArrayBuffer]);
        });
      },
      close: () => {
        if (closed) return;
        closed = true;
        for (const w of workers) if (!w.dead) w.worker.postMessage({ kind: 'close', session: id } satisfies BinRequest);
        if (--this.open === 0) this.rest();
      },
    };
  }

  /** Stops the workers now (a later session starts them again). */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private start(): void {
    while (this.workers.length < this.threads) {
      const url = new URL(`./zone-binning-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
      const pw: PoolWorker = { worker: new Worker(url, { workerData: { gridsModule: this.gridsModule } }), waiting: new Map() };
      pw.worker.on('message', (r: BinReply) => {
        const key = `${r.session}:${r.seq}`;
        const w = pw.waiting.get(key);
        if (!w) return;
        pw.waiting.delete(key);
        if ('error' in r) w.reject(new Error(`zone binning failed: ${r.error}`));
        else w.resolve(r);
      });
      const fail = (e: Error) => {
        pw.dead ??= e;
        this.workers = this.workers.filter((x) => x !== pw);
        for (const w of pw.waiting.values()) w.reject(e);
        pw.waiting.clear();
      };
      pw.worker.on('error', fail);
      pw.worker.on('exit', (code) => fail(new Error(`zone binning worker stopped (exit code ${code})`)));
      this.workers.push(pw);
    }
  }

  /** No session open: let the process exit, and stop the workers if none opens for a while. */
  private rest(): void {
    for (const w of this.workers) w.worker.unref();
    clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.close(), IDLE_MS);
    this.idle.unref();
  }

  private async canRebuild(grid: Dggrs): Promise<boolean> {
    const known = this.rebuildable.get(grid);
    if (known !== undefined) return known;
    this.factories ??= import(this.gridsModule).then(
      (m: { GRID_FACTORIES?: Record<string, () => Dggrs> }) => m.GRID_FACTORIES,
      () => undefined,
    );
    const make = (await this.factories)?.[grid.id];
    const ok = !!make && sameGrid(make(), grid);
    this.rebuildable.set(grid, ok);
    return ok;
  }
}

/**
 * Whether a grid rebuilt from the factories is the grid given: same class name, same answers at
 * a few points and levels. (A module loaded twice, e.g. once through a CommonJS hook, has its own
 * classes, so class identity cannot tell.)
 */
function sameGrid(a: Dggrs, b: Dggrs): boolean {
  if (a.constructor.name !== b.constructor.name || a.id !== b.id) return false;
  const levels = [0, Math.min(3, b.maxRefinementLevel), Math.min(9, b.maxRefinementLevel)];
  const points: [number, number][] = [[0, 0], [-73.98, 40.75], [151.2, -33.87], [179.99, 89.5]];
  return levels.every((l) => points.every(([lon, lat]) => a.zoneFromPoint(lon, lat, l) === b.zoneFromPoint(lon, lat, l)));
}

export interface ZoneBinningSession {
  /** Slots per level (zones lists) and zones met (null lists) of the first `n` points; the arrays are transferred. */
  bin(x: Float64Array, y: Float64Array, n: number): Promise<{ slots: Int32Array[]; met: string[] }>;
  close(): void;
}
