import type { FieldMeta } from '../domain/collection.js';
import type { SourceLink } from '../domain/zone-data.js';

/** The service's own tables: concepts, orders, jobs and bearer tokens. */
export interface DatastoreStatus {
  initialized: boolean;
  /** Names of applied migrations, oldest first. */
  migrations: string[];
  pending: string[];
}

export interface DatastoreAdmin {
  status(): Promise<DatastoreStatus>;
  /** Creates the schema and seeds reference data (concepts); idempotent. */
  initialize(): Promise<DatastoreStatus>;
  /** Applies pending migrations only. */
  migrate(): Promise<DatastoreStatus>;
  close(): Promise<void>;
}

export interface ConceptCollection {
  id: string;
  properties: Record<string, unknown>;
}

export interface ConceptProcessing {
  derived_indice: string;
  dggs_refinement_level: number;
  color_ramp?: string | null;
  notes?: string | null;
}

export interface Concept {
  id: number;
  name: string;
  ui_label: string;
  ui_description: string;
  category: string;
  collections: ConceptCollection[];
  processing: ConceptProcessing[];
}

export interface ConceptStore {
  listConcepts(): Promise<Concept[]>;
  getConcept(id: number): Promise<Concept | undefined>;
}

/** The states of OGC API - Processes. */
export const JOB_STATUSES = ['accepted', 'running', 'successful', 'failed', 'dismissed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type OrderStatus = JobStatus;
/** States a job never leaves. */
export const FINAL_STATUSES: readonly JobStatus[] = ['successful', 'failed', 'dismissed'];

export type AttemptOutcome = 'running' | 'successful' | 'failed' | 'interrupted' | 'dismissed';

/** One run of a job: who ran it, when, and how it ended. */
export interface JobAttempt {
  attempt: number;
  worker: string;
  started: string;
  ended: string | null;
  outcome: AttemptOutcome;
  error: string | null;
}

/** What a finished job wrote, beside the parquet file itself. */
export interface JobResultInfo {
  /** Output fields in order, with their metadata (the DGGS-JSON schema). */
  fields: Record<string, FieldMeta>;
  sources: SourceLink[];
  rows: number;
  bytes: number;
}

/** What one job computes: zone data of one collection for one zone. */
export interface JobSpec {
  collection: string;
  dggrs: string;
  zoneId: string;
  zoneDepth: number;
  /** Fields to compute; all of the collection's when absent. */
  properties?: string[];
  /** For a concept order: the concept and the processing entry this job computes. */
  concept?: number;
  /** Output field name (a concept's derived indice) when the job renames its field. */
  derivedIndice?: string;
}

export interface Job extends JobSpec {
  id: number;
  orderId: number;
  status: JobStatus;
  progress: number;
  message: string | null;
  created: string;
  updated: string;
  started: string | null;
  finished: string | null;
  attempts: JobAttempt[];
  result: JobResultInfo | null;
}

export type JobCounts = Record<JobStatus, number>;

export interface Order {
  id: number;
  owner: string;
  status: OrderStatus;
  title: string | null;
  collection: string | null;
  concept: number | null;
  dggrs: string;
  created: string;
  updated: string;
  jobCounts: JobCounts;
}

export interface NewOrder {
  owner: string;
  title?: string;
  collection?: string;
  concept?: number;
  dggrs: string;
  jobs: JobSpec[];
}

export interface Page {
  limit: number;
  offset: number;
  status?: JobStatus;
}

export interface Paged<T> {
  items: T[];
  /** Matching rows over all pages. */
  total: number;
}

export interface OrderQuota {
  /** Orders of one owner that may be accepted or running at once. */
  maxOpenOrders: number;
}

export type CreateOrderResult = { created: Order; jobs: Job[] } | { refused: 'open-orders'; open: number };

/** What a worker gets when it claims a job for an attempt. */
export type Claim =
  | { kind: 'run'; job: Job; attempt: number }
  /** Nothing to do: the job is final (done, failed, dismissed) or another worker holds it. */
  | { kind: 'skip'; status: JobStatus | 'missing' | 'taken' }
  /** Every attempt was used up by processes that stopped; the job is now failed. */
  | { kind: 'exhausted'; job: Job };

/** Orders and jobs as clients see them: always scoped to an owner. */
export interface OrderStore {
  /** Creates the order and its jobs in one transaction, unless the owner's open orders reach the quota. */
  createOrder(order: NewOrder, quota: OrderQuota): Promise<CreateOrderResult>;
  listOrders(owner: string, page: Page): Promise<Paged<Order>>;
  getOrder(owner: string, id: number): Promise<Order | undefined>;
  /** Jobs of an order, in id order; counts and pages in SQL. */
  listJobs(orderId: number, page: Page): Promise<Paged<Job>>;
  getJob(orderId: number, jobId: number): Promise<Job | undefined>;
  /**
   * Dismisses the jobs of the order that are not final (accepted or running: a finished job keeps
   * its state and result, even one finishing while this runs) and the order unless it is final;
   * returns the ids of the jobs dismissed now, or undefined when the owner has no such order.
   */
  dismissOrder(owner: string, id: number): Promise<{ order: Order; jobIds: number[] } | undefined>;
}

/** The job lifecycle as runners drive it. Every write after the claim is fenced by the attempt number. */
export interface JobLedger {
  /**
   * Starts attempt n+1 of a job that is accepted, or running under an attempt whose process
   * stopped (that attempt is recorded as interrupted). Past `maxAttempts` the job fails instead.
   */
  claimJob(jobId: number, worker: string, maxAttempts: number): Promise<Claim>;
  /** False when the attempt no longer holds the job (dismissed, or taken over): the worker stops. */
  reportProgress(jobId: number, attempt: number, progress: number, message: string): Promise<boolean>;
  /** Records success; false when the attempt no longer holds the job (nothing is written then). */
  completeJob(jobId: number, attempt: number, result: JobResultInfo): Promise<boolean>;
  /** Records a failed attempt: back to `accepted` for a retry, or `failed` when `final`. False when the attempt no longer held the job. */
  failAttempt(jobId: number, attempt: number, error: string, final: boolean): Promise<boolean>;
  /** The queue gave up on the job (its retries ran out while processes stopped): fail it unless final. */
  abandonJob(jobId: number, reason: string): Promise<void>;
  /**
   * Shows every process sharing the ledger that this one, running jobs as `worker`, is alive, for
   * as long as it runs (PostgreSQL: a session lock the database drops as soon as the process's
   * connection dies). Call again at any time: it takes back a lease that was lost. False while
   * another live process holds the same name.
   */
  holdLease(worker: string): Promise<boolean>;
  /**
   * Attempts recorded as running whose process is gone: those of any worker other than `self`
   * holding no lease (on SQLite, where one process runs the jobs, any other worker), and those of
   * `self` for jobs `runsHere` denies (a predecessor with the same name: a restarted container).
   * Each is recorded `interrupted` and its job goes back to `accepted`, or fails when that was its
   * last attempt. Returns the jobs put back to `accepted`.
   */
  interruptOrphanedAttempts(self: string, runsHere: (jobId: number) => boolean, maxAttempts: number): Promise<{ id: number; orderId: number; attempts: number }[]>;
  /** Jobs not yet final, in id order after `afterId` (recovery of a queue that forgets on restart). */
  unfinishedJobs(afterId: number, limit: number): Promise<{ id: number; orderId: number; status: JobStatus; attempts: number }[]>;
  /** Accepted jobs never handed to the queue, created before `before` (ISO time). */
  unqueuedJobs(before: string, limit: number): Promise<{ id: number; orderId: number }[]>;
  markQueued(jobIds: number[]): Promise<void>;
  /** Jobs accepted and running now, over all orders (the metrics read it; a range of an index each). */
  openJobCounts(): Promise<Record<'accepted' | 'running', number>>;
}

export interface TokenRecord {
  id: number;
  owner: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  digest: string;
  label: string | null;
  created: string;
  revoked: string | null;
}

/** Bearer tokens by digest; each belongs to an owner. */
export interface TokenStore {
  createToken(owner: string, digest: string, label?: string): Promise<TokenRecord>;
  listTokens(): Promise<TokenRecord[]>;
  /** True when a live token was revoked. */
  revokeToken(id: number): Promise<boolean>;
  /** The live (unrevoked) token with this digest. */
  findToken(digest: string): Promise<TokenRecord | undefined>;
}
