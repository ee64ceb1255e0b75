/**
 * Sends one fuzz case and reads the answer. Most cases go through node:http (which still lets us
 * send duplicate, empty or odd Host headers and any byte in 0x21-0xff in the path); cases whose
 * request line or header bytes node:http refuses to write go raw over a socket.
 */
import http from 'node:http';
import net from 'node:net';

export interface FuzzRequest {
  method: string;
  /** Request target exactly as sent (already percent-encoded where the case wants it). */
  path: string;
  /** Header pairs in order; duplicates allowed. Values are sent as their UTF-8 bytes. */
  headers: [string, string][];
  body?: Buffer;
  /** When set, these bytes are the whole request (request line, headers, body). */
  raw?: Buffer;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Body bytes, at most `keepBytes` of them. */
  body: Buffer;
  bodyBytes: number;
  ms: number;
  /** The connection ended before the body was complete. */
  truncated?: boolean;
}

export interface SendResult {
  response?: FuzzResponse;
  /** No answer: timeout, reset, refused. */
  error?: { kind: 'timeout' | 'closed' | 'refused' | 'client'; message: string; ms: number };
}

export interface ClientOptions {
  timeoutMs: number;
  keepBytes?: number;
  agent?: http.Agent;
  /** Abandons the exchange (the result is a `client` error). */
  signal?: AbortSignal;
}

/** UTF-8 bytes as a latin1 string: node:http then writes each byte unchanged. */
export const asBytes = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

const NODE_PATH_OK = /^[\u0021-\u00ff]*$/;
const NODE_HEADER_VALUE_OK = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether node:http can write this request as is (else it goes raw). */
export function fitsNodeHttp(req: FuzzRequest): boolean {
  if (req.raw) return false;
  if (!TOKEN.test(req.method) || !NODE_PATH_OK.test(req.path)) return false;
  return req.headers.every(([k, v]) => TOKEN.test(k) && NODE_HEADER_VALUE_OK.test(asBytes(v)));
}

export async function send(base: URL, req: FuzzRequest, opts: ClientOptions): Promise<SendResult> {
  if (!fitsNodeHttp(req)) return sendRaw(base, req.raw ?? toRaw(req), opts);
  const first = await sendNode(base, req, opts);
  // A keep-alive socket the server closed between requests is the client's race, not a finding.
  if (first.error?.kind === 'closed' && first.error.message.includes('reused')) return sendNode(base, req, { ...opts, agent: undefined });
  return first;
}

function sendNode(base: URL, req: FuzzRequest, opts: ClientOptions): Promise<SendResult> {
  const keep = opts.keepBytes ?? 64 * 1024;
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    // With headers given as a list node:http adds no Host of its own: name it unless the case does.
    const flat: string[] = req.headers.some(([k]) => k.toLowerCase() === 'host') ? [] : ['Host', base.host];
    for (const [k, v] of req.headers) flat.push(k, asBytes(v));
    // Headers given as a list get no framing from node:http either: without a length a GET body
    // would be read as the next request on the connection.
    if (req.body && !req.headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) flat.push('Content-Length', String(req.body.length));
    let r: http.ClientRequest;
    try {
      r = http.request({
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers: flat,
        setHost: false,
        agent: opts.agent ?? false,
      });
    } catch (err) {
      done({ error: { kind: 'client', message: (err as Error).message, ms: 0 } });
      return;
    }
    const timer = setTimeout(() => {
      r.destroy();
      done({ error: { kind: 'timeout', message: `no complete answer within ${opts.timeoutMs} ms`, ms: performance.now() - started } });
    }, opts.timeoutMs);
    const abort = () => {
      r.destroy();
      done({ error: { kind: 'client', message: 'abandoned by the caller', ms: performance.now() - started } });
    };
    if (opts.signal?.aborted) abort();
    opts.signal?.addEventListener('abort', abort, { once: true });
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let total = 0;
      res.on('data', (c: Buffer) => {
        total += c.length;
        if (kept < keep) {
          chunks.push(c.subarray(0, keep - kept));
          kept += Math.min(c.length, keep - kept);
        }
      });
      const finish = (truncated: boolean) =>
        done({ response: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), bodyBytes: total, ms: performance.now() - started, truncated } });
      res.on('end', () => finish(false));
      res.on('error', () => finish(!res.complete));
      res.on('close', () => finish(!res.complete));
    });
    r.on('error', (err: NodeJS.ErrnoException) => {
      const kind = err.code === 'ECONNREFUSED' ? 'refused' : 'closed';
      done({ error: { kind, message: `${err.code ?? ''} ${err.message}${r.reusedSocket ? ' (reused socket)' : ''}`.trim(), ms: performance.now() - started } });
    });
    if (req.body) r.end(req.body);
    else r.end();
  });
}

/** The request as HTTP/1.1 bytes (for cases node:http will not write). */
export function toRaw(req: FuzzRequest): Buffer {
  const head = [`${req.method} ${req.path} HTTP/1.1`];
  const names = new Set(req.headers.map(([k]) => k.toLowerCase()));
  for (const [k, v] of req.headers) head.push(`${k}: ${v}`);
  if (!names.has('connection')) head.push('Connection: close');
  if (req.body && !names.has('content-length') && !names.has('transfer-encoding')) head.push(`Content-Length: ${req.body.length}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), req.body ?? Buffer.alloc(0)]);
}

/** Raw exchange: write the bytes, read until the server closes, then parse one response. */
function sendRaw(base: URL, bytes: Buffer, opts: ClientOptions): Promise<SendResult> {
  const keep = opts.keepBytes ?? 64 * 1024;
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const sock = net.connect(Number(base.port), base.hostname);
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => {
      const parsed = parseRaw(Buffer.concat(chunks), total, keep, performance.now() - started);
      done(parsed.complete ? { response: parsed.response } : { error: { kind: 'timeout', message: `no complete answer within ${opts.timeoutMs} ms`, ms: performance.now() - started } });
    }, opts.timeoutMs);
    sock.on('connect', () => sock.write(bytes));
    opts.signal?.addEventListener('abort', () => done({ error: { kind: 'client', message: 'abandoned by the caller', ms: performance.now() - started } }), { once: true });
    sock.on('data', (c: Buffer) => {
      total += c.length;
      if (total <= keep + 64 * 1024) chunks.push(c);
      // Keep-alive answers leave the socket open: stop at the first complete response.
      const parsed = parseRaw(Buffer.concat(chunks), total, keep, performance.now() - started);
      if (parsed.complete) done({ response: parsed.response });
    });
    const onEnd = () => {
      const parsed = parseRaw(Buffer.concat(chunks), total, keep, performance.now() - started);
      if (parsed.response) done({ response: parsed.response });
      else done({ error: { kind: 'closed', message: total ? `unparseable answer: ${Buffer.concat(chunks).subarray(0, 200).toString('latin1')}` : 'closed without an answer', ms: performance.now() - started } });
    };
    sock.on('end', onEnd);
    sock.on('close', onEnd);
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (chunks.length) return onEnd();
      done({ error: { kind: err.code === 'ECONNREFUSED' ? 'refused' : 'closed', message: `${err.code ?? ''} ${err.message}`.trim(), ms: performance.now() - started } });
    });
  });
}

function parseRaw(buf: Buffer, total: number, keep: number, ms: number): { response?: FuzzResponse; complete: boolean } {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return { complete: false };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '');
  if (!m) return { complete: false };
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = buf.subarray(end + 4);
  let complete = false;
  const length = headers['content-length'];
  if (length !== undefined) {
    complete = total - (end + 4) >= Number(length);
    body = body.subarray(0, Number(length));
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const decoded = dechunk(body);
    complete = decoded.complete;
    body = decoded.body;
  }
  const status = Number(m[1]);
  return { complete: complete || status === 204 || status === 304, response: { status, headers, body: body.subarray(0, keep), bodyBytes: body.length, ms } };
}

function dechunk(buf: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
    if (at > buf.length) return { body: Buffer.concat(parts), complete: false };
  }
}
