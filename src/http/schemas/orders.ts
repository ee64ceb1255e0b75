import { z } from './zod.js';
import { Link, SchemaProperty } from './common.js';
import { queryInteger } from './query.js';

const STATUSES = ['accepted', 'running', 'successful', 'failed', 'dismissed'] as const;
const status = z.enum(STATUSES);

export const JobAttemptResponse = z
  .object({
    attempt: z.number().int().min(1),
    worker: z.string().openapi({ description: 'The process that ran it (host:pid)' }),
    started: z.string(),
    ended: z.string().nullable(),
    outcome: z.enum(['running', 'successful', 'failed', 'interrupted', 'dismissed']).openapi({ description: '`interrupted`: the process running it stopped' }),
    error: z.string().nullable(),
  })
  .openapi('JobAttempt');

export const JobResponse = z
  .object({
    id: z.number().int(),
    order_id: z.number().int(),
    status,
    collection: z.string(),
    dggrs: z.string(),
    zone_id: z.string(),
    zone_depth: z.number().int(),
    properties: z.array(z.string()).nullable().openapi({ description: 'Fields computed; all of the collection\'s when null' }),
    concept: z.number().int().nullable(),
    derived_indice: z.string().nullable().openapi({ description: 'Output field name of a concept job' }),
    progress: z.number().min(0).max(100).openapi({ description: 'Percent done' }),
    message: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
    started: z.string().nullable(),
    finished: z.string().nullable(),
    attempts: z.array(JobAttemptResponse),
    result: z
      .object({ rows: z.number().int(), bytes: z.number().int(), fields: z.record(z.string(), SchemaProperty) })
      .nullable()
      .openapi({ description: 'What a successful job wrote; read it at the `results` link' }),
    links: z.array(Link),
  })
  .openapi('JobResponse');

const JobCounts = z.object(Object.fromEntries(STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof STATUSES)[number], z.ZodNumber>).openapi('JobCounts');

const orderFields = {
  id: z.number().int().min(0),
  status,
  title: z.string().nullable(),
  collection: z.string().nullable(),
  concept: z.number().int().nullable(),
  dggrs: z.string(),
  created: z.string(),
  updated: z.string(),
  job_counts: JobCounts,
  jobs_total: z.number().int(),
  results_collection: z.string().openapi({
    description:
      'Folder of the results under `orders.resultsRoot` (`<orders.resultsRoot>/<results_collection>/data/part-<job>.parquet`): the collection id of a parquet lake rooted there, not a collection of this API (results belong to the order\'s owner). Read them at the order\'s `http://www.opengis.net/def/rel/ogc/1.0/results` link.',
  }),
  links: z.array(Link),
};

export const OrderSummary = z.object(orderFields).openapi('OrderSummary');
export const OrderResponse = z.object({ ...orderFields, jobs: z.array(JobResponse) }).openapi('OrderResponse');

const paged = { numberMatched: z.number().int(), numberReturned: z.number().int(), links: z.array(Link) };
export const OrdersResponse = z.object({ orders: z.array(OrderSummary), ...paged }).openapi('OrdersResponse');
export const JobsResponse = z.object({ jobs: z.array(JobResponse), ...paged }).openapi('JobsResponse');

export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

export const ListQuery = z.object({
  limit: queryInteger(`Page size, default ${DEFAULT_PAGE}; larger values are capped at ${MAX_PAGE}`, { min: 1 }),
  offset: queryInteger('Entries to skip', { min: 0 }),
  status: status.optional().openapi({ description: 'Only entries in this state' }),
});

export const OrderRequest = z
  .object({
    title: z.string().max(200).optional(),
    collection: z.string().min(1).optional().openapi({ description: 'Zone data of this collection; give this or `concept`' }),
    concept: z.number().int().min(0).optional().openapi({ description: 'The processing entries of this concept over its collections; give this or `collection`' }),
    dggrs: z.string().optional().openapi({ description: 'Grid id; the default grid when omitted' }),
    zones: z.array(z.string().min(1).max(64)).min(1).max(1000),
    zone_depth: z.number().int().min(0).optional().openapi({ description: 'Collection orders only; the grid\'s default depth when omitted' }),
  })
  .strict()
  .openapi('OrderRequest');
