import type { ServerResponse } from 'node:http';

/** The reason a request's signal aborts with when its client went away: nobody is left to answer. */
export class ClientGoneError extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('The client closed the connection before the answer was finished.');
  }
}

/**
 * A signal that aborts when the connection closes before the response is finished (the client
 * gave up, or its socket dropped), so the work for the request can stop.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const ctl = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) ctl.abort(new ClientGoneError());
  });
  return ctl.signal;
}
