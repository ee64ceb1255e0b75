import { expect } from 'chai';
import { ByteCollector } from '../../src/domain/byte-collector.js';

/** Deterministic bytes, so a misplaced piece shows. */
const bytes = (n: number, seed = 1): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) & 0xff);

/** `whole` cut into chunks of the given sizes (the last one takes the rest). */
function chunks(whole: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(whole.subarray(at, at + n));
    at += n;
  }
  if (at < whole.length) out.push(whole.subarray(at));
  return out;
}

describe('ByteCollector', () => {
  for (const [what, size, sizes, expected] of [
    ['nothing', 0, [], undefined],
    ['one chunk, no length', 1000, [1000], undefined],
    ['socket-sized chunks past the first piece, no length', 300_000, Array(4).fill(65_536), undefined],
    ['odd chunks, no length', 200_001, [1, 65_535, 3, 70_000, 12], undefined],
    ['the declared length', 300_000, Array(4).fill(65_536), 300_000],
    ['more than declared', 70_000, [40_000], 50_000],
  ] as const) {
    it(`gives the bytes in order, once: ${what}`, () => {
      const whole = bytes(size);
      const c = new ByteCollector(expected);
      for (const chunk of chunks(whole, [...sizes])) c.add(chunk);
      expect(c.size).to.equal(size);
      const got = c.bytes();
      expect(got.length).to.equal(size);
      expect(Buffer.from(got).equals(Buffer.from(whole))).to.equal(true);
    });
  }

  it('copies each chunk out: changing a chunk after adding it changes nothing', () => {
    const c = new ByteCollector();
    const chunk = bytes(100);
    c.add(chunk);
    chunk.fill(0);
    expect(Buffer.from(c.bytes()).equals(Buffer.from(bytes(100)))).to.equal(true);
  });

  it('hands over the declared-length array itself, which owns its memory', () => {
    const c = new ByteCollector(1000);
    c.add(bytes(600));
    c.add(bytes(400, 2));
    const got = c.bytes();
    expect(got.byteOffset).to.equal(0);
    expect(got.buffer.byteLength).to.equal(1000);
  });
});
