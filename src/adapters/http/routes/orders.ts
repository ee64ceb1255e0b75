import { z } from '../schemas/zod.js';
import { JobResponse, JobsResponse, OrderRequest, OrderResponse, OrdersResponse } from '../schemas/orders.js';
import { defineRoute, json } from '../route.js';
import { responses } from '../responses.js';
import { queryInteger } from '../schemas/query.js';
import type { Links } from '../links.js';
import type { RouteModule } from '../route-module.js';
import type { OrdersService } from '../../../app/use-cases/orders-service.js';
import type { Job, Order } from '../../../ports/datastore.js';

const orderId = queryInteger('Order identifier', { min: 0, max: 2 ** 31 - 1 }).unwrap();
const jobId = queryInteger('Job identifier', { min: 0 }).unwrap();

function jobBody(job: Job, links: Links) {
  return {
    id: job.id,
    order_id: job.orderId,
    status: job.status,
    collection: job.collection,
    dggrs: job.dggrs,
    zone_id: job.zoneId,
    zone_depth: job.zoneDepth,
    progress: job.progress,
    message: job.message,
    created: job.created,
    updated: job.updated,
    links: [
      links.link('self', `/orders/${job.orderId}/jobs/${job.id}`, { type: 'application/json' }),
      links.link('up', `/orders/${job.orderId}`, { type: 'application/json', title: 'The order' }),
      links.link('related', `/collections/${encodeURIComponent(job.collection)}/dggs/${job.dggrs}/zones/${job.zoneId}/data`, { title: 'Zone data the job computes', query: { 'zone-depth': job.zoneDepth } }),
    ],
  };
}

function orderBody(order: Order, links: Links) {
  return {
    id: order.id,
    status: order.status,
    title: order.title,
    created: order.created,
    updated: order.updated,
    jobs: order.jobs.map((j) => jobBody(j, links)),
    links: [links.link('self', `/orders/${order.id}`, { type: 'application/json' }), links.link('http://www.opengis.net/def/rel/ogc/1.0/job-list', `/orders/${order.id}/jobs`, { type: 'application/json', title: 'Jobs' })],
  };
}

/** Orders and their jobs; every route needs a bearer token. */
export function orderRoutes(service: OrdersService): RouteModule {
  const common = { tags: ['Orders'], secured: true, invalidStatus: 422 as const };
  return {
    routes: [
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders',
        operationId: 'getOrders',
        summary: 'All orders',
        responses: responses({ description: 'The orders', schema: OrdersResponse }, [401, 503]),
        handler: async ({ links }) => json({ orders: (await service.list()).map((o) => orderBody(o, links)), links: [links.link('self', '/orders', { type: 'application/json' })] }),
      }),
      defineRoute({
        ...common,
        method: 'post',
        path: '/orders',
        operationId: 'createOrder',
        summary: 'Create an order; one job is spawned per zone',
        body: OrderRequest,
        responses: responses({ description: 'The created order', schema: OrderResponse, status: 201 }, [401, 413, 422, 503]),
        handler: async ({ body, links }) => {
          const order = await service.create(body);
          return { status: 201, contentType: 'application/json', body: orderBody(order, links), headers: { Location: links.href(`/orders/${order.id}`) } };
        },
      }),
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders/{order_id}',
        operationId: 'getOrder',
        summary: 'One order with its jobs',
        params: z.object({ order_id: orderId }),
        responses: responses({ description: 'The order', schema: OrderResponse }, [401, 404, 422, 503]),
        handler: async ({ params, links }) => json(orderBody(await service.get(params.order_id), links)),
      }),
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders/{order_id}/jobs',
        operationId: 'getOrderJobs',
        summary: 'Jobs of an order',
        params: z.object({ order_id: orderId }),
        responses: responses({ description: 'The jobs', schema: JobsResponse }, [401, 404, 422, 503]),
        handler: async ({ params, links }) => {
          const order = await service.get(params.order_id);
          return json({ jobs: order.jobs.map((j) => jobBody(j, links)), links: [links.link('self', `/orders/${order.id}/jobs`, { type: 'application/json' })] });
        },
      }),
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders/{order_id}/jobs/{job_id}',
        operationId: 'getOrderJob',
        summary: 'Status of one job',
        params: z.object({ order_id: orderId, job_id: jobId }),
        responses: responses({ description: 'The job', schema: JobResponse }, [401, 404, 422, 503]),
        handler: async ({ params, links }) => json(jobBody(await service.job(params.order_id, params.job_id), links)),
      }),
    ],
  };
}
