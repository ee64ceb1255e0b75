/**
 * The remote backends of the tests, assembled: a guarded RemoteHttp as the composition root
 * builds it, our own service serving the fixture lake (items endpoint), and config helpers.
 */
import path from 'node:path';
import { configSchema, type Config } from '../../../src/app/config/config-schema.js';
import { checkUrl } from '../../../src/adapters/rasters/url-guard.js';
import { GuardedRemoteHttp } from '../../../src/adapters/features/guarded-remote-http.js';
import { policyUrlGuard } from '../../../src/adapters/features/policy-url-guard.js';
import { OgcFeaturesSource, type FeaturePagingLimits } from '../../../src/adapters/features/ogc-features-source.js';
import type { Collection } from '../../../src/domain/collection.js';
import type { InFlightBytes } from '../../../src/ports/remote-http.js';
import { startTestServer, type TestServer } from '../test-server.js';

export const REMOTE_FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/remote');

/** The guarded client with the default SSRF policy (`rasterFetch` defaults) and these origins allowlisted. */
export function remoteHttp(allowedOrigins: string[], opts: { timeoutMs?: number; maxBytes?: number; inFlight?: InFlightBytes } = {}): GuardedRemoteHttp {
  const defaults: Config = configSchema.parse({});
  const guard = policyUrlGuard((u, p) => checkUrl(u, p), defaults.rasterFetch, () => allowedOrigins);
  return new GuardedRemoteHttp(guard, { timeoutMs: opts.timeoutMs ?? 10_000, maxBytes: opts.maxBytes ?? 8 * 1024 * 1024, maxRedirects: 3, ...(opts.inFlight ? { inFlight: opts.inFlight } : {}) });
}

export function featureSource(allowedOrigins: string[], limits: Partial<FeaturePagingLimits> = {}, http = remoteHttp(allowedOrigins)): OgcFeaturesSource {
  return new OgcFeaturesSource({ http, limits: { pageSize: 40, maxPages: 100, maxFeatures: 5000, ...limits } });
}

export function ogcFeaturesCollection(id: string, url: string, collection: string, extra: Partial<Extract<Collection['backing'], { kind: 'ogc-features' }>> = {}): Collection {
  return { id, title: `${id} (remote)`, backing: { kind: 'ogc-features', url, collection, ...extra } };
}

/** The fixture lake as parquet-lake collections `remote-stations` and `remote-parcels`. */
export const FIXTURE_LAKE_COLLECTIONS = [
  { id: 'remote-stations', title: 'Remote fixture stations', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'observed' } },
  { id: 'remote-parcels', title: 'Remote fixture parcels', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'observed' } },
];

/** Our own service serving the fixture lake (its items endpoint is an OGC API Features server). */
export function startFixtureService(overrides: Record<string, unknown> = {}): Promise<TestServer> {
  return startTestServer({ lake: { root: path.join(REMOTE_FIXTURES, 'lake') }, collections: FIXTURE_LAKE_COLLECTIONS, ...overrides });
}
