import type { Links } from './links.js';
import type { Job, Order } from '../ports/datastore.js';

/** The JSON bodies of an order and of a job, with their links. */
export function jobBody(job: Job, links: Links) {
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

export function orderFields(order: Order, resultsCollection: string, links: Links) {
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
      // Results are the owner's: they are read through the order's jobs, never as a public collection.
      links.link('http://www.opengis.net/def/rel/ogc/1.0/results', `/orders/${order.id}/jobs`, {
        type: 'application/json',
        title: 'Results: the successful jobs, each with its results link',
        query: { status: 'successful' },
      }),
    ],
  };
}
