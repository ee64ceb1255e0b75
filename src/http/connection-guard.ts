import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Response } from 'restify';
import { ClientRequests, ConnectionSlots, peerKey } from './connection-slots.js';
import { toApiError } from './error-mapper.js';
import { send } from './route.js';
import { ExpectationFailedError, HeadersTooLargeError, MalformedRequestError, MethodNotAllowedError, RequestTimeoutError, TooManyConnectionsError, UriTooLongError } from './http-errors.js';
import { TooLargeError } from '../ports/errors.js';

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

/**
 * Told of each answer the guard writes straight to a socket, where there is no response object to
 * observe: `begin` gives the headers the answer carries (its request id), `end` reports it once
 * flushed, or once the socket closed before it could be.
 */
export interface SocketAnswerLog {
  begin(socket: Socket, req: IncomingMessage | undefined): { headers: Record<string, string>; end(status: number, bodyBytes: number, flushed: boolean): void };
}

export interface ConnectionGuard {
  /** True for a connection that was refused (its answer is already written). */
  refused(socket: Socket): boolean;
  /**
   * Counts a request a trusted proxy forwarded for `client` until its response closes; throws
   * TooManyConnectionsError (429) when that client already has maxConnectionsPerPeer in flight.
   */
  admitProxied(res: ServerResponse, client: string | null): void;
  /** Connections open now, and refused since start (the metrics read it). */
  stats(): ConnectionStats;
}

export interface ConnectionStats {
  open: number;
  /** New connections refused: their peer held maxConnectionsPerPeer, or every slot served a request. */
  refusedPeer: number;
  refusedServer: number;
  /** Connections serving no request that gave their slot up to a newcomer at the total cap. */
  evicted: number;
}

/**
 * Bounds what connections can hold on Node's http server: total and per-peer connection caps
 * (at the total cap a connection serving no request gives its slot to a new one: see
 * ConnectionSlots), head/request/keep-alive/idle timeouts, the request head size, and an ApiError answer (written
 * on the socket, since there is no response object) for everything Node's parser refuses.
 * A trusted proxy's connection (`isProxy`) counts in the total only: it carries many clients,
 * whose requests in flight are bounded one by one instead (admitProxied).
 * Call before `listen` (Node reads the connection-check interval then).
 */
export function guardConnections(httpServer: Server, limits: ConnectionLimits, answers?: SocketAnswerLog, isProxy: (socket: Socket) => boolean = () => false): ConnectionGuard {
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
  const slots = new ConnectionSlots<Socket>(limits.maxConnections, limits.maxConnectionsPerPeer);
  const clients = new ClientRequests(limits.maxConnectionsPerPeer);
  const counts = { refusedPeer: 0, refusedServer: 0, evicted: 0 };
  const refuse = (socket: Socket, err: TooManyConnectionsError) => {
    refusedSockets.add(socket);
    answerOnSocket(socket, err, answers);
  };

  server.on('connection', (socket: Socket) => {
    const admission = slots.admit(socket, peerKey(socket.remoteAddress), !isProxy(socket));
    if (!admission.admitted) {
      counts[admission.scope === 'peer' ? 'refusedPeer' : 'refusedServer']++;
      refuse(socket, new TooManyConnectionsError(admission.scope, admission.scope === 'peer' ? limits.maxConnectionsPerPeer : limits.maxConnections));
      return;
    }
    if (admission.evicted) {
      counts.evicted++;
      refuse(admission.evicted, new TooManyConnectionsError('server', limits.maxConnections));
    }
    socket.once('close', () => slots.release(socket));
  });
  // A request holds its connection's slot from its complete head until its response is done.
  const serving = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    slots.requestStarted(socket);
    res.once('close', () => slots.requestEnded(socket));
  };
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.prependListener(event, serving);

  // Idle sockets close; a request whose handler is still computing is left alone (its cost is
  // bounded by the route), but a client that stops reading its response is cut off.
  server.timeout = limits.idleTimeoutMs;
  server.on('timeout', (socket: Socket) => {
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (res && !res.headersSent) return;
    socket.destroy();
  });

  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket: Socket) => {
    const error = refusedSockets.has(socket) ? undefined : parserError(err, limits, slots.serving(socket));
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    // A request under way (its body timed out) is the one answered.
    if (error && socket.writable && !res?.headersSent) answerOnSocket(socket, error, answers, res?.req);
    else socket.destroy();
  });

  // Expect values other than 100-continue (Node's own answer is a bare 417).
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const { error } = toApiError(new ExpectationFailedError());
    send(res as Response, { status: error.code, contentType: 'application/json', body: error, headers: { Connection: 'close' } });
  });

  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    answerOnSocket(socket, new MethodNotAllowedError('CONNECT is not supported: this is not a proxy.'), answers, req);
  });

  return {
    refused: (socket) => refusedSockets.has(socket),
    stats: () => ({ open: slots.open, ...counts }),
    admitProxied(res, client) {
      const key = peerKey(client);
      if (!clients.start(key)) throw new TooManyConnectionsError('client', limits.maxConnectionsPerPeer);
      res.once('close', () => clients.end(key));
    },
  };
}

interface NodeServerOptions {
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
  requireHostHeader: boolean;
  shouldUpgradeCallback: (req: IncomingMessage) => boolean;
}

/** Writes an ApiError response straight to a socket and closes it once written; `answers` hears of it. */
export function answerOnSocket(socket: Socket, err: unknown, answers?: SocketAnswerLog, req?: IncomingMessage): void {
  const { error } = toApiError(err);
  const body = JSON.stringify(error);
  const bodyBytes = Buffer.byteLength(body);
  const logged = answers?.begin(socket, req);
  const extra = Object.entries(logged?.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  let reported = false;
  const report = (flushed: boolean) => {
    if (reported) return;
    reported = true;
    logged?.end(error.code, bodyBytes, flushed);
  };
  // Closed before the write's callback: the peer left (or reset) before taking the answer.
  socket.once('close', () => report(false));
  socket.end(
    `HTTP/1.1 ${error.code} ${STATUS_CODES[error.code] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${bodyBytes}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      body,
    ((err?: Error | null) => report(!err)) as () => void,
  );
  socket.destroySoon();
}

/** The answer to a request Node's parser refused; undefined when nobody is left to answer. */
function parserError(err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, limits: ConnectionLimits, headComplete: boolean): Error | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return headComplete ? new RequestTimeoutError('request', limits.requestTimeoutMs) : new RequestTimeoutError('head', Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs));
    case 'HPE_HEADER_OVERFLOW':
      return inRequestLine(err) ? new UriTooLongError(limits.maxUrlBytes) : new HeadersTooLargeError(limits.maxHeaderBytes);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new TooLargeError('Request body too large', 'Chunk extensions are limited to 16 KiB.');
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
