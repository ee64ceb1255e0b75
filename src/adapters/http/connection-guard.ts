import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import type { Response } from 'restify';
import { toApiError } from './error-mapper.js';
import { send } from './route.js';
import { ExpectationFailedError, HeadersTooLargeError, MalformedRequestError, MethodNotAllowedError, RequestTimeoutError, TooManyConnectionsError, UriTooLongError } from './http-errors.js';
import { PayloadTooLargeError } from '../../app/errors.js';

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerPeer: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  maxUrlBytes: number;
  maxHeaderBytes: number;
}

export interface ConnectionGuard {
  /** True for a connection that was refused (its answer is already written). */
  refused(socket: Socket): boolean;
}

/**
 * Bounds what connections can hold on Node's http server: total and per-peer connection caps,
 * head/request/keep-alive/idle timeouts, the request head size, and an ApiError answer (written
 * on the socket, since there is no response object) for everything Node's parser refuses.
 * Call before `listen` (Node reads the connection-check interval then).
 */
export function guardConnections(httpServer: Server, limits: ConnectionLimits): ConnectionGuard {
  // restify creates the server without options; Node reads these constructor options from the
  // instance (per connection, per request, and at listen), so setting them before listen works.
  const server = httpServer as Server & NodeServerOptions;
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(server.headersTimeout / 4)));
  // The parser's bound covers the request line and the headers together; admitRequestTarget then
  // holds each to its own bound with a 414 or 431 that says which one was passed.
  server.maxHeaderSize = limits.maxUrlBytes + limits.maxHeaderBytes;
  // We answer a missing Host ourselves (Node's own answer has no body).
  server.requireHostHeader = false;
  // No protocol upgrades: an Upgrade header is served as an ordinary request instead of handing
  // the socket to restify's event proxy, where nobody answers it.
  server.shouldUpgradeCallback = () => false;

  const refusedSockets = new WeakSet<Socket>();
  const perPeer = new Map<string, number>();
  let open = 0;

  server.on('connection', (socket: Socket) => {
    const peer = peerKey(socket.remoteAddress);
    const held = perPeer.get(peer) ?? 0;
    let refusal: TooManyConnectionsError | undefined;
    if (open >= limits.maxConnections) refusal = new TooManyConnectionsError('server', limits.maxConnections);
    else if (held >= limits.maxConnectionsPerPeer) refusal = new TooManyConnectionsError('peer', limits.maxConnectionsPerPeer);
    if (refusal) {
      refusedSockets.add(socket);
      answerOnSocket(socket, refusal);
      return;
    }
    open++;
    perPeer.set(peer, held + 1);
    socket.once('close', () => {
      open--;
      const left = (perPeer.get(peer) ?? 1) - 1;
      if (left > 0) perPeer.set(peer, left);
      else perPeer.delete(peer);
    });
  });

  // Idle sockets close; a request whose handler is still computing is left alone (its cost is
  // bounded by the route), but a client that stops reading its response is cut off.
  server.timeout = limits.idleTimeoutMs;
  server.on('timeout', (socket: Socket) => {
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (res && !res.headersSent) return;
    socket.destroy();
  });

  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket: Socket) => {
    const error = refusedSockets.has(socket) ? undefined : parserError(err, limits);
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (error && socket.writable && !res?.headersSent) answerOnSocket(socket, error);
    else socket.destroy();
  });

  // Expect values other than 100-continue (Node's own answer is a bare 417).
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const { error } = toApiError(new ExpectationFailedError());
    send(res as Response, { status: error.code, contentType: 'application/json', body: error, headers: { Connection: 'close' } });
  });

  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    answerOnSocket(socket, new MethodNotAllowedError('CONNECT is not supported: this is not a proxy.'));
  });

  return { refused: (socket) => refusedSockets.has(socket) };
}

interface NodeServerOptions {
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
  requireHostHeader: boolean;
  shouldUpgradeCallback: (req: IncomingMessage) => boolean;
}

/** Writes an ApiError response straight to a socket and closes it once written. */
export function answerOnSocket(socket: Socket, err: unknown): void {
  const { error } = toApiError(err);
  const body = JSON.stringify(error);
  socket.end(
    `HTTP/1.1 ${error.code} ${STATUS_CODES[error.code] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  socket.destroySoon();
}

/** The answer to a request Node's parser refused; undefined when nobody is left to answer. */
function parserError(err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, limits: ConnectionLimits): Error | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeoutError(limits.requestTimeoutMs);
    case 'HPE_HEADER_OVERFLOW':
      return inRequestLine(err) ? new UriTooLongError(limits.maxUrlBytes) : new HeadersTooLargeError(limits.maxHeaderBytes);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PayloadTooLargeError('Chunk extensions are limited to 16 KiB.');
    case 'HPE_INVALID_METHOD':
      return new MalformedRequestError('Unknown request method; the API document /api lists each route and its methods.');
    default:
      return new MalformedRequestError(`The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`);
  }
}

/**
 * Whether the head overflowed inside the request line: no line break since the last request's
 * end in the bytes parsed. (The parser counts line and headers together and does not say which.)
 */
function inRequestLine(err: { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  const packet = err.rawPacket;
  if (!packet) return false;
  const parsed = packet.subarray(0, err.bytesParsed ?? packet.length);
  const start = parsed.lastIndexOf('\r\n\r\n');
  return !parsed.subarray(start < 0 ? 0 : start + 4).includes('\n');
}

/** Connections are counted per IPv4 address, and per /64 for IPv6 (one host usually holds a whole /64). */
function peerKey(address: string | undefined): string {
  const a = (address ?? '').replace(/^::ffff:/, '');
  if (!isIPv6(a)) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '').toLowerCase()).join(':') + '::/64';
}
