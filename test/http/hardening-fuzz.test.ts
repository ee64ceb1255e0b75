/**
 * A small deterministic slice of `npm run fuzz` (crashes, stalls and memory floods; costly filters
 * and remote reads): the same generator, seed and
 * checks on a few hundred requests — a strided sample of the sweep over every operation, parameter
 * and header family, the Host and compressed-body crashers, random cases, requests with generated
 * CQL2 filters (LIKE, spatial, temporal, big literals) and cross-collection POSTs — against the
 * service in a child process. Every answer must be a non-5xx, error bodies ApiErrors, no crash, no
 * stall; and the generators must still get past validation (2xx cross-collection POSTs, 2xx
 * filtered requests on items, zone data and zone lists).
 */
import { expect } from 'chai';
import { failureCount, formatSummary, runFuzz } from '../../scripts/fuzz/runner.js';

describe('HTTP: fuzz slice — hostile requests, filters and cross-collection bodies', function () {
  this.timeout(300_000);

  it('a few hundred hostile requests: no 5xx, no crash, no stall, ApiError bodies only; filters and cross-collection bodies answered', async () => {
    const summary = await runFuzz({
      seed: 9,
      sweep: 260,
      random: 140,
      filters: 50,
      cross: 30,
      concurrency: 4,
      timeoutMs: 10_000,
      bombBytes: 64 * 2 ** 20,
      stallMs: 1000,
      rssBoundBytes: 300 * 2 ** 20,
      maxRestarts: 5,
      maxReplays: 4,
      warmSpare: false,
    });
    const report = formatSummary(summary);
    expect(summary.requests, 'requests sent').to.be.greaterThan(400);
    expect(summary.coverage.uncovered.filter((u) => u.startsWith('operation')), 'every operation reached').to.deep.equal([]);
    expect(summary.coverage.crossCollection['2xx'] ?? 0, `2xx cross-collection POSTs\n${report}`).to.be.greaterThan(5);
    const answered = Object.entries(summary.coverage.filteredByOperation).filter(([, t]) => (t['2xx'] ?? 0) > 0).map(([op]) => op);
    expect(answered.length, `operations with a 2xx filtered request: ${answered.join(', ')}\n${report}`).to.be.at.least(4);
    expect(failureCount(summary), report).to.equal(0);
  });
});
