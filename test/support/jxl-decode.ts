/**
 * JPEG-XL decoding in tests, with libjxl's decoder built to WebAssembly (@jsquash/jxl): its .wasm
 * is read from the package and handed to its init, as the service does for the encoder.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Decoded {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
interface JxlDecoder {
  init(options: { wasmBinary: Uint8Array }): Promise<unknown>;
  default: (buffer: ArrayBuffer) => Promise<Decoded>;
}
let decoder: Promise<JxlDecoder['default']> | undefined;

/** The image as 8-bit RGBA (4 channels). */
export async function decodeJxl(bytes: Uint8Array): Promise<{ width: number; height: number; channels: 4; data: Uint8ClampedArray }> {
  decoder ??= (async () => {
    const mod = (await import('@jsquash/jxl/decode.js')) as unknown as JxlDecoder;
    const dir = path.dirname(createRequire(import.meta.url).resolve('@jsquash/jxl/package.json'));
    await mod.init({ wasmBinary: await readFile(path.join(dir, 'codec/dec/jxl_dec.wasm')) });
    return mod.default;
  })();
  const image = await (await decoder)(bytes.slice().buffer);
  return { width: image.width, height: image.height, channels: 4, data: image.data };
}
