import { z } from './zod.js';
import { ApiError } from './common.js';

/** The IETF draft "Health Check Response Format for HTTP APIs" (draft-inadarei-api-health-check), as far as the service writes it. */
export const HEALTH_MEDIA_TYPE = 'application/health+json';

const HealthStatus = z.enum(['pass', 'warn', 'fail']).openapi({ description: '`pass`; `warn`: serving, something degraded; `fail`' });

export const HealthCheck = z
  .object({
    componentId: z.string().optional().openapi({ description: 'The component instance: a collection id' }),
    componentType: z.string().openapi({ description: '`datastore` or `collection`' }),
    status: HealthStatus,
    output: z.string().optional().openapi({ description: 'Why the check warns or fails' }),
    time: z.string().openapi({ description: 'When the check was made (RFC 3339)' }),
  })
  .openapi('HealthCheck');

export const HealthResponse = z
  .object({
    status: HealthStatus,
    checks: z.record(z.string(), z.array(HealthCheck)).optional().openapi({ description: 'By `component:measurement`: `datastore:initialized`, `collections:source` (one entry per collection with a local source)' }),
  })
  .openapi('HealthResponse');

/** A failed readiness answer is an ApiError and a health response at once. */
export const NotReadyResponse = ApiError.extend(HealthResponse.shape).openapi('NotReadyResponse');
