/**
 * What the PNG and JPEG-XL zone-data images share (OGC 21-038r1 /req/data-png/content,
 * /req/data-jpegxl/content): one image of the sub-zones of one depth, drawn on the zone's bounding
 * rectangle in CRS84 with every sub-zone at least one pixel (src/domain/raster/zone-raster.ts),
 * the selected fields as channels, values quantized to unsigned integers.
 *
 * Quantization: encoded = round(value × scale + offset), value = (encoded − offset) / scale,
 * the scale and offset being the `Values-Scale` and `Values-Offset` response headers. 0 is kept
 * for "no value" (a null value, a pixel outside the zone: /rec/data-png/null-values), so valid
 * values encode to 1 .. 2^bits − 1. Without `values-scale`/`values-offset` both are fitted to the
 * answer's values (all fields together: one pair of headers): the least value encodes to 1, the
 * greatest to the top code. A `values-scale` alone keeps the least (or, scale < 0, the greatest)
 * value at 1; a `values-offset` alone goes with scale 1. A value encoding outside 1 .. top is a
 * 422 naming it: the client chose a scale or offset the data do not fit (never clamped, which
 * would silently change values).
 *
 * A fitted quantization encodes round((value − min) × scale) + 1 (or from the greatest value for a
 * negative scale): equal to the formula above in exact arithmetic, but value × scale + offset loses the
 * data's range in rounding when the values are large beside it (1e15 ± 1: value × scale is ~6.5e19,
 * whose doubles are 8192 apart). The headers give the equivalent offset. A range so wide (or narrow)
 * that its scale is no finite positive double is a 422: nothing can fit it (ask the scale, or GeoTIFF).
 */
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { DepthValues, ZoneData } from '../../domain/zone-data.js';
import type { ZoneRaster } from '../../domain/raster/zone-raster.js';
import { checkRasterCells, depthFrame, rasterizeOnFrame } from '../raster-frames.js';
import { InvalidRequestError, ValidationError } from '../../ports/errors.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import type { ZoneDataContext, ZoneDataPlan } from './encoding.js';

export interface Quantization {
  scale: number;
  offset: number;
  /** Fitted: the value that encodes to 1, so a code is round((value − origin) × scale) + 1 (precise; see the module's comment). */
  origin?: number;
}

/** The image kinds and the number of fields each holds. */
export interface ImageKind {
  /** Its name in messages: `PNG`, `JPEG-XL`. */
  name: string;
  /** Bits per sample: 16 for PNG, 8 for JPEG-XL (what @jsquash/jxl writes). */
  bits: 8 | 16;
  /** Fields an image holds at most: three colour channels (alpha is left for what alpha means). */
  maxFields: number;
  /**
   * Samples per pixel the image writes for `fields` fields (PNG: 1 grey or 3 RGB; JPEG-XL: always
   * RGBA): what limits.maxRasterCells counts and what zoneImage lays out.
   */
  channels(fields: number): number;
}

/**
 * Refuses, before any value is computed, what one image cannot hold: several depths (an image has
 * no pyramid here), more fields than channels, more cells than limits.maxRasterCells.
 */
export function checkImagePlan(kind: ImageKind, plan: ZoneDataPlan): void {
  if (plan.depths.length !== 1) {
    throw new InvalidRequestError(
      `${kind.name} holds one image: ask one zone-depth`,
      `A ${kind.name} answer is one image of the sub-zones of one depth (OGC 21-038r1 /req/data-png/content: several depths are a 4xx); zone-depth=${plan.depths.join(',')} asks ${plan.depths.length}. Ask one depth, or DGGS-JSON for several.`,
    );
  }
  if (plan.columns > kind.maxFields) {
    throw new InvalidRequestError(
      `${kind.name} holds at most ${kind.maxFields} fields`,
      `A ${kind.name} answer holds one field per colour channel (1: grey, 2-3: red, green, blue), at most ${kind.maxFields}; this request selects ${plan.columns} (fields times statistics). Select fewer with \`properties\` (or \`exclude-properties\`).`,
    );
  }
  const frame = depthFrame(plan.grid, plan.zoneId, plan.depths[0]!);
  checkRasterCells(`The ${kind.name} of ${plan.zoneId}`, [{ label: '', frame }], kind.channels(plan.columns), plan.limits.maxRasterCells, 'ask a smaller zone-depth or fewer properties.');
}

/** The one depth of an image answer (checkImagePlan made sure there is one). */
export function imageDepth(data: ZoneData): DepthValues {
  const d = data.depths[0];
  if (data.depths.length !== 1 || !d) throw new InvalidRequestError('Image holds one zone-depth', 'Ask one zone-depth.');
  return d;
}

/** The scale and offset of an answer: those asked, else fitted to its values (see the module's comment). */
export function quantization(data: ZoneData, ctx: ZoneDataContext, bits: 8 | 16): Quantization {
  const top = 2 ** bits - 1;
  let min = Infinity, max = -Infinity;
  for (const d of data.depths) {
    for (const list of Object.values(d.values)) {
      for (const v of list) {
        if (v === null || !Number.isFinite(v)) continue;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
  }
  const any = min <= max;
  let scale = ctx.valuesScale;
  let offset = ctx.valuesOffset;
  if (scale === undefined && offset === undefined) {
    if (!any) return { scale: 1, offset: 0 };
    scale = max > min ? (top - 1) / (max - min) : 1;
    if (!(Number.isFinite(scale) && scale > 0)) {
      throw new ValidationError(
        'Values cannot be fitted to the image',
        `The values range from ${min} to ${max}: the scale mapping that range onto 1..${top}, ${top - 1} / (${max} - ${min}), is not a finite positive number. Choose values-scale and values-offset, or ask a format that keeps doubles (GeoTIFF, netCDF).`,
      );
    }
    return { scale, offset: 1 - min * scale, origin: min };
  }
  if (offset === undefined && any) {
    // A scale alone: the least (scale < 0: the greatest) value encodes to 1.
    const origin = (scale ?? 1) >= 0 ? min : max;
    return { scale: scale ?? 1, offset: 1 - origin * (scale ?? 1), origin };
  }
  return { scale: scale ?? 1, offset: offset ?? 0 };
}

/** The code of a value (not yet checked against the image's range). */
export function quantize(v: number, q: Quantization): number {
  return q.origin === undefined ? Math.round(v * q.scale + q.offset) : Math.round((v - q.origin) * q.scale) + 1;
}

/** Response headers of the content requirement. */
export function quantizationHeaders(q: Quantization): Record<string, string> {
  return { 'Values-Scale': String(q.scale), 'Values-Offset': String(q.offset) };
}

/**
 * The encoded value of every sub-zone and field (sub-zone-major, `fields` per sub-zone), 0 for null;
 * a 422 for a value outside 1 .. 2^bits − 1 after scaling.
 */
async function zoneCodes(depth: DepthValues, fields: readonly string[], q: Quantization, kind: ImageKind, signal: AbortSignal | undefined): Promise<Uint16Array> {
  const top = 2 ** kind.bits - 1;
  const codes = new Uint16Array(depth.zones.length * fields.length);
  for (let f = 0; f < fields.length; f++) {
    const list = depth.values[fields[f]!] ?? [];
    for (let i = 0; i < depth.zones.length; i++) {
      const v = list[i];
      if (v === null || v === undefined || !Number.isFinite(v)) continue;
      const code = quantize(v, q);
      if (!(code >= 1 && code <= top)) {
        throw new ValidationError(
          'Value outside the encoding range',
          `${fields[f]} = ${v} of sub-zone ${depth.zones[i]} encodes to round(${v} x ${q.scale} + ${q.offset}) = ${code}, outside 1..${top} of this ${kind.bits}-bit ${kind.name} (0 marks no value): choose values-scale and values-offset that map the data into 1..${top}, or leave them out to fit them to the data.`,
        );
      }
      codes[i * fields.length + f] = code;
      if ((i & 1023) === 0 && turnDue()) await takeTurn(signal);
    }
  }
  return codes;
}

export interface ZoneImage {
  frame: ZoneRaster;
  quantization: Quantization;
  /** Samples, pixel-major, rows from the north, `channels` per pixel. */
  samples: Uint8Array | Uint16Array;
  channels: number;
}

/**
 * The image's samples: each pixel takes the codes of the sub-zone it lies in, 0 outside the zone.
 * `layout` maps the fields to the kind's channels, the samples per pixel (and fills the rest, e.g. JPEG-XL's opaque alpha).
 */
export async function zoneImage(data: ZoneData, ctx: ZoneDataContext, kind: ImageKind, layout: (codes: Uint16Array, at: number, fields: number, out: Uint8Array | Uint16Array, px: number) => void): Promise<ZoneImage> {
  const depth = imageDepth(data);
  const fields = Object.keys(data.fields);
  const channels = kind.channels(fields.length);
  const q = quantization(data, ctx, kind.bits);
  const codes = await zoneCodes(depth, fields, q, kind, ctx.signal);
  const raster = await rasterizeOnFrame(ctx.grid, depth.zones, depthFrame(ctx.grid, data.zoneId, depth.depth), ctx.signal);
  const pixels = raster.width * raster.height;
  const samples = kind.bits === 16 ? new Uint16Array(pixels * channels) : new Uint8Array(pixels * channels);
  const none = new Uint16Array(fields.length);
  for (let p = 0; p < pixels; p++) {
    const k = raster.index[p]!;
    if (k >= 0) layout(codes, k * fields.length, fields.length, samples, p * channels);
    else layout(none, 0, fields.length, samples, p * channels);
    if ((p & 4095) === 0 && turnDue()) await takeTurn(ctx.signal);
  }
  return { frame: raster, quantization: q, samples, channels };
}

/** Text that says how to read the image back, for a file saved without its response headers. */
export function imageNotes(data: ZoneData, image: ZoneImage, channelNames: string): Record<string, string> {
  const f = image.frame;
  return {
    'Values-Scale': String(image.quantization.scale),
    'Values-Offset': String(image.quantization.offset),
    'No-Data': '0 (a null value, or a pixel outside the zone)',
    Value: '(sample - Values-Offset) / Values-Scale',
    Fields: Object.keys(data.fields).join(','),
    Channels: channelNames,
    DGGRS: data.dggrsId,
    Zone: data.zoneId,
    'Zone-Depth': String(data.depths[0]?.depth ?? ''),
    CRS: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
    Extent: `${f.west},${f.south},${f.east},${f.north} (west,south,east,north; pixel edges)`,
  };
}
