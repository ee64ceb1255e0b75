/**
 * Moments (src/domain/aggregation/moments.ts): Welford's update and Chan's merge against a direct
 * two-pass computation, for any split of the values, with NaN values ignored and values far from
 * zero (where a sum of squares would lose every digit).
 */
import { expect } from 'chai';
import { addValue, emptyMoments, mergeMoments, momentsMean, momentsStdDev, type Moments } from '../../../src/domain/aggregation/moments.js';
import { StatAccumulator } from '../../../src/domain/aggregation/statistics.js';

/** Deterministic pseudo-random values (a linear congruential sequence). */
function values(n: number, seed: number, offset: number, spread: number): number[] {
  let x = seed;
  return Array.from({ length: n }, (_, i) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return i % 17 === 5 ? NaN : offset + (x / 2147483648 - 0.5) * spread;
  });
}

function twoPass(xs: number[]): { valid: number; mean: number; sd: number; min: number; max: number } {
  const v = xs.filter((x) => !Number.isNaN(x));
  const mean = v.reduce((a, x) => a + x, 0) / v.length;
  const sd = Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / v.length);
  return { valid: v.length, mean, sd, min: Math.min(...v), max: Math.max(...v) };
}

function of(xs: number[]): Moments {
  const m = emptyMoments();
  xs.forEach((x) => addValue(m, x));
  return m;
}

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1e-300, Math.abs(b));

describe('moments: Welford and Chan', () => {
  for (const [offset, spread] of [[0, 10], [1e9, 1], [-40, 0.001]] as const) {
    it(`gives the two-pass count, mean, min, max and population stdDev (values ${offset} ± ${spread})`, () => {
      const xs = values(1000, 7, offset, spread);
      const m = of(xs);
      const want = twoPass(xs);
      expect(m.valid).to.equal(want.valid);
      expect(m.min).to.equal(want.min);
      expect(m.max).to.equal(want.max);
      expect(rel(momentsMean(m), want.mean)).to.be.below(1e-12);
      // Values far from zero leave a deviation fewer digits (eps x offset / spread), in either computation.
      const digits = Math.max(1e-9, 1e-14 * (Math.abs(offset) / spread));
      expect(rel(momentsStdDev(m), want.sd)).to.be.below(digits);
      // The same numbers as the on-the-fly accumulator of the lake and rasters.
      const acc = new StatAccumulator(1, false);
      xs.forEach((x) => acc.add(0, x));
      expect(rel(momentsStdDev(m), acc.result('stdDev')[0]!)).to.be.below(digits);
      expect(rel(momentsMean(m), acc.result('mean')[0]!)).to.be.below(1e-12);
    });
  }

  it('merges any split into the moments of the whole (Chan), empty parts included', () => {
    const xs = values(600, 11, 1e6, 3);
    const whole = of(xs);
    for (const cuts of [[0], [1], [299], [599, 600], [10, 20, 400], [600]]) {
      const bounds = [0, ...cuts, xs.length];
      let merged = emptyMoments();
      for (let i = 0; i + 1 < bounds.length; i++) merged = mergeMoments(merged, of(xs.slice(bounds[i], bounds[i + 1])));
      expect(merged.valid, `${cuts}`).to.equal(whole.valid);
      expect(merged.min).to.equal(whole.min);
      expect(merged.max).to.equal(whole.max);
      expect(rel(merged.sum, whole.sum)).to.be.below(1e-12);
      expect(rel(momentsStdDev(merged), momentsStdDev(whole)), `${cuts}`).to.be.below(1e-8);
    }
  });

  it('has no mean, spread, min or max without values; equal values have stdDev 0; the inputs of a merge are left as they were', () => {
    const none = of([NaN, NaN]);
    expect(none.valid).to.equal(0);
    for (const v of [momentsMean(none), momentsStdDev(none), none.min, none.max]) expect(v).to.be.NaN;
    const same = of([2.5, 2.5, 2.5]);
    expect(momentsStdDev(same)).to.equal(0);
    const a = of([1, 2]), b = of([10]);
    const copyA = { ...a }, copyB = { ...b };
    const ab = mergeMoments(a, b);
    expect(a).to.deep.equal(copyA);
    expect(b).to.deep.equal(copyB);
    expect(ab).to.deep.include({ valid: 3, sum: 13, min: 1, max: 10 });
    expect(mergeMoments(none, b)).to.deep.equal(b);
    expect(mergeMoments(b, none)).to.deep.equal(b);
  });
});
