/**
 * A remote backend's faults as error kinds: unreachable, refused by the fetch policy, a bad or
 * oversized payload are upstream failures, no answer in time an upstream timeout. The hint names
 * the backend (collection and origin, never the path or query, which may carry keys). Adapters of
 * remote backends (OGC API Features, STAC APIs) share them, so they live beside the port.
 */
import { AppError, UpstreamError, UpstreamTimeoutError } from './errors.js';
import { RemoteHttpError } from './remote-http.js';

/** How a backend is named in hints: `collection "x" (backend https://host:port)`. */
export function backendLabel(collectionId: string, url: string): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    /* keep the text */
  }
  return `collection "${collectionId}" (backend ${origin})`;
}

/** How a STAC catalog is named in hints: `the STAC catalog at https://host:port`. */
export function catalogLabel(url: string): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    /* keep the text */
  }
  return `the STAC catalog at ${origin}`;
}

export function remoteFault(err: unknown, what: string, label: string): Error {
  if (!(err instanceof RemoteHttpError)) return err as Error;
  switch (err.failure) {
    case 'timeout':
      return new UpstreamTimeoutError(`${what} timed out`, `The backend of ${label} did not answer in time: ${err.detail}. Try again later or ask for a smaller zone.`);
    case 'refused':
      return new UpstreamError(`${what} refused by the fetch policy`, `A URL of ${label} is refused: ${err.detail}. An operator allowlists trusted origins in remoteBackends.allowedOrigins.`);
    case 'too-large':
      return new UpstreamError(`${what} answer too large`, `The backend of ${label}: ${err.detail} (remoteBackends.maxResponseBytes).`);
    case 'redirects':
      return new UpstreamError(`${what} redirects too often`, `The backend of ${label}: ${err.detail} (remoteBackends.maxRedirects).`);
    case 'invalid-url':
      return new UpstreamError(`Invalid ${what.toLowerCase()} URL`, `A URL of ${label} is not valid: ${err.detail}.`);
    case 'unreachable':
      return new UpstreamError(`${what} unreachable`, `Could not connect to the backend of ${label}: ${err.detail}.`);
  }
}

/** A payload that is not what the protocol promises. */
export function badPayload(what: string, label: string, detail: string): AppError {
  return new UpstreamError(`Invalid response from ${what.toLowerCase()}`, `The backend of ${label} sent ${detail}.`);
}

/** An HTTP error status from the backend. */
export function backendStatus(what: string, label: string, status: number, url: string): AppError {
  return new UpstreamError(`${what} error`, `The backend of ${label} answered HTTP ${status} for ${pathOf(url)}.`);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
