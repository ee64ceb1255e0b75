/**
 * Image compression off the event loop: one worker thread (image-encode-worker.ts), started on the
 * first image and let go when idle, encodes the PNG and JPEG-XL zone-data images one after another.
 * One thread keeps memory bounded (each job holds up to limits.maxRasterCells samples); answers
 * wait their turn rather than compete for cores with the service's other work.
 *
 * Jobs wait in a queue here and are handed to the thread one at a time, so a job whose client left
 * (its AbortSignal aborted) before its turn is dropped unencoded, and the job the thread holds is
 * always known: when it aborts, or takes longer than JOB_TIMEOUT_MS (a hung encoder), the thread is
 * terminated and the next job gets a new one. A thread let go (idle, hung, aborted) is forgotten at
 * once: its late `exit` or reply concerns no job any more.
 */
import { Worker } from 'node:worker_threads';
import { UnavailableError } from '../../ports/errors.js';

export type ImageJob =
  | { id: number; kind: 'png'; width: number; height: number; depth: 8 | 16; channels: number; samples: Uint8Array | Uint16Array; text: Record<string, string> }
  /** 8-bit RGBA, rows from the top. */
  | { id: number; kind: 'jxl'; width: number; height: number; samples: Uint8Array };

export type ImageReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

/** Stop the thread after this long without work. */
const IDLE_MS = 30_000;
/**
 * A job the thread has not answered after this long is taken as hung: the largest image
 * limits.maxRasterCells allows (4 million cells) takes about 2 s.
 */
const JOB_TIMEOUT_MS = 60_000;

interface Queued {
  job: ImageJob;
  resolve: (b: Uint8Array) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal | undefined;
  onAbort?: (() => void) | undefined;
}

/** The thread, when one runs. */
let worker: Worker | undefined;
/** The job handed to `worker`, with its timeout. */
let running: { item: Queued; timer: NodeJS.Timeout } | undefined;
const queue: Queued[] = [];
let idle: NodeJS.Timeout | undefined;
let nextId = 1;

/** Settles a job (once): its abort listener goes. */
function settle(item: Queued, outcome: { bytes: Uint8Array } | { error: unknown }): void {
  if (item.onAbort) item.signal?.removeEventListener('abort', item.onAbort);
  if ('bytes' in outcome) item.resolve(outcome.bytes);
  else item.reject(outcome.error);
}

function start(): Worker {
  const url = new URL(`./image-encode-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const w = new Worker(url);
  w.on('message', (r: ImageReply) => {
    if (worker !== w || running?.item.job.id !== r.id) return;
    const { item, timer } = running;
    running = undefined;
    clearTimeout(timer);
    settle(item, 'error' in r ? { error: new Error(`image encoding failed: ${r.error}`) } : { bytes: r.bytes });
    next();
  });
  // Only the current thread's failure fails its job; a thread already let go has none.
  const fail = (e: Error) => {
    if (worker !== w) return;
    worker = undefined;
    const r = running;
    running = undefined;
    if (r) {
      clearTimeout(r.timer);
      settle(r.item, { error: e });
    }
    next();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`image encoding worker stopped (exit code ${code})`)));
  return w;
}

/** Lets the current thread go (its listeners stay, but no longer match: `worker` is not it). */
function letGo(w: Worker): void {
  if (worker === w) worker = undefined;
  void w.terminate();
}

/** Stops the running job: its thread is terminated (work in it cannot be interrupted otherwise) and the next job starts. */
function stopRunning(error: unknown): void {
  const r = running;
  if (!r) return;
  running = undefined;
  clearTimeout(r.timer);
  if (worker) letGo(worker);
  settle(r.item, { error });
  next();
}

/** Hands the next queued job to the thread (started if none runs), or rests when none waits. */
function next(): void {
  if (running) return;
  const item = queue.shift();
  if (!item) return rest();
  clearTimeout(idle);
  worker ??= start();
  worker.ref();
  const timer = setTimeout(() => {
    if (running?.item !== item) return;
    stopRunning(new UnavailableError('The image encoder did not answer', `Encoding this image took over ${JOB_TIMEOUT_MS / 1000} s, so the encoder was restarted; try again, ask a smaller image (zone-depth) or another format.`));
  }, JOB_TIMEOUT_MS);
  running = { item, timer };
  worker.postMessage(item.job, [item.job.samples.buffer as ArrayBuffer]);
}

/** Nothing waiting: let the process exit, and stop the thread if no image comes for a while. */
function rest(): void {
  if (running || queue.length > 0 || !worker) return;
  const w = worker;
  w.unref();
  clearTimeout(idle);
  idle = setTimeout(() => {
    if (worker === w && !running && queue.length === 0) letGo(w);
  }, IDLE_MS);
  idle.unref();
}

type Job = ImageJob extends infer J ? (J extends ImageJob ? Omit<J, 'id'> : never) : never;

/**
 * The compressed image; the samples' buffer is handed to the thread (unusable here afterwards).
 * Rejects with the signal's reason when it aborts: a job not started is dropped, the running one stopped.
 */
export function encodeImage(job: Job, signal?: AbortSignal): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const item: Queued = { job: { ...job, id: nextId++ } as ImageJob, resolve, reject, signal };
    if (signal) {
      item.onAbort = () => {
        if (running?.item === item) return stopRunning(signal.reason);
        const at = queue.indexOf(item);
        if (at >= 0) {
          queue.splice(at, 1);
          settle(item, { error: signal.reason });
        }
      };
      signal.addEventListener('abort', item.onAbort, { once: true });
    }
    queue.push(item);
    next();
  });
}
