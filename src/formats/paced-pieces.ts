/**
 * Large bodies (zone data, DGGS-JSON-FG) are written as a sequence of text pieces and turned here into bytes,
 * so a request holds its encoded output and never an object tree of it, and the event loop gets
 * a turn whenever the process's one slice clock says one is due (other requests stay answered while
 * a big body is built, however many bodies are being built at once).
 */
import { takeTurn, turnDue } from '../ports/event-loop-turns.js';

const FLUSH_BYTES = 1 << 16;

/**
 * Text pieces as UTF-8 bytes of about FLUSH_BYTES each, with turns of the event loop in between;
 * stops at a turn once `signal` aborts.
 */
export async function* pacedBytes(pieces: Iterable<string>, signal?: AbortSignal): AsyncGenerator<Buffer> {
  let pending: string[] = [];
  let pendingLength = 0;
  for (const piece of pieces) {
    pending.push(piece);
    pendingLength += piece.length;
    if (pendingLength >= FLUSH_BYTES) {
      yield Buffer.from(pending.join(''), 'utf8');
      pending = [];
      pendingLength = 0;
    }
    // Pieces can be costly (an outline each): the clock, not the byte count, decides the turn.
    if (turnDue()) await takeTurn(signal);
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''), 'utf8');
}

/** A document's bytes gathered in one buffer. */
export async function bytesOf(parts: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const all: Buffer[] = [];
  for await (const part of parts) all.push(Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  return all.length === 1 ? all[0]! : Buffer.concat(all);
}

/** Array items written per text piece: large answers stay a few thousand pieces, each small. */
const ITEMS_PER_PIECE = 1024;

/** The items of a JSON array, comma-separated (without its brackets), `item(i)` giving item i's text, in pieces of ITEMS_PER_PIECE items. */
export function* jsonItems(count: number, item: (i: number) => string): Generator<string> {
  for (let i = 0; i < count; i += ITEMS_PER_PIECE) {
    let text = '';
    for (let j = i; j < Math.min(count, i + ITEMS_PER_PIECE); j++) text += j ? `,${item(j)}` : item(j);
    yield text;
  }
}

/** A JSON number, or null for NaN, infinities and missing values (as JSON.stringify writes them). */
export function jsonNumber(v: number | null | undefined): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : 'null';
}
