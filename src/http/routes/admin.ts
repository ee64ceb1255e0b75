import { isIP } from 'node:net';
import type { Request } from 'restify';
import { z } from '../schemas/zod.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { ForbiddenError } from '../../ports/errors.js';
import type { RouteModule } from '../route-module.js';
import type { DatastoreAdmin } from '../../ports/datastore.js';

/**
 * True only for a loopback TCP peer. Forwarded-for headers are ignored on purpose: any client can
 * write them.
 */
export function isLoopbackPeer(req: Request): boolean {
  const address = (req.socket?.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (isIP(address) === 4) return address.startsWith('127.');
  return address === '::1';
}

/**
 * Datastore initialisation and maintenance, for operators on the service host only: served by
 * the admin listener alone. On TCP it also answers loopback peers only (defence in depth, should
 * it be bound wider); on a Unix socket the file's permissions decide who connects.
 */
export function adminRoutes(datastore: DatastoreAdmin, opts: { loopbackOnly: boolean }): RouteModule {
  const guard = (route: Omit<Parameters<typeof defineRoute>[0], 'internal' | 'tags' | 'responses' | 'authorize'>): AnyRoute =>
    defineRoute({
      ...route,
      internal: true,
      tags: ['Admin'],
      responses: {},
      authorize: (req) => {
        if (opts.loopbackOnly && !isLoopbackPeer(req)) throw new ForbiddenError('Forbidden', 'Admin routes answer only requests from the service host.');
      },
    });
  return {
    routes: [
      guard({ method: 'get', path: '/admin/status', operationId: 'adminStatus', summary: 'Datastore status', query: z.object({}), handler: async () => json(await datastore.status()) }),
      guard({ method: 'post', path: '/admin/initialize', operationId: 'adminInitialize', summary: 'Create the schema and seed', query: z.object({}), handler: async () => json(await datastore.initialize()) }),
      guard({ method: 'post', path: '/admin/migrate', operationId: 'adminMigrate', summary: 'Apply pending migrations', query: z.object({}), handler: async () => json(await datastore.migrate()) }),
    ],
  };
}
