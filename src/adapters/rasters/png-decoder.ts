import { crc32, inflateSync } from 'node:zlib';

/** A decoded image, always widened to RGBA so value decodings read one layout. */
export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, row-major from the top-left. */
  rgba: Uint8Array;
}

export class PngDecodeError extends Error {
  override name = 'PngDecodeError';
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Channels per PNG colour type we read: gray, RGB, gray+alpha, RGBA. Palette (3) is refused. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/**
 * Decodes the PNGs elevation tiles are made of: 8-bit gray, gray+alpha, RGB or RGBA, not
 * interlaced. Anything else is refused with a message naming what is unsupported, rather than
 * decoded wrongly: values are data here, not pixels for display.
 */
export function decodePng(bytes: Uint8Array): RgbaImage {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new PngDecodeError('not a PNG (bad signature)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 8;
  let width = 0, height = 0, colourType = -1;
  const idat: Uint8Array[] = [];
  let ended = false;
  while (pos + 12 <= bytes.length) {
    const len = view.getUint32(pos);
    const type = String.fromCharCode(bytes[pos + 4]!, bytes[pos + 5]!, bytes[pos + 6]!, bytes[pos + 7]!);
    if (pos + 12 + len > bytes.length) throw new PngDecodeError(`truncated ${type} chunk`);
    const data = bytes.subarray(pos + 8, pos + 8 + len);
    // A corrupt tile must not turn into plausible-looking wrong values.
    if (crc32(bytes.subarray(pos + 4, pos + 8 + len)) !== view.getUint32(pos + 8 + len)) throw new PngDecodeError(`CRC mismatch in ${type} chunk`);
    pos += 12 + len;
    if (type === 'IHDR') {
      const h = new DataView(data.buffer, data.byteOffset, data.byteLength);
      width = h.getUint32(0);
      height = h.getUint32(4);
      const depth = data[8]!;
      colourType = data[9]!;
      if (depth !== 8) throw new PngDecodeError(`unsupported PNG bit depth ${depth} (only 8-bit is read)`);
      if (CHANNELS[colourType] === undefined) throw new PngDecodeError(`unsupported PNG colour type ${colourType} (gray, RGB, gray+alpha and RGBA are read; palette is not)`);
      if (data[12] !== 0) throw new PngDecodeError('interlaced PNGs are not supported');
      if (width === 0 || height === 0 || width * height > 1 << 26) throw new PngDecodeError(`unreasonable PNG size ${width}x${height}`);
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  if (colourType < 0) throw new PngDecodeError('no IHDR chunk');
  if (!ended || idat.length === 0) throw new PngDecodeError('no image data (missing IDAT or IEND)');
  const channels = CHANNELS[colourType]!;
  const stride = width * channels;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat));
  } catch (err) {
    throw new PngDecodeError(`image data does not inflate: ${(err as Error).message}`);
  }
  if (raw.length < (stride + 1) * height) throw new PngDecodeError('image data shorter than the image');
  const px = unfilter(raw, width, height, channels);
  return { width, height, rgba: toRgba(px, width * height, channels) };
}

/** Undoes the per-row filters (PNG spec section 9); `bpp` is bytes per pixel, all 8-bit here. */
function unfilter(raw: Uint8Array, width: number, height: number, bpp: number): Uint8Array {
  const stride = width * bpp;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride, prev = row - stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[row + i - bpp]! : 0;
      const b = y > 0 ? out[prev + i]! : 0;
      const c = y > 0 && i >= bpp ? out[prev + i - bpp]! : 0;
      const x = raw[src + i]!;
      let v: number;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new PngDecodeError(`unknown PNG filter type ${filter} in row ${y}`);
      }
      out[row + i] = v & 0xff;
    }
  }
  return out;
}

function toRgba(px: Uint8Array, n: number, channels: number): Uint8Array {
  if (channels === 4) return px;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (channels === 3) {
      out[o] = px[i * 3]!; out[o + 1] = px[i * 3 + 1]!; out[o + 2] = px[i * 3 + 2]!; out[o + 3] = 255;
    } else {
      const g = px[i * channels]!;
      out[o] = out[o + 1] = out[o + 2] = g;
      out[o + 3] = channels === 2 ? px[i * 2 + 1]! : 255;
    }
  }
  return out;
}
