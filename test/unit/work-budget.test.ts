import { expect } from 'chai';
import { ServiceBusyError, WorkBudget } from '../../src/app/zone-data/work-budget.js';
import { httpStatus } from '../support/http-status.js';

/** A piece of work that runs until `finish` is called, recording when it started. */
function gate(log: string[], name: string): { work: () => Promise<string>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const budget = (capacity: number, maxWaitMs = 1000, maxQueued = 10) =>
  new WorkBudget({ capacity, maxWaitMs, maxQueued, describe: (cost, used, cap, waited) => `cost ${cost}, used ${used} of ${cap}, waited ${Math.round(waited)}` });

describe('WorkBudget: admission control by cost', () => {
  it('runs work at once while the costs fit, and queues the rest until room is freed', async () => {
    const b = budget(100);
    const log: string[] = [];
    const a = gate(log, 'a'), c = gate(log, 'c'), d = gate(log, 'd');
    const ra = b.run(60, a.work);
    const rc = b.run(60, c.work); // 120 > 100: waits for a
    const rd = b.run(30, d.work); // fits beside a, but arrived after c: waits its turn
    await tick();
    expect(log).to.deep.equal(['start a']);
    expect(b.state()).to.deep.equal({ used: 60, queued: 2, capacity: 100 });
    a.finish();
    expect(await ra).to.equal('a');
    await tick();
    // c (60) and d (30) fit together once a left.
    expect(log).to.deep.equal(['start a', 'end a', 'start c', 'start d']);
    expect(b.state().used).to.equal(90);
    c.finish();
    d.finish();
    expect(await Promise.all([rc, rd])).to.deep.equal(['c', 'd']);
    expect(b.state()).to.deep.equal({ used: 0, queued: 0, capacity: 100 });
  });

  it('a cost above the capacity counts as the capacity: it runs alone', async () => {
    const b = budget(100);
    const log: string[] = [];
    const big = gate(log, 'big'), small = gate(log, 'small');
    const rb = b.run(10_000, big.work);
    const rs = b.run(1, small.work);
    await tick();
    expect(log).to.deep.equal(['start big']);
    big.finish();
    await rb;
    await tick();
    expect(log).to.include('start small');
    small.finish();
    await rs;
  });

  it('releases the cost when the work fails', async () => {
    const b = budget(10);
    let failed: unknown;
    await b.run(10, async () => {
      throw new Error('boom');
    }).catch((e: unknown) => (failed = e));
    expect((failed as Error).message).to.equal('boom');
    expect(b.state().used).to.equal(0);
    expect(await b.run(10, async () => 'next')).to.equal('next');
  });

  it('refuses with 503 and Retry-After after waiting maxWaitMs, and the queue moves on', async () => {
    const b = budget(10, 50);
    const log: string[] = [];
    const a = gate(log, 'a');
    const ra = b.run(10, a.work);
    const started = performance.now();
    const err = await b.run(5, async () => 'never').catch((e: unknown) => e);
    expect(performance.now() - started).to.be.at.least(45);
    expect(err).to.be.instanceOf(ServiceBusyError);
    const busy = err as ServiceBusyError;
    expect(httpStatus(busy)).to.equal(503);
    expect(busy.retryAfterSeconds).to.equal(1);
    expect(busy.hint).to.match(/cost 5, used 10 of 10, waited \d+/);
    expect(b.state().queued).to.equal(0);
    a.finish();
    await ra;
    expect(await b.run(10, async () => 'after')).to.equal('after');
  });

  it('refuses at once when the queue is full', async () => {
    const b = budget(10, 1000, 2);
    const log: string[] = [];
    const a = gate(log, 'a');
    const ra = b.run(10, a.work);
    const queued = [b.run(1, async () => 1), b.run(1, async () => 2)];
    const started = performance.now();
    const err = await b.run(1, async () => 3).catch((e: unknown) => e);
    expect(performance.now() - started).to.be.below(40);
    expect(err).to.be.instanceOf(ServiceBusyError);
    a.finish();
    await ra;
    expect(await Promise.all(queued)).to.deep.equal([1, 2]);
  });

  it('work whose signal aborts while it waits leaves the queue at once, rejecting with the reason, and the next one moves up', async () => {
    const b = budget(10, 10_000);
    const log: string[] = [];
    const a = gate(log, 'a'), c = gate(log, 'c');
    const ra = b.run(10, a.work);
    const ctl = new AbortController();
    const left = b.run(10, async () => 'never', ctl.signal).catch((e: unknown) => e);
    const rc = b.run(10, c.work);
    await tick();
    expect(b.state().queued).to.equal(2);
    const reason = new Error('the client left');
    ctl.abort(reason);
    expect(await left).to.equal(reason);
    expect(b.state().queued).to.equal(1);
    a.finish();
    await ra;
    await tick();
    expect(log).to.deep.equal(['start a', 'end a', 'start c']);
    c.finish();
    expect(await rc).to.equal('c');
    expect(await b.run(1, async () => 'x', AbortSignal.abort(reason)).catch((e: unknown) => e), 'aborted before it asks').to.equal(reason);
    expect(b.state()).to.deep.equal({ used: 0, queued: 0, capacity: 10 });
  });

  it('counts for the metrics: admissions at once and after a wait, waits and their time, refusals by reason', async () => {
    const b = budget(10, 50, 1);
    const log: string[] = [];
    const a = gate(log, 'a');
    const ra = b.run(10, a.work);
    const waiting = b.run(5, async () => 'waited');
    const full = await b.run(5, async () => 'x').catch((e: unknown) => e);
    expect(full).to.be.instanceOf(ServiceBusyError);
    await tick();
    a.finish();
    await ra;
    expect(await waiting).to.equal('waited');
    const late = gate(log, 'late');
    const rl = b.run(10, late.work);
    const timedOut = await b.run(10, async () => 'x').catch((e: unknown) => e);
    expect(timedOut).to.be.instanceOf(ServiceBusyError);
    late.finish();
    await rl;
    const { waitSeconds, ...counts } = b.stats();
    expect(counts).to.deep.equal({ used: 0, queued: 0, capacity: 10, admitted: 3, waited: 2, refusedQueueFull: 1, refusedTimeout: 1 });
    // The second refusal waited its 50 ms.
    expect(waitSeconds).to.be.at.least(0.04);
  });
});
