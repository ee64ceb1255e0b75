/**
 * Deterministic PMTiles v3 and PNG writers for tests, so no binary archive is committed:
 * the contract suite writes a terrarium-encoded linear field into a temp dir at test time.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync, gzipSync } from 'node:zlib';
import { zxyToTileId } from 'pmtiles';

/** PNG of RGBA (or gray, RGB: `channels`) 8-bit pixels; rows use filters 0..4 in turn so a decoder meets all of them. */
export function encodePng(width: number, height: number, pixels: Uint8Array, channels: 1 | 2 | 3 | 4 = 4, opts: { bitDepth?: number; interlace?: number; colourType?: number } = {}): Uint8Array {
  const stride = width * channels;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const f = y % 5;
    raw[y * (stride + 1)] = f;
    for (let i = 0; i < stride; i++) {
      const x = pixels[y * stride + i]!;
      const a = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f]!;
      raw[y * (stride + 1) + 1 + i] = (x - pred) & 0xff;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = opts.bitDepth ?? 8;
  ihdr[9] = opts.colourType ?? { 1: 0, 2: 4, 3: 2, 4: 6 }[channels]!;
  ihdr[12] = opts.interlace ?? 0;
  const chunk = (type: string, data: Uint8Array): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  return new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array())]));
}

function varint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

export interface PmtilesInput {
  /** Tile bytes by `z/x/y` (XYZ, y from the top). */
  tiles: Map<string, Uint8Array>;
  bounds: [number, number, number, number];
  /** 2 = PNG, 4 = WebP (PMTiles tile types). */
  tileType?: number;
  metadata?: Record<string, unknown>;
  /** gzip the root directory and metadata (internal compression 2) instead of none (1). */
  gzipInternal?: boolean;
}

/** A PMTiles v3 archive: 127-byte header, root directory, JSON metadata, tile data (no leaf directories). */
export function pmtilesBytes(input: PmtilesInput): Uint8Array {
  const entries = [...input.tiles].map(([key, data]) => {
    const [z, x, y] = key.split('/').map(Number) as [number, number, number];
    return { id: zxyToTileId(z, x, y), z, data };
  }).sort((a, b) => a.id - b.id);
  const zooms = entries.map((e) => e.z);
  let offset = 0;
  const placed = entries.map((e) => {
    const p = { ...e, offset };
    offset += e.data.length;
    return p;
  });
  const dir: number[] = [];
  varint(dir, placed.length);
  let last = 0;
  for (const e of placed) {
    varint(dir, e.id - last);
    last = e.id;
  }
  for (const _ of placed) varint(dir, 1); // run lengths
  for (const e of placed) varint(dir, e.data.length);
  placed.forEach((e, i) => {
    // 0 means "right after the previous tile"; otherwise offset + 1.
    const prev = placed[i - 1];
    varint(dir, i > 0 && prev!.offset + prev!.data.length === e.offset ? 0 : e.offset + 1);
  });
  const gz = (b: Uint8Array): Uint8Array => (input.gzipInternal ? new Uint8Array(gzipSync(b)) : b);
  const root = gz(new Uint8Array(dir));
  const meta = gz(new Uint8Array(Buffer.from(JSON.stringify(input.metadata ?? {}))));
  const tileData = Buffer.concat(placed.map((e) => e.data));
  const h = Buffer.alloc(127);
  h.write('PMTiles', 0, 'latin1');
  h[7] = 3;
  const u64 = (at: number, v: number) => h.writeBigUInt64LE(BigInt(v), at);
  const rootAt = 127, metaAt = rootAt + root.length, dataAt = metaAt + meta.length;
  u64(8, rootAt); u64(16, root.length);
  u64(24, metaAt); u64(32, meta.length);
  u64(40, dataAt); u64(48, 0); // no leaf directories
  u64(56, dataAt); u64(64, tileData.length);
  u64(72, placed.length); u64(80, placed.length); u64(88, placed.length);
  h[96] = 1; // clustered: tiles stored in tile-id order
  h[97] = input.gzipInternal ? 2 : 1;
  h[98] = 1; // tiles themselves are not compressed (PNG already is)
  h[99] = input.tileType ?? 2;
  h[100] = Math.min(...zooms);
  h[101] = Math.max(...zooms);
  const [w, s, e, n] = input.bounds;
  h.writeInt32LE(Math.round(w * 1e7), 102); h.writeInt32LE(Math.round(s * 1e7), 106);
  h.writeInt32LE(Math.round(e * 1e7), 110); h.writeInt32LE(Math.round(n * 1e7), 114);
  h[118] = Math.min(...zooms);
  h.writeInt32LE(Math.round(((w + e) / 2) * 1e7), 119); h.writeInt32LE(Math.round(((s + n) / 2) * 1e7), 123);
  return new Uint8Array(Buffer.concat([h, root, meta, tileData]));
}

const lonOf = (x: number, world: number) => (x / world) * 360 - 180;
const latOf = (y: number, world: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / world))) * 180) / Math.PI;
const tileX = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
const tileY = (lat: number, z: number) => {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
};

/** Terrarium RGB of a value: value + 32768 = R*256 + G + B/256, rounded to 1/256. */
export function terrarium(v: number): [number, number, number] {
  const u = Math.round((v + 32768) * 256);
  return [(u >> 16) & 255, (u >> 8) & 255, u & 255];
}

/**
 * Tiles of `field` over `bounds` at zooms `minZoom..maxZoom`: each pixel whose centre lies
 * inside the bounds holds the field at that centre (encoded by `encode`, alpha 255); all others
 * are transparent (nodata).
 */
export function fieldTiles(field: (lon: number, lat: number) => number, bounds: [number, number, number, number], minZoom: number, maxZoom: number, encode: (v: number) => [number, number, number] = terrarium, tileSize = 256): Map<string, Uint8Array> {
  const [w, s, e, n] = bounds;
  const tiles = new Map<string, Uint8Array>();
  for (let z = minZoom; z <= maxZoom; z++) {
    const world = tileSize * 2 ** z;
    for (let tx = tileX(w, z); tx <= tileX(e, z); tx++) {
      for (let ty = tileY(n, z); ty <= tileY(s, z); ty++) {
        const px = new Uint8Array(tileSize * tileSize * 4);
        for (let r = 0; r < tileSize; r++) {
          const lat = latOf(ty * tileSize + r + 0.5, world);
          for (let c = 0; c < tileSize; c++) {
            const lon = lonOf(tx * tileSize + c + 0.5, world);
            if (lon < w || lon > e || lat < s || lat > n) continue;
            const o = (r * tileSize + c) * 4;
            [px[o], px[o + 1], px[o + 2]] = encode(field(lon, lat));
            px[o + 3] = 255;
          }
        }
        tiles.set(`${z}/${tx}/${ty}`, encodePng(tileSize, tileSize, px));
      }
    }
  }
  return tiles;
}

/** The contract fixture: 10*lon + 20*lat over lon 10..11, lat 45..46, terrarium, zooms 5..8. */
export function writeLinearFieldPmtiles(dir: string, opts: { metadata?: Record<string, unknown>; gzipInternal?: boolean; name?: string } = {}): string {
  const bounds: [number, number, number, number] = [10, 45, 11, 46];
  const file = path.join(dir, opts.name ?? 'linear-terrarium.pmtiles');
  const tiles = fieldTiles((lon, lat) => 10 * lon + 20 * lat, bounds, 5, 8);
  writeFileSync(file, pmtilesBytes({ tiles, bounds, metadata: opts.metadata ?? { name: 'linear field', encoding: 'terrarium' }, ...(opts.gzipInternal !== undefined ? { gzipInternal: opts.gzipInternal } : {}) }));
  return file;
}
