import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { InFlightBytesBudget } from '../zone-data/in-flight-bytes.js';
import { GuardedRemoteHttp } from '../../adapters/features/guarded-remote-http.js';
import { policyUrlGuard } from '../../adapters/features/policy-url-guard.js';
import { OgcFeaturesSource } from '../../adapters/features/ogc-features-source.js';
import { checkUrl } from '../../adapters/rasters/url-guard.js';
import { stacCatalogFactory } from '../../adapters/stac/stac-catalog-factory.js';

/** Fetching from elsewhere: the budget of bytes in flight, the URL guard, OGC API Features and STAC backends. */
export function bindRemote(c: Container, config: Config): void {
  const remote = config.remoteBackends;
  // One budget of the bytes of every upstream body being received at once: rasters, feature backends, STAC APIs.
  c.bind(TOKENS.InFlightBytes).toDynamicValue(() => new InFlightBytesBudget(config.rasterFetch.maxInFlightBytes, 'rasterFetch.maxInFlightBytes'));
  // cog-url's SSRF check, lifted for allowlisted origins (read at each check: `{self}` is resolved once listening).
  c.bind(TOKENS.RemoteUrlGuard).toDynamicValue(() => policyUrlGuard((url, policy) => checkUrl(url, policy), config.rasterFetch, () => remote.allowedOrigins));
  c.bind(TOKENS.RemoteHttp).toDynamicValue(
    (ctx) => new GuardedRemoteHttp(ctx.get(TOKENS.RemoteUrlGuard), { timeoutMs: remote.timeoutMs, maxBytes: remote.maxResponseBytes, maxRedirects: remote.maxRedirects, inFlight: ctx.get(TOKENS.InFlightBytes) }),
  );
  c.bind(TOKENS.FeatureSource).toDynamicValue((ctx) => new OgcFeaturesSource({ http: ctx.get(TOKENS.RemoteHttp), limits: remote }));
  c.bind(TOKENS.StacCatalogs).toDynamicValue((ctx) =>
    stacCatalogFactory({ http: ctx.get(TOKENS.RemoteHttp), assetGuard: ctx.get(TOKENS.RemoteUrlGuard), limits: { pageSize: Math.min(remote.pageSize, 100), maxPages: remote.maxPages, maxItems: remote.maxFeatures } }),
  );
}
