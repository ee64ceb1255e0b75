/**
 * The kinds of error use cases and adapters throw, in the caller's terms and without protocol
 * statuses: the HTTP adapter gives each kind its status in one table (src/http/error-mapper.ts).
 * `message` is fixed per kind of fault, `hint` says how to fix the request.
 */
export type ErrorKind =
  /** The request is malformed or asks for something that cannot be read (a bad parameter, filter, id). */
  | 'invalid-request'
  /** No valid credentials were presented. */
  | 'unauthenticated'
  /** The credentials are valid but do not allow this. */
  | 'forbidden'
  | 'not-found'
  /** None of the representations the client accepts is offered here. */
  | 'unsupported-format'
  /** The request or the work it asks for exceeds a size limit. */
  | 'too-large'
  /** The request is well formed but its content is not acceptable (an invalid order, a limit of a backend read). */
  | 'invalid'
  /** The caller's quota is reached; it may try again later. */
  | 'quota-exceeded'
  /** The service cannot do the work now (busy, not initialised, over a time budget). */
  | 'unavailable'
  /** A backend the work depends on failed or answered something unusable. */
  | 'upstream-failed'
  /** A backend the work depends on did not answer in time. */
  | 'upstream-timeout';

export class AppError extends Error {
  /** Seconds after which the same request may succeed (a busy service, a quota), when that is known. */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly hint?: string,
    retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The same error with `prefix` before its hint (to say which part of a request failed). */
  withHintPrefix(prefix: string): AppError {
    return new AppError(this.kind, this.message, `${prefix}${this.hint ?? ''}`, this.retryAfterSeconds);
  }
}

/** The class of a kind whose errors take just a message and a hint. */
function errorOfKind(kind: ErrorKind) {
  return class extends AppError {
    constructor(message: string, hint?: string) {
      super(kind, message, hint);
    }
  };
}

/** Faults of the request itself: sending it again unchanged fails again. */
const REQUEST_FAULTS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['invalid-request', 'unauthenticated', 'forbidden', 'not-found', 'unsupported-format', 'too-large', 'invalid', 'quota-exceeded']);

export function isRequestFault(err: unknown): err is AppError {
  return err instanceof AppError && REQUEST_FAULTS.has(err.kind);
}

export class InvalidRequestError extends errorOfKind('invalid-request') {}

export class NotAuthenticatedError extends AppError {
  constructor(hint = 'Send "Authorization: Bearer <token>" with a valid token.') {
    super('unauthenticated', 'Missing or invalid bearer token', hint);
  }
}

export class ForbiddenError extends errorOfKind('forbidden') {}

export class NotFoundError extends errorOfKind('not-found') {}

/** The one answer for a grid id that is not served where a path names it. */
export class UnknownGridError extends NotFoundError {
  constructor(id: string, known: readonly string[]) {
    super('DGGRS not found', unknownGridHint(id, known));
  }
}

/** What to say of a grid id that is not served, in a path (UnknownGridError) or in a request body. */
export function unknownGridHint(id: string, known: readonly string[]): string {
  return `No grid "${id.length > 64 ? `${id.slice(0, 64)}…` : id}". Available grids: ${known.join(', ')}; see /dggs.`;
}

export class UnsupportedFormatError extends AppError {
  constructor(supported: readonly string[], reason?: string) {
    super('unsupported-format', 'Requested format is not supported', `${reason ? `${reason} ` : ''}Use f= one of: ${supported.join(', ')}`);
  }
}

export class TooLargeError extends errorOfKind('too-large') {}

export class ValidationError extends errorOfKind('invalid') {}

/** A quota is reached: the client may try again after `retryAfterSeconds`. */
export class QuotaExceededError extends AppError {
  declare readonly retryAfterSeconds: number;
  constructor(message: string, hint: string, retryAfterSeconds: number) {
    super('quota-exceeded', message, hint, retryAfterSeconds);
  }
}

export class UnavailableError extends AppError {
  constructor(message: string, hint?: string, retryAfterSeconds?: number) {
    super('unavailable', message, hint, retryAfterSeconds);
  }
}

export class DatastoreNotInitializedError extends UnavailableError {
  constructor() {
    super('Datastore not initialized', 'An operator initialises it with POST /admin/initialize from the service host.');
  }
}

export class UpstreamError extends errorOfKind('upstream-failed') {}

export class UpstreamTimeoutError extends errorOfKind('upstream-timeout') {}
