import { expect } from 'chai';
import { LakeTimeBudget, LakeTimeBudgetError } from '../../src/app/items/lake-time-budget.js';
import { httpStatus } from '../support/http-status.js';

/** Work that ends only when its signal aborts, rejecting with the reason (as the lake readers do). */
const untilAborted = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

describe('LakeTimeBudget: the time one request\'s lake work may take', () => {
  it('stops work past the budget: 503 with Retry-After, the hint naming limits.lakeQuerySeconds', async () => {
    const budget = new LakeTimeBudget(0.05);
    const err = await budget.run(undefined, untilAborted).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(LakeTimeBudgetError);
    const e = err as LakeTimeBudgetError;
    expect(httpStatus(e)).to.equal(503);
    expect(e.retryAfterSeconds).to.equal(1);
    expect(e.hint).to.contain('0.05 s (limits.lakeQuerySeconds)');
  });

  it("passes the caller's abort on, with the caller's reason", async () => {
    const ctl = new AbortController();
    const reason = new Error('the client left');
    setTimeout(() => ctl.abort(reason), 10);
    expect(await new LakeTimeBudget(30).run(ctl.signal, untilAborted).catch((e: unknown) => e)).to.equal(reason);
  });

  it('gives the answer of work within the budget, and its own errors', async () => {
    const budget = new LakeTimeBudget(30);
    expect(await budget.run(undefined, async () => 42)).to.equal(42);
    const boom = new Error('boom');
    expect(await budget.run(undefined, async () => Promise.reject(boom)).catch((e: unknown) => e)).to.equal(boom);
  });
});
