import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { createHttpServer } from '../../http/server.js';
import { adminRoutes } from '../../http/routes/admin.js';

/**
 * The admin routes, on a server of their own built from the same kit as the public one (ApiError
 * bodies, request log, connection bounds), bound only when `server.admin` says where it listens:
 * the public server never serves them.
 */
export function bindAdmin(c: Container, config: Config): void {
  const at = config.server.admin;
  if (!at) return;
  c.bind(TOKENS.AdminRoutes).toDynamicValue((ctx) => adminRoutes(ctx.get(TOKENS.DatastoreAdmin), { loopbackOnly: !('socket' in at) }));
  c.bind(TOKENS.AdminHttpServer).toDynamicValue((ctx) =>
    createHttpServer({
      routes: ctx.get<ReturnType<typeof adminRoutes>>(TOKENS.AdminRoutes).routes,
      logger: ctx.get<Logger>(TOKENS.Logger).child({ listener: 'admin' }),
      limits: config.server,
      authenticate: () => {},
    }),
  );
}
