/**
 * A field's moments over a set of values: what a zone pyramid keeps per cell instead of the values,
 * from which count, mean, min, max and the population standard deviation follow, and which two
 * disjoint sets combine into the moments of their union without the values (Chan et al.'s parallel
 * update). The pyramid store's cells carry them (`FieldMoments`, src/ports/zone-pyramid-store.ts).
 *
 * `m2` is the sum of squared deviations from the set's own mean (Welford), not the sum of
 * squares: that one loses every digit to cancellation when the mean is large beside the spread.
 */
export interface Moments {
  /** Values that are numbers (NaN values are not counted). */
  valid: number;
  sum: number;
  m2: number;
  /** NaN when `valid` is 0. */
  min: number;
  max: number;
}

export function emptyMoments(): Moments {
  return { valid: 0, sum: 0, m2: 0, min: NaN, max: NaN };
}

/** Adds one value in place (Welford's update); NaN is no value. */
export function addValue(m: Moments, x: number): void {
  if (Number.isNaN(x)) return;
  const before = m.valid === 0 ? 0 : m.sum / m.valid;
  m.valid += 1;
  m.sum += x;
  m.m2 += (x - before) * (x - m.sum / m.valid);
  if (m.valid === 1 || x < m.min) m.min = x;
  if (m.valid === 1 || x > m.max) m.max = x;
}

/** The moments of the union of two disjoint sets (Chan's parallel formula); neither is changed. */
export function mergeMoments(a: Moments, b: Moments): Moments {
  if (b.valid === 0) return { ...a };
  if (a.valid === 0) return { ...b };
  const n = a.valid + b.valid;
  const delta = b.sum / b.valid - a.sum / a.valid;
  return {
    valid: n,
    sum: a.sum + b.sum,
    m2: a.m2 + b.m2 + (delta * delta * a.valid * b.valid) / n,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
  };
}

/** NaN when there is no value. */
export function momentsMean(m: Moments): number {
  return m.valid === 0 ? NaN : m.sum / m.valid;
}

/** Population standard deviation (as DuckDB's stddev_pop and the on-the-fly aggregation); NaN when there is no value. */
export function momentsStdDev(m: Moments): number {
  // A merge's rounding may leave a tiny negative m2 for equal values.
  return m.valid === 0 ? NaN : Math.sqrt(Math.max(0, m.m2) / m.valid);
}
