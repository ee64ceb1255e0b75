/**
 * Exact medians of many slots (sub-zones) at once, within a per-request bound on the values kept.
 * A median needs every value, unlike the other statistics, which stream: the values are packed
 * as (slot, value) pairs, 12 bytes each, and a request that would keep more than its allowance
 * is refused as soon as it crosses it.
 */

/** The per-request allowance was crossed; adapters answer it with a 422 carrying `hint`. */
export class MedianBoundError extends Error {
  override readonly name = 'MedianBoundError';
  readonly hint: string;
  constructor(readonly max: number) {
    super('Too many values for a median');
    this.hint = `A median keeps every value, and this request needs more than ${max} (limits.maxMedianValues). Ask fewer depths, a smaller zone, a datetime or filter, or statistics other than median.`;
  }
}

/** The per-request allowance of kept median values, shared by every depth and field. */
export class MedianBudget {
  private used = 0;
  constructor(readonly max: number) {}

  take(n = 1): void {
    this.used += n;
    if (this.used > this.max) throw new MedianBoundError(this.max);
  }
}

/** Valid values per slot for exact medians, packed as (slot, value) pairs in growing typed arrays. */
export class MedianStore {
  private slots = new Int32Array(1024);
  private values = new Float64Array(1024);
  private n = 0;
  constructor(
    private readonly size: number,
    private readonly budget: MedianBudget,
  ) {}

  add(slot: number, v: number): void {
    this.budget.take();
    if (this.n === this.values.length) {
      const slots = new Int32Array(this.n * 2);
      slots.set(this.slots);
      const values = new Float64Array(this.n * 2);
      values.set(this.values);
      this.slots = slots;
      this.values = values;
    }
    this.slots[this.n] = slot;
    this.values[this.n++] = v;
  }

  /** Bucket the values by slot (counting sort), then sort each bucket and take its middle. */
  medians(): (number | null)[] {
    const start = new Int32Array(this.size + 1);
    for (let i = 0; i < this.n; i++) start[this.slots[i]! + 1]!++;
    for (let s = 0; s < this.size; s++) start[s + 1]! += start[s]!;
    const fill = start.slice(0, this.size);
    const sorted = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) sorted[fill[this.slots[i]!]!++] = this.values[i]!;
    const out: (number | null)[] = new Array(this.size);
    for (let s = 0; s < this.size; s++) out[s] = medianOfSorted(sorted.subarray(start[s]!, start[s + 1]!).sort());
    return out;
  }
}

/** The middle of ascending values (the mean of the two middle ones for an even count); null for none. */
export function medianOfSorted(sorted: Float64Array): number | null {
  const m = sorted.length >> 1;
  return sorted.length === 0 ? null : sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}
