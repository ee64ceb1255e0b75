/** The per-band statistics a sub-zone can report. */
export const STATISTICS = ['count', 'valid', 'min', 'max', 'mean', 'median', 'stdDev'] as const;
export type Statistic = (typeof STATISTICS)[number];

export function isStatistic(s: string): s is Statistic {
  return (STATISTICS as readonly string[]).includes(s);
}

/**
 * Running statistics of many cells at once (one slot per sub-zone): Welford's update keeps the
 * variance stable, values are only kept when a median is wanted.
 */
export class StatAccumulator {
  readonly count: Float64Array;
  readonly valid: Float64Array;
  private readonly mean: Float64Array;
  private readonly m2: Float64Array;
  private readonly min: Float64Array;
  private readonly max: Float64Array;
  private readonly kept: number[][] | undefined;

  constructor(readonly size: number, keepValues: boolean) {
    this.count = new Float64Array(size);
    this.valid = new Float64Array(size);
    this.mean = new Float64Array(size);
    this.m2 = new Float64Array(size);
    this.min = new Float64Array(size).fill(Infinity);
    this.max = new Float64Array(size).fill(-Infinity);
    this.kept = keepValues ? Array.from({ length: size }, () => []) : undefined;
  }

  /** One sample of slot `i`; NaN is a sample without a valid value (nodata or off the raster). */
  add(i: number, v: number): void {
    this.count[i]! += 1;
    if (Number.isNaN(v)) return;
    const n = (this.valid[i]! += 1);
    const d = v - this.mean[i]!;
    this.mean[i]! += d / n;
    this.m2[i]! += d * (v - this.mean[i]!);
    if (v < this.min[i]!) this.min[i] = v;
    if (v > this.max[i]!) this.max[i] = v;
    this.kept?.[i]!.push(v);
  }

  /** Forgets slot `i`'s samples (it is about to be sampled again, more densely). */
  reset(i: number): void {
    this.count[i] = 0;
    this.valid[i] = 0;
    this.mean[i] = 0;
    this.m2[i] = 0;
    this.min[i] = Infinity;
    this.max[i] = -Infinity;
    if (this.kept) this.kept[i] = [];
  }

  /** Values of one statistic for every slot; null where a slot has no valid sample. */
  result(stat: Statistic): (number | null)[] {
    const out: (number | null)[] = new Array(this.size);
    for (let i = 0; i < this.size; i++) {
      const n = this.valid[i]!;
      if (stat === 'count') out[i] = this.count[i]!;
      else if (stat === 'valid') out[i] = n;
      else if (n === 0) out[i] = null;
      else if (stat === 'min') out[i] = this.min[i]!;
      else if (stat === 'max') out[i] = this.max[i]!;
      else if (stat === 'mean') out[i] = this.mean[i]!;
      // Population standard deviation: the samples are the whole sub-zone, not a sample of it.
      else if (stat === 'stdDev') out[i] = Math.sqrt(this.m2[i]! / n);
      else out[i] = median(this.kept?.[i] ?? []);
    }
    return out;
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
