/**
 * Large zone-data bodies are written as a sequence of text pieces and gathered here into bytes,
 * so a request holds its encoded output and never an object tree of it, and the event loop gets
 * a turn every `sliceMs` of encoding work (other requests stay answered while a big body is built).
 */
const SLICE_MS = 8;
const FLUSH_BYTES = 1 << 16;

/** Lets other callbacks run; setImmediate queues after pending I/O, unlike a resolved promise. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Call `tick()` in a loop: it resolves at once, or after a turn of the event loop once a slice is used up. */
export function pacer(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < sliceMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}

export async function collect(pieces: Iterable<string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  let pending: string[] = [];
  let pendingLength = 0;
  const tick = pacer();
  for (const piece of pieces) {
    pending.push(piece);
    pendingLength += piece.length;
    if (pendingLength >= FLUSH_BYTES) {
      parts.push(Buffer.from(pending.join(''), 'utf8'));
      pending = [];
      pendingLength = 0;
    }
    // Pieces can be costly (an outline each): the clock, not the byte count, decides the turn.
    const turn = tick();
    if (turn) await turn;
  }
  if (pending.length > 0) parts.push(Buffer.from(pending.join(''), 'utf8'));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** A JSON number, or null for NaN, infinities and missing values (as JSON.stringify writes them). */
export function jsonNumber(v: number | null | undefined): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : 'null';
}
