import { Container } from 'inversify';
import pino, { type Logger } from 'pino';
import { TOKENS } from './tokens.js';
import type { Config } from './config/config-schema.js';
import { resolveSelf } from './self-url.js';
import { bindGrids } from './composition/grids.js';
import { bindCollections } from './composition/collections.js';
import { bindLake } from './composition/lake.js';
import { bindRasters } from './composition/rasters.js';
import { bindRemote } from './composition/remote.js';
import { bindZoneData } from './composition/zone-data.js';
import { bindDatastore } from './composition/datastore.js';
import { bindAuth } from './composition/auth.js';
import { bindJobs, jobsRunHere } from './composition/jobs.js';
import { bindPyramidIngest } from './composition/pyramid-ingest.js';
import { bindHttp } from './composition/http.js';
import { bindAdmin } from './composition/admin.js';
import { bindOperations } from './composition/operations.js';
import { bindPyramids } from './composition/pyramids.js';
import type { HttpServer } from '../http/server.js';
import { closeListener, listenAt, type ListenAt } from '../http/listener.js';
import type { DatastoreAdmin } from '../ports/datastore.js';
import type { LakeReader } from '../ports/lake-reader.js';
import type { ZonePyramidStore } from '../ports/zone-pyramid-store.js';
import type { JobRunner } from './orders/job-runner.js';
import type { HealthService } from './health/health-service.js';
import { SOLE_PROCESS, type ProcessGroup } from '../ports/process-group.js';

/**
 * The composition root: binds every port to the adapter the config names, and every use case,
 * route family and the HTTP server to what they need. Nothing else in the code base constructs
 * services; each capability's bindings are in src/app/composition.
 */
export function buildContainer(config: Config, logger?: Logger, group: ProcessGroup = SOLE_PROCESS): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Logger).toConstantValue(logger ?? pino({ level: config.server.logLevel, name: 'dggs-api' }));
  c.bind(TOKENS.ProcessGroup).toConstantValue(group);
  for (const bind of [bindGrids, bindCollections, bindLake, bindPyramids, bindRasters, bindRemote, bindZoneData, bindDatastore, bindAuth, bindJobs, bindPyramidIngest, bindHttp, bindAdmin, bindOperations]) bind(c, config);
  return c;
}

export interface App {
  container: Container;
  http: HttpServer;
  logger: Logger;
  /** Listens (the admin listener too, when configured); resolves with the public bound port. */
  listen(): Promise<number>;
  /** Where the admin listener listens once listen() resolved (the bound port, the socket's path); undefined without one. */
  adminListener(): ListenAt | undefined;
  close(): Promise<void>;
}

/**
 * The start-up check of the collections' local sources (and the extents their data gives), run by
 * every process that serves or computes collection data, before it does: server and worker refuse
 * the same mistakes.
 */
export async function checkSources(container: Container): Promise<void> {
  try {
    await container.get<() => Promise<void>>(TOKENS.CollectionSourcesCheck)();
  } catch (err) {
    // The check may have started the lake's engine: a refused start leaves nothing running.
    await container.get<LakeReader>(TOKENS.LakeReader).close();
    throw err;
  }
}

/** What tests may change of the composition before anything is resolved. */
export interface AppOptions {
  /** Rebinds some tokens (e.g. TOKENS.ZonePyramidStore to an in-memory store): for tests only. */
  rebind?: (c: Container) => void;
}

/**
 * The service in this process: the datastore initialised if the config says so, the server built,
 * the runner started if it runs here. In a group of processes (`server.processes`), only process 1
 * holds the admin listener (see docs/operations.md, Processes).
 */
export async function createApp(config: Config, logger?: Logger, group: ProcessGroup = SOLE_PROCESS, options: AppOptions = {}): Promise<App> {
  const container = buildContainer(config, logger, group);
  options.rebind?.(container);
  const datastore = container.get<DatastoreAdmin>(TOKENS.DatastoreAdmin);
  await checkSources(container);
  if (config.datastore.autoInitialize) await datastore.initialize();
  const http = container.get<HttpServer>(TOKENS.HttpServer);
  const server = http.server;
  const admin = config.server.admin && group.index === 1 ? container.get<HttpServer>(TOKENS.AdminHttpServer).server : undefined;
  let adminAt: ListenAt | undefined;
  const runner = container.get<JobRunner>(TOKENS.JobRunner);
  if (jobsRunHere(config, group)) await runner.start();
  return {
    container,
    http,
    logger: container.get<Logger>(TOKENS.Logger),
    listen: async () => {
      const { port } = (await listenAt(server.server, { host: config.server.host, port: config.server.port })) as { port: number };
      resolveSelf(config, port);
      try {
        // Its own socket, never the group's shared one: one process holds it, as a lone process does.
        if (admin && config.server.admin) adminAt = await listenAt(admin.server, config.server.admin, { exclusive: true });
      } catch (err) {
        server.close();
        throw err;
      }
      return port;
    },
    adminListener: () => adminAt,
    close: async () => {
      // Probes on connections still open while the requests finish see the service leaving.
      container.get<HealthService>(TOKENS.HealthService).stopping();
      await Promise.all([closeListener(server.server, undefined), admin && closeListener(admin.server, adminAt)]);
      await runner.stop();
      await Promise.all([datastore.close(), container.get<LakeReader>(TOKENS.LakeReader).close(), container.get<ZonePyramidStore>(TOKENS.ZonePyramidStore).close()]);
    },
  };
}
