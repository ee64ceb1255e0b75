import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { SocketAnswerLog } from './connection-guard.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An incoming id is kept when it is an RFC 9110 token of at most 128 characters: visible ASCII
 * only, so it cannot split a header or a log line, and short enough to index. Anything else
 * (including two ids, which Node joins with ", ") gets a fresh one.
 */
const SANE_ID = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/;

/** A request target longer than this is cut in the log (a 414's target can be many KiB). */
const MAX_LOGGED_URL = 2048;

export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/** What an operator reads of one answer; docs/logging.md describes each field. */
export interface RequestLogLine {
  requestId: string;
  /** The client's address: the peer's, or the one a trusted proxy forwarded. */
  client: string | null;
  /** The connection's peer, when it is not the client (a trusted proxy's address). */
  peer?: string;
  method: string | null;
  route: string | null;
  url: string | null;
  /** The status sent; null when the client left before any answer went out. */
  status: number | null;
  bytes: number;
  ttfbMs: number | null;
  totalMs: number;
  clientGone: boolean;
  /** The server cut the response short after its head went out (the failure is logged apart). */
  cut?: true;
}

export interface RequestLog extends SocketAnswerLog {
  /**
   * Logs every request of `server` once its response ends, and gives each its id (echoed in
   * X-Request-Id). Call before anything else listens for requests, so the id is set before any
   * answer is written.
   */
  observe(server: Server): void;
  /** The request's id, for the logs and answers of its failures. */
  idOf(req: IncomingMessage): string | undefined;
  /** Records the declared path (`/collections/{collectionId}`) of the route that took the request. */
  routed(req: IncomingMessage, path: string): void;
}

/** Told of requests as the log sees them, so the metrics count the very answers the log records. */
export interface RequestObserver {
  /** A request arrived (its head is complete). */
  started(): void;
  /** The response of a started request ended: finished, cut short, or its client left. */
  ended(): void;
  /** An answer as its log line records it: each line once, also those the guard wrote on a socket. */
  answered(line: RequestLogLine): void;
}

interface Tracked {
  id: string;
  route: string | null;
  started: number;
  /** As sent: the request-target check rewrites an absolute-form target to its path. */
  url: string | null;
  /** Read as the request arrives: a closed socket no longer knows its peer. */
  client: string | null;
  peer: string | null;
  /** The guard answered this request on its socket (a timed-out body): that answer is its line. */
  answeredOnSocket: boolean;
}

/**
 * One log line per answer, written when the response ends: finished, or closed early because the
 * client left. Responses are observed where they arrive on Node's server, beneath restify, so
 * refusals of the request-target check, restify's own 404/405 and routed answers are logged
 * alike; answers the connection guard writes straight to a socket come through `begin`.
 * `addresses` says who sent a request (the client a trusted proxy forwarded, and the peer);
 * `observer` (the metrics) is told of each request's start and end.
 */
export function createRequestLog(
  logger: Logger,
  addresses: (req: IncomingMessage) => { client: string | null; peer: string | null } = socketAddresses,
  observer?: RequestObserver,
): RequestLog {
  const tracked = new WeakMap<IncomingMessage, Tracked>();
  // Sockets the guard answered itself (a refused connection): a request parsed on one afterwards
  // is never answered, and its answer is already logged.
  const answeredSockets = new WeakSet<Socket>();

  const track = (req: IncomingMessage, res: ServerResponse) => {
    if (answeredSockets.has(req.socket)) return;
    const entry: Tracked = {
      id: requestIdFrom(req.headers['x-request-id']),
      route: null,
      started: performance.now(),
      url: req.url ?? null,
      ...addresses(req),
      answeredOnSocket: false,
    };
    const { started } = entry;
    tracked.set(req, entry);
    res.setHeader(REQUEST_ID_HEADER, entry.id);
    observer?.started();

    let firstByteAt: number | undefined;
    // Taken as the head goes out: restify rewrites statusCode to 444 when the client leaves.
    let sentStatus: number | undefined;
    let finishedAt: number | undefined;
    let bytes = 0;
    let cut = false;
    // Body bytes handed to Node for sending; Node sends none for HEAD, 204 and 304.
    const count = (chunk: unknown, encoding: unknown) => {
      if (firstByteAt === undefined) {
        firstByteAt = performance.now();
        sentStatus = res.statusCode;
      }
      if (chunk == null || typeof chunk === 'function' || res.writableEnded || res.destroyed || !carriesBody(req, res)) return;
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : (chunk as Uint8Array).byteLength;
    };
    const write = res.write;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      count(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    const end = res.end;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      count(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
    // Node closes a response whose client left without calling destroy; only our own code calls
    // it, to cut an answer it cannot finish.
    const destroy = res.destroy;
    res.destroy = function (this: ServerResponse, ...args: unknown[]) {
      if (!res.writableFinished && !res.destroyed) cut = true;
      return (destroy as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['destroy'];

    res.once('finish', () => (finishedAt = performance.now()));
    // 'close' follows 'finish' on every response, and comes alone when the connection dropped first.
    res.once('close', () => {
      observer?.ended();
      if (entry.answeredOnSocket) return;
      const gone = finishedAt === undefined;
      const line: RequestLogLine = {
        requestId: entry.id,
        client: entry.client,
        ...peerField(entry),
        method: req.method ?? null,
        route: entry.route,
        url: entry.url === null ? null : shortened(entry.url),
        status: sentStatus ?? null,
        bytes,
        ttfbMs: firstByteAt === undefined ? null : round(firstByteAt - started),
        totalMs: round((finishedAt ?? performance.now()) - started),
        clientGone: gone && !cut,
        ...(cut ? { cut: true as const } : {}),
      };
      logger.info(line, 'request');
      observer?.answered(line);
    });
  };

  return {
    observe(server) {
      // 'checkContinue' and 'checkExpectation' replace 'request' for requests that carry Expect.
      for (const event of ['request', 'checkContinue', 'checkExpectation']) server.prependListener(event, track);
    },
    idOf: (req) => tracked.get(req)?.id,
    routed(req, path) {
      const entry = tracked.get(req);
      if (entry) entry.route = path;
    },
    begin(socket, req) {
      answeredSockets.add(socket);
      const now = performance.now();
      // A request already under way (its body timed out) keeps its id, route and start.
      const entry = req && tracked.get(req);
      if (entry) entry.answeredOnSocket = true;
      const started = entry?.started ?? now;
      const requestId = entry?.id ?? requestIdFrom(req?.headers['x-request-id']);
      const { client, peer } = entry ?? { client: clientAddress(socket), peer: null };
      const url = entry ? entry.url : (req?.url ?? null);
      return {
        headers: { [REQUEST_ID_HEADER]: requestId },
        end(status, bodyBytes, flushed) {
          const line: RequestLogLine = {
            requestId,
            client,
            ...peerField({ client, peer }),
            method: req?.method ?? null,
            route: entry?.route ?? null,
            url: url === null ? null : shortened(url),
            status,
            bytes: flushed ? bodyBytes : 0,
            ttfbMs: round(now - started),
            totalMs: round(performance.now() - started),
            clientGone: !flushed,
          };
          logger.info(line, 'request');
          observer?.answered(line);
        },
      };
    },
  };
}

function carriesBody(req: IncomingMessage, res: ServerResponse): boolean {
  return req.method !== 'HEAD' && res.statusCode !== 204 && res.statusCode !== 304;
}

function socketAddresses(req: IncomingMessage): { client: string | null; peer: string | null } {
  const peer = clientAddress(req.socket);
  return { client: peer, peer };
}

function peerField({ client, peer }: { client: string | null; peer: string | null }): { peer?: string } {
  return peer !== null && peer !== client ? { peer } : {};
}

/** The peer's address as the socket saw it (an IPv4 peer on a dual-stack socket without its ::ffff: prefix). */
function clientAddress(socket: Socket): string | null {
  return socket.remoteAddress?.replace(/^::ffff:(?=\d+\.)/, '') ?? null;
}

function shortened(url: string): string {
  return url.length > MAX_LOGGED_URL ? `${url.slice(0, MAX_LOGGED_URL)}…` : url;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
