/**
 * Refusals of the HTTP layer itself (request line, headers, body encoding, connections). They
 * belong to the protocol, so they carry their status; the one error mapper turns them into
 * ApiError bodies like every other error. Some carry response headers the status calls for.
 */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class MalformedRequestError extends HttpRefusal {
  constructor(hint: string) {
    super(400, 'Malformed request', hint);
  }
}

export class InvalidBodyError extends HttpRefusal {
  constructor(hint: string) {
    super(400, 'Invalid request body', hint);
  }
}

export class RequestTimeoutError extends HttpRefusal {
  /** `head`: the request line and headers were late; `request`: the body was. */
  constructor(part: 'head' | 'request', ms: number) {
    super(
      408,
      'Request timeout',
      part === 'head'
        ? `The request line and headers must arrive within ${ms} ms of the connection opening or of the previous answer (server.headersTimeoutMs).`
        : `The whole request, body included, must arrive within ${ms} ms (server.requestTimeoutMs).`,
    );
  }
}

export class MethodNotAllowedError extends HttpRefusal {
  constructor(hint: string) {
    super(405, 'Method not allowed', hint);
  }
}

export class ExpectationFailedError extends HttpRefusal {
  constructor() {
    super(417, 'Expectation failed', 'The only Expect value understood is 100-continue.');
  }
}

export class UriTooLongError extends HttpRefusal {
  constructor(maxBytes: number) {
    super(414, 'URI too long', `The request target (path and query) is limited to ${maxBytes} bytes (server.maxUrlBytes); send fewer or shorter query parameters.`);
  }
}

export class HeadersTooLargeError extends HttpRefusal {
  constructor(maxBytes: number) {
    super(431, 'Request header fields too large', `Header names and values are limited to ${maxBytes} bytes in all (server.maxHeaderBytes).`);
  }
}

export class UnsupportedMediaTypeError extends HttpRefusal {
  /** `acceptEncoding`: the codings we read, sent back when the coding was the problem (RFC 9110 §12.5.3). */
  constructor(hint: string, acceptEncoding?: string) {
    super(415, 'Unsupported media type', hint, acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {});
  }
}

export class TooManyConnectionsError extends HttpRefusal {
  /**
   * 429 when this peer holds too many connections, or a client behind a trusted proxy has too
   * many requests in flight (its proxy's connection stays open: it carries other clients); 503
   * when the whole server holds its maximum of connections.
   */
  constructor(scope: 'peer' | 'client' | 'server', max: number) {
    super(
      scope === 'server' ? 503 : 429,
      scope === 'client' ? 'Too many requests' : 'Too many connections',
      scope === 'peer'
        ? `A client address may hold at most ${max} open connections (server.maxConnectionsPerPeer); close idle ones or reuse them.`
        : scope === 'client'
          ? `A client behind a trusted proxy may have at most ${max} requests in flight (server.maxConnectionsPerPeer); wait for answers before sending more.`
          : `The server holds its maximum of ${max} open connections (server.maxConnections); retry shortly.`,
      scope === 'client' ? { 'Retry-After': '1' } : {},
    );
  }
}
