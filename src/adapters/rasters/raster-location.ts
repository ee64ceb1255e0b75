import path from 'node:path';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AppError, InvalidRequestError, UnavailableError, UpstreamError } from '../../ports/errors.js';
import { ByteBudget, GuardedRangeReader } from './guarded-http.js';
import { checkUrl, type FetchPolicy } from './url-guard.js';
import type { SourceVersion } from '../../ports/source-version.js';

/** Where a raster's bytes are read, whatever its format: a local file, or guarded range reads over http(s). */
export type RasterLocation = { kind: 'file'; path: string } | { kind: 'remote'; remote: GuardedRangeReader };

/** An href with a scheme (a Windows drive letter is none). */
const isUrl = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href) && !/^[a-z]:[\\/]/i.test(href);

/**
 * Where `href` is read from, refused by the policy before any byte is read. A config path is
 * relative to `cwd`; a client's raster must be an absolute URL, file: only where the policy
 * allows it. One client request is one untrusted open (never cached): its reads share one budget.
 */
export async function locateRaster(href: string, cwd: string, policy: FetchPolicy, trusted: boolean): Promise<RasterLocation> {
  if (!isUrl(href)) {
    if (!trusted) throw new InvalidRequestError('Invalid raster URL', 'cog-url must be an absolute http(s) URL.');
    return { kind: 'file', path: localPath(href, cwd)! };
  }
  if (href.toLowerCase().startsWith('file:')) {
    if (!trusted) await checkUrl(href, policy); // refuses unless the policy allows file:
    return { kind: 'file', path: localPath(href, cwd)! };
  }
  await checkUrl(href, policy); // refuse before any byte is fetched
  return { kind: 'remote', remote: new GuardedRangeReader(href, policy, trusted ? undefined : new ByteBudget(policy.maxRequestBytes ?? policy.maxBytes)) };
}

/** The file a configured raster's href names (a path relative to `cwd`, or a file: URL); undefined for a remote one. */
export function localPath(href: string, cwd: string): string | undefined {
  if (!isUrl(href)) return path.resolve(cwd, href);
  return href.toLowerCase().startsWith('file:') ? fileURLToPath(href) : undefined;
}

/**
 * A configured raster's local file as it is now: its size and modification time (a file that
 * cannot be read has a stamp of its own, so its loss counts as a change); undefined for a remote
 * raster.
 */
export async function fileStamp(href: string, cwd: string): Promise<SourceVersion | undefined> {
  const file = localPath(href, cwd);
  if (file === undefined) return undefined;
  try {
    const st = await stat(file);
    return { id: `${st.size}:${st.mtimeMs}`, modifiedMs: st.mtimeMs };
  } catch (err) {
    return { id: `unreadable:${(err as NodeJS.ErrnoException).code ?? ''}` };
  }
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
