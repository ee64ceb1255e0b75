import { z } from '../schemas/zod.js';
import { JobResponse, JobsResponse, ListQuery } from '../schemas/orders.js';
import { DataResponse, ZONE_DATA_F, ZoneDataProfileParam } from '../schemas/zone-data.js';
import { askedProfile, formatPlan } from '../zone-data-query.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { formatParam } from '../schemas/query.js';
import type { BearerGuard } from '../bearer-guard.js';
import type { OrdersService } from '../../app/orders/orders-service.js';
import { ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { zoneDataReply } from '../encoders/zone-data-reply.js';
import type { ZoneDataView } from '../encoders/zone-data-view.js';
import { jobBody } from '../order-bodies.js';
import { page, pageLinks } from '../order-pages.js';
import { ORDER_ROUTE, jobIdParam, orderIdParam } from './order-route.js';

/** The jobs of an order: listed, read, and the zone data a successful one computed. */
export function orderJobRoutes(service: OrdersService, guard: Pick<BearerGuard, 'ownerOf'>): AnyRoute[] {
  const params = z.object({ order_id: orderIdParam });
  const jobParams = z.object({ order_id: orderIdParam, job_id: jobIdParam });
  return [
  defineRoute({
    ...ORDER_ROUTE,
    method: 'get',
    path: '/orders/{order_id}/jobs',
    operationId: 'getOrderJobs',
    summary: 'Jobs of an order, paged',
    params,
    query: ListQuery,
    responses: responses({ description: 'One page of jobs', schema: JobsResponse }, [401, 404, 422, 503]),
    handler: async ({ params: pp, query, links, req }) => {
      const p = page(query);
      const { jobs } = await service.jobs(guard.ownerOf(req), pp.order_id, p);
      return json({
        jobs: jobs.items.map((j) => jobBody(j, links)),
        numberMatched: jobs.total,
        numberReturned: jobs.items.length,
        links: [...pageLinks(links, `/orders/${pp.order_id}/jobs`, p, jobs.items.length, jobs.total), links.link('up', `/orders/${pp.order_id}`, { type: 'application/json', title: 'The order' })],
      });
    },
  }),
  defineRoute({
    ...ORDER_ROUTE,
    method: 'get',
    path: '/orders/{order_id}/jobs/{job_id}',
    operationId: 'getOrderJob',
    summary: 'Status of one job, with its attempts',
    params: jobParams,
    responses: responses({ description: 'The job', schema: JobResponse }, [401, 404, 422, 503]),
    handler: async ({ params: p, links, req }) => json(jobBody(await service.job(guard.ownerOf(req), p.order_id, p.job_id), links)),
  }),
  defineRoute({
    ...ORDER_ROUTE,
    method: 'get',
    path: '/orders/{order_id}/jobs/{job_id}/results',
    operationId: 'getOrderJobResults',
    summary: 'The zone data a successful job computed',
    description: 'Read back from the job\'s parquet file; DGGS-JSON by default, and every zone-data format with `f`. 404 until the job is successful.',
    params: jobParams,
    query: z.object({ f: formatParam(ZONE_DATA_F), profile: ZoneDataProfileParam }),
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [401, 404, 406, 422, 503]),
    handler: async ({ params: p, query, format, acceptProfiles, links, req, signal }) => {
      const plan = formatPlan(format, askedProfile(query.profile, acceptProfiles, format));
      const { job, data, grid } = await service.result(guard.ownerOf(req), p.order_id, p.job_id, plan.check);
      const path = `/orders/${job.orderId}/jobs/${job.id}/results`;
      const title = `Order ${job.orderId}, job ${job.id}: zone ${job.zoneId}`;
      const ctx: ZoneDataView = {
        grid,
        links: [
          ...links.selfAndAlternates(path, format, ZONE_DATA_FORMATS, query.profile ? { profile: query.profile } : {}, title),
          ...data.sources.map((s) => ({ href: s.href, rel: s.rel ?? 'source', ...(s.type ? { type: s.type } : {}), ...(s.title ? { title: s.title } : {}) })),
          links.link('up', `/orders/${job.orderId}/jobs/${job.id}`, { type: 'application/json', title: 'The job' }),
        ],
        refined: false,
        profile: plan.profile,
        signal,
        title,
        crumbs: [
          ['Home', links.href('/')],
          [`Order ${job.orderId}`, links.href(`/orders/${job.orderId}`)],
          [`Job ${job.id} results`, ''],
        ],
      };
      return zoneDataReply(format, data, ctx);
    },
  }),
  ];
}
