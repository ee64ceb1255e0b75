/**
 * The cache of open trusted rasters: a changed file (its stamp) is opened afresh, the old dataset
 * closed only once the reads running on it end, and never read after it is closed; no request
 * waits for the look at the file.
 */
import { expect } from 'chai';
import { DatasetCache, type CachedDataset } from '../../../src/adapters/rasters/dataset-cache.js';
import type { RasterInfo, RasterWindow, WindowRequest } from '../../../src/ports/raster-reader.js';
import type { GuardedRangeReader } from '../../../src/adapters/rasters/guarded-http.js';
import { AppError } from '../../../src/ports/errors.js';

/** A dataset that records its reads and its close; `gate` holds reads until released. */
class FakeDataset implements CachedDataset {
  readonly info = { href: 'x' } as RasterInfo;
  reads = 0;
  closed = 0;
  gate: Promise<void> = Promise.resolve();
  constructor(
    readonly name: string,
    readonly remote: GuardedRangeReader | undefined = undefined,
  ) {}
  async readWindow(_req: WindowRequest): Promise<RasterWindow> {
    if (this.closed) throw new Error(`${this.name} read after close`);
    this.reads++;
    await this.gate;
    return { name: this.name } as unknown as RasterWindow;
  }
  async close(): Promise<void> {
    this.closed++;
  }
}

const REQ = {} as WindowRequest;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DatasetCache (trusted rasters)', () => {
  it('reopens a file whose stamp changed, closing the old dataset after its running reads', async () => {
    let stamp = 'v1';
    const opened: FakeDataset[] = [];
    const cache = new DatasetCache<FakeDataset>(4, async () => ({ id: stamp }), 20);
    const load = async () => {
      const d = new FakeDataset(`open ${opened.length + 1}`);
      opened.push(d);
      return d;
    };
    const first = await cache.get('f', load);
    expect(await cache.get('f', load), 'kept while unchanged').to.equal(first);
    expect(await cache.version('f', load)).to.deep.equal({ id: 'v1' });

    let release!: () => void;
    opened[0]!.gate = new Promise((r) => (release = r));
    const running = first.readWindow(REQ);
    stamp = 'v2';
    await sleep(30);
    expect(await cache.get('f', load), 'the request that starts the look is not held back by it').to.equal(first);
    await sleep(5);
    const second = await cache.get('f', load);
    expect(second, 'opened afresh after the look').to.not.equal(first);
    expect(opened).to.have.length(2);
    expect(await cache.version('f', load)).to.deep.equal({ id: 'v2' });
    expect(opened[0]!.closed, 'not while a read runs').to.equal(0);
    release();
    expect(await running).to.deep.equal({ name: 'open 1' });
    expect(opened[0]!.closed, 'closed once its read ended').to.equal(1);

    const late = await first.readWindow(REQ).catch((e: unknown) => e);
    expect(late).to.be.instanceOf(AppError);
    expect((late as AppError).kind).to.equal('unavailable');
    expect((late as AppError).retryAfterSeconds).to.equal(1);
    expect(opened[0]!.reads, 'the closed dataset was not read again').to.equal(1);
    expect(await second.readWindow(REQ)).to.deep.equal({ name: 'open 2' });
  });

  it('looks at a file at most once per interval, however many opens', async () => {
    let looks = 0;
    const cache = new DatasetCache<FakeDataset>(4, async () => {
      looks++;
      return { id: 'v1' };
    }, 60_000);
    const load = async () => new FakeDataset('d');
    await Promise.all(Array.from({ length: 50 }, () => cache.get('f', load)));
    expect(looks).to.equal(1);
  });

  it('opens a remote raster afresh once its host states another version, and reports the version it learned', async () => {
    const remote = { version: { id: '"e1"' }, changed: false } as unknown as GuardedRangeReader;
    const opened: FakeDataset[] = [];
    const cache = new DatasetCache<FakeDataset>(4, async () => undefined, 20);
    const load = async () => {
      const d = new FakeDataset(`open ${opened.length + 1}`, opened.length === 0 ? remote : undefined);
      opened.push(d);
      return d;
    };
    expect(await cache.version('u', load)).to.deep.equal({ id: '"e1"' });
    await sleep(30);
    expect(await cache.get('u', load), 'unchanged').to.equal(await cache.get('u', load));
    expect(opened).to.have.length(1);
    (remote as { changed: boolean }).changed = true;
    await sleep(30);
    await cache.get('u', load);
    await sleep(5);
    await cache.get('u', load);
    expect(opened).to.have.length(2);
    expect(opened[0]!.closed).to.equal(1);
  });

  it('closes what it evicts past its bound, and forgets a failed open', async () => {
    const opened: FakeDataset[] = [];
    const cache = new DatasetCache<FakeDataset>(2, async () => undefined);
    const load = async () => {
      const d = new FakeDataset(`open ${opened.length + 1}`);
      opened.push(d);
      return d;
    };
    for (const href of ['a', 'b', 'c']) await cache.get(href, load);
    await sleep(0);
    expect(opened.map((d) => d.closed)).to.deep.equal([1, 0, 0]);
    let fail = true;
    const flaky = async () => {
      if (fail) throw new Error('unreadable');
      return load();
    };
    await cache.get('d', flaky).catch(() => undefined);
    fail = false;
    expect(await cache.get('d', flaky), 'retried').to.be.an('object');
  });
});
