/**
 * Errors the use cases and adapters throw. The HTTP adapter maps each to an ApiError body in
 * one place; `message` is fixed per kind of error, `hint` says how to fix the request.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, hint?: string) {
    super(400, message, hint);
  }
}

export class UnauthorizedError extends AppError {
  constructor(hint = 'Send "Authorization: Bearer <token>" with a valid token.') {
    super(401, 'Missing or invalid bearer token', hint);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, hint?: string) {
    super(403, message, hint);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, hint?: string) {
    super(404, message, hint);
  }
}

export class NotAcceptableError extends AppError {
  constructor(supported: readonly string[], reason?: string) {
    super(406, 'Requested format is not supported', `${reason ? `${reason} ` : ''}Use f= one of: ${supported.join(', ')}`);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(hint?: string) {
    super(413, 'Request body too large', hint);
  }
}

export class ValidationError extends AppError {
  constructor(message: string, hint?: string, status: 400 | 422 = 422) {
    super(status, message, hint);
  }
}

/** A quota is reached: the client may try again after `retryAfterSeconds` (sent as Retry-After). */
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    hint: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message, hint);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, hint?: string) {
    super(503, message, hint);
  }
}

export class DatastoreNotInitializedError extends ServiceUnavailableError {
  constructor() {
    super('Datastore not initialized', 'An operator initialises it with POST /admin/initialize from the service host.');
  }
}
