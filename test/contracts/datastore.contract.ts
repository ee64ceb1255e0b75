import { expect } from 'chai';
import type { ConceptStore, DatastoreAdmin, OrderStore } from '../../src/ports/datastore.js';

export type Datastore = DatastoreAdmin & ConceptStore & OrderStore;

/** What every datastore adapter must do, whatever database is behind it. */
export function datastoreContract(name: string, open: () => Promise<{ store: Datastore; cleanup: () => Promise<void> }>): void {
  describe(`Datastore contract: ${name}`, function () {
    this.timeout(60_000);
    let store: Datastore;
    let cleanup: () => Promise<void>;

    before(async () => {
      ({ store, cleanup } = await open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('starts uninitialised with every migration pending', async () => {
      const status = await store.status();
      expect(status.initialized).to.equal(false);
      expect(status.migrations).to.deep.equal([]);
      expect(status.pending).to.deep.equal(['0001_concepts', '0002_orders_jobs']);
    });

    it('migrate applies the schema but seeds nothing, so it is not yet initialised', async () => {
      const status = await store.migrate();
      expect(status.pending).to.deep.equal([]);
      expect(status.initialized).to.equal(false);
    });

    it('initialize seeds concepts and is idempotent', async () => {
      expect((await store.initialize()).initialized).to.equal(true);
      const first = await store.listConcepts();
      expect((await store.initialize()).initialized).to.equal(true);
      expect(await store.listConcepts()).to.deep.equal(first);
      expect(first.length).to.be.greaterThan(0);
      const one = await store.getConcept(first[0]!.id);
      expect(one).to.deep.equal(first[0]);
      expect(one!.collections[0]!.properties).to.be.an('object');
      expect(await store.getConcept(987654)).to.equal(undefined);
    });

    it('creates orders with one job per zone and reads them back', async () => {
      const order = await store.createOrder({ title: "O'Brien; DROP TABLE orders;--", jobs: [
        { collection: 'c1', dggrs: 'IVEA7H', zoneId: 'A0-0-A', zoneDepth: 2 },
        { collection: 'c1', dggrs: 'IVEA7H', zoneId: 'B0-2-B', zoneDepth: 2 },
      ] });
      expect(order.title).to.equal("O'Brien; DROP TABLE orders;--");
      expect(order.status).to.equal('accepted');
      expect(order.jobs.map((j) => j.zoneId)).to.deep.equal(['A0-0-A', 'B0-2-B']);
      expect(await store.getOrder(order.id)).to.deep.equal(order);
      const second = await store.createOrder({ jobs: [{ collection: 'c2', dggrs: 'H3', zoneId: '831f8dfffffffff', zoneDepth: 1 }] });
      expect(second.id).to.not.equal(order.id);
      expect((await store.listOrders()).map((o) => o.id)).to.include.members([order.id, second.id]);
      expect(await store.getOrder(second.id + 1000)).to.equal(undefined);
    });

    it('tracks job progress and derives the order status from its jobs', async () => {
      const order = await store.createOrder({ jobs: [
        { collection: 'c', dggrs: 'H3', zoneId: 'a', zoneDepth: 1 },
        { collection: 'c', dggrs: 'H3', zoneId: 'b', zoneDepth: 1 },
      ] });
      const [a, b] = order.jobs;
      await store.updateJob(a!.id, { status: 'running', progress: 50 });
      expect((await store.getOrder(order.id))!.status).to.equal('running');
      expect((await store.getJob(order.id, a!.id))!.progress).to.equal(50);
      await store.updateJob(a!.id, { status: 'successful', progress: 100 });
      await store.updateJob(b!.id, { status: 'successful', progress: 100 });
      expect((await store.getOrder(order.id))!.status).to.equal('successful');
      expect(await store.getJob(order.id + 1, a!.id)).to.equal(undefined, 'a job is addressed within its order');
    });
  });
}
