import { toApiError } from '../../src/http/error-mapper.js';

/** The status the HTTP adapter answers for an error a use case or adapter threw. */
export function httpStatus(err: unknown): number {
  return toApiError(err).error.code;
}
