/**
 * A small writer of classic (32-bit offset) little-endian TIFF 6.0 files with several images, for the
 * GeoTIFF encodings. No npm writer fits: the `geotiff` package writes one uncompressed image and no
 * reduced-resolution subfiles, and we need several IFDs (a depth pyramid GDAL lists as overviews),
 * 64-bit samples and GDAL's own metadata tags.
 *
 * Layout: the 8-byte header, then every image's IFD with its out-of-line tag values (all IFDs first,
 * as cloud-optimized GeoTIFFs lay them out, so a reader learns the whole file from its start), then
 * every image's strips in order. Strips are DEFLATE-compressed (Compression 8, node:zlib, one strip at
 * a time with turns of the event loop between strips) with no predictor, samples interleaved per pixel
 * (PlanarConfiguration 1).
 *
 * Tags every image gets (ascending, as TIFF requires): 254 NewSubfileType (1 for a reduced-resolution
 * image), 256 ImageWidth, 257 ImageLength, 258 BitsPerSample, 259 Compression, 262
 * PhotometricInterpretation (1, BlackIsZero), 273 StripOffsets, 277 SamplesPerPixel, 278 RowsPerStrip,
 * 279 StripByteCounts, 284 PlanarConfiguration, 338 ExtraSamples (0, unspecified, for each sample
 * beyond the first: the bands are data, not colour), 339 SampleFormat; plus the caller's extra tags
 * (the GeoTIFF and GDAL ones).
 */
import { deflateSync } from 'node:zlib';
import { takeTurn, turnDue } from '../ports/event-loop-turns.js';

/** TIFF field types used here, by their TIFF code. */
export const TIFF_TYPE = { ascii: 2, short: 3, long: 4, double: 12 } as const;
const TYPE_SIZE: Record<number, number> = { 2: 1, 3: 2, 4: 4, 12: 8 };

export type TiffTag = { tag: number; type: 'ascii'; value: string } | { tag: number; type: 'short' | 'long' | 'double'; values: readonly number[] };

export interface TiffImage {
  width: number;
  height: number;
  samplesPerPixel: number;
  /** SampleFormat 1 (unsigned integer) or 3 (IEEE float), with its bits per sample. */
  sample: { format: 'uint' | 'float'; bits: 32 | 64 };
  /** NewSubfileType bit 0: a reduced-resolution version of the first image (an overview to GDAL). */
  reducedResolution: boolean;
  /**
   * Writes rows row0 .. row1 - 1, samples interleaved per pixel, little-endian, into `out` (which
   * holds exactly those rows).
   */
  fillRows(row0: number, row1: number, out: DataView): void;
  /** Further tags (GeoTIFF, GDAL): any numbers but those this writer sets. */
  tags: readonly TiffTag[];
}

/** Uncompressed bytes a strip holds at most: small enough to deflate within a turn's slice. */
const STRIP_BYTES = 1 << 17;

interface EncodedImage {
  image: TiffImage;
  rowsPerStrip: number;
  strips: Uint8Array[];
}

/** The TIFF file of `images` (the first the full-resolution one), as pieces in order. */
export async function writeTiff(images: readonly TiffImage[], signal?: AbortSignal): Promise<Uint8Array[]> {
  const encoded: EncodedImage[] = [];
  for (const image of images) encoded.push(await encodeStrips(image, signal));

  // IFD sizes do not depend on where the strips go: lay the IFDs out first, then place the strips.
  const ifdSizes = encoded.map((e) => ifdBytes(allTags(e, e.strips.map(() => 0))));
  let stripOffset = 8 + ifdSizes.reduce((a, b) => a + b, 0);
  const pieces: Uint8Array[] = [];
  const header = new DataView(new ArrayBuffer(8));
  header.setUint16(0, 0x4949, true); // "II": little-endian
  header.setUint16(2, 42, true);
  header.setUint32(4, 8, true); // the first IFD follows the header
  pieces.push(new Uint8Array(header.buffer));
  let ifdOffset = 8;
  encoded.forEach((e, k) => {
    const offsets = e.strips.map((s) => {
      const at = stripOffset;
      stripOffset += s.length;
      return at;
    });
    if (stripOffset > 0xffffffff) throw new RangeError('TIFF over 4 GiB'); // the raster bound keeps answers far below
    const next = k + 1 < encoded.length ? ifdOffset + ifdSizes[k]! : 0;
    pieces.push(writeIfd(allTags(e, offsets), ifdOffset, next));
    ifdOffset += ifdSizes[k]!;
  });
  for (const e of encoded) pieces.push(...e.strips);
  return pieces;
}

async function encodeStrips(image: TiffImage, signal?: AbortSignal): Promise<EncodedImage> {
  const rowBytes = image.width * image.samplesPerPixel * (image.sample.bits / 8);
  const rowsPerStrip = Math.max(1, Math.min(image.height, Math.floor(STRIP_BYTES / rowBytes)));
  const strips: Uint8Array[] = [];
  for (let row0 = 0; row0 < image.height; row0 += rowsPerStrip) {
    const row1 = Math.min(image.height, row0 + rowsPerStrip);
    const raw = new Uint8Array((row1 - row0) * rowBytes);
    image.fillRows(row0, row1, new DataView(raw.buffer));
    strips.push(deflateSync(raw));
    if (turnDue()) await takeTurn(signal);
  }
  return { image, rowsPerStrip, strips };
}

function allTags(e: EncodedImage, stripOffsets: readonly number[]): TiffTag[] {
  const { image } = e;
  const spp = image.samplesPerPixel;
  const perSample = (v: number) => Array.from({ length: spp }, () => v);
  const tags: TiffTag[] = [
    { tag: 254, type: 'long', values: [image.reducedResolution ? 1 : 0] },
    { tag: 256, type: 'long', values: [image.width] },
    { tag: 257, type: 'long', values: [image.height] },
    { tag: 258, type: 'short', values: perSample(image.sample.bits) },
    { tag: 259, type: 'short', values: [8] }, // Adobe DEFLATE
    { tag: 262, type: 'short', values: [1] }, // BlackIsZero
    { tag: 273, type: 'long', values: stripOffsets },
    { tag: 277, type: 'short', values: [spp] },
    { tag: 278, type: 'long', values: [e.rowsPerStrip] },
    { tag: 279, type: 'long', values: e.strips.map((s) => s.length) },
    { tag: 284, type: 'short', values: [1] }, // chunky: samples interleaved per pixel
    ...(spp > 1 ? [{ tag: 338, type: 'short' as const, values: perSample(0).slice(1) }] : []),
    { tag: 339, type: 'short', values: perSample(image.sample.format === 'float' ? 3 : 1) },
    ...image.tags,
  ];
  return tags.sort((a, b) => a.tag - b.tag);
}

function countOf(t: TiffTag): number {
  return t.type === 'ascii' ? Buffer.byteLength(t.value, 'utf8') + 1 : t.values.length;
}
function valueBytes(t: TiffTag): number {
  return countOf(t) * TYPE_SIZE[TIFF_TYPE[t.type]]!;
}
/** Out-of-line values start on a word boundary (TIFF 6.0). */
const even = (n: number) => n + (n & 1);

/** Bytes of an IFD with its out-of-line values: count, 12-byte entries, next-IFD offset, then values over 4 bytes. */
function ifdBytes(tags: readonly TiffTag[]): number {
  return even(2 + 12 * tags.length + 4) + tags.reduce((s, t) => s + (valueBytes(t) > 4 ? even(valueBytes(t)) : 0), 0);
}

function writeIfd(tags: readonly TiffTag[], at: number, next: number): Uint8Array {
  const size = ifdBytes(tags);
  const buf = new Uint8Array(size);
  const view = new DataView(buf.buffer);
  view.setUint16(0, tags.length, true);
  let extra = even(2 + 12 * tags.length + 4);
  tags.forEach((t, i) => {
    const entry = 2 + 12 * i;
    const type = TIFF_TYPE[t.type];
    view.setUint16(entry, t.tag, true);
    view.setUint16(entry + 2, type, true);
    view.setUint32(entry + 4, countOf(t), true);
    const bytes = valueBytes(t);
    let pos = entry + 8; // values of 4 bytes or less sit in the entry itself, left-justified
    if (bytes > 4) {
      view.setUint32(entry + 8, at + extra, true);
      pos = extra;
      extra += even(bytes);
    }
    if (t.type === 'ascii') {
      buf.set(Buffer.from(t.value, 'utf8'), pos); // the NUL terminator is the zero already there
      return;
    }
    for (const v of t.values) {
      if (t.type === 'short') view.setUint16(pos, v, true);
      else if (t.type === 'long') view.setUint32(pos, v, true);
      else view.setFloat64(pos, v, true);
      pos += TYPE_SIZE[type]!;
    }
  });
  view.setUint32(2 + 12 * tags.length, next, true);
  return buf;
}
