/** A least-recently-used map bounded by the bytes its values stand for (as the caller counts them). */
export class ByteLru<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;
  private hits = 0;
  private misses = 0;

  constructor(readonly maxBytes: number) {}

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key); // re-insert: Map order is the recency order
    this.entries.set(key, e);
    return e.value;
  }

  /** Values larger than the whole cache are not kept. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(k);
      this.total -= e.bytes;
    }
  }

  delete(key: K): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.total -= e.bytes;
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Lookups found and not found since the cache was made, and what it holds now. */
  stats(): { hits: number; misses: number; bytes: number; entries: number } {
    return { hits: this.hits, misses: this.misses, bytes: this.total, entries: this.entries.size };
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
