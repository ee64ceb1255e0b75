/**
 * Worker thread of image-encode-thread.ts: compresses the samples of a zone-data image into a PNG
 * (fast-png) or a lossless JPEG-XL (@jsquash/jxl, libjxl in WebAssembly). Both are single
 * synchronous calls that take about 0.2-2 s for a few million pixels, too long for the event loop.
 *
 * Message in: an ImageJob; out: `{ id, bytes }` or `{ id, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { encode as encodePng } from 'fast-png';
import type { ImageJob, ImageReply } from './image-encode-thread.js';

/** What @jsquash/jxl's encode takes: browser ImageData, of which it reads these (no DOM types here). */
interface RgbaImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}
type JxlEncode = (data: RgbaImage, options: { lossless: boolean; effort: number }) => Promise<ArrayBuffer>;
interface JxlModule {
  init(options: { wasmBinary: Uint8Array }): Promise<unknown>;
  default: JxlEncode;
}
let jxl: Promise<JxlEncode> | undefined;

/**
 * @jsquash/jxl is built for browsers, which fetch its .wasm by URL; in Node the single-threaded
 * build's .wasm is read from the package and handed to its init, once.
 */
function jxlEncoder(): Promise<JxlEncode> {
  jxl ??= (async () => {
    const mod = (await import('@jsquash/jxl/encode.js')) as unknown as JxlModule;
    const dir = path.dirname(createRequire(import.meta.url).resolve('@jsquash/jxl/package.json'));
    // Emscripten instantiates the module from these bytes instead of fetching its URL.
    await mod.init({ wasmBinary: await readFile(path.join(dir, 'codec/enc/jxl_enc.wasm')) });
    return mod.default;
  })();
  return jxl;
}

/**
 * Effort 3 (of 1-9): lossless either way; higher efforts compress zone images (large flat
 * areas) little better and take several times longer (700x700 px: 0.2 s at 3, 1 s at 5).
 */
const JXL_EFFORT = 3;

async function encode(job: ImageJob): Promise<Uint8Array> {
  if (job.kind === 'png') {
    return encodePng({ width: job.width, height: job.height, data: job.samples, depth: job.depth, channels: job.channels, text: job.text });
  }
  const encodeJxl = await jxlEncoder();
  const rgba = new Uint8ClampedArray(job.samples.buffer, job.samples.byteOffset, job.samples.byteLength);
  return new Uint8Array(await encodeJxl({ data: rgba, width: job.width, height: job.height }, { lossless: true, effort: JXL_EFFORT }));
}

parentPort!.on('message', (job: ImageJob) => {
  encode(job).then(
    (bytes) => parentPort!.postMessage({ id: job.id, bytes } satisfies ImageReply, [bytes.buffer as ArrayBuffer]),
    (e: unknown) => parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) } satisfies ImageReply),
  );
});
