import { JOB_STATUSES, type Job, type JobAttempt, type JobCounts, type Order, type OrderStatus, type TokenRecord } from '../../ports/datastore.js';

/** A row as the driver returns it: numbers may arrive as strings (PostgreSQL bigint), booleans as 0/1 (SQLite). */
export type Row = Record<string, unknown>;

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function zeroCounts(): JobCounts {
  return Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobCounts;
}

/**
 * An order is `failed` once any job failed for good, `successful` when all succeeded, `running`
 * once any started, else `accepted`. Dismissal is set on the order itself and never derived.
 */
export function orderStatusOf(counts: JobCounts): OrderStatus {
  const total = JOB_STATUSES.reduce((n, s) => n + counts[s], 0);
  if (counts.failed > 0) return 'failed';
  if (total > 0 && counts.successful === total) return 'successful';
  if (total > 0 && counts.dismissed === total) return 'dismissed';
  if (counts.running > 0 || counts.successful > 0) return 'running';
  return 'accepted';
}

export function toAttempt(r: Row): JobAttempt {
  return {
    attempt: Number(r.attempt),
    worker: String(r.worker),
    started: String(r.started_at),
    ended: str(r.ended_at),
    outcome: r.outcome as JobAttempt['outcome'],
    error: str(r.error),
  };
}

export function toJob(r: Row, attempts: JobAttempt[]): Job {
  return {
    id: Number(r.id),
    orderId: Number(r.order_id),
    status: r.status as Job['status'],
    collection: String(r.collection),
    dggrs: String(r.dggrs),
    zoneId: String(r.zone_id),
    zoneDepth: Number(r.zone_depth),
    ...(r.properties ? { properties: JSON.parse(String(r.properties)) as string[] } : {}),
    ...(r.concept_id !== null && r.concept_id !== undefined ? { concept: Number(r.concept_id) } : {}),
    ...(r.derived_indice ? { derivedIndice: String(r.derived_indice) } : {}),
    progress: Number(r.progress),
    message: str(r.message),
    created: String(r.created_at),
    updated: String(r.updated_at),
    started: str(r.started_at),
    finished: str(r.finished_at),
    attempts,
    result: r.result ? JSON.parse(String(r.result)) : null,
  };
}

export function toOrder(r: Row, jobCounts: JobCounts): Order {
  return {
    id: Number(r.id),
    owner: String(r.owner),
    status: r.status as Order['status'],
    title: str(r.title),
    collection: str(r.collection),
    concept: r.concept_id === null || r.concept_id === undefined ? null : Number(r.concept_id),
    dggrs: str(r.dggrs) ?? '',
    created: String(r.created_at),
    updated: String(r.updated_at),
    jobCounts,
  };
}

export function toToken(r: Row): TokenRecord {
  return { id: Number(r.id), owner: String(r.owner), digest: String(r.digest), label: str(r.label), created: String(r.created_at), revoked: str(r.revoked_at) };
}
