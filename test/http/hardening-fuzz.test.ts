/**
 * A small deterministic slice of `npm run fuzz` (issue 9): the same generator, seed and checks on
 * a few hundred requests — a strided sample of the sweep over every operation, parameter and
 * header family, the Host and compressed-body crashers, and random cases — against the service in
 * a child process. Every answer must be a non-5xx, error bodies ApiErrors, no crash, no stall.
 */
import { expect } from 'chai';
import { failureCount, formatSummary, runFuzz } from '../../scripts/fuzz/runner.js';

describe('HTTP: fuzz slice (issue 9)', function () {
  this.timeout(300_000);

  it('a few hundred hostile requests: no 5xx, no crash, no stall, ApiError bodies only', async () => {
    const summary = await runFuzz({
      seed: 9,
      sweep: 260,
      random: 140,
      concurrency: 4,
      timeoutMs: 10_000,
      bombBytes: 64 * 2 ** 20,
      stallMs: 1000,
      rssBoundBytes: 300 * 2 ** 20,
      maxRestarts: 5,
      warmSpare: false,
    });
    expect(summary.requests, 'requests sent').to.be.greaterThan(300);
    expect(summary.coverage.uncovered.filter((u) => u.startsWith('operation')), 'every operation reached').to.deep.equal([]);
    expect(failureCount(summary), formatSummary(summary)).to.equal(0);
  });
});
