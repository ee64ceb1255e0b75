/**
 * Image compression off the event loop: one worker thread (image-encode-worker.ts), started on the
 * first image and let go when idle, encodes the PNG and JPEG-XL zone-data images one after another.
 * One thread keeps memory bounded (each job holds up to limits.maxRasterCells samples); answers
 * wait their turn rather than compete for cores with the service's other work.
 */
import { Worker } from 'node:worker_threads';

export type ImageJob =
  | { id: number; kind: 'png'; width: number; height: number; depth: 8 | 16; channels: number; samples: Uint8Array | Uint16Array; text: Record<string, string> }
  /** 8-bit RGBA, rows from the top. */
  | { id: number; kind: 'jxl'; width: number; height: number; samples: Uint8Array };

export type ImageReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

/** Stop the thread after this long without work. */
const IDLE_MS = 30_000;

let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 1;
const waiting = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  const url = new URL(`./image-encode-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const w = new Worker(url);
  w.on('message', (r: ImageReply) => {
    const p = waiting.get(r.id);
    if (!p) return;
    waiting.delete(r.id);
    if ('error' in r) p.reject(new Error(`image encoding failed: ${r.error}`));
    else p.resolve(r.bytes);
    rest();
  });
  const fail = (e: Error) => {
    if (worker === w) worker = undefined;
    for (const p of waiting.values()) p.reject(e);
    waiting.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`image encoding worker stopped (exit code ${code})`)));
  return (worker = w);
}

/** Nothing waiting: let the process exit, and stop the thread if no image comes for a while. */
function rest(): void {
  if (waiting.size > 0 || !worker) return;
  worker.unref();
  clearTimeout(idle);
  const w = worker;
  idle = setTimeout(() => {
    if (worker === w && waiting.size === 0) {
      worker = undefined;
      void w.terminate();
    }
  }, IDLE_MS);
  idle.unref();
}

type Job = ImageJob extends infer J ? (J extends ImageJob ? Omit<J, 'id'> : never) : never;

/** The compressed image; the samples' buffer is handed to the thread (unusable here afterwards). */
export function encodeImage(job: Job): Promise<Uint8Array> {
  const w = thread();
  w.ref();
  clearTimeout(idle);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ ...job, id }, [job.samples.buffer as ArrayBuffer]);
  });
}
