/**
 * The UrlGuard of remote backends: the same SSRF check as `cog-url` (handed in by the
 * composition root, so there is one implementation), with the base policy's private-network
 * refusal lifted for the origins an operator allowlists. Only http and https are ever fetched.
 */
import { AppError } from '../../ports/errors.js';
import { RemoteHttpError, type UrlGuard } from '../../ports/remote-http.js';

/** The policy fields the check reads; the shape of the `rasterFetch` config. */
export interface BasePolicy {
  allowedSchemes: readonly ('http' | 'https' | 'file')[];
  allowedHosts: readonly string[];
  allowPrivateNetworks: boolean;
}

export type UrlCheck<P extends BasePolicy> = (url: URL, policy: P) => Promise<{ address?: string; family?: 4 | 6 }>;

export function policyUrlGuard<P extends BasePolicy>(check: UrlCheck<P>, policy: P, allowedOrigins: () => readonly string[]): UrlGuard {
  const web: P = { ...policy, allowedSchemes: policy.allowedSchemes.filter((s) => s !== 'file') };
  const trusted: P = { ...web, allowedHosts: [], allowPrivateNetworks: true };
  return async (url) => {
    const allowed = allowedOrigins().includes(url.origin);
    let checked;
    try {
      checked = await check(url, allowed ? trusted : web);
    } catch (err) {
      if (err instanceof AppError) {
        const detail = `${url.origin}: ${err.message.toLowerCase()}${err.hint ? ` (${err.hint})` : ''}`;
        throw new RemoteHttpError(err.kind === 'forbidden' ? 'refused' : /not found|resolve/i.test(`${err.message} ${err.hint ?? ''}`) ? 'unreachable' : 'invalid-url', url.href, detail);
      }
      throw err;
    }
    if (!checked.address || !checked.family) throw new RemoteHttpError('refused', url.href, `${url.origin}: not an http(s) address`);
    return { address: checked.address, family: checked.family };
  };
}
