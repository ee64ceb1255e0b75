import { z } from '../schemas/zod.js';
import { DEFAULT_PAGE, JobResponse, JobsResponse, ListQuery, MAX_PAGE, OrderRequest, OrderResponse, OrdersResponse } from '../schemas/orders.js';
import { DataResponse, ZONE_DATA_F } from '../schemas/zone-data.js';
import { defineRoute, json } from '../route.js';
import { responses } from '../responses.js';
import { formatParam, queryInteger } from '../schemas/query.js';
import type { Links } from '../links.js';
import type { RouteModule } from '../route-module.js';
import type { BearerGuard } from '../bearer-guard.js';
import type { ListQuery as ServiceListQuery, OrdersService } from '../../app/orders/orders-service.js';
import type { Job, JobStatus, Order } from '../../ports/datastore.js';
import { ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { zoneDataReply } from '../encoders/zone-data-reply.js';
import type { ZoneDataView } from '../encoders/zone-data-view.js';

const orderId = queryInteger('Order identifier', { min: 0, max: 2 ** 31 - 1 }).unwrap();
const jobId = queryInteger('Job identifier', { min: 0, max: Number.MAX_SAFE_INTEGER }).unwrap();

function jobBody(job: Job, links: Links) {
  const base = `/orders/${job.orderId}/jobs/${job.id}`;
  return {
    id: job.id,
    order_id: job.orderId,
    status: job.status,
    collection: job.collection,
    dggrs: job.dggrs,
    zone_id: job.zoneId,
    zone_depth: job.zoneDepth,
    properties: job.properties ?? null,
    concept: job.concept ?? null,
    derived_indice: job.derivedIndice ?? null,
    progress: job.progress,
    message: job.message,
    created: job.created,
    updated: job.updated,
    started: job.started,
    finished: job.finished,
    attempts: job.attempts,
    result: job.result ? { rows: job.result.rows, bytes: job.result.bytes, fields: job.result.fields } : null,
    links: [
      links.link('self', base, { type: 'application/json' }),
      links.link('up', `/orders/${job.orderId}`, { type: 'application/json', title: 'The order' }),
      ...(job.status === 'successful'
        ? [links.link('http://www.opengis.net/def/rel/ogc/1.0/results', `${base}/results`, { type: 'application/vnd.ogc.dggs+json', title: 'Results (DGGS-JSON; other zone-data formats with f)' })]
        : []),
      links.link('related', `/collections/${encodeURIComponent(job.collection)}/dggs/${job.dggrs}/zones/${job.zoneId}/data`, {
        title: 'Zone data the job computes',
        query: { 'zone-depth': job.zoneDepth, ...(job.properties ? { properties: job.properties.join(',') } : {}) },
      }),
    ],
  };
}

function orderFields(order: Order, resultsCollection: string, links: Links) {
  return {
    id: order.id,
    status: order.status,
    title: order.title,
    collection: order.collection,
    concept: order.concept,
    dggrs: order.dggrs,
    created: order.created,
    updated: order.updated,
    job_counts: order.jobCounts,
    jobs_total: Object.values(order.jobCounts).reduce((a, b) => a + b, 0),
    results_collection: resultsCollection,
    links: [
      links.link('self', `/orders/${order.id}`, { type: 'application/json' }),
      links.link('http://www.opengis.net/def/rel/ogc/1.0/job-list', `/orders/${order.id}/jobs`, { type: 'application/json', title: 'Jobs' }),
    ],
  };
}

interface RawListQuery {
  limit?: number;
  offset?: number;
  status?: JobStatus;
}

function page(q: RawListQuery): ServiceListQuery {
  return { limit: Math.min(q.limit ?? DEFAULT_PAGE, MAX_PAGE), offset: q.offset ?? 0, ...(q.status ? { status: q.status } : {}) };
}

/** `self`, and `next` / `prev` when there are entries beyond the page; each carries the filter. */
function pageLinks(links: Links, path: string, p: ServiceListQuery, returned: number, total: number) {
  const query = (offset: number) => ({ limit: p.limit, offset, ...(p.status ? { status: p.status } : {}) });
  return [
    links.link('self', path, { type: 'application/json', query: query(p.offset) }),
    ...(p.offset + returned < total ? [links.link('next', path, { type: 'application/json', query: query(p.offset + p.limit) })] : []),
    ...(p.offset > 0 ? [links.link('prev', path, { type: 'application/json', query: query(Math.max(0, p.offset - p.limit)) })] : []),
  ];
}

/**
 * Orders and their jobs; every route needs a bearer token, and each token sees only its owner's
 * orders (the bearer guard gives the owner it admitted the request for).
 */
export function orderRoutes(service: OrdersService, guard: Pick<BearerGuard, 'ownerOf'>): RouteModule {
  const common = { tags: ['Orders'], secured: true, invalidStatus: 422 as const };
  const params = z.object({ order_id: orderId });
  const jobParams = z.object({ order_id: orderId, job_id: jobId });
  const withJobs = async (owner: string, id: number, links: Links) => {
    const { order, jobs } = await service.get(owner, id);
    return { ...orderFields(order, service.resultsCollection(order.id), links), jobs: jobs.map((j) => jobBody(j, links)) };
  };
  return {
    routes: [
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders',
        operationId: 'getOrders',
        summary: 'Your orders, paged',
        description: `Orders of the token's owner in creation order, \`limit\` (default ${DEFAULT_PAGE}, at most ${MAX_PAGE}) at a time, optionally only those in one \`status\`. Each carries its job counts; the jobs are at its job-list link.`,
        query: ListQuery,
        responses: responses({ description: 'One page of orders', schema: OrdersResponse }, [401, 422, 503]),
        handler: async ({ query, links, req }) => {
          const p = page(query);
          const { items, total } = await service.list(guard.ownerOf(req), p);
          return json({
            orders: items.map((o) => orderFields(o, service.resultsCollection(o.id), links)),
            numberMatched: total,
            numberReturned: items.length,
            links: pageLinks(links, '/orders', p, items.length, total),
          });
        },
      }),
      defineRoute({
        ...common,
        method: 'post',
        path: '/orders',
        operationId: 'createOrder',
        summary: 'Create an order; it spawns jobs that compute zone data',
        description:
          'With `collection`: one job per distinct zone computes the zone data of the collection at `zone_depth`. With `concept`: one job per zone, processing entry and concept collection computes the concept\'s properties at the entry\'s refinement level, named after its `derived_indice`. Quotas per owner: open orders, jobs per order (429 with Retry-After).',
        body: OrderRequest,
        responses: responses({ description: 'The created order', schema: OrderResponse, status: 201 }, [401, 413, 422, 429, 503]),
        handler: async ({ body, links, req }) => {
          const { order, jobs } = await service.create(guard.ownerOf(req), body);
          const created = { ...orderFields(order, service.resultsCollection(order.id), links), jobs: jobs.map((j) => jobBody(j, links)) };
          return { status: 201, contentType: 'application/json', body: created, headers: { Location: links.href(`/orders/${order.id}`) } };
        },
      }),
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders/{order_id}',
        operationId: 'getOrder',
        summary: 'One order with its jobs',
        params,
        responses: responses({ description: 'The order', schema: OrderResponse }, [401, 404, 422, 503]),
        handler: async ({ params: p, links, req }) => json(await withJobs(guard.ownerOf(req), p.order_id, links)),
      }),
      defineRoute({
        ...common,
        method: 'delete',
        path: '/orders/{order_id}',
        operationId: 'dismissOrder',
        summary: 'Dismiss an order',
        description: 'Jobs not yet started never start and running ones stop at their next step, leaving no result; jobs already finished keep their state and results, and an order already finished stays as it is. Answers the order; dismissing again answers the same.',
        params,
        responses: responses({ description: 'The dismissed order', schema: OrderResponse }, [401, 404, 422, 503]),
        handler: async ({ params: p, links, req }) => {
          const owner = guard.ownerOf(req);
          await service.dismiss(owner, p.order_id);
          return json(await withJobs(owner, p.order_id, links));
        },
      }),
      defineRoute({
        ...common,
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
        ...common,
        method: 'get',
        path: '/orders/{order_id}/jobs/{job_id}',
        operationId: 'getOrderJob',
        summary: 'Status of one job, with its attempts',
        params: jobParams,
        responses: responses({ description: 'The job', schema: JobResponse }, [401, 404, 422, 503]),
        handler: async ({ params: p, links, req }) => json(jobBody(await service.job(guard.ownerOf(req), p.order_id, p.job_id), links)),
      }),
      defineRoute({
        ...common,
        method: 'get',
        path: '/orders/{order_id}/jobs/{job_id}/results',
        operationId: 'getOrderJobResults',
        summary: 'The zone data a successful job computed',
        description: 'Read back from the job\'s parquet file; DGGS-JSON by default, and every zone-data format with `f`. 404 until the job is successful.',
        params: jobParams,
        query: z.object({ f: formatParam(ZONE_DATA_F) }),
        formats: ZONE_DATA_FORMATS,
        defaultFormat: 'dggs-json',
        responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [401, 404, 406, 422, 503]),
        handler: async ({ params: p, format, links, req }) => {
          const { job, data, grid } = await service.result(guard.ownerOf(req), p.order_id, p.job_id);
          const path = `/orders/${job.orderId}/jobs/${job.id}/results`;
          const title = `Order ${job.orderId}, job ${job.id}: zone ${job.zoneId}`;
          const ctx: ZoneDataView = {
            grid,
            links: [
              ...links.selfAndAlternates(path, format, ZONE_DATA_FORMATS, {}, title),
              ...data.sources.map((s) => ({ href: s.href, rel: s.rel ?? 'source', ...(s.type ? { type: s.type } : {}), ...(s.title ? { title: s.title } : {}) })),
              links.link('up', `/orders/${job.orderId}/jobs/${job.id}`, { type: 'application/json', title: 'The job' }),
            ],
            refined: false,
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
    ],
  };
}
