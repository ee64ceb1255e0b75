import { expect } from 'chai';
import { once } from 'node:events';
import { steppedReadable, type SteppedChunks } from '../../../src/http/stepped-stream.js';

/** `n` pieces of `size` bytes with pauses between; `made` counts pieces produced, `ended` is set when the generator is closed. */
function pieces(n: number, size: number, state: { made: number; ended: boolean }, failAt = -1): SteppedChunks {
  return (function* () {
    try {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error('encoder failed');
        yield;
        state.made++;
        yield Buffer.alloc(size, i % 256);
        yield;
      }
    } finally {
      state.ended = true;
    }
  })();
}

describe('stepped response bodies', () => {
  it('streams every piece in order, then ends', async () => {
    const state = { made: 0, ended: false };
    const got: Buffer[] = [];
    const s = steppedReadable(pieces(20, 1000, state));
    s.on('data', (b: Buffer) => got.push(b));
    await once(s, 'end');
    expect(got).to.have.length(20);
    expect(got.map((b) => b[0])).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
    expect(state.ended).to.equal(true);
  });

  it('makes pieces only as the reader asks for them (memory stays a few pieces)', async () => {
    const state = { made: 0, ended: false };
    const s = steppedReadable(pieces(1000, 64 * 1024, state));
    await new Promise((r) => setTimeout(r, 50));
    expect(state.made, 'nothing read yet').to.be.below(5);
    s.read(64 * 1024);
    await new Promise((r) => setTimeout(r, 50));
    expect(state.made, 'one piece read').to.be.below(6);
    s.destroy();
    expect(state.ended, 'a reader going away closes the generator').to.equal(true);
  });

  it('gives the event loop turns while a fast reader drains a long body', async () => {
    const slow = (function* (): SteppedChunks {
      for (let i = 0; i < 400; i++) {
        const t = performance.now();
        while (performance.now() - t < 0.5); // half a millisecond of encoding per piece
        yield Buffer.alloc(100);
      }
    })();
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const s = steppedReadable(slow);
    s.on('data', () => undefined);
    await once(s, 'end');
    clearInterval(timer);
    expect(turns, '200 ms of encoding in 10 ms stretches').to.be.at.least(5);
  });

  it('an encoder that throws ends the stream with its error', async () => {
    const state = { made: 0, ended: false };
    const s = steppedReadable(pieces(10, 10, state, 3));
    s.resume();
    const [err] = (await once(s, 'error').catch((e: unknown) => [e])) as [Error];
    expect(err.message).to.equal('encoder failed');
    expect(state.made).to.equal(3);
  });
});
