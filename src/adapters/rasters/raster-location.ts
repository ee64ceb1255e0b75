import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, InvalidRequestError, UpstreamError } from '../../ports/errors.js';
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

/**
 * What to throw for a failed open or read: the fetch's own refusal first (a format library may
 * turn a failed read into a bare "Request failed"), then any typed error, else the raster is
 * unreadable: 400 for config (`configured` says why), 502 for a client's URL (`client` says why,
 * as `configured` unless given).
 */
export function readFailure(err: unknown, remote: GuardedRangeReader | undefined, trusted: boolean, configured: string, client = configured): AppError {
  if (remote?.failure) return remote.failure;
  if (err instanceof AppError) return err;
  const detail = (err as Error)?.message ?? String(err);
  if (trusted) return new InvalidRequestError('Raster could not be read', `The collection raster ${configured}: ${detail}`);
  return new UpstreamError('Raster could not be read', `cog-url ${client}: ${detail}`);
}
