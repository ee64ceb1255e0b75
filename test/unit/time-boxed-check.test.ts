import { expect } from 'chai';
import { TimeBoxedCheck } from '../../src/app/time-boxed-check.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('TimeBoxedCheck: a check that answers in time or is reported late', () => {
  it('gives the value or the failure of a check that answers in time', async () => {
    expect(await new TimeBoxedCheck(async () => 42, 1000).ask()).to.deep.equal({ value: 42 });
    const err = new Error('down');
    expect(await new TimeBoxedCheck(async () => Promise.reject(err), 1000).ask()).to.deep.equal({ error: err });
    // A check that throws before it returns a promise is a failure too, not a throw of ask().
    expect(await new TimeBoxedCheck(() => { throw err; }, 1000).ask()).to.deep.equal({ error: err });
  });

  it('reports a check that does not answer within the box as late, and the next ask waits on the same run', async () => {
    let runs = 0;
    let finish!: (v: string) => void;
    const check = new TimeBoxedCheck(() => {
      runs++;
      return new Promise<string>((r) => (finish = r));
    }, 30);
    expect(await check.ask()).to.deep.equal({ timedOut: true });
    expect(await check.ask()).to.deep.equal({ timedOut: true });
    expect(runs).to.equal(1);
    const waiting = check.ask();
    finish('late answer');
    expect(await waiting).to.deep.equal({ value: 'late answer' });
    // Settled: the next ask runs the check again.
    void check.ask();
    expect(runs).to.equal(1);
    await sleep(0);
    expect(runs).to.equal(2);
  });

  it('gives up a run that never settles after ten boxes, so a recovered dependency is seen', async () => {
    let runs = 0;
    let recovered = false;
    const check = new TimeBoxedCheck(() => {
      runs++;
      return recovered ? Promise.resolve('up') : new Promise<string>(() => {});
    }, 50);
    expect(await check.ask()).to.deep.equal({ timedOut: true });
    recovered = true;
    expect(await check.ask()).to.deep.equal({ timedOut: true });
    expect(runs).to.equal(1);
    await sleep(600);
    expect(await check.ask()).to.deep.equal({ value: 'up' });
    expect(runs).to.equal(2);
  });
});
