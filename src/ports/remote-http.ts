/**
 * Outbound HTTP to servers the service does not run (feature backends, STAC APIs), with the
 * SSRF policy applied to every URL and every redirect hop. Adapters that talk to remote
 * servers receive one from the composition root, so there is one guard for all of them.
 */
import type { HeldBytes } from '../domain/byte-collector.js';

export interface RemoteRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** JSON text for POST. */
  body?: string;
  /** Aborts the exchange (the caller's client left): the request rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface RemoteResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Uint8Array;
  /** The URL that answered, after redirects. */
  url: string;
}

/**
 * Why a request got no answer: refused by the policy before connecting, a URL that is not one,
 * no connection, no answer in time, an answer over the byte bound, too many redirects.
 */
export type RemoteFailure = 'refused' | 'invalid-url' | 'unreachable' | 'timeout' | 'too-large' | 'redirects';

export class RemoteHttpError extends Error {
  override readonly name = 'RemoteHttpError';
  constructor(
    readonly failure: RemoteFailure,
    readonly url: string,
    readonly detail: string,
  ) {
    super(`${failure}: ${detail}`);
  }
}

export interface RemoteHttp {
  request(req: RemoteRequest): Promise<RemoteResponse>;
}

/**
 * Bytes of remote response bodies being received at once, over every request of the process
 * (cog-url and configured rasters, feature backends, STAC APIs): one budget, so that many large
 * answers arriving together are refused instead of buffered. A body takes its bytes as they
 * arrive and releases them once it is complete or abandoned; `take` throws the service's busy
 * refusal (503 with Retry-After, naming the bound) when they do not fit, taking nothing.
 */
export type InFlightBytes = HeldBytes;

/**
 * The address a URL may be fetched from, after the SSRF policy accepted it (pinned, so DNS
 * cannot answer differently between the check and the connection). Throws RemoteHttpError
 * ('refused' or 'invalid-url') otherwise.
 */
export type UrlGuard = (url: URL) => Promise<{ address: string; family: 4 | 6 }>;
