/**
 * The `{self}` placeholder: a config URL that points at this service itself (the demo's
 * ogc-features collection reads our own /collections/{id}/items). It is resolved once the
 * server listens, to the listening address over loopback: the public base URL may sit behind a
 * proxy the service cannot reach from inside.
 */
import type { Config } from './config/config-schema.js';

export const SELF = '{self}';

/** `http://<host>:<port>` for the address the server listens on; wildcard binds become loopback. */
export function selfOrigin(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** Replaces `{self}` in ogc-features backend URLs and in remoteBackends.allowedOrigins. */
export function resolveSelf(config: Config, port: number): void {
  const origin = selfOrigin(config.server.host, port);
  for (const c of config.collections) {
    if (c.backing.kind === 'ogc-features' && c.backing.url.startsWith(SELF)) c.backing.url = origin + c.backing.url.slice(SELF.length);
  }
  config.remoteBackends.allowedOrigins = config.remoteBackends.allowedOrigins.map((o) => (o === SELF ? origin : o));
}
