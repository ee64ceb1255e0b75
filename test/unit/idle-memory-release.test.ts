import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startIdleMemoryRelease } from '../../src/app/idle-memory-release.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Keeps the event loop busy for `ms` in short blocking slices, allocating as a request would. */
async function busy(ms: number, keep: unknown[][]): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    while (performance.now() - t < 40) keep.push(Array.from({ length: 2000 }, (_, i) => ({ i, s: `zone-${i}` })));
    if (keep.length > 400) keep.splice(0, 200);
    await new Promise((r) => setImmediate(r));
  }
}

describe('idle memory release', function () {
  this.timeout(30_000);

  it('collects once the loop has been idle, after the heap grew, and not while it is busy', async () => {
    const releases: { rssBefore: number; rssAfter: number }[] = [];
    const keep: unknown[][] = [];
    // Start from a collected heap: garbage the suite's earlier tests left would otherwise be
    // collected during the busy phase, and the heap could shrink however much this test allocates.
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as (o: object) => void)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const stop = startIdleMemoryRelease({ growthBytes: 16 * 2 ** 20, idleMs: 600, onRelease: (r) => releases.push(r) });
    expect(stop, 'gc reachable').to.be.a('function');
    try {
      const heapBefore = process.memoryUsage().heapTotal;
      await busy(1500, keep);
      expect(process.memoryUsage().heapTotal - heapBefore, 'the heap grew under load').to.be.above(16 * 2 ** 20);
      expect(releases, 'nothing while busy').to.have.length(0);
      keep.length = 0;
      const grown = process.memoryUsage().heapTotal;
      await sleep(1500);
      expect(releases, 'one release once idle').to.have.length(1);
      expect(process.memoryUsage().heapTotal, 'heap given back').to.be.below(grown - 16 * 2 ** 20);
      await sleep(1000);
      expect(releases, 'no release without new growth').to.have.length(1);
    } finally {
      stop?.();
    }
  });
});
