/** Default bound of the shared cache of decoded raster tiles (`rasters.tileCacheBytes`). */
export const DEFAULT_TILE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * What one entry costs beyond its samples (key, map slots, the promise): it keeps an archive's
 * empty tiles, which hold no samples, from growing the cache without bound.
 */
const ENTRY_OVERHEAD = 128;

/** A decoded tile: an ArrayBuffer or a typed array (its byteLength is what it costs), or undefined for a tile the file does not have. */
export type DecodedTile = { readonly byteLength: number } | undefined;

interface Entry {
  value: DecodedTile;
  bytes: number;
}

/**
 * Decoded raster tiles shared by every trusted (configured) raster of the readers, least recently
 * used evicted first, bounded by the bytes of the tiles' samples. Decoding (inflate, predictor,
 * PNG, value encoding) is most of a raster read; the same zones and their neighbours read the
 * same tiles over and over.
 *
 * Keys are scoped by a namespace that each open dataset takes (`namespace()`): a tile of one open
 * can never answer another open's read, whatever their hrefs, and a re-opened (possibly changed)
 * file starts afresh. Concurrent reads of a tile share one decode. A bound of 0 disables it: every
 * read decodes.
 */
export class DecodedTileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<DecodedTile>>();
  private nextNamespace = 0;
  private held = 0;
  /** Decodes started (misses) and reads answered from memory or from a decode in flight (hits). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(readonly maxBytes = DEFAULT_TILE_CACHE_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new RangeError(`tile cache bound must be a whole number of bytes >= 0, not ${maxBytes}`);
  }

  /** Bytes the cached tiles hold now (never more than maxBytes). */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.entries.size;
  }

  /** A fresh key prefix for one open dataset. */
  namespace(): string {
    return `d${this.nextNamespace++}`;
  }

  /** The tile under `key`, decoded by `load` unless cached or already being decoded. A failed load is not kept. */
  get<T extends DecodedTile>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.maxBytes === 0) {
      this.stats.misses++;
      return load();
    }
    const hit = this.entries.get(key);
    if (hit) {
      this.stats.hits++;
      // Re-insert: the Map's order is the recency order, least recent first.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return Promise.resolve(hit.value as T);
    }
    const pending = this.loading.get(key);
    if (pending) {
      this.stats.hits++;
      return pending as Promise<T>;
    }
    this.stats.misses++;
    const p = load();
    this.loading.set(key, p);
    p.then(
      (value) => {
        // Kept only while still wanted: its dataset may have been closed (dropped) meanwhile.
        if (this.loading.get(key) !== p) return;
        this.loading.delete(key);
        this.store(key, value);
      },
      () => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      },
    );
    return p;
  }

  /** Forgets every tile of a namespace (its dataset was closed), and keeps none of its decodes still in flight. */
  drop(namespace: string): void {
    const prefix = `${namespace}/`;
    for (const key of this.loading.keys()) if (key.startsWith(prefix)) this.loading.delete(key);
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(prefix)) continue;
      this.entries.delete(key);
      this.held -= entry.bytes;
    }
  }

  private store(key: string, value: DecodedTile): void {
    const bytes = (value?.byteLength ?? 0) + ENTRY_OVERHEAD;
    if (bytes > this.maxBytes) return; // larger than the whole cache: it would only evict everything
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    for (const [k, e] of this.entries) {
      if (this.held + bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.held -= e.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
  }
}
