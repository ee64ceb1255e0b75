import { setImmediate as nextTurn } from 'node:timers/promises';
import { BaseClient, BaseResponse, fromCustomClient, fromFile, type BlockedSourceOptions, type GeoTIFF, type GeoTIFFImage, type RemoteSourceOptions, type TypedArray } from 'geotiff';
import { toProj4 } from 'geotiff-geokeys-to-proj4';
import proj4 from 'proj4';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import type { RasterDataset, RasterInfo, RasterReader, RasterWindow, WindowRequest } from '../../ports/raster-reader.js';
import { InvalidRequestError, TooLargeError } from '../../ports/errors.js';
import type { SourceVersion } from '../../ports/source-version.js';
import type { GuardedRangeReader } from './guarded-http.js';
import { fileStamp, locateRaster, readFailure, type TrustedFailureReport } from './raster-location.js';
import { DatasetCache, trustedPolicy, type CachedDataset } from './dataset-cache.js';
import { DecodedTileCache } from './decoded-tile-cache.js';
import type { FetchPolicy } from './url-guard.js';
import { checkWindow, DEFAULT_MAX_WINDOW_SAMPLES } from './window-bound.js';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** Remote reads go through a block cache: 64 KiB blocks, at most 256 of them (16 MiB) per open raster. */
const BLOCK_SIZE = 65_536;
const CACHE_BLOCKS = 256;
/** Trusted (config) rasters stay open between requests; client URLs never are (they bypass caching). */
const OPEN_CACHE = 16;
/**
 * A window is decoded a few tiles at a time, giving the event loop a turn between them, so one
 * large read never holds other clients up for longer than decoding these pixels takes (tens of ms).
 */
const CHUNK_PIXELS = 262_144;
/** Chunks in flight at once: the next one's bytes arrive while this one decodes. */
const CHUNK_CONCURRENCY = 2;

/** The raster-reader adapter for GeoTIFF / COG files, local or over http(s) with range requests. */
export class GeoTiffRasterReader implements RasterReader {
  private readonly trusted = new DatasetCache<GeoTiffDataset>(OPEN_CACHE, (href) => fileStamp(href, this.cwd));

  /**
   * @param untrusted policy for client-supplied URLs (the `rasterFetch` config)
   * @param cwd base of relative paths in config
   * @param maxWindowSamples bound of one window read (`limits.maxRasterWindowSamples`)
   * @param tiles decoded tiles of trusted rasters, shared with the other readers (`rasters.tileCacheBytes`)
   */
  constructor(
    private readonly untrusted: FetchPolicy,
    private readonly cwd = process.cwd(),
    private readonly maxWindowSamples = DEFAULT_MAX_WINDOW_SAMPLES,
    private readonly tiles = new DecodedTileCache(),
    /** Told why a configured raster failed (its answer does not say). */
    private readonly onTrustedFailure?: TrustedFailureReport,
  ) {}

  async open(href: string, access: { trusted: boolean }): Promise<RasterDataset> {
    if (!access.trusted) return this.load(href, this.untrusted, false);
    return this.trusted.get(href, () => this.load(href, trustedPolicy(this.untrusted), true));
  }

  version(href: string): Promise<SourceVersion | undefined> {
    return this.trusted.version(href, () => this.load(href, trustedPolicy(this.untrusted), true));
  }

  private async load(href: string, policy: FetchPolicy, trusted: boolean): Promise<GeoTiffDataset> {
    let remote: GuardedRangeReader | undefined;
    try {
      let tiff: GeoTIFF;
      const at = await locateRaster(href, this.cwd, policy, trusted);
      if (at.kind === 'file') tiff = await fromFile(at.path);
      else {
        remote = at.remote;
        // The typings omit the block options the function honours (it wraps the source in a BlockedSource).
        const blocks: BlockedSourceOptions = { blockSize: BLOCK_SIZE, cacheSize: CACHE_BLOCKS };
        tiff = await fromCustomClient(new GuardedClient(remote), blocks as RemoteSourceOptions);
      }
      // Only trusted rasters share decoded tiles: a client's URL never fills nor reads the cache.
      const tiles = trusted ? { cache: this.tiles, namespace: this.tiles.namespace() } : undefined;
      return await GeoTiffDataset.create(href, tiff, { trusted, remote, maxWindowSamples: this.maxWindowSamples, tiles, report: { href, to: this.onTrustedFailure } });
    } catch (err) {
      throw readFailure(err, remote, trusted, ...UNREADABLE, { href, to: this.onTrustedFailure });
    }
  }
}

/** Why an open or read failed when the bytes are no GeoTIFF: of a collection's raster, of a client's. */
const UNREADABLE = ['is not a readable GeoTIFF', 'did not give a readable GeoTIFF'] as const;

/** geotiff.js client whose every request is a guarded range read. */
class GuardedClient extends BaseClient {
  constructor(private readonly remote: GuardedRangeReader) {
    super(remote.url);
  }

  override async request(options: RequestInit = {}): Promise<BaseResponse> {
    const range = /^bytes=(\d+)-(\d+)$/.exec(new Headers(options.headers).get('range') ?? '');
    // geotiff.js asks single ranges only (maxRanges 0); anything else is a bug here, not upstream.
    if (!range) throw new Error('geotiff.js asked for a request that is not a single byte range');
    const offset = Number(range[1]), length = Number(range[2]) - offset + 1;
    const got = await this.remote.read(offset, length, options.signal ?? undefined);
    // Always a 206 to the library: a host that ignored Range has been handled by the reader.
    const end = offset + Math.max(0, got.data.length - 1);
    return new GuardedResponse(206, { 'content-range': `bytes ${offset}-${end}/${got.total ?? '*'}` }, got.data);
  }
}

class GuardedResponse extends BaseResponse {
  constructor(private readonly status_: number, private readonly headers_: Record<string, string | undefined>, private readonly body: Uint8Array) {
    super();
  }
  override get ok(): boolean {
    return this.status_ >= 200 && this.status_ < 300;
  }
  override get status(): number {
    return this.status_;
  }
  override getHeader(name: string): string | undefined {
    return this.headers_[name.toLowerCase()];
  }
  override async getData(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.body;
    // A body that owns its whole buffer goes as it is: no copy of every range.
    if (byteOffset === 0 && byteLength === buffer.byteLength) return buffer as ArrayBuffer;
    return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
  }
}

interface Level {
  image: GeoTIFFImage;
  width: number;
  height: number;
  resX: number;
  resY: number;
}

interface DatasetOptions {
  trusted: boolean;
  /** The http reader behind a remote raster, holding the failure a read ran into. */
  remote: GuardedRangeReader | undefined;
  maxWindowSamples: number;
  /** The shared decoded-tile cache and this open's key prefix in it; undefined: decode every read. */
  tiles: { cache: DecodedTileCache; namespace: string } | undefined;
  report: { href: string; to: TrustedFailureReport | undefined };
}

const SAMPLE_TYPES: Record<string, string> = { '1/8': 'uint8', '1/16': 'uint16', '1/32': 'uint32', '2/8': 'int8', '2/16': 'int16', '2/32': 'int32', '3/32': 'float32', '3/64': 'float64' };

class GeoTiffDataset implements CachedDataset {
  private constructor(
    readonly info: RasterInfo,
    private readonly tiff: GeoTIFF,
    private readonly levels: Level[],
    private readonly originX: number,
    private readonly originY: number,
    private readonly toNative: (p: [number, number]) => [number, number],
    private readonly toLonLat: (p: [number, number]) => [number, number],
    private readonly scales: number[],
    private readonly offsets: number[],
    private readonly options: DatasetOptions,
  ) {}

  static async create(href: string, tiff: GeoTIFF, options: DatasetOptions): Promise<GeoTiffDataset> {
    const count = await tiff.getImageCount();
    const full = await tiff.getImage(0);
    const levels: Level[] = [];
    for (let i = 0; i < count; i++) {
      const image = i === 0 ? full : await tiff.getImage(i);
      const subfile = Number(image.fileDirectory.getValue('NewSubfileType') ?? 0);
      if (i > 0 && subfile & 4) continue; // transparency masks are not data
      const [resX, resY] = image.getResolution(full);
      if (options.tiles) cacheDecodedTiles(image, options.tiles.cache, `${options.tiles.namespace}/${i}`);
      levels.push({ image, width: image.getWidth(), height: image.getHeight(), resX: Math.abs(resX!), resY: Math.abs(resY!) });
    }
    const keys = full.getGeoKeys() ?? {};
    let def = WGS84;
    let isGeographic = true;
    if ((keys as Record<string, unknown>).GeographicTypeGeoKey !== 4326 || (keys as Record<string, unknown>).ProjectedCSTypeGeoKey) {
      const p = toProj4(keys as never);
      if (!p.proj4 || Object.keys(p.errors ?? {}).length > 0) throw new InvalidRequestError('Raster CRS not supported', 'The raster has no CRS the service can read (GeoKeys).');
      def = p.proj4;
      isGeographic = p.isGCS;
    }
    const identity = def === WGS84;
    const conv = identity ? undefined : proj4(WGS84, def);
    const toNative = conv ? (p: [number, number]) => conv.forward(p) as [number, number] : (p: [number, number]) => p;
    const toLonLat = conv ? (p: [number, number]) => conv.inverse(p) as [number, number] : (p: [number, number]) => p;
    let [originX, originY] = full.getOrigin() as [number, number];
    const l0 = levels[0]!;
    // PixelIsPoint rasters give the centre of the first pixel, not its corner.
    if ((keys as Record<string, unknown>).GTRasterTypeGeoKey === 2) {
      originX -= l0.resX / 2;
      originY += l0.resY / 2;
    }
    const bandCount = full.getSamplesPerPixel();
    const scales: number[] = [], offsets: number[] = [];
    for (let b = 0; b < bandCount; b++) {
      const meta = ((await full.getGDALMetadata(b)) ?? {}) as Record<string, string>;
      scales.push(meta.SCALE !== undefined ? Number(meta.SCALE) : 1);
      offsets.push(meta.OFFSET !== undefined ? Number(meta.OFFSET) : 0);
    }
    const w = l0.width * l0.resX, h = l0.height * l0.resY;
    const corners: [number, number][] = [];
    for (let i = 0; i <= 8; i++) {
      const t = i / 8;
      corners.push([originX + w * t, originY], [originX + w * t, originY - h], [originX, originY - h * t], [originX + w, originY - h * t]);
    }
    const ll = corners.map(toLonLat);
    const bbox: BBox = [Math.min(...ll.map((p) => p[0])), Math.min(...ll.map((p) => p[1])), Math.max(...ll.map((p) => p[0])), Math.max(...ll.map((p) => p[1]))];
    const noData = full.getGDALNoData();
    const info: RasterInfo = {
      href,
      width: l0.width,
      height: l0.height,
      bandCount,
      crs: def,
      isGeographic,
      bboxLonLat: bbox,
      pixelSizeDegrees: 0,
      ...(noData !== null && noData !== undefined && Number.isFinite(noData) ? { noData } : {}),
      dataType: SAMPLE_TYPES[`${full.getSampleFormat(0) ?? 1}/${full.getBitsPerSample(0)}`] ?? 'unknown',
      overviewCount: levels.length - 1,
    };
    const ds = new GeoTiffDataset(info, tiff, levels, originX, originY, toNative, toLonLat, scales, offsets, options);
    info.pixelSizeDegrees = ds.degreesPerUnit([(bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2]) * Math.sqrt(l0.resX * l0.resY);
    return ds;
  }

  get remote(): GuardedRangeReader | undefined {
    return this.options.remote;
  }

  /** Degrees per native unit near a point, from the area scale of the projection (1 for geographic rasters). */
  private degreesPerUnit(at: [number, number]): number {
    if (this.info?.isGeographic ?? true) return 1;
    const d = 0.01;
    const a = this.toNative(at), b = this.toNative([at[0] + d, at[1]]), c = this.toNative([at[0], at[1] + d]);
    const det = Math.abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
    return d / Math.sqrt(det);
  }

  async readWindow(req: WindowRequest): Promise<RasterWindow> {
    for (const b of req.bands) {
      if (!Number.isInteger(b) || b < 1 || b > this.info.bandCount) throw new InvalidRequestError('Unknown band', `The raster has bands 1..${this.info.bandCount}; band ${b} does not exist.`);
    }
    const [w, s, e, n] = req.bbox;
    const centre: [number, number] = [(w + e) / 2, (s + n) / 2];
    const perUnit = this.degreesPerUnit(centre);
    // Coarsest level still fine enough; levels run from full resolution to coarsest.
    let index = 0;
    this.levels.forEach((l, i) => {
      if (perUnit * Math.sqrt(l.resX * l.resY) <= req.maxPixelSizeDegrees * (1 + 1e-9)) index = i;
    });
    const level = this.levels[index]!;
    const toPixel = (lon: number, lat: number): [number, number] => {
      const [x, y] = this.toNative([lon, lat]);
      return [(x - this.originX) / level.resX, (this.originY - y) / level.resY];
    };
    const toLonLat = (px: number, py: number): [number, number] => this.toLonLat([this.originX + px * level.resX, this.originY - py * level.resY]);
    const pts: [number, number][] = [];
    for (let i = 0; i <= 16; i++) {
      const t = i / 16;
      pts.push(toPixel(w + (e - w) * t, s), toPixel(w + (e - w) * t, n), toPixel(w, s + (n - s) * t), toPixel(e, s + (n - s) * t));
    }
    const c0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0]))));
    const r0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1]))));
    const c1 = Math.min(level.width, Math.ceil(Math.max(...pts.map((p) => p[0]))));
    const r1 = Math.min(level.height, Math.ceil(Math.max(...pts.map((p) => p[1]))));
    const ww = Math.max(0, c1 - c0), wh = Math.max(0, r1 - r0);
    checkWindow(ww, wh, req.bands.length, this.options.maxWindowSamples);
    const noData = req.noData ?? this.info.noData;
    const scales = req.bands.map((b) => this.scales[b - 1]!), offsets = req.bands.map((b) => this.offsets[b - 1]!);
    let bands: TypedArray[] = [];
    if (ww > 0 && wh > 0) {
      try {
        bands = await readChunked(level.image, [c0, r0, c1, r1], req.bands.map((b) => b - 1), this.options.maxWindowSamples);
      } catch (err) {
        throw readFailure(err, this.options.remote, this.options.trusted, ...UNREADABLE, this.options.report);
      }
    }
    return {
      width: level.width,
      height: level.height,
      bandCount: req.bands.length,
      overview: index,
      pixelSizeDegrees: perUnit * Math.sqrt(level.resX * level.resY),
      dataBounds: [c0, r0, c0 + ww, r0 + wh],
      toPixel,
      toLonLat,
      // Raw samples are kept in the file's own type (a quarter of float64 for 16-bit data) and
      // turned into values only when asked for.
      value(band, col, row) {
        const x = col - c0, y = row - r0;
        if (x < 0 || y < 0 || x >= ww || y >= wh) return NaN;
        const v = bands[band]![y * ww + x]!;
        return Number.isNaN(v) || v === noData ? NaN : v * scales[band]! + offsets[band]!;
      },
    };
  }

  async close(): Promise<void> {
    // geotiff.js file sources hold a descriptor; nothing to do for remote ones.
    const src = (this.tiff as unknown as { source?: { close?: () => Promise<void> } }).source;
    if (this.options.tiles) this.options.tiles.cache.drop(this.options.tiles.namespace);
    await src?.close?.();
  }
}

/**
 * Routes an image's tile decoding through the cache. geotiff.js reads every window through
 * getTileOrStrip (fetch, inflate, un-predict, normalise) and only reads the buffer it returns, so
 * a cached buffer gives the very same samples; the library's own cache (unbounded) stays off.
 */
function cacheDecodedTiles(image: GeoTIFFImage, cache: DecodedTileCache, prefix: string): void {
  const decode = image.getTileOrStrip.bind(image);
  image.getTileOrStrip = async (x, y, sample, poolOrDecoder, signal) => {
    const data = await cache.get(`${prefix}/${x}/${y}/${sample}`, async () => (await decode(x, y, sample, poolOrDecoder, signal)).data);
    return { x, y, sample, data };
  };
}

/**
 * Reads a window in tile-aligned chunks, each decoded on its own turn of the event loop, into
 * one array per sample of the file's own type. A tile or strip larger than the window bound is
 * refused: a file of one huge strip would otherwise be decoded whole for any window.
 */
async function readChunked(image: GeoTIFFImage, [c0, r0, c1, r1]: [number, number, number, number], samples: number[], maxSamples: number): Promise<TypedArray[]> {
  const tw = image.getTileWidth(), th = image.getTileHeight();
  const perBlock = tw * th * (image.planarConfiguration === 1 ? image.getSamplesPerPixel() : 1);
  if (perBlock > maxSamples) {
    throw new TooLargeError('Raster window exceeds the size limit', `The raster is stored in blocks (tiles or strips) of ${tw} x ${th} pixels, more than the ${maxSamples} samples (limits.maxRasterWindowSamples) one read may decode; use a tiled GeoTIFF (COG).`);
  }
  const ww = c1 - c0;
  const out = samples.map((s) => image.getArrayForSample(s, ww * (r1 - r0)));
  const across = Math.max(1, Math.floor(CHUNK_PIXELS / (tw * th)));
  const chunks: [number, number, number, number][] = [];
  for (let ty = Math.floor(r0 / th); ty * th < r1; ty++) {
    for (let tx = Math.floor(c0 / tw); tx * tw < c1; tx += across) {
      chunks.push([Math.max(c0, tx * tw), Math.max(r0, ty * th), Math.min(c1, (tx + across) * tw), Math.min(r1, (ty + 1) * th)]);
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const [x0, y0, x1, y1] = chunks[next++]!;
      let part: TypedArray[];
      try {
        part = (await image.readRasters({ window: [x0, y0, x1, y1], samples, interleave: false })) as unknown as TypedArray[];
      } catch (err) {
        next = chunks.length; // the other worker stops too: the window is lost anyway
        throw err;
      }
      const cw = x1 - x0;
      part.forEach((src, k) => {
        const dst = out[k]!;
        for (let y = y0; y < y1; y++) dst.set(src.subarray((y - y0) * cw, (y - y0 + 1) * cw), (y - r0) * ww + (x0 - c0));
      });
      await nextTurn();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHUNK_CONCURRENCY, chunks.length) }, worker));
  return out;
}
