import type { Job, NewOrder, Order, OrderStore, DatastoreAdmin } from '../../ports/datastore.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import { DatastoreNotInitializedError, NotFoundError, ValidationError } from '../errors.js';

export interface OrderRequest {
  title?: string;
  collection: string;
  dggrs?: string;
  zones: string[];
  zone_depth?: number;
}

/** Orders spawn one processing job per requested zone. */
export class OrdersService {
  constructor(
    private readonly store: OrderStore,
    private readonly admin: DatastoreAdmin,
    private readonly grids: GridRegistry,
    private readonly catalog: CollectionCatalog,
  ) {}

  async list(): Promise<Order[]> {
    await this.ready();
    return this.store.listOrders();
  }

  async get(id: number): Promise<Order> {
    await this.ready();
    const order = await this.store.getOrder(id);
    if (!order) throw new NotFoundError('Order not found', 'List your orders at /orders.');
    return order;
  }

  async job(orderId: number, jobId: number): Promise<Job> {
    await this.get(orderId);
    const job = await this.store.getJob(orderId, jobId);
    if (!job) throw new NotFoundError('Job not found', `List the jobs of the order at /orders/${orderId}/jobs.`);
    return job;
  }

  async create(req: OrderRequest): Promise<Order> {
    await this.ready();
    if (!this.catalog.get(req.collection)) {
      throw new ValidationError('Invalid order', `Unknown collection "${req.collection}"; see /collections.`);
    }
    const grid = req.dggrs ? this.grids.get(req.dggrs) : this.grids.defaultGrid;
    if (!grid) throw new ValidationError('Invalid order', `Unknown dggrs "${req.dggrs}"; see /dggs.`);
    const depth = req.zone_depth ?? grid.defaultDepth;
    if (depth > grid.maxRelativeDepth) throw new ValidationError('Invalid order', `zone_depth must be at most ${grid.maxRelativeDepth} for ${grid.id}.`);
    const bad = req.zones.find((z) => !grid.isValidZone(z));
    if (bad !== undefined) throw new ValidationError('Invalid order', `"${bad}" is not a ${grid.id} zone id (${grid.zoneIdForm}).`);
    const order: NewOrder = {
      title: req.title,
      jobs: [...new Set(req.zones)].map((zoneId) => ({ collection: req.collection, dggrs: grid.id, zoneId, zoneDepth: depth })),
    };
    return this.store.createOrder(order);
  }

  private async ready(): Promise<void> {
    if (!(await this.admin.status()).initialized) throw new DatastoreNotInitializedError();
  }
}
