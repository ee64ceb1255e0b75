import { AppError } from '../app/errors.js';
import type { ApiError } from './schemas/common.js';

/**
 * The one place where anything thrown becomes an ApiError body. Known errors keep their status,
 * message and hint; anything else is a 500 whose details go to the log, never to the client.
 */
export function toApiError(err: unknown): { error: ApiError; internal: boolean } {
  if (err instanceof AppError) return { error: body(err.status, err.message, err.hint), internal: false };
  const named = err as { name?: string; statusCode?: number; body?: { message?: string }; message?: string; position?: unknown };
  if (named?.name === 'Cql2SyntaxError') {
    return { error: body(400, 'Invalid filter', named.message), internal: false };
  }
  if (named?.name === 'SpatialWorkError') {
    return { error: body(400, 'Filter too costly', named.message), internal: false };
  }
  // restify's own errors (body parser, content type, not found, method not allowed)
  const status = named?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { error: body(status, RESTIFY_MESSAGES[status] ?? 'Bad request', named.body?.message ?? named.message), internal: false };
  }
  return { error: body(500, 'Internal server error', 'The failure was logged; retry later or report it.'), internal: true };
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
