import { expect } from 'chai';
import { nextRestart, processCount, RESTART_POLICY } from '../../src/supervisor.js';
import { availableParallelism } from 'node:os';
import { ConfigError, parseConfig } from '../../src/app/config/load-config.js';

describe('the supervisor\'s restart policy', () => {
  it('restarts after 1, 2, 4, 8 s, and not after the fifth death within a minute', () => {
    let exits: number[] = [];
    const delays: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const next = nextRestart(exits, 1_000_000 + i * 5_000);
      exits = next.exits;
      delays.push(next.delayMs);
    }
    expect(delays).to.deep.equal([1000, 2000, 4000, 8000, undefined]);
  });

  it('forgets deaths older than the window: a process that dies now and then is always restarted after the first delay', () => {
    let exits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const next = nextRestart(exits, i * (RESTART_POLICY.windowMs + 1));
      expect(next.delayMs).to.equal(RESTART_POLICY.firstDelayMs);
      exits = next.exits;
    }
  });

  it('server.processes: a positive whole number or auto, else refused naming the key', () => {
    expect(parseConfig({}).server.processes).to.equal(1);
    expect(parseConfig({ server: { processes: 'auto' } }).server.processes).to.equal('auto');
    for (const bad of [0, 1.5, 'all', -2]) expect(() => parseConfig({ server: { processes: bad } })).to.throw(ConfigError, /server\.processes/);
  });

  it('auto is the machine\'s cores', () => {
    expect(processCount('auto')).to.equal(availableParallelism());
    expect(processCount(3)).to.equal(3);
  });
});
