import { expect } from 'chai';
import { DecodedTileCache } from '../../../src/adapters/rasters/decoded-tile-cache.js';

/** What the cache charges for an entry beyond its samples (decoded-tile-cache.ts ENTRY_OVERHEAD). */
const OVERHEAD = 128;

/** A loader that counts its calls and resolves with a fresh buffer of `bytes`. */
function counting(bytes: number) {
  const calls = { n: 0 };
  return { calls, load: async () => { calls.n++; return new ArrayBuffer(bytes); } };
}

/** A promise with its resolve and reject, to hold a load in flight. */
function deferred<T>() {
  let resolve!: (v: T) => void, reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('DecodedTileCache (decoded raster tiles, LRU by bytes)', () => {
  it('answers a second read of a tile from memory, the very same buffer', async () => {
    const cache = new DecodedTileCache(10_000);
    const { calls, load } = counting(1000);
    const a = await cache.get('d0/0/0/0', load);
    await settle();
    const b = await cache.get('d0/0/0/0', load);
    expect(calls.n).to.equal(1);
    expect(b).to.equal(a);
    expect(cache.stats).to.deep.equal({ hits: 1, misses: 1 });
    expect(cache.bytes).to.equal(1000 + OVERHEAD);
  });

  it('evicts the least recently used tiles first, and never holds more bytes than its bound', async () => {
    // Room for three 1000-byte tiles, not four.
    const cache = new DecodedTileCache(3 * (1000 + OVERHEAD) + 10);
    const loads = new Map<string, number>();
    const get = async (key: string) => {
      await cache.get(key, async () => { loads.set(key, (loads.get(key) ?? 0) + 1); return new Uint8Array(1000); });
      await settle();
      expect(cache.bytes).to.be.at.most(cache.maxBytes);
    };
    await get('a'); await get('b'); await get('c');
    await get('a'); // a is now the most recent: b is the oldest
    await get('d'); // evicts b
    expect(cache.size).to.equal(3);
    await get('a'); await get('c'); await get('d');
    expect([...loads.values()], 'a, c and d stayed').to.deep.equal([1, 1, 1, 1]);
    await get('b'); // decoded again, evicting a (least recent of a, c, d after the reads above)
    expect(loads.get('b')).to.equal(2);
    await get('c'); await get('d');
    expect(loads.get('c')).to.equal(1);
    await get('a');
    expect(loads.get('a')).to.equal(2);
  });

  it('charges a tile its byteLength: one large tile evicts several small ones', async () => {
    const cache = new DecodedTileCache(4000 + 4 * OVERHEAD);
    for (const k of ['s1', 's2', 's3', 's4']) await cache.get(k, async () => new Float32Array(250)); // 1000 bytes each
    await settle();
    expect(cache.size).to.equal(4);
    await cache.get('big', async () => new Float64Array(375)); // 3000 bytes
    await settle();
    expect(cache.size).to.equal(2); // big and the most recent small one
    expect(cache.bytes).to.equal(4000 + 2 * OVERHEAD);
    const again = counting(1000);
    await cache.get('s4', again.load);
    expect(again.calls.n, 's4 was kept').to.equal(0);
    await cache.get('s1', again.load);
    expect(again.calls.n, 's1 was evicted').to.equal(1);
  });

  it('does not keep a tile larger than the whole bound (and evicts nothing for it)', async () => {
    const cache = new DecodedTileCache(2000);
    await cache.get('small', async () => new ArrayBuffer(100));
    await cache.get('huge', async () => new ArrayBuffer(5000));
    await settle();
    expect(cache.size).to.equal(1);
    expect(cache.bytes).to.equal(100 + OVERHEAD);
  });

  it('shares one decode between concurrent reads of a tile', async () => {
    const cache = new DecodedTileCache(1 << 20);
    const gate = deferred<ArrayBuffer>();
    let calls = 0;
    const load = () => { calls++; return gate.promise; };
    const reads = [cache.get('t', load), cache.get('t', load), cache.get('t', load)];
    expect(calls).to.equal(1);
    const buf = new ArrayBuffer(64);
    gate.resolve(buf);
    const got = await Promise.all(reads);
    expect(got.every((g) => g === buf)).to.equal(true);
    expect(cache.stats).to.deep.equal({ hits: 2, misses: 1 });
  });

  it('forgets a failed decode: the next read tries again', async () => {
    const cache = new DecodedTileCache(1 << 20);
    const gate = deferred<ArrayBuffer>();
    const first = cache.get('t', () => gate.promise);
    const second = cache.get('t', async () => new ArrayBuffer(8));
    gate.reject(new Error('corrupt tile'));
    const failures = await Promise.all([first, second].map((p) => p.then(() => 'resolved', (e: Error) => e.message)));
    expect(failures, 'the read sharing the failed decode fails too').to.deep.equal(['corrupt tile', 'corrupt tile']);
    await settle();
    expect(cache.size).to.equal(0);
    const { calls, load } = counting(8);
    await cache.get('t', load);
    expect(calls.n).to.equal(1);
  });

  it('keeps a tile the file does not have (undefined) at its overhead only', async () => {
    const cache = new DecodedTileCache(1 << 20);
    let calls = 0;
    const load = async () => { calls++; return undefined; };
    expect(await cache.get('missing', load)).to.equal(undefined);
    await settle();
    expect(await cache.get('missing', load)).to.equal(undefined);
    expect(calls).to.equal(1);
    expect(cache.bytes).to.equal(OVERHEAD);
  });

  it('with a bound of 0 keeps nothing and decodes every read', async () => {
    const cache = new DecodedTileCache(0);
    const { calls, load } = counting(16);
    await Promise.all([cache.get('t', load), cache.get('t', load)]);
    await settle();
    await cache.get('t', load);
    expect(calls.n).to.equal(3);
    expect(cache.size).to.equal(0);
    expect(cache.bytes).to.equal(0);
  });

  it('gives each open its own namespace, and drops a closed one whole', async () => {
    const cache = new DecodedTileCache(1 << 20);
    const a = cache.namespace(), b = cache.namespace();
    expect(a).to.not.equal(b);
    await cache.get(`${a}/0/0/0`, async () => new ArrayBuffer(10));
    await cache.get(`${b}/0/0/0`, async () => new ArrayBuffer(20));
    await settle();
    cache.drop(a);
    expect(cache.size).to.equal(1);
    expect(cache.bytes).to.equal(20 + OVERHEAD);
  });

  it('keeps nothing a dropped namespace was still decoding', async () => {
    const cache = new DecodedTileCache(1 << 20);
    const ns = cache.namespace();
    const gate = deferred<ArrayBuffer>();
    const read = cache.get(`${ns}/0/0/0`, () => gate.promise);
    cache.drop(ns);
    gate.resolve(new ArrayBuffer(10));
    expect(await read).to.be.instanceOf(ArrayBuffer);
    await settle();
    expect(cache.size).to.equal(0);
    expect(cache.bytes).to.equal(0);
  });

  it('refuses a bound that is not a whole number of bytes >= 0', () => {
    expect(() => new DecodedTileCache(-1)).to.throw(RangeError);
    expect(() => new DecodedTileCache(1.5)).to.throw(RangeError);
  });
});
