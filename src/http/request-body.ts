import zlib from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { TooLargeError } from '../ports/errors.js';
import { InvalidBodyError, UnsupportedMediaTypeError } from './http-errors.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * Reads a JSON request body. The bound applies to the bytes received and to the decoded bytes:
 * decoding streams and stops as soon as the decoded size passes `maxBytes`, so a small
 * compressed body cannot inflate into memory. Returns undefined when the request has no body.
 * Errors: 415 (media type, charset or content coding we do not read), 413 (over the bound),
 * 400 (corrupt compressed data, bad UTF-8, bad JSON, body cut short).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  checkMediaType(req.headers['content-type']);
  const coding = contentCoding(req.headers['content-encoding']);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await collect(req, coding, maxBytes);
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidBodyError('The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidBodyError(`The body is not valid JSON: ${err instanceof SyntaxError ? err.message : 'nested too deeply'}.`);
  }
}

function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function checkMediaType(header: string | undefined): void {
  const hint = 'Send the body as JSON with "Content-Type: application/json" (UTF-8).';
  if (!header) throw new UnsupportedMediaTypeError(hint);
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type ?? '')) throw new UnsupportedMediaTypeError(hint);
  for (const param of params) {
    const [name, value] = param.split('=').map((p) => p.trim().replace(/^"|"$/g, ''));
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') throw new UnsupportedMediaTypeError(hint);
  }
}

/** One content coding at most (identity aside): a chain of codings only multiplies the work. */
function contentCoding(header: string | undefined): string | undefined {
  const codings = (header ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  const hint = `Content-Encoding may be one of ${Object.keys(DECODERS).join(', ')} or identity.`;
  const accepted = Object.keys(DECODERS).join(', ');
  if (codings.length > 1) throw new UnsupportedMediaTypeError(`${hint} Only one coding is read.`, accepted);
  const coding = codings[0];
  if (coding !== undefined && !DECODERS[coding]) throw new UnsupportedMediaTypeError(hint, accepted);
  return coding;
}

function tooLarge(maxBytes: number): TooLargeError {
  return new TooLargeError('Request body too large', `Request bodies are limited to ${maxBytes} bytes, counted after decoding any Content-Encoding (server.maxBodyBytes).`);
}

function collect(req: IncomingMessage, coding: string | undefined, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const decoder = coding ? DECODERS[coding]!() : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let decoded = 0;
    let settled = false;
    const settle = (err: Error | undefined) => {
      if (settled) return;
      settled = true;
      req.off('data', onRaw);
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      if (err) {
        // Leave the rest of the body unread; the refusal closes the connection.
        req.pause();
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, decoded));
      }
    };
    const onRaw = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) settle(tooLarge(maxBytes));
      else if (!decoder) onDecoded(chunk);
    };
    const onDecoded = (chunk: Buffer) => {
      if (settled) return;
      decoded += chunk.length;
      if (decoded > maxBytes) settle(tooLarge(maxBytes));
      else chunks.push(chunk);
    };
    req.on('data', onRaw);
    req.once('error', () => settle(new InvalidBodyError('The connection failed while the body was read.')));
    req.once('close', () => {
      if (!req.complete) settle(new InvalidBodyError('The body ended before its announced length.'));
    });
    if (decoder) {
      decoder.on('data', onDecoded);
      decoder.once('error', () => settle(new InvalidBodyError(`The body is not valid ${coding} data.`)));
      decoder.once('end', () => settle(undefined));
      req.pipe(decoder);
    } else {
      req.once('end', () => settle(undefined));
    }
  });
}
