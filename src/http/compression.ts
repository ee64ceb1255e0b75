import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';
import { varyOn } from './vary-headers.js';

export interface CompressionConfig {
  enabled: boolean;
  /** Bodies known to be smaller are sent as they are. */
  minBytes: number;
  brotliQuality: number;
  gzipLevel: number;
}

/** How one answer's body is encoded, once a coding was chosen for it. */
export interface BodyEncoder {
  /** A whole body, compressed on the thread pool (never on the event loop). */
  buffer(bytes: Buffer): Promise<Buffer>;
  /** A streamed body: compressed as the client reads it, destroyed with it. */
  stream(body: Readable): Readable;
}

/**
 * Media that are compressed already, or read by byte ranges (compressing them again costs CPU and
 * saves nothing): images but SVG (PNG, JPEG, JPEG XL, GeoTIFF), parquet and GeoParquet (their
 * pages are compressed), archives (zipped Zarr: its entries are deflated), PMTiles, and bytes of unknown type.
 */
const PRECOMPRESSED = /^(?:image\/(?!svg\+xml)|video\/|audio\/|font\/woff2?\b|application\/(?:vnd\.apache\.parquet|zarr\+zip|vnd\.geo\+parquet|zip|gzip|x-gzip|zstd|x-bzip2|x-xz|x-7z-compressed|vnd\.pmtiles|octet-stream)\b)/i;

/** The codings offered, in the service's order of preference when the client likes several alike: br is smaller at the same cost. */
const CODINGS = ['br', 'gzip', 'identity'] as const;
type Coding = (typeof CODINGS)[number];

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Compression of answers, negotiated by `Accept-Encoding` (q-values, `identity`, `*`). Left as
 * they are: precompressed media (above), partial content (206, or any answer with
 * `Content-Range`), answers already encoded, bodiless ones (204, 304, HEAD) and bodies known to
 * be under `minBytes`.
 */
export class ResponseCompression {
  constructor(private readonly config: CompressionConfig) {}

  /**
   * The encoder of an answer about to be written (its headers already set on `res`), or undefined
   * to send it as it is. `length` is the body's size when known. Choosing a coding sets
   * `Content-Encoding`, drops `Content-Length` and `Accept-Ranges` (they described the identity
   * bytes) and makes a strong `ETag` weak: the compressed bytes are not the identity ones, while
   * `If-None-Match` (a weak comparison) still matches. Whenever the coding depends on the
   * request, the answer varies on `Accept-Encoding`.
   */
  encoderFor(res: ServerResponse, status: number, contentType: string, length: number | undefined): BodyEncoder | undefined {
    if (status < 200 || status === 204 || status === 206 || status === 304) return undefined;
    if (res.hasHeader('content-range') || res.hasHeader('content-encoding')) return undefined;
    if (length !== undefined && length < this.config.minBytes) return undefined;
    const coding = this.codingFor(res, contentType);
    if (coding === 'identity' || res.req?.method === 'HEAD') return undefined;

    res.setHeader('Content-Encoding', coding);
    res.removeHeader('Content-Length');
    res.removeHeader('Accept-Ranges');
    const etag = res.getHeader('etag');
    if (typeof etag === 'string') res.setHeader('ETag', weakened(etag));
    return coding === 'br' ? this.brotli(contentType, length) : this.gzip(length);
  }

  /**
   * The tag a `304` carries in place of an answer of `contentType` with tag `etag`: the one the
   * full answer would carry, weak when it would have been compressed for this request (whose
   * `Vary` it also gets). The body's size is unknown here: a body under `minBytes` would have kept
   * the strong tag, which If-None-Match's weak comparison matches all the same.
   */
  revalidatedTag(res: ServerResponse, contentType: string, etag: string): string {
    return this.codingFor(res, contentType) !== 'identity' ? weakened(etag) : etag;
  }

  /** The coding this request's answer of `contentType` gets (the answer then varies on Accept-Encoding), or identity when it is never compressed. */
  private codingFor(res: ServerResponse, contentType: string): Coding {
    if (!this.config.enabled || PRECOMPRESSED.test(contentType)) return 'identity';
    varyOn(res, 'Accept-Encoding');
    return preferredCoding(res.req?.headers['accept-encoding']);
  }

  private gzip(length: number | undefined): BodyEncoder {
    const options: zlib.ZlibOptions = { level: this.config.gzipLevel };
    // A window no larger than the body gives the same bytes, and a small body's compressor is set
    // up (on the event loop) in half the time: most of the cost of compressing a few KiB.
    if (length !== undefined) options.windowBits = Math.max(9, Math.min(15, Math.ceil(Math.log2(Math.max(1, length)))));
    return { buffer: (bytes) => gzip(bytes, options), stream: (body) => piped(body, zlib.createGzip(options)) };
  }

  private brotli(contentType: string, length: number | undefined): BodyEncoder {
    const params: Record<number, number> = {
      [zlib.constants.BROTLI_PARAM_QUALITY]: this.config.brotliQuality,
      [zlib.constants.BROTLI_PARAM_MODE]: /json|text|xml|javascript/.test(contentType) ? zlib.constants.BROTLI_MODE_TEXT : zlib.constants.BROTLI_MODE_GENERIC,
    };
    if (length !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = length;
    return { buffer: (bytes) => brotli(bytes, { params }), stream: (body) => piped(body, zlib.createBrotliCompress({ params })) };
  }
}

/** A strong tag made weak: compressed bytes are not the identity ones, and If-None-Match compares weakly. */
function weakened(etag: string): string {
  return etag.startsWith('"') ? `W/${etag}` : etag;
}

/** The coding to answer with; identity when the header names nothing we offer (or is absent). */
function preferredCoding(header: string | string[] | undefined): Coding {
  if (typeof header !== 'string') return 'identity';
  const negotiator = new Negotiator({ headers: { 'accept-encoding': header } });
  // negotiator 1.x breaks ties between equal q-values by `preferred` (its types predate it).
  const chosen = (negotiator.encodings as (available: readonly string[], options: { preferred: readonly string[] }) => string[])(CODINGS, { preferred: CODINGS })[0];
  return (chosen as Coding | undefined) ?? 'identity';
}

/**
 * `body` through `compressor`, with backpressure both ways; destroying the compressor (the client
 * left) destroys the body, and a failed body fails the compressor (the answer is then cut short).
 */
function piped(body: Readable, compressor: zlib.Gzip | zlib.BrotliCompress): Readable {
  // Errors reach whoever reads the compressor; this callback only keeps them from going unhandled.
  return pipeline(body, compressor, () => {});
}
