/**
 * JSON text to UBJSON (Universal Binary JSON, ubjson.org, spec draft 12), transcoded piece by piece.
 *
 * DGGS-UBJSON is "the same JSON structure as DGGS-JSON" in UBJSON (OGC 21-038r1 /req/data-ubjson):
 * transcoding the DGGS-JSON text pieces keeps the two one document, and keeps the encoding streamed
 * (a request holds its output, never an object tree of it; npm UBJSON libraries encode whole trees).
 *
 * Written plainly, as py-ubjson writes it: containers without the optional `$`/`#` headers, integers
 * of 32 bits in the smallest type holding them (i U I l), other numbers as float64 `D` (the JSON text
 * holds JavaScript doubles, which `D` keeps exactly; decoders that refuse int64 `L` by default still
 * read it), strings `S` with an integer length, object keys as length and bytes. Multi-byte values
 * are big-endian, as the spec requires.
 */
import { takeTurn, turnDue } from '../ports/event-loop-turns.js';

const INT8 = 0x69; // i
const UINT8 = 0x55; // U
const INT16 = 0x49; // I
const INT32 = 0x6c; // l
const FLOAT64 = 0x44; // D
const STRING = 0x53; // S
const NULL = 0x5a; // Z
const TRUE = 0x54; // T
const FALSE = 0x46; // F

const CHUNK = 1 << 16;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const NUMBER_TAIL = /[\d.eE+-]*/y;

export class UbjsonSyntaxError extends Error {
  override readonly name = 'UbjsonSyntaxError';
}

export class JsonToUbjson {
  private readonly parts: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK);
  private at = 0;
  /** Text of a token cut by the end of a piece, read again with the next one. */
  private carry = '';
  /** Open containers: true for an object. */
  private readonly stack: boolean[] = [];
  private keyNext = false;

  /** Transcodes one piece of JSON text; a token may be split across pieces. */
  write(piece: string): void {
    const text = this.carry + piece;
    this.carry = '';
    const end = this.scan(text, false);
    if (end < text.length) this.carry = text.slice(end);
  }

  /** Ends the document and returns its bytes (the parts written so far joined). */
  end(): Buffer {
    if (this.carry) {
      const text = this.carry;
      this.carry = '';
      if (this.scan(text, true) < text.length) throw new UbjsonSyntaxError('JSON text ends inside a token');
    }
    if (this.stack.length) throw new UbjsonSyntaxError('JSON text ends inside a container');
    this.parts.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.alloc(0);
    this.at = 0;
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }

  /** Reads tokens from `text`; returns where an unfinished token starts (or the length). */
  private scan(text: string, final: boolean): number {
    let i = 0;
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        this.byte(c);
        this.stack.push(c === 0x7b);
        this.keyNext = c === 0x7b;
        i++;
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        if (this.stack.pop() !== (c === 0x7d)) throw new UbjsonSyntaxError(`unbalanced "${text[i]}"`);
        this.byte(c);
        this.keyNext = false;
        i++;
      } else if (c === 0x2c /* , */) {
        this.keyNext = this.stack[this.stack.length - 1] === true;
        i++;
      } else if (c === 0x3a /* : */) {
        i++;
      } else if (c === 0x22 /* " */) {
        const close = stringEnd(text, i);
        if (close < 0) return i;
        const value = JSON.parse(text.slice(i, close + 1)) as string;
        if (!this.keyNext) this.byte(STRING);
        this.keyNext = false;
        this.text(value);
        i = close + 1;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        const stop = i + (m ? m[0].length : 0);
        // A number cut by the end of the piece (`-` or `5e` of `-5e-324`) waits for the next one.
        NUMBER_TAIL.lastIndex = stop;
        NUMBER_TAIL.exec(text);
        if (NUMBER_TAIL.lastIndex === n && !final) return i;
        if (!m) throw new UbjsonSyntaxError(`bad number at "${text.slice(i, i + 16)}"`);
        this.number(m[0], m[1] === undefined && m[2] === undefined);
        i = stop;
      } else {
        const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : '';
        if (!word) throw new UbjsonSyntaxError(`unexpected "${text[i]}"`);
        if (i + word.length > n) {
          if (final || !word.startsWith(text.slice(i))) throw new UbjsonSyntaxError(`bad literal "${text.slice(i)}"`);
          return i;
        }
        if (text.slice(i, i + word.length) !== word) throw new UbjsonSyntaxError(`bad literal at "${text.slice(i, i + 8)}"`);
        this.byte(word === 'true' ? TRUE : word === 'false' ? FALSE : NULL);
        i += word.length;
      }
    }
    return n;
  }

  private number(literal: string, integral: boolean): void {
    const v = Number(literal);
    if (integral && v >= -2147483648 && v <= 2147483647) return this.integer(v);
    this.room(9);
    this.buf[this.at++] = FLOAT64;
    this.buf.writeDoubleBE(v, this.at);
    this.at += 8;
  }

  /** A 32-bit integer in the smallest UBJSON type that holds it. */
  private integer(v: number): void {
    this.room(9);
    const b = this.buf;
    if (v >= -128 && v <= 127) {
      b[this.at++] = INT8;
      b.writeInt8(v, this.at);
      this.at += 1;
    } else if (v >= 0 && v <= 255) {
      b[this.at++] = UINT8;
      b[this.at++] = v;
    } else if (v >= -32768 && v <= 32767) {
      b[this.at++] = INT16;
      b.writeInt16BE(v, this.at);
      this.at += 2;
    } else {
      b[this.at++] = INT32;
      b.writeInt32BE(v, this.at);
      this.at += 4;
    }
  }

  /** A string's length (as an integer value) and UTF-8 bytes, without the `S` marker. */
  private text(s: string): void {
    const bytes = Buffer.byteLength(s, 'utf8');
    this.integer(bytes);
    this.room(bytes);
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** Makes room for `n` more bytes, starting a new chunk when this one is full. */
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    if (this.at > 0) this.parts.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK, n));
    this.at = 0;
  }
}

/** Index of the quote closing the string that opens at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    i = q + 1;
  }
}

/**
 * A JSON document given as text pieces (DGGS-JSON, DGGS-JSON-FG), transcoded to UBJSON as it is
 * written, with a turn of the event loop whenever one is due; stops at a turn once `signal` aborts.
 */
export async function ubjsonOfPieces(pieces: Iterable<string>, signal?: AbortSignal): Promise<Buffer> {
  const out = new JsonToUbjson();
  for (const piece of pieces) {
    out.write(piece);
    if (turnDue()) await takeTurn(signal);
  }
  return out.end();
}
