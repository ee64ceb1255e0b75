import { z } from '../schemas/zod.js';
import { DEFAULT_PAGE, ListQuery, MAX_PAGE, OrderRequest, OrderResponse, OrdersResponse } from '../schemas/orders.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import type { Links } from '../links.js';
import type { RouteModule } from '../route-module.js';
import type { BearerGuard } from '../bearer-guard.js';
import type { OrdersService } from '../../app/orders/orders-service.js';
import { jobBody, orderFields } from '../order-bodies.js';
import { page, pageLinks } from '../order-pages.js';
import { ORDER_ROUTE, orderIdParam } from './order-route.js';
import { orderJobRoutes } from './order-jobs.js';

/**
 * Orders and their jobs; every route needs a bearer token, and each token sees only its owner's
 * orders (the bearer guard gives the owner it admitted the request for).
 */
export function orderRoutes(service: OrdersService, guard: Pick<BearerGuard, 'ownerOf'>): RouteModule {
  return { routes: [...orderResourceRoutes(service, guard), ...orderJobRoutes(service, guard)] };
}

/** The orders themselves: listed, created, read and dismissed. */
function orderResourceRoutes(service: OrdersService, guard: Pick<BearerGuard, 'ownerOf'>): AnyRoute[] {
  const params = z.object({ order_id: orderIdParam });
  const withJobs = async (owner: string, id: number, links: Links) => {
    const { order, jobs } = await service.get(owner, id);
    return { ...orderFields(order, service.resultsCollection(order.id), links), jobs: jobs.map((j) => jobBody(j, links)) };
  };
  return [
  defineRoute({
    ...ORDER_ROUTE,
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
    ...ORDER_ROUTE,
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
    ...ORDER_ROUTE,
    method: 'get',
    path: '/orders/{order_id}',
    operationId: 'getOrder',
    summary: 'One order with its jobs',
    params,
    responses: responses({ description: 'The order', schema: OrderResponse }, [401, 404, 422, 503]),
    handler: async ({ params: p, links, req }) => json(await withJobs(guard.ownerOf(req), p.order_id, links)),
  }),
  defineRoute({
    ...ORDER_ROUTE,
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
  ];
}
