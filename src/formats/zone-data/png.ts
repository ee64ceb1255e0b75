import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { CONF } from '../conformance-classes.js';
import { fileName } from '../file-names.js';
import { encodeImage } from './image-encode-thread.js';
import { checkImagePlan, imageNotes, quantization, quantizationHeaders, zoneImage, type ImageKind } from './zone-image.js';

/**
 * Zone data as a 16-bit PNG (OGC 21-038r1 /req/data-png/content): one image of the sub-zones of
 * one zone-depth on the zone's bounding rectangle (zone-image.ts), one field in a greyscale image,
 * two or three in red, green and blue (an unused channel 0). Alpha is not used for data, which
 * viewers would show as transparency. 16 bits keep 65,534 steps over the data's range; the scale
 * and offset travel in the `Values-Scale`/`Values-Offset` headers and in tEXt chunks, with the
 * note that 0 is no value, so a saved file still says how to read it.
 */
const PNG: ImageKind = { name: 'PNG', bits: 16, maxFields: 3, channels: (fields) => (fields <= 1 ? 1 : 3) };

async function* zoneDataPng(data: ZoneData, ctx: ZoneDataContext): AsyncGenerator<Uint8Array> {
  const image = await zoneImage(data, ctx, PNG, (codes, at, n, out, px) => {
    for (let f = 0; f < n; f++) out[px + f] = codes[at + f]!;
  });
  const names = image.channels === 1 ? 'grey' : 'red,green,blue';
  yield await encodeImage({ kind: 'png', width: image.frame.width, height: image.frame.height, depth: 16, channels: image.channels, samples: image.samples, text: imageNotes(data, image, names) }, ctx.signal);
}

export const png: ZoneDataEncoding = {
  format: 'png',
  conformance: [CONF.dggsDataPng],
  encode: zoneDataPng,
  fileName: (data) => fileName(`${data.dggrsId}-${data.zoneId}-data`, 'png'),
  check: (plan) => checkImagePlan(PNG, plan),
  headers: (data, ctx) => quantizationHeaders(quantization(data, ctx, PNG.bits)),
};
