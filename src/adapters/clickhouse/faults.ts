import { AppError, UnavailableError, UpstreamError, UpstreamTimeoutError } from '../../ports/errors.js';

/** Where a failed statement went, for the hint: the cluster and the server (origin only, never credentials). */
export interface FaultOrigin {
  cluster: string;
  /** `http://host:port` of the server the statement was sent to. */
  server: string;
  retryAfterSeconds: number;
}

/**
 * Server error codes meaning a shard (or the server asked) cannot be reached now, so the same
 * request may succeed later: 279 ALL_CONNECTION_TRIES_FAILED and 210 NETWORK_ERROR (a shard
 * down), 209 SOCKET_TIMEOUT and 32 ATTEMPT_TO_READ_AFTER_EOF (a shard lost mid-query),
 * 202 TOO_MANY_SIMULTANEOUS_QUERIES (a busy server).
 */
const UNAVAILABLE_CODES = new Set([279, 210, 209, 32, 202]);
/** 159 TIMEOUT_EXCEEDED: the server stopped the query at `max_execution_time`. */
const TIMEOUT_CODES = new Set([159]);
/** Socket-level failures of the HTTP connection itself: the server asked is down or went away. */
const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/** The server's error code in a message (`Code: 279, e.displayText() = ...` in 18.16), if any. */
export function serverErrorCode(message: string): number | undefined {
  const m = /\bCode: (\d{1,5})\b/.exec(message);
  return m ? Number(m[1]) : undefined;
}

/** The first line of a server message, bounded, for a hint. */
function detail(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

/**
 * The error kind of anything a statement threw: a shard or server down → UnavailableError with
 * the configured Retry-After; a timeout (the client's or the server's) → UpstreamTimeoutError;
 * any other server error → UpstreamError. Errors already of a kind pass through.
 */
export function clickHouseFault(err: unknown, origin: FaultOrigin): AppError {
  if (err instanceof AppError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const errno = (err as { code?: unknown } | undefined)?.code;
  const code = errorCode(err);
  const where = `ClickHouse cluster "${origin.cluster}" via ${origin.server}`;
  if ((typeof errno === 'string' && NETWORK_ERRNOS.has(errno)) || (code !== undefined && UNAVAILABLE_CODES.has(code)) || /socket hang up/i.test(message)) {
    return new UnavailableError('Zone pyramid store unavailable', `${where}: a shard did not answer (${detail(message) || String(errno)}). Try again later.`, origin.retryAfterSeconds);
  }
  if ((code !== undefined && TIMEOUT_CODES.has(code)) || message === 'Timeout error.') {
    return new UpstreamTimeoutError('Zone pyramid store timed out', `${where} did not answer within clickhouse.timeoutMs.`);
  }
  return new UpstreamError('Zone pyramid store failed', `${where}: ${detail(message)}`);
}

/**
 * The server's code of an error: in the message as 18.16 writes it, or parsed by the client from a
 * newer server's message into `code` (a string of digits, the message then without it).
 */
function errorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^\d{1,5}$/.test(code)) return Number(code);
  return serverErrorCode(err instanceof Error ? err.message : String(err));
}

/** A server error that names a table or database that does not exist (60 UNKNOWN_TABLE, 81 UNKNOWN_DATABASE). */
export function isUnknownTable(err: unknown): boolean {
  const code = errorCode(err);
  return code === 60 || code === 81;
}
