import { z } from '../schemas/zod.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { ApiError } from '../schemas/common.js';
import type { ServiceMetrics } from '../metrics.js';

/** `GET /metrics`: the Prometheus scrape target (docs/operations.md lists the series). */
export function metricsRoute(metrics: ServiceMetrics): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Metrics in the Prometheus text format',
    description: 'Requests by route template and status, durations, response bytes, caches, zone-data admission control, connections, jobs, and the Node.js process. Deployments usually keep it internal (the nginx reference deployment denies it from outside).',
    tags: ['Operations'],
    query: z.object({}),
    responses: {
      200: { description: 'The exposition (text format 0.0.4)', content: { 'text/plain': { schema: { type: 'string' } } } },
      500: { description: 'Internal server error', content: { 'application/json': { schema: ApiError } } },
    },
    handler: async () => ({ contentType: metrics.contentType, body: await metrics.exposition(), headers: { 'Cache-Control': 'no-store' } }),
  });
}
