import net from 'node:net';

/** What came back on a raw socket: the first response parsed, and whether the server closed. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything received, as latin1. */
  raw: string;
}

export interface RawOptions {
  localAddress?: string;
  /** Fails when the server neither answers nor closes within this time. */
  timeoutMs?: number;
  /** Pieces written one after another (after `request`), each after `gapMs`. */
  more?: (string | Buffer)[];
  gapMs?: number;
}

/**
 * Sends bytes fetch cannot send (bad Host, bad request lines, partial bodies) and reads until the
 * server closes the connection. Requests should carry `Connection: close` unless the server is
 * expected to close by itself.
 */
export function rawExchange(port: number, request: string | Buffer, opts: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: opts.localAddress });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${opts.timeoutMs ?? 5000} ms; received: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`));
    }, opts.timeoutMs ?? 5000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {
      // A reset after the answer still leaves the answer in `chunks`.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      resolve(parseResponse(raw));
    });
    socket.write(request);
    const more = [...(opts.more ?? [])];
    const next = () => {
      const piece = more.shift();
      if (piece === undefined || socket.destroyed) return;
      socket.write(piece, () => setTimeout(next, opts.gapMs ?? 20));
    };
    if (more.length) setTimeout(next, opts.gapMs ?? 20);
  });
}

export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '', raw };
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
  const rest = raw.slice(end + 4);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: length !== undefined ? rest.slice(0, length) : rest, raw };
}

/** Opens a socket and resolves once it is connected (it sends nothing). */
export function idleSocket(port: number, localAddress?: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads from a socket until it closes; resolves with what arrived and how long it took. */
export function untilClosed(socket: net.Socket, timeoutMs = 5000): Promise<{ response: RawResponse; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    const done = () => {
      clearTimeout(timer);
      resolve({ response: parseResponse(Buffer.concat(chunks).toString('latin1')), ms: Date.now() - started });
    };
    if (socket.destroyed) done();
    else socket.once('close', done);
  });
}
