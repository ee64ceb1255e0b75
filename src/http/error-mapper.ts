import { AppError, type ErrorKind } from '../ports/errors.js';
import { Cql2SyntaxError } from '../domain/cql2/errors.js';
import { SpatialWorkError } from '../domain/geometry/spatial-work.js';
import { HttpRefusal } from './http-errors.js';
import type { ApiError } from './schemas/common.js';

/** The HTTP status of each kind of error use cases and adapters throw: the one place they meet HTTP. */
const STATUS: Record<ErrorKind, number> = {
  'invalid-request': 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  'unsupported-format': 406,
  'too-large': 413,
  invalid: 422,
  'quota-exceeded': 429,
  'upstream-failed': 502,
  unavailable: 503,
  'upstream-timeout': 504,
};

/**
 * The one place where anything thrown becomes an ApiError body. Known errors keep their message
 * and hint and get their kind's status; anything else is a 500 whose details go to the log, never
 * to the client.
 */
export function toApiError(err: unknown): { error: ApiError; internal: boolean } {
  if (err instanceof HttpRefusal) return { error: body(err.status, err.message, err.hint), internal: false };
  if (err instanceof AppError) return { error: body(STATUS[err.kind], err.message, err.hint), internal: false };
  if (err instanceof Cql2SyntaxError) return { error: body(400, 'Invalid filter', err.message), internal: false };
  if (err instanceof SpatialWorkError) return { error: body(400, 'Filter too costly', err.message), internal: false };
  // restify's own errors (body parser, content type, not found, method not allowed)
  const named = err as { statusCode?: number; body?: { message?: string }; message?: string };
  const status = named?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { error: body(status, RESTIFY_MESSAGES[status] ?? 'Bad request', named.body?.message ?? named.message), internal: false };
  }
  return { error: body(500, 'Internal server error', 'The failure was logged under this answer\'s X-Request-Id; retry later, or report it with that id.'), internal: true };
}

const RESTIFY_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Requested format is not supported',
  413: 'Request body too large',
  415: 'Unsupported media type',
};

function body(code: number, message: string, hint?: string): ApiError {
  return hint ? { code, message, hint } : { code, message };
}
