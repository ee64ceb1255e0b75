import { z } from './zod.js';
import { Link } from './common.js';

const status = z.enum(['accepted', 'running', 'successful', 'failed', 'dismissed']);

export const JobResponse = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    status,
    collection: z.string(),
    dggrs: z.string(),
    zone_id: z.string(),
    zone_depth: z.number().int(),
    progress: z.number().min(0).max(100).openapi({ description: 'Percent done' }),
    message: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
    links: z.array(Link),
  })
  .openapi('JobResponse');

export const OrderResponse = z
  .object({
    id: z.number().int().min(0),
    status,
    title: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
    jobs: z.array(JobResponse),
    links: z.array(Link),
  })
  .openapi('OrderResponse');

export const OrdersResponse = z.object({ orders: z.array(OrderResponse), links: z.array(Link) }).openapi('OrdersResponse');
export const JobsResponse = z.object({ jobs: z.array(JobResponse), links: z.array(Link) }).openapi('JobsResponse');

export const OrderRequest = z
  .object({
    title: z.string().max(200).optional(),
    collection: z.string().min(1),
    dggrs: z.string().optional().openapi({ description: 'Grid id; the default grid when omitted' }),
    zones: z.array(z.string().min(1).max(64)).min(1).max(1000),
    zone_depth: z.number().int().min(0).optional(),
  })
  .strict()
  .openapi('OrderRequest');
