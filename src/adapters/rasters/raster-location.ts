import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, InvalidRequestError, UnavailableError, UpstreamError } from '../../ports/errors.js';
import { ByteBudget, GuardedRangeReader } from './guarded-http.js';
import { checkUrl, type FetchPolicy } from './url-guard.js';

/** Where a raster's bytes are read, whatever its format: a local file, or guarded range reads over http(s). */
export type RasterLocation = { kind: 'file'; path: string } | { kind: 'remote'; remote: GuardedRangeReader };

/**
 * Where `href` is read from, refused by the policy before any byte is read. A config path is
 * relative to `cwd`; a client's raster must be an absolute URL, file: only where the policy
 * allows it. One client request is one untrusted open (never cached): its reads share one budget.
 */
export async function locateRaster(href: string, cwd: string, policy: FetchPolicy, trusted: boolean): Promise<RasterLocation> {
  const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(href) && !/^[a-z]:[\\/]/i.test(href);
  if (!isUrl) {
    if (!trusted) throw new InvalidRequestError('Invalid raster URL', 'cog-url must be an absolute http(s) URL.');
    return { kind: 'file', path: path.resolve(cwd, href) };
  }
  if (href.toLowerCase().startsWith('file:')) {
    if (!trusted) await checkUrl(href, policy); // refuses unless the policy allows file:
    return { kind: 'file', path: fileURLToPath(href) };
  }
  await checkUrl(href, policy); // refuse before any byte is fetched
  return { kind: 'remote', remote: new GuardedRangeReader(href, policy, trusted ? undefined : new ByteBudget(policy.maxRequestBytes ?? policy.maxBytes)) };
}

/** Told the detail of a configured raster's failure, which its answer leaves out (the log's, not the client's). */
export type TrustedFailureReport = (href: string, err: unknown) => void;

/**
 * What to throw for a failed open or read: the fetch's own refusal first (a format library may
 * turn a failed read into a bare "Request failed"), then any typed error, else the raster is
 * unreadable. A configured raster's failure is the operator's (503): the answer says which kind
 * (`configured`) but never the detail, which names server paths and system errors (ENOENT ...);
 * `report` gets that. A client's URL is 502 with the detail (`client` says why, as `configured`
 * unless given): it is theirs.
 */
export function readFailure(err: unknown, remote: GuardedRangeReader | undefined, trusted: boolean, configured: string, client = configured, report?: { href: string; to?: TrustedFailureReport }): AppError {
  if (remote?.failure) return remote.failure;
  if (err instanceof AppError) return err;
  if (trusted) {
    if (report) report.to?.(report.href, err);
    const missing = (err as NodeJS.ErrnoException)?.code === 'ENOENT';
    return new UnavailableError('Raster could not be read', `The collection's raster file ${missing ? 'was not found' : configured}; the failure is in the service's log.`);
  }
  const detail = (err as Error)?.message ?? String(err);
  return new UpstreamError('Raster could not be read', `cog-url ${client}: ${detail}`);
}
