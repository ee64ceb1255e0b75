import type { FetchPolicy } from './url-guard.js';

/**
 * Rasters named by config are trusted (the operator chose them): they may live on private
 * networks or on disk, and stay open between requests. Ad-hoc `cog-url` rasters get the
 * configured policy and are never cached. Even a trusted host gets no response larger than a
 * client request's whole budget: a host that ignores Range must not make the service hold a
 * large file in memory; and their bodies count in the same in-flight budget as everyone's.
 */
export function trustedPolicy(untrusted: FetchPolicy): FetchPolicy {
  return {
    allowedSchemes: ['http', 'https', 'file'],
    allowedHosts: [],
    allowPrivateNetworks: true,
    maxBytes: Math.min(untrusted.maxBytes, untrusted.maxRequestBytes ?? untrusted.maxBytes),
    timeoutMs: 60_000,
    maxRedirects: 5,
    ...(untrusted.inFlight ? { inFlight: untrusted.inFlight } : {}),
  };
}

/** Open datasets by href, oldest evicted first; a failed open is forgotten so it can be retried. */
export class DatasetCache<T> {
  private readonly open = new Map<string, Promise<T>>();

  constructor(private readonly limit = 16) {}

  get(href: string, load: () => Promise<T>): Promise<T> {
    let p = this.open.get(href);
    if (!p) {
      p = load();
      this.open.set(href, p);
      p.catch(() => this.open.delete(href));
      if (this.open.size > this.limit) this.open.delete(this.open.keys().next().value!);
    }
    return p;
  }
}
