import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { CONF } from '../conformance-classes.js';
import { fileName } from '../file-names.js';
import { encodeImage } from './image-encode-thread.js';
import { checkImagePlan, quantization, quantizationHeaders, zoneImage, type ImageKind } from './zone-image.js';

/**
 * Zone data as a lossless JPEG-XL image (OGC 21-038r1 /req/data-jpegxl/content), as the PNG one
 * (png.ts, zone-image.ts) but 8 bits per sample: @jsquash/jxl (libjxl in WebAssembly) encodes
 * 8-bit RGBA only, so valid values take codes 1..255 (0: no value) with the same
 * `Values-Scale`/`Values-Offset` headers. One field is written in red, green and blue alike (a
 * grey image), two or three in red, green, blue; alpha is opaque. One zone-depth per image: the
 * encoder writes single-frame images, so the pyramid of several depths the standard asks of data
 * custom depths is refused as in PNG.
 */
const JPEG_XL: ImageKind = { name: 'JPEG-XL', bits: 8, maxFields: 3, channels: () => 4 };

async function* zoneDataJpegXl(data: ZoneData, ctx: ZoneDataContext): AsyncGenerator<Uint8Array> {
  const grey = Object.keys(data.fields).length <= 1;
  const image = await zoneImage(data, ctx, JPEG_XL, (codes, at, n, out, px) => {
    if (grey) out[px] = out[px + 1] = out[px + 2] = n > 0 ? codes[at]! : 0;
    else for (let f = 0; f < n; f++) out[px + f] = codes[at + f]!;
    out[px + 3] = 255;
  });
  yield await encodeImage({ kind: 'jxl', width: image.frame.width, height: image.frame.height, samples: image.samples as Uint8Array }, ctx.signal);
}

export const jpegXl: ZoneDataEncoding = {
  format: 'jpegxl',
  conformance: [CONF.dggsDataJpegxl],
  encode: zoneDataJpegXl,
  fileName: (data) => fileName(`${data.dggrsId}-${data.zoneId}-data`, 'jpegxl'),
  check: (plan) => checkImagePlan(JPEG_XL, plan),
  headers: (data, ctx) => quantizationHeaders(quantization(data, ctx, JPEG_XL.bits)),
};
