import { z } from '../schemas/zod.js';
import { defineRoute, type AnyRoute, type Reply } from '../route.js';
import { ApiError } from '../schemas/common.js';
import { HEALTH_MEDIA_TYPE, HealthResponse, NotReadyResponse } from '../schemas/health.js';
import { toApiError } from '../error-mapper.js';
import { NotReadyError, type HealthReport } from '../../app/health/health-report.js';
import type { HealthService } from '../../app/health/health-service.js';

/** A probe's answer is about this moment: never kept by a cache on the way. */
const NO_STORE = { 'Cache-Control': 'no-store' };

const health = (report: HealthReport, status = 200): Reply => ({ status, contentType: HEALTH_MEDIA_TYPE, body: report, headers: NO_STORE });

const failure = { 500: { description: 'Internal server error', content: { 'application/json': { schema: ApiError } } } };

/** Liveness and readiness probes (load balancers, orchestrators), on the public listener. */
export function healthRoutes(service: HealthService): AnyRoute[] {
  const live = defineRoute({
    method: 'get',
    path: '/health/live',
    operationId: 'getHealthLive',
    summary: 'Liveness: the process answers',
    description: 'Always `{"status":"pass"}` while the process can answer at all; restart the process when it does not.',
    tags: ['Operations'],
    query: z.object({}),
    responses: { 200: { description: 'The process answers', content: { [HEALTH_MEDIA_TYPE]: { schema: HealthResponse } } }, ...failure },
    handler: async () => health(service.live()),
  });

  const ready = defineRoute({
    method: 'get',
    path: '/health/ready',
    operationId: 'getHealthReady',
    summary: 'Readiness: the service can serve requests',
    description:
      'Ready when the datastore answers and is initialised and every collection\'s local source is in place; each check is time-boxed (`server.health.checkTimeoutMs`). A missing source of an `optional` collection is a `warn`: the service stays ready without that collection. 503 names the failing checks.',
    tags: ['Operations'],
    query: z.object({}),
    responses: {
      200: { description: 'Ready (`pass`, or `warn` when an optional collection is degraded)', content: { [HEALTH_MEDIA_TYPE]: { schema: HealthResponse } } },
      503: { description: 'Not ready: an ApiError that is also the health response, naming the failing checks', content: { [HEALTH_MEDIA_TYPE]: { schema: NotReadyResponse } } },
      ...failure,
    },
    handler: async () => {
      const report = await service.ready();
      if (report.status !== 'fail') return health(report);
      const { error } = toApiError(new NotReadyError(report));
      return health({ ...error, ...report } as HealthReport, error.code);
    },
  });

  return [live, ready];
}
