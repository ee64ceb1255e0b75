/**
 * The supervisor of `server.processes` > 1: `npm start` forks that many HTTP processes
 * (node:cluster), which share the one listening socket; it restarts a process that dies, sums the
 * processes' metrics for whichever of them is scraped, passes questions between them (jobs handed
 * to the process that runs them), and stops them all on SIGTERM/SIGINT. It serves nothing itself.
 * The policy is in docs/operations.md (Processes).
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import pino, { type Logger } from 'pino';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import type { Config } from './app/config/config-schema.js';
import { isGroupMessage, PLACE_ENV, SIZE_ENV, type GroupMessage } from './adapters/processes/ipc-messages.js';
import { METRICS_TOPICS } from './http/metrics.js';

/** The number of HTTP processes `server.processes` asks for. */
export function processCount(setting: number | 'auto'): number {
  return setting === 'auto' ? availableParallelism() : setting;
}

/** A process that dies is restarted after 1 s, then 2, 4, 8 s...; one that died this often within the window is not restarted. */
export const RESTART_POLICY = { firstDelayMs: 1000, maxDelayMs: 30_000, maxExits: 5, windowMs: 60_000 };
/**
 * After a process's exit at `now`, given its earlier exit times: the exits still within the
 * window, and the delay before its restart, or none when it died too often to be restarted.
 */
export function nextRestart(exits: number[], now: number): { exits: number[]; delayMs?: number } {
  const recent = [...exits.filter((t) => now - t < RESTART_POLICY.windowMs), now];
  if (recent.length >= RESTART_POLICY.maxExits) return { exits: recent };
  return { exits: recent, delayMs: Math.min(RESTART_POLICY.maxDelayMs, RESTART_POLICY.firstDelayMs * 2 ** (recent.length - 1)) };
}

/** Each process gives its open requests 10 s (src/main.ts); past this the supervisor kills what is left. */
const STOP_GRACE_MS = 15_000;

interface Place {
  index: number;
  worker?: Worker;
  ready: boolean;
  /** Exit times within the restart window. */
  exits: number[];
  restartTimer?: NodeJS.Timeout;
}

interface Pending {
  place: Place;
  resolve: (body: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Runs the group until it is stopped (the process exits from here). */
export function supervise(config: Config, size: number): void {
  new Supervisor(config, size).start();
}

class Supervisor {
  private readonly log: Logger;
  private readonly places: Place[];
  private started = false;
  private stopping = false;
  /** The supervisor's exit code: 0 unless a process failed to start or to stop cleanly. */
  private exitCode = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly registry = new Registry();
  private readonly restarts: Counter<'reason'>;

  constructor(
    private readonly config: Config,
    private readonly size: number,
  ) {
    this.log = pino({ level: config.server.logLevel, name: 'dggs-api' }).child({ supervisor: true });
    this.places = Array.from({ length: size }, (_, i) => ({ index: i + 1, ready: false, exits: [] }));
    this.restarts = new Counter({ name: 'dggs_process_restarts_total', help: 'HTTP processes the supervisor restarted after they died (server.processes > 1), by how they ended: "signal" (killed) or "exit" (exited by themselves).', labelNames: ['reason'], registers: [this.registry] });
    this.restarts.inc({ reason: 'signal' }, 0);
    this.restarts.inc({ reason: 'exit' }, 0);
  }

  start(): void {
    this.log.info({ processes: this.size }, `starting ${this.size} HTTP processes`);
    process.on('SIGINT', () => this.stop('SIGINT'));
    process.on('SIGTERM', () => this.stop('SIGTERM'));
    // Process 1 first, alone: it migrates and seeds the datastore (autoInitialize) and checks the
    // sources; the others then find it done and start side by side.
    this.fork(this.places[0]!);
  }

  private fork(place: Place): void {
    place.restartTimer = undefined;
    const worker = cluster.fork({ [PLACE_ENV]: String(place.index), [SIZE_ENV]: String(this.size) });
    place.worker = worker;
    place.ready = false;
    worker.on('message', (m: unknown) => {
      if (isGroupMessage(m)) this.received(place, m);
    });
    worker.once('exit', (code, signal) => this.exited(place, worker, code, signal));
  }

  private received(place: Place, m: GroupMessage): void {
    if (m.dggs === 'ready') {
      place.ready = true;
      const restarted = place.exits.length > 0;
      this.log.info({ process: place.index, processPid: place.worker?.process.pid, port: m.port }, restarted ? `process ${place.index} restarted` : `process ${place.index} ready`);
      // A signal during the start: what is still starting is not followed by more.
      if (this.stopping) return;
      if (!this.started && place.index === 1) this.places.slice(1).forEach((p) => this.fork(p));
      if (!this.started && this.places.every((p) => p.ready)) {
        this.started = true;
        const shown = this.config.server.host === '0.0.0.0' ? 'localhost' : this.config.server.host;
        this.log.info({ port: m.port, processes: this.size }, `dggs-api listening on ${this.config.server.publicBaseUrl ?? `http://${shown}:${m.port}`} with ${this.size} processes`);
      }
    } else if (m.dggs === 'ask') {
      const reply = (a: { body?: unknown; error?: string }) => this.send(place, { dggs: 'answer', id: m.id, ...a });
      let answer: Promise<unknown>;
      if (m.to === 'supervisor') {
        answer = m.topic === METRICS_TOPICS.sum ? this.metricsSum((m.body as { timeoutMs?: number } | undefined)?.timeoutMs ?? 5000) : Promise.reject(new Error(`the supervisor does not answer ${m.topic}`));
      } else {
        const to = this.places[m.to - 1];
        answer = to ? this.ask(to, m.topic, m.body, 10_000) : Promise.reject(new Error(`no process ${m.to}`));
      }
      answer.then(
        (body) => reply({ body }),
        (err: Error) => reply({ error: err.message }),
      );
    } else if (m.dggs === 'answer') {
      const p = this.pending.get(m.id);
      if (!p || p.place !== place) return;
      this.settle(m.id, p);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.body);
    }
  }

  /** Asks the process at `place`; rejects at once when it is not serving (starting, restarting, stopped). */
  private ask(place: Place, topic: string, body: unknown, timeoutMs: number): Promise<unknown> {
    if (!place.ready || !place.worker) return Promise.reject(new Error(`process ${place.index} is not serving now`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`process ${place.index} did not answer ${topic} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { place, resolve, reject, timer });
      this.send(place, { dggs: 'ask', id, to: place.index, topic, body });
    });
  }

  private settle(id: number, p: Pending): void {
    clearTimeout(p.timer);
    this.pending.delete(id);
  }

  private send(place: Place, m: GroupMessage): void {
    const w = place.worker;
    // A process that just died cannot be told: its questions are rejected on its exit.
    if (w?.isConnected()) w.send(m, undefined, () => {});
  }

  /**
   * The processes' series summed (prom-client's AggregatorRegistry: counters and histograms
   * summed, each series by its aggregator), with the supervisor's own. A process that does not
   * answer in time is left out of this scrape: `dggs_processes` says how many were summed.
   */
  private async metricsSum(timeoutMs: number): Promise<string> {
    const answers = await Promise.allSettled(this.places.filter((p) => p.ready).map((p) => this.ask(p, METRICS_TOPICS.local, null, timeoutMs)));
    const series = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value as Parameters<typeof AggregatorRegistry.aggregate>[0][number]] : []));
    return Registry.merge([AggregatorRegistry.aggregate(series), this.registry]).metrics();
  }

  private exited(place: Place, worker: Worker, code: number | null, signal: string | null): void {
    if (place.worker !== worker) return;
    const wasReady = place.ready;
    place.worker = undefined;
    place.ready = false;
    for (const [id, p] of this.pending) {
      if (p.place !== place) continue;
      this.settle(id, p);
      p.reject(new Error(`process ${place.index} exited`));
    }
    const fields = { process: place.index, processPid: worker.process.pid, code, signal };
    if (this.stopping) {
      // One still starting has no handler yet and ends by the signal: nothing was open in it.
      if (code !== 0 && !(signal === 'SIGTERM' && !wasReady)) this.exitCode ||= 1;
      this.log.info(fields, `process ${place.index} stopped`);
      if (this.places.every((p) => !p.worker)) process.exit(this.exitCode);
      return;
    }
    if (!this.started && !wasReady && place.exits.length === 0) {
      // A process that fails its first start (a config mistake found late, a port taken) fails the
      // same way again: the group does not start.
      this.log.error(fields, `process ${place.index} failed to start: stopping`);
      this.exitCode = code === 0 || code === null ? 1 : code;
      this.stopAll('start failed');
      return;
    }
    const { exits, delayMs: delay } = nextRestart(place.exits, Date.now());
    place.exits = exits;
    if (delay === undefined) {
      this.log.error({ ...fields, exits: place.exits.length }, `process ${place.index} died ${place.exits.length} times within ${RESTART_POLICY.windowMs / 1000} s: not restarted`);
      if (this.places.every((p) => !p.worker && !p.restartTimer)) {
        this.log.fatal('no HTTP process left: exiting');
        process.exit(1);
      }
      return;
    }
    this.restarts.inc({ reason: signal ? 'signal' : 'exit' });
    this.log.warn({ ...fields, restartInMs: delay }, `process ${place.index} died: restarting in ${delay} ms`);
    place.restartTimer = setTimeout(() => this.fork(place), delay);
  }

  /** SIGTERM/SIGINT: each process stops as a lone one does (open requests finish), then the supervisor exits; a second signal kills them. */
  private stop(signal: string): void {
    if (this.stopping) return this.kill(signal);
    this.log.info({ signal }, 'stopping');
    this.stopAll(signal);
  }

  private stopAll(reason: string): void {
    this.stopping = true;
    for (const p of this.places) clearTimeout(p.restartTimer);
    setTimeout(() => {
      this.log.warn({ reason }, `processes still running after ${STOP_GRACE_MS} ms: killing them`);
      this.kill(reason);
    }, STOP_GRACE_MS).unref();
    for (const p of this.places) p.worker?.process.kill('SIGTERM');
    if (this.places.every((p) => !p.worker)) process.exit(this.exitCode);
  }

  private kill(reason: string): void {
    this.log.warn({ reason }, 'killing the HTTP processes');
    for (const p of this.places) p.worker?.process.kill('SIGKILL');
    process.exit(1);
  }
}
