/**
 * A response body produced piece by piece: a generator yields a Buffer when a piece is ready and
 * nothing at a pause, and the Readable pulls the next piece only when the client's socket wants more.
 * Memory is a few pieces, whatever the body's size; a client that goes away ends the work; and after
 * SLICE_MS of encoding the event loop gets a turn, as with runStepped.
 */
import { Readable } from 'node:stream';

/** Pieces of a body and pauses: what steppedReadable streams. */
export type SteppedChunks = Generator<Buffer | undefined, void, void>;

const SLICE_MS = 10;

export function steppedReadable(chunks: SteppedChunks): Readable {
  const stream = new Readable({
    read() {
      step();
    },
    destroy(err, done) {
      chunks.return();
      done(err);
    },
  });
  // When the current stretch of encoding began: pieces pulled one after another by a fast reader
  // (a socket that takes all) follow each other in nextTicks, without a turn of the event loop.
  let stretch: number | undefined;
  function rest(): void {
    setImmediate(() => {
      stretch = undefined;
      if (!stream.destroyed) step();
    });
  }
  function step(): void {
    stretch ??= performance.now();
    for (;;) {
      if (performance.now() - stretch >= SLICE_MS) return rest();
      let r: IteratorResult<Buffer | undefined, void>;
      try {
        r = chunks.next();
      } catch (e) {
        stream.destroy(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      if (r.done) {
        stream.push(null);
        return;
      }
      if (r.value) {
        stream.push(r.value);
        return;
      }
    }
  }
  return stream;
}
