import { expect } from 'chai';
import { FairSlots } from '../../../src/adapters/lake/fair-slots.js';

/** Work that runs until released, logging when it starts. */
function held(log: string[], name: string): { work: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    work: async () => {
      log.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('FairSlots: query slots shared by classes of work', () => {
  it('a class holds at most perClass slots, so another class finds one however much the first asks', async () => {
    const slots = new FairSlots(3);
    const log: string[] = [];
    const items = Array.from({ length: 5 }, (_, i) => held(log, `items${i}`));
    const running = items.map((w) => slots.run('items', undefined, w.work));
    await tick();
    expect(log).to.deep.equal(['items0', 'items1']);
    const zone = held(log, 'zone0');
    const z = slots.run('zone-data', undefined, zone.work);
    await tick();
    expect(log).to.deep.equal(['items0', 'items1', 'zone0']);
    expect(slots.state()).to.deep.equal({ used: 3, held: { items: 2, 'zone-data': 1 }, waiting: { items: 3 } });
    zone.release();
    await z;
    items.forEach((w) => w.release());
    expect(await Promise.all(running)).to.deep.equal(['items0', 'items1', 'items2', 'items3', 'items4']);
    expect(slots.state().used).to.equal(0);
  });

  it('a freed slot goes to the waiting classes in turn, in arrival order within a class', async () => {
    const slots = new FairSlots(1, 1);
    const log: string[] = [];
    const first = held(log, 'first');
    const all = [slots.run('a', undefined, first.work)];
    const queued = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].map((n) => {
      const w = held(log, n);
      all.push(slots.run(n[0]!, undefined, w.work));
      return w;
    });
    await tick();
    first.release();
    for (const w of queued) {
      await tick();
      w.release();
    }
    await Promise.all(all);
    expect(log).to.deep.equal(['first', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('a waiter whose signal aborts leaves the queue with the reason; an aborted signal is refused at once', async () => {
    const slots = new FairSlots(1, 1);
    const log: string[] = [];
    const first = held(log, 'first');
    const r = slots.run('a', undefined, first.work);
    const ctl = new AbortController();
    const leaving = slots.run('b', ctl.signal, async () => 'never').catch((e: unknown) => e);
    const next = held(log, 'next');
    const rn = slots.run('c', undefined, next.work);
    await tick();
    const reason = new Error('gone');
    ctl.abort(reason);
    expect(await leaving).to.equal(reason);
    expect(slots.state().waiting).to.deep.equal({ c: 1 });
    first.release();
    await r;
    await tick();
    expect(log).to.deep.equal(['first', 'next']);
    next.release();
    await rn;
    expect(await slots.run('a', AbortSignal.abort(reason), async () => 'never').catch((e: unknown) => e)).to.equal(reason);
    expect(slots.state()).to.deep.equal({ used: 0, held: {}, waiting: {} });
  });

  it('a slot is given back when the work fails', async () => {
    const slots = new FairSlots(1, 1);
    const err = await slots.run('a', undefined, async () => Promise.reject(new Error('boom'))).catch((e: unknown) => e);
    expect((err as Error).message).to.equal('boom');
    expect(await slots.run('a', undefined, async () => 'again')).to.equal('again');
  });
});
