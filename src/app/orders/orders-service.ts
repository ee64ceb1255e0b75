import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { ConceptStore, Job, JobLedger, JobSpec, JobStatus, Order, OrderStore, Paged } from '../../ports/datastore.js';
import type { DatastoreReadiness } from '../datastore-readiness.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { JobResults } from '../../ports/job-results.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData } from '../../domain/zone-data.js';
import type { FormatCheck, ZoneDataLimits, ZoneDataService } from '../zone-data/zone-data-service.js';
import type { Logger } from '../../ports/logger.js';
import { isRequestFault, NotFoundError, ValidationError, QuotaExceededError, unknownGridHint } from '../../ports/errors.js';

export interface OrderRequest {
  title?: string;
  collection?: string;
  concept?: number;
  dggrs?: string;
  zones: string[];
  zone_depth?: number;
}

export interface OrderLimits {
  maxOpenOrders: number;
  maxJobsPerOrder: number;
  retryAfterSeconds: number;
  /** Sub-zones one job may compute (the zone-data bound). */
  maxSubZones: number;
}

export interface ListQuery {
  limit: number;
  offset: number;
  status?: JobStatus;
}

/** An order with every job (at most `maxJobsPerOrder`, so the answer stays bounded). */
export interface OrderWithJobs {
  order: Order;
  jobs: Job[];
}

/**
 * Orders of an owner: each spawns jobs (one per zone; for a concept, one per zone, processing
 * entry and concept collection) that the job runner computes. Every read is scoped to the owner:
 * another owner's order is "not found", never "forbidden".
 */
@injectable()
export class OrdersService {
  constructor(
    @inject(TOKENS.OrderStore) private readonly store: OrderStore,
    @inject(TOKENS.JobLedger) private readonly ledger: Pick<JobLedger, 'markQueued'>,
    @inject(TOKENS.DatastoreReadiness) private readonly readiness: Pick<DatastoreReadiness, 'check'>,
    @inject(TOKENS.ConceptStore) private readonly concepts: ConceptStore,
    @inject(TOKENS.GridRegistry) private readonly grids: GridRegistry,
    @inject(TOKENS.ZoneDataService) private readonly zoneData: Pick<ZoneDataService, 'fields' | 'collection'>,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
    @inject(TOKENS.JobResults) private readonly results: JobResults,
    @inject(TOKENS.OrderLimits) private readonly limits: OrderLimits,
    @inject(TOKENS.ZoneDataLimits) private readonly zoneDataLimits: ZoneDataLimits,
    @inject(TOKENS.Logger) private readonly log?: Logger,
  ) {}

  async list(owner: string, q: ListQuery): Promise<Paged<Order>> {
    await this.ready();
    return this.store.listOrders(owner, q);
  }

  async get(owner: string, id: number): Promise<OrderWithJobs> {
    const order = await this.order(owner, id);
    const jobs = await this.store.listJobs(id, { limit: this.limits.maxJobsPerOrder, offset: 0 });
    return { order, jobs: jobs.items };
  }

  async jobs(owner: string, id: number, q: ListQuery): Promise<{ order: Order; jobs: Paged<Job> }> {
    const order = await this.order(owner, id);
    return { order, jobs: await this.store.listJobs(id, q) };
  }

  async job(owner: string, orderId: number, jobId: number): Promise<Job> {
    await this.order(owner, orderId);
    const job = await this.store.getJob(orderId, jobId);
    if (!job) throw new NotFoundError('Job not found', `List the jobs of the order at /orders/${orderId}/jobs.`);
    return job;
  }

  /**
   * The zone data a successful job wrote, read back from its parquet file; `check` is the asked
   * format's (a zone-data encoding's bounds), run before the file is read.
   */
  async result(owner: string, orderId: number, jobId: number, check?: FormatCheck): Promise<{ job: Job; data: ZoneData; grid: Dggrs }> {
    const job = await this.job(owner, orderId, jobId);
    if (job.status !== 'successful' || !job.result) {
      throw new NotFoundError('Results not available', `The job is ${job.status}${job.status === 'running' ? ` (${Math.round(job.progress)} %)` : ''}; results exist once it is successful. Poll /orders/${orderId}/jobs/${jobId}.`);
    }
    check?.({ grid: this.grid(job.dggrs), zoneId: job.zoneId, depths: [job.zoneDepth], columns: Object.keys(job.result.fields).length, limits: this.zoneDataLimits });
    const data = await this.results.read(orderId, jobId, { dggrsId: job.dggrs, zoneId: job.zoneId, fields: job.result.fields, sources: job.result.sources });
    if (!data) throw new NotFoundError('Results not available', 'The result file is gone (the order was dismissed, or the results root was cleaned).');
    return { job, data, grid: this.grid(job.dggrs) };
  }

  async create(owner: string, req: OrderRequest): Promise<OrderWithJobs> {
    await this.ready();
    if ((req.collection === undefined) === (req.concept === undefined)) {
      throw new ValidationError('Invalid order', 'Give exactly one of "collection" (zone data of one collection) and "concept" (the processing of a concept, see /concepts).');
    }
    const grid = req.dggrs ? this.grids.get(req.dggrs) : this.grids.defaultGrid;
    // The grid is named in the body, so the order is invalid (422) rather than a resource missing (404).
    if (!grid) throw new ValidationError('Invalid order', unknownGridHint(req.dggrs!, this.grids.list().map((g) => g.id)));
    const zones = [...new Set(req.zones)];
    const bad = zones.find((z) => !grid.isValidZone(z));
    if (bad !== undefined) throw new ValidationError('Invalid order', `"${bad}" is not a ${grid.id} zone id (${grid.zoneIdForm}).`);
    const jobs = req.collection !== undefined ? await this.collectionJobs(grid, req.collection, zones, req.zone_depth) : await this.conceptJobs(grid, req.concept!, zones, req.zone_depth);
    if (jobs.length > this.limits.maxJobsPerOrder) {
      throw new QuotaExceededError(
        'Quota exceeded',
        `This order would spawn ${jobs.length} jobs; an order may spawn at most ${this.limits.maxJobsPerOrder} (orders.maxJobsPerOrder). Split the zones over several orders.`,
        this.limits.retryAfterSeconds,
      );
    }
    const outcome = await this.store.createOrder(
      { owner, ...(req.title !== undefined ? { title: req.title } : {}), ...(req.collection !== undefined ? { collection: req.collection } : { concept: req.concept! }), dggrs: grid.id, jobs },
      { maxOpenOrders: this.limits.maxOpenOrders },
    );
    if ('refused' in outcome) {
      throw new QuotaExceededError(
        'Quota exceeded',
        `${outcome.open} orders are accepted or running; an owner may have at most ${this.limits.maxOpenOrders} open (orders.maxOpenOrders). Wait for one to finish, or dismiss one with DELETE /orders/{order_id}.`,
        this.limits.retryAfterSeconds,
      );
    }
    const { created, jobs: records } = outcome;
    // The order is committed: from here on the job runner's sweep hands any job the queue did not
    // get (this process stopping now, the queue's database unreachable) to the queue later.
    try {
      await this.queue.enqueue(records.map((j) => ({ jobId: j.id, orderId: created.id })));
      await this.ledger.markQueued(records.map((j) => j.id));
    } catch (err) {
      this.log?.warn({ err, orderId: created.id }, 'jobs not queued yet; the sweep will queue them');
    }
    return { order: created, jobs: records };
  }

  /**
   * Dismisses the order: queued jobs never start, running ones stop at their next step and leave
   * no result; jobs already finished keep their state and results.
   */
  async dismiss(owner: string, id: number): Promise<OrderWithJobs> {
    await this.ready();
    const dismissed = await this.store.dismissOrder(owner, id);
    if (!dismissed) throw this.notFound();
    try {
      await this.queue.cancel(dismissed.jobIds.map((jobId) => ({ jobId, orderId: id })));
    } catch (err) {
      // Workers check the job's status at every step; a delivery the queue still makes finds it dismissed.
      this.log?.warn({ err, orderId: id }, 'queue cancel failed; workers will skip the dismissed jobs');
    }
    await this.results.remove(id, dismissed.jobIds);
    return this.get(owner, id);
  }

  resultsCollection(orderId: number): string {
    return this.results.collectionId(orderId);
  }

  grid(id: string): Dggrs {
    return this.grids.require(id);
  }

  private async collectionJobs(grid: Dggrs, collection: string, zones: string[], depth: number | undefined): Promise<JobSpec[]> {
    await this.servesZoneData(collection, '');
    const zoneDepth = depth ?? grid.defaultDepth;
    for (const zoneId of zones) this.checkDepth(grid, zoneId, zoneDepth, '');
    return zones.map((zoneId) => ({ collection, dggrs: grid.id, zoneId, zoneDepth }));
  }

  /**
   * A concept's processing entries over its collections: for each zone, entry and collection a job
   * computes the concept's properties at the entry's refinement level (the depth below the zone
   * that reaches it), naming the output after `derived_indice`.
   */
  private async conceptJobs(grid: Dggrs, conceptId: number, zones: string[], depth: number | undefined): Promise<JobSpec[]> {
    if (depth !== undefined) throw new ValidationError('Invalid order', 'A concept order takes its depths from the concept\'s dggs_refinement_level; leave out "zone_depth".');
    const concept = await this.concepts.getConcept(conceptId);
    if (!concept) throw new ValidationError('Invalid order', `Unknown concept ${conceptId}; see /concepts.`);
    if (concept.processing.length === 0 || concept.collections.length === 0) {
      throw new ValidationError('Invalid order', `Concept ${conceptId} (${concept.name}) has no processing entries or no collections to compute.`);
    }
    const selections: { collection: string; properties: string[] }[] = [];
    for (const c of concept.collections) {
      const label = `concept ${conceptId} collection "${c.id}": `;
      const fields = await this.servesZoneData(c.id, label);
      const properties = Object.keys(c.properties);
      const unknown = properties.filter((p) => !(p in fields));
      if (unknown.length > 0) throw new ValidationError('Invalid order', `${label}${unknown.map((p) => `"${p}"`).join(', ')} is not a field of the collection (fields: ${Object.keys(fields).join(', ')}).`);
      selections.push({ collection: c.id, properties });
    }
    const jobs: JobSpec[] = [];
    for (const zoneId of zones) {
      const level = grid.zoneLevel(zoneId);
      for (const p of concept.processing) {
        const zoneDepth = p.dggs_refinement_level - level;
        if (zoneDepth < 0) {
          throw new ValidationError('Invalid order', `Zone ${zoneId} is at level ${level}, finer than the concept's dggs_refinement_level ${p.dggs_refinement_level} (${p.derived_indice}); order zones at level ${p.dggs_refinement_level} or coarser.`);
        }
        this.checkDepth(grid, zoneId, zoneDepth, `${p.derived_indice}: `);
        for (const s of selections) jobs.push({ collection: s.collection, dggrs: grid.id, zoneId, zoneDepth, properties: s.properties, concept: conceptId, derivedIndice: p.derived_indice });
      }
    }
    return jobs;
  }

  /** The collection's zone-data fields; 422 when it does not exist or serves no zone data. */
  private async servesZoneData(collection: string, label: string) {
    try {
      return await this.zoneData.fields(collection);
    } catch (err) {
      if (isRequestFault(err)) throw new ValidationError('Invalid order', `${label}${err.kind === 'not-found' ? `Unknown collection "${collection}"; see /collections.` : (err.hint ?? err.message)}`);
      throw err;
    }
  }

  /** The bounds the zone-data route applies, checked when the order is made rather than when a job runs. */
  private checkDepth(grid: Dggrs, zoneId: string, depth: number, label: string): void {
    if (depth > grid.maxRelativeDepth) throw new ValidationError('Invalid order', `${label}zone_depth must be at most ${grid.maxRelativeDepth} for ${grid.id} (max_relative_depth); it is ${depth}.`);
    const level = grid.zoneLevel(zoneId);
    if (level + depth > grid.maxRefinementLevel) throw new ValidationError('Invalid order', `${label}zone ${zoneId} is at level ${level}; ${grid.id} has levels up to ${grid.maxRefinementLevel}, so the depth can be at most ${grid.maxRefinementLevel - level}.`);
    const n = grid.subZoneCount(zoneId, depth);
    if (n > this.limits.maxSubZones) throw new ValidationError('Invalid order', `${label}zone ${zoneId} at depth ${depth} has ${n} sub-zones; a job may compute at most ${this.limits.maxSubZones} (limits.maxSubZones). Order finer zones or a shallower depth.`);
  }

  private async order(owner: string, id: number): Promise<Order> {
    await this.ready();
    const order = await this.store.getOrder(owner, id);
    if (!order) throw this.notFound();
    return order;
  }

  private notFound(): NotFoundError {
    return new NotFoundError('Order not found', 'List your orders at /orders.');
  }

  private ready(): Promise<void> {
    return this.readiness.check();
  }
}
