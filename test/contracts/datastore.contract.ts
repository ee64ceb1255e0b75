import { expect } from 'chai';
import type { ConceptStore, DatastoreAdmin, JobLedger, JobSpec, OrderStore, TokenStore } from '../../src/ports/datastore.js';

export type Datastore = DatastoreAdmin & ConceptStore & OrderStore & JobLedger & TokenStore;

const spec = (zoneId: string, collection = 'c1'): JobSpec => ({ collection, dggrs: 'IVEA7H', zoneId, zoneDepth: 2 });
const NO_QUOTA = { maxOpenOrders: 1_000_000 };
const RESULT = { fields: { v: { title: 'V', type: 'number' as const } }, sources: [], rows: 7, bytes: 100 };

/**
 * What every datastore adapter must do, whatever database is behind it. `another` opens a second
 * handle on the same database, as another process would, for a datastore that processes share.
 */
export function datastoreContract(name: string, open: () => Promise<{ store: Datastore; cleanup: () => Promise<void>; another?: () => Datastore }>): void {
  describe(`Datastore contract: ${name}`, function () {
    this.timeout(60_000);
    let store: Datastore;
    let cleanup: () => Promise<void>;
    let another: (() => Datastore) | undefined;

    before(async () => {
      ({ store, cleanup, another } = await open());
    });
    // Nothing to undo when the before hook failed (no database): its failure is the one to read.
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    const create = async (owner: string, zones: string[], quota = NO_QUOTA) => {
      const out = await store.createOrder({ owner, dggrs: 'IVEA7H', collection: 'c1', jobs: zones.map((z) => spec(z)) }, quota);
      if ('refused' in out) throw new Error('refused');
      return out;
    };

    it('starts uninitialised with every migration pending', async () => {
      const status = await store.status();
      expect(status.initialized).to.equal(false);
      expect(status.migrations).to.deep.equal([]);
      expect(status.pending).to.deep.equal(['0001_concepts', '0002_orders_jobs', '0003_jobs_that_run', '0004_order_job_counts']);
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

    it('creates orders with their jobs, scoped to their owner', async () => {
      const { created: order, jobs } = await store.createOrder(
        { owner: 'alice', title: "O'Brien; DROP TABLE orders;--", collection: 'c1', dggrs: 'IVEA7H', jobs: [spec('A0-0-A'), { ...spec('B0-2-B'), properties: ['x', 'y'], concept: 3, derivedIndice: 'mean_x' }] },
        NO_QUOTA,
      ) as Extract<Awaited<ReturnType<Datastore['createOrder']>>, { created: unknown }>;
      expect(order.title).to.equal("O'Brien; DROP TABLE orders;--");
      expect(order).to.include({ status: 'accepted', owner: 'alice', collection: 'c1', dggrs: 'IVEA7H' });
      expect(order.jobCounts).to.deep.equal({ accepted: 2, running: 0, successful: 0, failed: 0, dismissed: 0 });
      expect(jobs.map((j) => j.zoneId)).to.deep.equal(['A0-0-A', 'B0-2-B']);
      expect(jobs[1]).to.include({ concept: 3, derivedIndice: 'mean_x' });
      expect(jobs[1]!.properties).to.deep.equal(['x', 'y']);
      expect(await store.getOrder('alice', order.id)).to.deep.equal(order);
      expect(await store.getOrder('bob', order.id)).to.equal(undefined, "another owner's order does not exist for bob");
      expect((await store.listOrders('bob', { limit: 100, offset: 0 })).items.map((o) => o.id)).to.not.include(order.id);
      expect(await store.getJob(order.id, jobs[0]!.id)).to.deep.equal(jobs[0]);
      expect(await store.getJob(order.id + 1000, jobs[0]!.id)).to.equal(undefined, 'a job is addressed within its order');
      expect(await store.dismissOrder('bob', order.id)).to.equal(undefined);
    });

    it('pages and counts orders and jobs in SQL, filtered by status', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create('pager', [`Z${i}-0-A`, `Z${i}-1-A`, `Z${i}-2-A`])).created.id);
      const page = await store.listOrders('pager', { limit: 2, offset: 2 });
      expect(page.total).to.equal(5);
      expect(page.items.map((o) => o.id)).to.deep.equal(ids.slice(2, 4));
      expect(page.items[0]!.jobCounts.accepted).to.equal(3);
      const jobs = await store.listJobs(ids[0]!, { limit: 2, offset: 1 });
      expect(jobs.total).to.equal(3);
      expect(jobs.items.map((j) => j.zoneId)).to.deep.equal(['Z0-1-A', 'Z0-2-A']);
      const claim = await store.claimJob(jobs.items[0]!.id, 'w', 3);
      expect(claim.kind).to.equal('run');
      const running = await store.listJobs(ids[0]!, { limit: 10, offset: 0, status: 'running' });
      expect(running.total).to.equal(1);
      expect((await store.listOrders('pager', { limit: 10, offset: 0, status: 'running' })).items.map((o) => o.id)).to.deep.equal([ids[0]]);
      expect((await store.listOrders('pager', { limit: 10, offset: 0, status: 'accepted' })).total).to.equal(4);
    });

    it('refuses an order past the open-orders quota of its owner, counting only accepted and running orders', async () => {
      await create('quota', ['A0-0-A']);
      const second = await create('quota', ['A0-0-A']);
      const refused = await store.createOrder({ owner: 'quota', dggrs: 'IVEA7H', collection: 'c1', jobs: [spec('A0-0-A')] }, { maxOpenOrders: 2 });
      expect(refused).to.deep.equal({ refused: 'open-orders', open: 2 });
      expect('created' in (await store.createOrder({ owner: 'other', dggrs: 'IVEA7H', collection: 'c1', jobs: [spec('A0-0-A')] }, { maxOpenOrders: 2 }))).to.equal(true, "another owner's quota is its own");
      await store.dismissOrder('quota', second.created.id);
      expect('created' in (await store.createOrder({ owner: 'quota', dggrs: 'IVEA7H', collection: 'c1', jobs: [spec('A0-0-A')] }, { maxOpenOrders: 2 }))).to.equal(true);
    });

    it('runs a job through claim, progress and completion, deriving the order status', async () => {
      const { created, jobs } = await create('runner', ['A0-0-A', 'B0-0-B']);
      const [a, b] = jobs;
      const claim = await store.claimJob(a!.id, 'host:1', 3);
      expect(claim.kind).to.equal('run');
      if (claim.kind !== 'run') return;
      expect(claim.attempt).to.equal(1);
      expect(claim.job.attempts).to.have.length(1);
      expect(claim.job.attempts[0]).to.include({ attempt: 1, worker: 'host:1', outcome: 'running' });
      expect((await store.getOrder('runner', created.id))!.status).to.equal('running');
      expect(await store.claimJob(a!.id, 'host:2', 3)).to.include({ kind: 'run' }, 'a running job delivered again is taken over');
      expect(await store.reportProgress(a!.id, 1, 50, 'half')).to.equal(false, 'attempt 1 lost the job to attempt 2');
      expect(await store.completeJob(a!.id, 1, RESULT)).to.equal(false);
      expect(await store.reportProgress(a!.id, 2, 50, 'half')).to.equal(true);
      expect(await store.getJob(created.id, a!.id)).to.include({ progress: 50, message: 'half', status: 'running' });
      expect(await store.completeJob(a!.id, 2, RESULT)).to.equal(true);
      expect(await store.completeJob(a!.id, 2, RESULT)).to.equal(false, 'completes once');
      const done = (await store.getJob(created.id, a!.id))!;
      expect(done).to.include({ status: 'successful', progress: 100 });
      expect(done.result).to.deep.equal(RESULT);
      expect(done.attempts.map((t) => t.outcome)).to.deep.equal(['interrupted', 'successful']);
      expect(await store.claimJob(a!.id, 'host:3', 3)).to.deep.equal({ kind: 'skip', status: 'successful' });
      const claimB = await store.claimJob(b!.id, 'host:1', 3);
      expect(claimB.kind).to.equal('run');
      await store.completeJob(b!.id, 1, RESULT);
      const finished = (await store.getOrder('runner', created.id))!;
      expect(finished.status).to.equal('successful');
      expect(finished.jobCounts).to.deep.equal({ accepted: 0, running: 0, successful: 2, failed: 0, dismissed: 0 }, 'counts follow every transition');
    });

    it('counts the jobs accepted and running over all orders', async () => {
      const before = await store.openJobCounts();
      const { created, jobs } = await create('counted', ['A0-0-A', 'B0-0-B', 'C0-0-C']);
      expect(await store.openJobCounts()).to.deep.equal({ accepted: before.accepted + 3, running: before.running });
      await store.claimJob(jobs[0]!.id, 'w', 3);
      await store.claimJob(jobs[1]!.id, 'w', 3);
      await store.completeJob(jobs[1]!.id, 1, RESULT);
      expect(await store.openJobCounts()).to.deep.equal({ accepted: before.accepted + 1, running: before.running + 1 });
      await store.dismissOrder('counted', created.id);
      expect(await store.openJobCounts()).to.deep.equal(before);
    });

    it('keeps counts and status right when many jobs of one order finish at the same moment', async () => {
      const { created, jobs } = await create('concurrent', Array.from({ length: 24 }, (_, i) => `C${i}-0-A`));
      await Promise.all(jobs.map((j) => store.claimJob(j.id, 'w', 3)));
      await Promise.all(jobs.map((j, i) => (i % 6 === 0 ? store.failAttempt(j.id, 1, 'x', false) : store.completeJob(j.id, 1, RESULT))));
      const order = (await store.getOrder('concurrent', created.id))!;
      expect(order.jobCounts).to.deep.equal({ accepted: 4, running: 0, successful: 20, failed: 0, dismissed: 0 });
      expect(order.status).to.equal('running');
      await Promise.all(jobs.filter((_, i) => i % 6 === 0).map(async (j) => {
        await store.claimJob(j.id, 'w', 3);
        await store.completeJob(j.id, 2, RESULT);
      }));
      const done = (await store.getOrder('concurrent', created.id))!;
      expect(done.status).to.equal('successful');
      expect(done.jobCounts.successful).to.equal(24);
    });

    it('reads a job and its attempts as of one moment while jobs finish', async () => {
      const { created, jobs } = await create('snapshot', Array.from({ length: 80 }, (_, i) => `S${i}-0-A`));
      await Promise.all(jobs.map((j) => store.claimJob(j.id, 'w', 3)));
      let finishing = true;
      const finish = (async () => {
        for (const j of jobs) await store.completeJob(j.id, 1, RESULT);
        finishing = false;
      })();
      let reads = 0;
      // A job listed running has a running last attempt; a job read alone shows its state and attempt together.
      while (finishing) {
        const [running, one] = await Promise.all([store.listJobs(created.id, { limit: 1000, offset: 0, status: 'running' }), store.getJob(created.id, jobs[reads % jobs.length]!.id)]);
        for (const job of running.items) expect(job.attempts.at(-1)?.outcome, `job ${job.id} listed running`).to.equal('running');
        expect(one!.attempts.at(-1)?.outcome, `job ${one!.id} read alone`).to.equal(one!.status === 'successful' ? 'successful' : 'running');
        reads++;
      }
      await finish;
      expect(reads, 'reads made while the jobs finished').to.be.above(3);
    });

    it('records failed attempts, retries them, and fails the job (and its order) for good on the last', async () => {
      const { created, jobs } = await create('failer', ['A0-0-A', 'B0-0-B']);
      const id = jobs[0]!.id;
      await store.claimJob(id, 'w', 2);
      expect(await store.failAttempt(id, 1, 'boom', false)).to.equal(true);
      expect(await store.getJob(created.id, id)).to.include({ status: 'accepted', message: 'attempt 1 failed: boom; retrying' });
      await store.claimJob(id, 'w', 2);
      await store.failAttempt(id, 2, 'boom again', true);
      const job = (await store.getJob(created.id, id))!;
      expect(job).to.include({ status: 'failed', message: 'failed after 2 attempts: boom again' });
      expect(job.attempts.map((t) => [t.outcome, t.error])).to.deep.equal([['failed', 'boom'], ['failed', 'boom again']]);
      expect((await store.getOrder('failer', created.id))!.status).to.equal('failed');
    });

    it('fails a job whose processes stopped on every attempt, when it is delivered again', async () => {
      const { created, jobs } = await create('crasher', ['A0-0-A']);
      const id = jobs[0]!.id;
      expect((await store.claimJob(id, 'w1', 2)).kind).to.equal('run');
      expect((await store.claimJob(id, 'w2', 2)).kind).to.equal('run');
      const verdict = await store.claimJob(id, 'w3', 2);
      expect(verdict.kind).to.equal('exhausted');
      const job = (await store.getJob(created.id, id))!;
      expect(job.status).to.equal('failed');
      expect(job.message).to.match(/^failed after 2 attempts/);
      expect(job.attempts.map((t) => t.outcome)).to.deep.equal(['interrupted', 'interrupted']);
    });

    it('records the attempts of stopped processes interrupted at once, its own running ones left alone', async () => {
      const { created, jobs } = await create('orphans', ['A0-0-A', 'B0-0-B', 'C0-0-C', 'D0-0-D']);
      const [gone, mine, predecessor, spent] = jobs.map((j) => j.id) as [number, number, number, number];
      expect(await store.holdLease('me')).to.equal(true);
      await store.claimJob(gone, 'gone-worker', 3);
      await store.claimJob(mine, 'me', 3);
      await store.claimJob(predecessor, 'me', 3);
      for (let i = 0; i < 3; i++) await store.claimJob(spent, 'gone-worker', 3);
      // (Jobs of other tests in this datastore are left running too: only this order's are looked at.)
      const ours = async () => (await store.interruptOrphanedAttempts('me', (id) => id === mine, 3)).filter((j) => j.orderId === created.id);
      expect(await ours()).to.deep.equal([
        { id: gone, orderId: created.id, attempts: 1 },
        { id: predecessor, orderId: created.id, attempts: 1 },
      ]);
      const after = new Map((await store.listJobs(created.id, { limit: 10, offset: 0 })).items.map((j) => [j.id, j]));
      for (const id of [gone, predecessor]) {
        const job = after.get(id)!;
        expect(job).to.include({ status: 'accepted', progress: 0, message: 'attempt 1 of 3 was interrupted (the process running this attempt stopped); queued again' });
        expect(job.attempts.map((a) => [a.outcome, a.error])).to.deep.equal([['interrupted', 'the process running this attempt stopped']]);
        expect(job.attempts[0]!.ended).to.be.a('string');
      }
      expect(after.get(mine)!.status).to.equal('running');
      expect(after.get(mine)!.attempts.map((a) => a.outcome)).to.deep.equal(['running']);
      expect(after.get(spent)!).to.include({ status: 'failed', message: 'failed after 3 attempts: the process running this attempt stopped' });
      expect(after.get(spent)!.attempts.map((a) => a.outcome)).to.deep.equal(['interrupted', 'interrupted', 'interrupted']);
      expect((await store.getOrder('orphans', created.id))!.jobCounts).to.deep.equal({ accepted: 2, running: 1, successful: 0, failed: 1, dismissed: 0 });
      // The interrupted attempt lost the job; the next delivery starts the next attempt.
      expect(await store.reportProgress(gone, 1, 50, 'x')).to.equal(false);
      expect(await store.completeJob(gone, 1, RESULT)).to.equal(false);
      const next = await store.claimJob(gone, 'w2', 3);
      expect(next.kind === 'run' && next.attempt).to.equal(2);
      expect(await ours()).to.deep.equal([{ id: gone, orderId: created.id, attempts: 2 }], 'only what is still orphaned');
    });

    it('leaves the attempts of a live process alone until its lease ends with it', async function () {
      if (!another) {
        // One process runs the jobs of a datastore no process shares: any other worker is gone.
        const { jobs } = await create('lease', ['A0-0-A']);
        await store.claimJob(jobs[0]!.id, 'other-process', 3);
        expect((await store.interruptOrphanedAttempts('me', () => false, 3)).map((j) => j.id)).to.include(jobs[0]!.id);
        return;
      }
      const other = another();
      const { created, jobs } = await create('lease', ['A0-0-A']);
      const ours = async () => (await store.interruptOrphanedAttempts('me', () => false, 3)).filter((j) => j.orderId === created.id);
      const id = jobs[0]!.id;
      try {
        expect(await other.holdLease('live-worker')).to.equal(true);
        expect(await other.holdLease('live-worker')).to.equal(true, 'held already');
        expect(await store.holdLease('live-worker')).to.equal(false, 'one live process per name');
        expect((await other.claimJob(id, 'live-worker', 3)).kind).to.equal('run');
        expect(await ours()).to.deep.equal([]);
        expect((await store.getJob(created.id, id))!.status).to.equal('running');
      } finally {
        await other.close();
      }
      // Its connection closed: the process is gone for every other one.
      expect(await ours()).to.deep.equal([{ id, orderId: created.id, attempts: 1 }]);
      expect((await store.getJob(created.id, id))!.status).to.equal('accepted');
    });

    it('abandons a job the queue gave up on, closing its open attempt', async () => {
      const { created, jobs } = await create('abandoned', ['A0-0-A']);
      await store.claimJob(jobs[0]!.id, 'w', 3);
      await store.abandonJob(jobs[0]!.id, 'the queue gave up');
      const job = (await store.getJob(created.id, jobs[0]!.id))!;
      expect(job).to.include({ status: 'failed', message: 'failed: the queue gave up' });
      expect(job.attempts[0]!.outcome).to.equal('interrupted');
    });

    it('dismisses an order: accepted and running jobs are dismissed, finished ones keep their state and result, running attempts lose the job', async () => {
      const { created, jobs } = await create('dismisser', ['A0-0-A', 'B0-0-B', 'C0-0-C', 'D0-0-D']);
      const [a, b, c, d] = jobs;
      await store.claimJob(a!.id, 'w', 3);
      await store.claimJob(b!.id, 'w', 3);
      await store.completeJob(b!.id, 1, RESULT);
      await store.claimJob(c!.id, 'w', 1);
      await store.failAttempt(c!.id, 1, 'bad', true);
      const out = (await store.dismissOrder('dismisser', created.id))!;
      expect(out.order.status).to.equal('failed', 'an order failed already (a job failed for good) stays failed');
      expect(out.jobIds).to.deep.equal([a!.id, d!.id], 'the jobs dismissed now');
      const after = (await store.listJobs(created.id, { limit: 10, offset: 0 })).items;
      expect(after.map((j) => j.status)).to.deep.equal(['dismissed', 'successful', 'failed', 'dismissed']);
      expect(after.map((j) => j.result)).to.deep.equal([null, RESULT, null, null]);
      expect(after[0]!.attempts[0]!.outcome).to.equal('dismissed');
      expect(after[1]!.attempts[0]!.outcome).to.equal('successful');
      expect(await store.reportProgress(a!.id, 1, 60, 'x')).to.equal(false);
      expect(await store.completeJob(a!.id, 1, RESULT)).to.equal(false);
      expect(await store.claimJob(d!.id, 'w', 3)).to.deep.equal({ kind: 'skip', status: 'dismissed' });
      const order = (await store.getOrder('dismisser', created.id))!;
      expect(order.status).to.equal('failed');
      expect(order.jobCounts).to.deep.equal({ accepted: 0, running: 0, successful: 1, failed: 1, dismissed: 2 });
      expect((await store.listOrders('dismisser', { limit: 10, offset: 0 })).items[0]!.jobCounts).to.deep.equal(order.jobCounts);
      expect((await store.dismissOrder('dismisser', created.id))!.jobIds).to.deep.equal([], 'dismissing again changes nothing');
    });

    it('leaves a finished order as it is when dismissed', async () => {
      const { created, jobs } = await create('finisher', ['A0-0-A', 'B0-0-B']);
      for (const j of jobs) {
        await store.claimJob(j.id, 'w', 3);
        await store.completeJob(j.id, 1, RESULT);
      }
      const out = (await store.dismissOrder('finisher', created.id))!;
      expect(out.jobIds).to.deep.equal([]);
      expect(out.order.status).to.equal('successful');
      expect((await store.listJobs(created.id, { limit: 10, offset: 0 })).items.map((j) => [j.status, j.result])).to.deep.equal([
        ['successful', RESULT],
        ['successful', RESULT],
      ]);
    });

    it('gives every job one final state when jobs finish while their order is dismissed', async () => {
      const zones = Array.from({ length: 40 }, (_, i) => `A${i}-0-A`);
      const { created, jobs } = await create('racer', zones);
      for (const j of jobs) await store.claimJob(j.id, 'w', 3);
      // Workers finish (or fail) every job while the owner dismisses the order.
      const finishing = jobs.map((j, i) => (i % 4 === 3 ? store.failAttempt(j.id, 1, 'bad', true) : store.completeJob(j.id, 1, RESULT)));
      const [out, ...finished] = await Promise.all([store.dismissOrder('racer', created.id), ...finishing]);
      const after = (await store.listJobs(created.id, { limit: 100, offset: 0 })).items;
      for (const [i, job] of after.entries()) {
        const won = finished[i]!;
        // The worker's write counted exactly when the job was not dismissed first.
        expect(job.status, `job ${i}`).to.equal(won ? (i % 4 === 3 ? 'failed' : 'successful') : 'dismissed');
        expect(job.result, `job ${i}`).to.deep.equal(job.status === 'successful' ? RESULT : null);
        expect(job.attempts.map((x) => x.outcome), `job ${i}`).to.deep.equal([job.status === 'dismissed' ? 'dismissed' : job.status]);
        expect(out!.jobIds.includes(job.id), `job ${i} reported dismissed`).to.equal(job.status === 'dismissed');
      }
      const order = (await store.getOrder('racer', created.id))!;
      const counts = { accepted: 0, running: 0, successful: 0, failed: 0, dismissed: 0 };
      for (const j of after) counts[j.status]++;
      expect(order.jobCounts).to.deep.equal(counts);
      // A job failed for good before the dismissal made the order failed, which it stays; else it is dismissed.
      expect(order.status).to.equal(counts.failed > 0 ? 'failed' : 'dismissed');
    });

    it('lists unfinished and never-queued jobs for recovery, and marks jobs queued', async () => {
      const { jobs } = await create('recovery', ['A0-0-A', 'B0-0-B']);
      const future = new Date(Date.now() + 60_000).toISOString();
      const unqueued = (await store.unqueuedJobs(future, 10_000)).map((j) => j.id);
      expect(unqueued).to.include.members(jobs.map((j) => j.id));
      await store.markQueued([jobs[0]!.id]);
      const after = (await store.unqueuedJobs(future, 10_000)).map((j) => j.id);
      expect(after).to.include(jobs[1]!.id).and.not.include(jobs[0]!.id);
      expect(await store.unqueuedJobs('2000-01-01T00:00:00.000Z', 10)).to.deep.equal([]);
      await store.claimJob(jobs[1]!.id, 'w', 3);
      const unfinished = await store.unfinishedJobs(jobs[0]!.id - 1, 2);
      expect(unfinished).to.deep.equal([
        { id: jobs[0]!.id, orderId: jobs[0]!.orderId, status: 'accepted', attempts: 0 },
        { id: jobs[1]!.id, orderId: jobs[1]!.orderId, status: 'running', attempts: 1 },
      ]);
    });

    it('stores token digests with their owner; revoked tokens are not found', async () => {
      const digest = 'ab'.repeat(32);
      const t = await store.createToken('carol', digest, 'laptop');
      expect(t).to.include({ owner: 'carol', digest, label: 'laptop', revoked: null });
      expect(await store.findToken(digest)).to.deep.equal(t);
      expect((await store.listTokens()).map((x) => x.id)).to.include(t.id);
      expect(await store.revokeToken(t.id)).to.equal(true);
      expect(await store.revokeToken(t.id)).to.equal(false);
      expect(await store.findToken(digest)).to.equal(undefined);
      let duplicate = false;
      await store.createToken('dave', digest).catch(() => (duplicate = true));
      expect(duplicate).to.equal(true, 'a digest is unique');
    });
  });
}
