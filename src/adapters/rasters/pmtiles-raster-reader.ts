import { open as openFile, type FileHandle } from 'node:fs/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { Compression, PMTiles, TileType, type Header, type RangeResponse, type Source } from 'pmtiles';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import type { RasterDataset, RasterInfo, RasterReader, RasterWindow, WindowRequest } from '../../ports/raster-reader.js';
import { AppError, InvalidRequestError, TooLargeError } from '../../ports/errors.js';
import type { SourceVersion } from '../../ports/source-version.js';
import type { GuardedRangeReader } from './guarded-http.js';
import { fileStamp, locateRaster, readFailure, type TrustedFailureReport } from './raster-location.js';
import { DatasetCache, trustedPolicy, type CachedDataset } from './dataset-cache.js';
import { DecodedTileCache } from './decoded-tile-cache.js';
import type { FetchPolicy } from './url-guard.js';
import { checkWindow, DEFAULT_MAX_WINDOW_SAMPLES } from './window-bound.js';
import { decodePng } from './png-decoder.js';
import { decodeValues, parseValueEncoding, VALUE_ENCODINGS, type ValueEncoding } from './pmtiles-value-encoding.js';

export { VALUE_ENCODINGS, type ValueEncoding } from './pmtiles-value-encoding.js';

/** EPSG:3857 as proj4 states it; tiles are Web Mercator XYZ whatever the archive says. */
const WEB_MERCATOR = '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs';
const MAX_LAT = 85.0511287798066;
const OPEN_CACHE = 16;
/**
 * Decoded tiles one client-URL open keeps for its own request (64 tiles of 256x256 float32); it
 * dies with the open. Trusted archives use the shared cache instead.
 */
const PRIVATE_TILE_BYTES = 64 * 256 * 256 * 4;
/** A window needing more tiles than this asked for the wrong zoom; refuse rather than stall. */
const MAX_TILES_PER_WINDOW = 1024;
const FETCH_CONCURRENCY = 8;

export interface PmtilesReaderOptions {
  /** Value encoding configured for an archive (the collection's `valueEncoding`); undefined: use the archive's metadata. */
  encodingFor?: (href: string) => ValueEncoding | undefined;
  cwd?: string;
  /** Bound of one window read in pixels (`limits.maxRasterWindowSamples`). */
  maxWindowSamples?: number;
  /** Decoded tiles of trusted archives, shared with the other readers (`rasters.tileCacheBytes`). */
  tileCache?: DecodedTileCache;
  /** Told why a configured archive failed (its answer does not say). */
  onTrustedFailure?: TrustedFailureReport;
}

/**
 * The raster-reader adapter for raster PMTiles v3 archives of value-encoded PNG tiles
 * (terrarium, mapbox-terrain-rgb or gray). Zoom levels play the part of overviews: the max zoom
 * is "full resolution", overview n is zoom max - n. Pixel coordinates of a window are global
 * Web Mercator pixels at the chosen zoom.
 */
export class PmtilesRasterReader implements RasterReader {
  private readonly trusted = new DatasetCache<PmtilesDataset>(OPEN_CACHE, (href) => fileStamp(href, this.cwd));
  private readonly cwd: string;
  private readonly tiles: DecodedTileCache;

  constructor(private readonly untrusted: FetchPolicy, private readonly options: PmtilesReaderOptions = {}) {
    this.cwd = options.cwd ?? process.cwd();
    this.tiles = options.tileCache ?? new DecodedTileCache();
  }

  async open(href: string, access: { trusted: boolean }): Promise<RasterDataset> {
    if (!access.trusted) return this.load(href, this.untrusted, false);
    return this.trusted.get(href, () => this.load(href, trustedPolicy(this.untrusted), true));
  }

  version(href: string): Promise<SourceVersion | undefined> {
    return this.trusted.version(href, () => this.load(href, trustedPolicy(this.untrusted), true));
  }

  private async load(href: string, policy: FetchPolicy, trusted: boolean): Promise<PmtilesDataset> {
    let source: Source & { close?: () => Promise<void> };
    let remote: GuardedRangeReader | undefined;
    try {
      const at = await locateRaster(href, this.cwd, policy, trusted);
      if (at.kind === 'file') source = new LocalFileSource(at.path);
      else {
        remote = at.remote;
        source = new GuardedSource(remote);
      }
      // A client's URL gets a cache of its own: its tiles never serve, nor evict, anyone else's.
      const cache = trusted ? this.tiles : new DecodedTileCache(PRIVATE_TILE_BYTES);
      const report = { href, to: this.options.onTrustedFailure };
      const context = { trusted, remote, maxWindowSamples: this.options.maxWindowSamples ?? DEFAULT_MAX_WINDOW_SAMPLES, tiles: { cache, namespace: cache.namespace() }, report };
      return await PmtilesDataset.create(href, source, this.options.encodingFor?.(href), context);
    } catch (err) {
      throw readFailure(err, remote, trusted, 'is not a readable PMTiles archive', undefined, { href, to: this.options.onTrustedFailure });
    }
  }
}

interface DatasetContext {
  trusted: boolean;
  /** The http reader behind a remote archive, holding the failure a read ran into. */
  remote: GuardedRangeReader | undefined;
  maxWindowSamples: number;
  /** Where this open's decoded tiles are kept, and its key prefix there. */
  tiles: { cache: DecodedTileCache; namespace: string };
  report: { href: string; to: TrustedFailureReport | undefined };
}

/** Range reads of a local file; the descriptor reopens if the dataset was closed while still cached. */
class LocalFileSource implements Source {
  private handle?: Promise<FileHandle>;
  constructor(private readonly file: string) {}
  getKey(): string {
    return this.file;
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    this.handle ??= openFile(this.file, 'r');
    const fh = await this.handle;
    const buf = new Uint8Array(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return { data: buf.buffer.slice(0, bytesRead) };
  }
  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    await (await h?.catch(() => undefined))?.close();
  }
}

/** Range reads over http(s) for the pmtiles library, through the guarded reader. */
class GuardedSource implements Source {
  constructor(private readonly remote: GuardedRangeReader) {}
  getKey(): string {
    return this.remote.url;
  }
  async getBytes(offset: number, length: number, signal?: AbortSignal): Promise<RangeResponse> {
    const { data, etag } = await this.remote.read(offset, length, signal);
    return { data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer, ...(etag ? { etag } : {}) };
  }
}

/** Directory / metadata / tile decompression with node:zlib (the package's default relies on browser streams). */
async function decompress(buf: ArrayBuffer, compression: Compression): Promise<ArrayBuffer> {
  const bytes = new Uint8Array(buf);
  let out: Uint8Array;
  switch (compression) {
    case Compression.None:
    case Compression.Unknown:
      return buf;
    case Compression.Gzip:
      out = gunzipSync(bytes);
      break;
    case Compression.Brotli:
      out = brotliDecompressSync(bytes);
      break;
    case Compression.Zstd: {
      const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Uint8Array }).zstdDecompressSync;
      if (!zstd) throw new Error('zstd compression needs a Node.js with zlib zstd support');
      out = zstd(bytes);
      break;
    }
    default:
      throw new Error(`unknown compression ${compression as number}`);
  }
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
}

/** Web Mercator pixel maths at a zoom with square tiles of `tileSize` pixels. */
const worldPixels = (tileSize: number, z: number) => tileSize * 2 ** z;
const clampLat = (lat: number) => Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
function mercToPixel(lon: number, lat: number, world: number): [number, number] {
  const r = (clampLat(lat) * Math.PI) / 180;
  return [((lon + 180) / 360) * world, ((1 - Math.log(Math.tan(Math.PI / 4 + r / 2)) / Math.PI) / 2) * world];
}
function pixelToMerc(x: number, y: number, world: number): [number, number] {
  return [(x / world) * 360 - 180, (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / world))) * 180) / Math.PI];
}
/**
 * Side in degrees of the square of equal area to a pixel at a latitude, as the GeoTIFF adapter
 * measures projected pixels: a Mercator pixel spans d degrees of longitude and d*cos(lat) of latitude.
 */
const pixelDegrees = (world: number, lat: number) => (360 / world) * Math.sqrt(Math.cos((clampLat(lat) * Math.PI) / 180));

class PmtilesDataset implements CachedDataset {
  private constructor(
    readonly info: RasterInfo,
    private readonly archive: PMTiles,
    private readonly source: Source & { close?: () => Promise<void> },
    private readonly header: Header,
    private readonly tileSize: number,
    private readonly encoding: ValueEncoding,
    private readonly context: DatasetContext,
  ) {}

  get remote(): GuardedRangeReader | undefined {
    return this.context.remote;
  }

  static async create(href: string, source: Source & { close?: () => Promise<void> }, configured: ValueEncoding | undefined, context: DatasetContext): Promise<PmtilesDataset> {
    const archive = new PMTiles(source, undefined, decompress);
    const header = await archive.getHeader();
    if (header.specVersion !== 3) throw new Error(`PMTiles spec version ${header.specVersion} is not supported (v3 is)`);
    if (header.tileType !== TileType.Png) {
      const name = TileType[header.tileType] ?? String(header.tileType);
      throw new InvalidRequestError('Raster tile format not supported', header.tileType === TileType.Webp
        ? 'The PMTiles archive holds WebP tiles; no WebP decoder is installed, so only PNG tiles (terrarium, mapbox-terrain-rgb or gray) are read.'
        : `The PMTiles archive holds ${name} tiles; only value-encoded PNG raster tiles are read.`);
    }
    if (header.minZoom > header.maxZoom) throw new Error('header zoom range is empty');
    const metadata = (await archive.getMetadata().catch(() => ({}))) as Record<string, unknown> | undefined;
    const encoding = configured ?? parseValueEncoding(metadata?.encoding);
    if (!encoding) {
      throw new InvalidRequestError('Raster value encoding unknown', `The PMTiles archive does not say how its colours encode values; set the collection's valueEncoding to one of ${VALUE_ENCODINGS.join(', ')}.`);
    }
    const tileSize = await probeTileSize(archive, header, metadata);
    const bbox: BBox = [header.minLon, clampLat(header.minLat), header.maxLon, clampLat(header.maxLat)];
    const world = worldPixels(tileSize, header.maxZoom);
    const [x0, y0] = mercToPixel(bbox[0], bbox[3], world), [x1, y1] = mercToPixel(bbox[2], bbox[1], world);
    const info: RasterInfo = {
      href,
      // The data's extent in full-resolution pixels (window pixel coordinates are global ones).
      width: Math.max(1, Math.ceil(x1) - Math.floor(x0)),
      height: Math.max(1, Math.ceil(y1) - Math.floor(y0)),
      bandCount: 1,
      crs: WEB_MERCATOR,
      isGeographic: false,
      bboxLonLat: bbox,
      pixelSizeDegrees: pixelDegrees(world, (bbox[1] + bbox[3]) / 2),
      dataType: encoding === 'gray' ? 'uint8' : 'float32',
      overviewCount: header.maxZoom - header.minZoom,
    };
    return new PmtilesDataset(info, archive, source, header, tileSize, encoding, context);
  }

  async readWindow(req: WindowRequest): Promise<RasterWindow> {
    for (const b of req.bands) {
      if (b !== 1) throw new InvalidRequestError('Unknown band', `The raster has bands 1..1; band ${b} does not exist.`);
    }
    const [w, s, e, n] = req.bbox;
    const midLat = (s + n) / 2;
    // Coarsest zoom still fine enough, like the coarsest sufficient overview; max zoom if none is.
    let z = this.header.maxZoom;
    for (let zz = this.header.maxZoom; zz >= this.header.minZoom; zz--) {
      if (pixelDegrees(worldPixels(this.tileSize, zz), midLat) <= req.maxPixelSizeDegrees * (1 + 1e-9)) z = zz;
    }
    const world = worldPixels(this.tileSize, z);
    const toPixel = (lon: number, lat: number) => mercToPixel(lon, lat, world);
    const toLonLat = (x: number, y: number) => pixelToMerc(x, y, world);
    // Only the part of the request inside the archive's bounds has tiles.
    const [bw, bs, be, bn] = this.info.bboxLonLat;
    const cw = Math.max(w, bw), cs = Math.max(s, bs), ce = Math.min(e, be), cn = Math.min(n, bn);
    let c0 = 0, r0 = 0, c1 = 0, r1 = 0;
    if (cw < ce && cs < cn) {
      const [px0, py0] = toPixel(cw, cn), [px1, py1] = toPixel(ce, cs);
      c0 = Math.max(0, Math.floor(px0));
      r0 = Math.max(0, Math.floor(py0));
      c1 = Math.min(world, Math.ceil(px1));
      r1 = Math.min(world, Math.ceil(py1));
    }
    const T = this.tileSize;
    const got = new Map<string, Float32Array>();
    checkWindow(Math.max(0, c1 - c0), Math.max(0, r1 - r0), req.bands.length, this.context.maxWindowSamples);
    if (c1 > c0 && r1 > r0) {
      const keys: [number, number][] = [];
      for (let ty = Math.floor(r0 / T); ty <= Math.floor((r1 - 1) / T); ty++) for (let tx = Math.floor(c0 / T); tx <= Math.floor((c1 - 1) / T); tx++) keys.push([tx, ty]);
      if (keys.length > MAX_TILES_PER_WINDOW) throw new TooLargeError('Raster read exceeds the size limit', `The window needs ${keys.length} tiles at zoom ${z}, more than the ${MAX_TILES_PER_WINDOW} one read may fetch; ask for a smaller zone or a shallower zone-depth.`);
      try {
        for (let i = 0; i < keys.length; i += FETCH_CONCURRENCY) {
          await Promise.all(keys.slice(i, i + FETCH_CONCURRENCY).map(async ([tx, ty]) => {
            const t = await this.tile(z, tx, ty);
            if (t) got.set(`${tx}/${ty}`, t);
          }));
        }
      } catch (err) {
        throw readFailure(err, this.context.remote, this.context.trusted, 'could not be read', undefined, this.context.report);
      }
    }
    const noData = req.noData;
    return {
      width: world,
      height: world,
      bandCount: req.bands.length,
      overview: this.header.maxZoom - z,
      pixelSizeDegrees: pixelDegrees(world, midLat),
      dataBounds: [c0, r0, Math.max(c0, c1), Math.max(r0, r1)],
      toPixel,
      toLonLat,
      value(_band, col, row) {
        if (col < c0 || row < r0 || col >= c1 || row >= r1) return NaN;
        const t = got.get(`${Math.floor(col / T)}/${Math.floor(row / T)}`);
        if (!t) return NaN;
        const v = t[(row % T) * T + (col % T)]!;
        return v === noData ? NaN : v;
      },
    };
  }

  /** A decoded tile (NaN where transparent), undefined where the archive has none. */
  private tile(z: number, x: number, y: number): Promise<Float32Array | undefined> {
    const { cache, namespace } = this.context.tiles;
    return cache.get(`${namespace}/${z}/${x}/${y}`, () => this.fetchTile(z, x, y));
  }

  private async fetchTile(z: number, x: number, y: number): Promise<Float32Array | undefined> {
    const res = await this.archive.getZxy(z, x, y);
    if (!res) return undefined;
    try {
      const bytes = new Uint8Array(await decompress(res.data, this.header.tileCompression));
      const img = decodePng(bytes);
      if (img.width !== this.tileSize || img.height !== this.tileSize) throw new Error(`tile is ${img.width}x${img.height}, others are ${this.tileSize}x${this.tileSize}`);
      return decodeValues(img.rgba, this.encoding);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new InvalidRequestError('Raster could not be read', `Tile ${z}/${x}/${y} of the archive could not be decoded: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.context.tiles.cache.drop(this.context.tiles.namespace);
    await this.source.close?.();
  }
}

/** Tile size: the metadata's `tileSize` if stated, else the size of one real tile, else the usual 256. */
async function probeTileSize(archive: PMTiles, header: Header, metadata: Record<string, unknown> | undefined): Promise<number> {
  const stated = Number(metadata?.tileSize);
  if (Number.isInteger(stated) && stated > 0) return stated;
  const z = header.minZoom;
  const [x, y] = mercToPixel((header.minLon + header.maxLon) / 2, (clampLat(header.minLat) + clampLat(header.maxLat)) / 2, 2 ** z).map(Math.floor) as [number, number];
  const res = await archive.getZxy(z, x, y);
  if (!res) return 256;
  const png = new Uint8Array(await decompress(res.data, header.tileCompression));
  // IHDR width sits right after the 8-byte signature and the chunk's length and type.
  if (png.length >= 24) return new DataView(png.buffer, png.byteOffset).getUint32(16);
  return 256;
}
