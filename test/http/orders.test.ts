import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { parquetReadObjects } from 'hyparquet';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';
import type { JobLedger, TokenStore } from '../../src/ports/datastore.js';

const DEMO = 'demo-token-change-me';
const ALPS = ['F4-120-B', 'F4-121-E']; // IVEA7H level 5, inside the demo elevation raster
const FOUR = ['F4-120-B', 'F4-121-E', 'F4-ED-G', 'F4-121-F'];
const FIVE = [...FOUR, 'F4-EF-E'];

type Json = Record<string, any>;

function client(s: TestServer, token: string) {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  return {
    get: (p: string) => fetch(s.base + p, { headers }),
    json: async (p: string) => (await fetch(s.base + p, { headers })).json() as Promise<Json>,
    post: (body: unknown) => fetch(`${s.base}/orders`, { method: 'POST', headers, body: JSON.stringify(body) }),
    del: (p: string) => fetch(s.base + p, { method: 'DELETE', headers }),
  };
}
type Client = ReturnType<typeof client>;

async function created(c: Client, body: unknown): Promise<Json> {
  const res = await c.post(body);
  const json = (await res.json()) as Json;
  expect(res.status, JSON.stringify(json)).to.equal(201);
  return json;
}

async function settled(c: Client, id: number, ms = 30_000): Promise<Json> {
  const end = Date.now() + ms;
  for (;;) {
    const order = await c.json(`/orders/${id}`);
    if (['successful', 'failed', 'dismissed'].includes(order.status) && order.jobs.every((j: Json) => ['successful', 'failed', 'dismissed'].includes(j.status))) return order;
    if (Date.now() > end) throw new Error(`order ${id} not final: ${JSON.stringify(order.job_counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const zstd = (b: Uint8Array) => new Uint8Array((zlib as unknown as { zstdDecompressSync: (b: Uint8Array) => Buffer }).zstdDecompressSync(b));

async function parquetRows(res: Response): Promise<Json[]> {
  expect(res.status).to.equal(200);
  const buf = await res.arrayBuffer();
  return parquetReadObjects({ file: buf, compressors: { ZSTD: zstd } });
}

function runToken(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/token.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe('orders that run', function () {
  this.timeout(120_000);

  describe('end to end on the embedded runner', () => {
    let s: TestServer;
    let demo: Client;
    before(async () => {
      s = await startTestServer({ orders: { retryDelaySeconds: 0, maxAttempts: 2 } });
      demo = client(s, DEMO);
    });
    after(async () => s.close());

    it('runs an order to successful; its results in DGGS-JSON and Parquet equal the zone-data route for the same request', async () => {
      const order = await created(demo, { title: 'Alps', collection: 'demo-elevation', zones: ALPS, zone_depth: 2 });
      expect(order.status).to.equal('accepted');
      const done = await settled(demo, order.id);
      expect(done.status).to.equal('successful');
      expect(done.job_counts).to.deep.equal({ accepted: 0, running: 0, successful: 2, failed: 0, dismissed: 0 });
      for (const job of done.jobs) {
        expect(job).to.include({ status: 'successful', progress: 100 });
        expect(job.attempts).to.have.length(1);
        expect(job.attempts[0]).to.include({ attempt: 1, outcome: 'successful', error: null });
        expect(job.started).to.be.a('string');
        expect(job.finished).to.be.a('string');
        const route = `/collections/demo-elevation/dggs/IVEA7H/zones/${job.zone_id}/data?zone-depth=2`;
        const results = job.links.find((l: Json) => l.rel.endsWith('/results')).href.replace(s.base, '');
        expect(results).to.equal(`/orders/${order.id}/jobs/${job.id}/results`);

        const mine = await demo.get(results);
        expect(mine.headers.get('content-type')).to.match(/^application\/vnd\.ogc\.dggs\+json/);
        const a = (await mine.json()) as Json;
        const b = (await (await s.get(route)).json()) as Json;
        expect(a.values).to.deep.equal(b.values);
        expect(a.data).to.deep.equal(b.data);
        expect(a.zones).to.deep.equal(b.zones);
        expect(a.values.elevation[0].data.filter((v: unknown) => typeof v === 'number').length).to.be.greaterThan(0, 'real values, not nulls');

        const rowsMine = await parquetRows(await demo.get(`${results}?f=parquet`));
        const rowsRoute = await parquetRows(await s.get(`${route}&f=parquet`));
        expect(rowsMine.length).to.be.greaterThan(0);
        expect(rowsMine).to.deep.equal(rowsRoute);
        expect(job.result).to.include({ rows: rowsRoute.length });
      }
    });

    it('writes each job durably as a lake part file, so the finished order reads as a lake collection', async () => {
      const order = await created(demo, { collection: 'demo-elevation', zones: ALPS, zone_depth: 1 });
      const done = await settled(demo, order.id);
      const root = s.config.orders.resultsRoot;
      const dir = path.join(root, done.results_collection, 'data');
      expect(readdirSync(dir).sort()).to.deep.equal(done.jobs.map((j: Json) => `part-${j.id}.parquet`).sort());
      const lake = new DuckDbLake(root);
      try {
        const ds = await lake.describe({ id: done.results_collection, title: 'results', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } });
        expect(ds.totalRows).to.equal(done.jobs.reduce((n: number, j: Json) => n + j.result.rows, 0));
        expect(ds.files).to.have.length(2);
        expect(ds.columns.map((c) => c.name)).to.include.members(['zone_id', 'depth', 'elevation', 'geometry']);
      } finally {
        await lake.close();
      }
    });

    it('links a finished order to its results, and every link the order and its results carry answers 200', async () => {
      const order = await created(demo, { collection: 'demo-elevation', zones: ALPS, zone_depth: 1 });
      const done = await settled(demo, order.id);
      expect(done.status).to.equal('successful');
      const href = (rel: string) => done.links.find((l: Json) => l.rel === rel)?.href.replace(s.base, '');
      for (const l of done.links) expect((await demo.get(l.href.replace(s.base, ''))).status, l.href).to.equal(200);
      const results = href('http://www.opengis.net/def/rel/ogc/1.0/results');
      expect(results).to.equal(`/orders/${order.id}/jobs?status=successful`);
      const listed = await demo.json(results);
      expect(listed.jobs.map((j: Json) => j.id).sort()).to.deep.equal(done.jobs.map((j: Json) => j.id).sort());
      for (const job of listed.jobs) {
        const jobResults = job.links.find((l: Json) => l.rel === 'http://www.opengis.net/def/rel/ogc/1.0/results').href.replace(s.base, '');
        const res = await demo.get(jobResults);
        expect(res.status, jobResults).to.equal(200);
        expect(((await res.json()) as Json).values).to.have.property('elevation');
      }
      expect((await s.get(results)).status, 'results are the owner\'s').to.equal(401);
    });

    it("computes a concept's processing entry at its refinement level, named after its derived indice", async () => {
      const concept = (await (await s.get('/concepts/1')).json()) as Json;
      const { derived_indice: indice, dggs_refinement_level: level } = concept.processing[0];
      const order = await created(demo, { concept: 1, zones: [ALPS[0]] });
      expect(order.concept).to.equal(1);
      expect(order.jobs[0]).to.include({ collection: concept.collections[0].id, zone_depth: level - 5, derived_indice: indice });
      const done = await settled(demo, order.id);
      expect(done.status).to.equal('successful');
      const job = done.jobs[0];
      const mine = (await demo.json(`/orders/${order.id}/jobs/${job.id}/results`)) as Json;
      const field = Object.keys(concept.collections[0].properties)[0]!;
      const route = (await (await s.get(`/collections/${job.collection}/dggs/IVEA7H/zones/${ALPS[0]}/data?zone-depth=${level - 5}&properties=${field}`)).json()) as Json;
      expect(Object.keys(mine.values)).to.deep.equal([indice]);
      expect(mine.values[indice]).to.deep.equal(route.values[field]);
      const geo = (await (await demo.get(`/orders/${order.id}/jobs/${job.id}/results?f=geojson`)).json()) as Json;
      expect(geo.features[0].properties).to.have.property(indice);
    });

    it('refuses orders it cannot run with 422 before any job exists', async () => {
      const cases: [unknown, RegExp][] = [
        [{ zones: ALPS }, /exactly one of "collection"/],
        [{ collection: 'demo-elevation', concept: 1, zones: ALPS }, /exactly one/],
        [{ concept: 999, zones: ALPS }, /Unknown concept/],
        [{ concept: 1, zones: ALPS, zone_depth: 1 }, /leave out "zone_depth"/],
        [{ concept: 1, zones: ['J4-8F8AC-D'] }, /finer than the concept's dggs_refinement_level/],
        [{ collection: 'nope', zones: ALPS }, /Unknown collection/],
        [{ collection: 'demo-elevation', zones: ['A0-0-A'], zone_depth: 7 }, /at most 50000 \(limits\.maxSubZones\)|max_relative_depth/],
      ];
      for (const [body, hint] of cases) {
        const res = await demo.post(body);
        const json = (await res.json()) as Json;
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(json.hint, JSON.stringify(body)).to.match(hint);
      }
    });

    it('answers 404 for results of a job that is not successful, and 406 for a format zone data has not', async () => {
      const res = await demo.get('/orders/1/jobs/1/results?f=shapefile');
      expect(res.status).to.equal(406);
      const broken = await startTestServer({ orders: { runInServer: false } });
      try {
        const c = client(broken, DEMO);
        const order = await created(c, { collection: 'demo-elevation', zones: ALPS });
        const r = await c.get(`/orders/${order.id}/jobs/${order.jobs[0].id}/results`);
        expect(r.status).to.equal(404);
        expect(((await r.json()) as Json).hint).to.match(/accepted/);
      } finally {
        await broken.close();
      }
    });
  });

  it('a job that fails records why on each attempt, and fails its order after its retries', async () => {
    const base = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8'));
    // A raster that is there at start (a missing one stops the start) and loses its pixels after.
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'dggs-broken-')), 'broken.tif');
    copyFileSync(path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif'), file);
    const broken = { id: 'broken-raster', title: 'A raster that is broken', backing: { kind: 'raster-url', url: file, fields: { v: { title: 'V', type: 'number', svc_band_index: 1 } } } };
    const s = await startTestServer({ collections: [...base.collections, broken], orders: { retryDelaySeconds: 0, maxAttempts: 2 } });
    truncateSync(file, 4096);
    try {
      const c = client(s, DEMO);
      const order = await created(c, { collection: 'broken-raster', zones: [ALPS[0]], zone_depth: 1 });
      const done = await settled(c, order.id);
      expect(done.status).to.equal('failed');
      const job = done.jobs[0];
      expect(job.status).to.equal('failed');
      expect(job.message).to.match(/^failed after \d attempts?: /);
      expect(job.attempts.length).to.be.within(1, 2);
      for (const a of job.attempts) {
        expect(a.outcome).to.equal('failed');
        expect(a.error).to.be.a('string').and.not.equal('');
      }
      expect((await c.get(`/orders/${order.id}/jobs/${job.id}/results`)).status).to.equal(404);
    } finally {
      await s.close();
    }
  });

  describe('after a process running jobs stopped (kill -9)', () => {
    it('shows its attempts interrupted and their jobs accepted as soon as the service is back, then runs them', async () => {
      // A process claims a job and dies: the ledger is left with its attempt running.
      const first = await startTestServer({ orders: { runInServer: false } });
      let file: string;
      let order: Json;
      try {
        order = await created(client(first, DEMO), { collection: 'demo-elevation', zones: ALPS, zone_depth: 1 });
        const claim = await first.app.container.get<JobLedger>(Symbol.for('JobLedger')).claimJob(order.jobs[0].id, 'gone-host:4242', 3);
        expect(claim.kind).to.equal('run');
        file = (first.config.datastore as { file: string }).file;
      } finally {
        await first.close();
      }
      const s = await startTestServer({ datastore: { kind: 'sqlite', file, autoInitialize: true }, orders: { retryDelaySeconds: 2, maxAttempts: 3 } });
      try {
        const c = client(s, DEMO);
        const back = await c.json(`/orders/${order.id}`);
        const job = back.jobs[0];
        expect(job).to.include({ status: 'accepted', progress: 0, message: 'attempt 1 of 3 was interrupted (the process running this attempt stopped); queued again' });
        expect(job.attempts.map((a: Json) => [a.worker, a.outcome])).to.deep.equal([['gone-host:4242', 'interrupted']]);
        expect(back.job_counts.running).to.equal(back.jobs.filter((j: Json) => j.status === 'running').length, 'counts agree with the jobs');
        const done = await settled(c, order.id);
        expect(done.status).to.equal('successful');
        expect(done.jobs[0].attempts.map((a: Json) => a.outcome)).to.deep.equal(['interrupted', 'successful']);
      } finally {
        await s.close();
      }
    });
  });

  describe('owners, tokens, paging, quotas and dismissal', () => {
    let s: TestServer;
    let demo: Client;
    before(async () => {
      s = await startTestServer({ orders: { maxOpenOrders: 3, maxJobsPerOrder: 4, retryAfterSeconds: 7, concurrency: 1 } });
      demo = client(s, DEMO);
    });
    after(async () => s.close());

    it('tokens from `npm run token` belong to their owner; only digests are stored; revoked tokens stop working', async () => {
      const env = { DGGS_CONFIG: path.join(REPO_ROOT, 'config/default.json'), DGGS__datastore__file: s.config.datastore.kind === 'sqlite' ? s.config.datastore.file : '' };
      const made = await runToken(['create', '--owner', 'bob', '--label', 'test'], env);
      expect(made.code, made.err).to.equal(0);
      const token = made.out.trim().split('\n').pop()!;
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      const stored = await s.app.container.get<TokenStore>(Symbol.for('TokenStore')).listTokens();
      const bobs = stored.filter((t) => t.owner === 'bob');
      expect(bobs).to.have.length(1);
      expect(bobs[0]!.digest).to.equal(sha256Hex(token));
      expect(JSON.stringify(stored)).to.not.contain(token);
      const [listed, noOwner, badOwner] = await Promise.all([runToken(['list'], env), runToken(['create'], env), runToken(['create', '--owner', 'no spaces'], env)]);
      expect(listed.out).to.contain('bob').and.not.contain(token);
      expect(noOwner.code).to.equal(2);
      expect(badOwner.code).to.equal(2);

      const bob = client(s, token);
      const mine = await created(bob, { collection: 'demo-elevation', zones: [ALPS[0]], zone_depth: 1 });
      const demos = await created(demo, { collection: 'demo-elevation', zones: [ALPS[1]], zone_depth: 1 });
      // Another owner's order does not exist for you: 404 on every route, never 403.
      for (const p of [`/orders/${demos.id}`, `/orders/${demos.id}/jobs`, `/orders/${demos.id}/jobs/${demos.jobs[0].id}`, `/orders/${demos.id}/jobs/${demos.jobs[0].id}/results`]) {
        const res = await bob.get(p);
        expect(res.status, p).to.equal(404);
      }
      expect((await bob.del(`/orders/${demos.id}`)).status).to.equal(404);
      expect(((await bob.json('/orders')).orders as Json[]).map((o) => o.id)).to.deep.equal([mine.id]);
      expect(((await demo.json('/orders')).orders as Json[]).map((o) => o.id)).to.not.include(mine.id);
      expect((await demo.get(`/orders/${mine.id}`)).status).to.equal(404);
      await settled(bob, mine.id);
      await settled(demo, demos.id);

      const revoked = await runToken(['revoke', String(bobs[0]!.id)], env);
      expect(revoked.code, revoked.err).to.equal(0);
      const after = await bob.get('/orders');
      expect(after.status).to.equal(401);
    });

    it('pages orders and jobs with limit, offset and next links, filtered by status', async () => {
      const owner = 'pager';
      const token = 'pager-token-0123456789';
      await s.app.container.get<TokenStore>(Symbol.for('TokenStore')).createToken(owner, sha256Hex(token));
      const c = client(s, token);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const o = await created(c, { collection: 'demo-elevation', zones: ALPS, zone_depth: 0 });
        ids.push(o.id);
        await settled(c, o.id);
      }
      let next: string | undefined = '/orders?limit=2';
      const seen: number[] = [];
      let pages = 0;
      while (next) {
        const page: Json = await c.json(next.replace(s.base, ''));
        expect(page.numberMatched).to.equal(3);
        expect(page.numberReturned).to.equal(page.orders.length);
        expect(page.orders.length).to.be.at.most(2);
        for (const o of page.orders) expect(o).to.not.have.property('jobs', undefined);
        seen.push(...page.orders.map((o: Json) => o.id));
        next = page.links.find((l: Json) => l.rel === 'next')?.href;
        pages++;
      }
      expect(pages).to.equal(2);
      expect(seen).to.deep.equal(ids);
      const second = await c.json('/orders?limit=2&offset=2');
      expect(second.links.find((l: Json) => l.rel === 'prev').href).to.contain('offset=0');
      expect((await c.json('/orders?status=successful')).numberMatched).to.equal(3);
      expect((await c.json('/orders?status=running')).numberMatched).to.equal(0);
      expect((await c.get('/orders?status=done')).status).to.equal(422);
      expect((await c.get('/orders?limit=0')).status).to.equal(422);
      expect((await c.json('/orders?limit=5000')).links.find((l: Json) => l.rel === 'self').href).to.contain('limit=1000');

      const jobs = await c.json(`/orders/${ids[0]}/jobs?limit=1&offset=1`);
      expect(jobs.numberMatched).to.equal(2);
      expect(jobs.jobs.map((j: Json) => j.zone_id)).to.deep.equal([ALPS[1]]);
      expect(jobs.links.find((l: Json) => l.rel === 'next')).to.equal(undefined);
      expect((await c.json(`/orders/${ids[0]}/jobs?status=failed`)).numberMatched).to.equal(0);
      expect((await c.json(`/orders/${ids[0]}/jobs?status=successful&limit=1`)).links.find((l: Json) => l.rel === 'next').href).to.contain('status=successful');
    });

    it('quotas per owner: open orders and jobs per order are 429 with Retry-After', async () => {
      const token = 'quota-token-0123456789';
      await s.app.container.get<TokenStore>(Symbol.for('TokenStore')).createToken('quota', sha256Hex(token));
      const c = client(s, token);
      const tooMany = await c.post({ collection: 'demo-elevation', zones: FIVE, zone_depth: 0 });
      expect(tooMany.status).to.equal(429);
      expect(tooMany.headers.get('retry-after')).to.equal('7');
      expect(((await tooMany.json()) as Json).hint).to.match(/at most 4 \(orders\.maxJobsPerOrder\)/);
      // Orders that stay open: deep enough to still be running when the quota is checked.
      const open: Json[] = [];
      for (let i = 0; i < 3; i++) open.push(await created(c, { collection: 'demo-elevation', zones: FOUR, zone_depth: 3 }));
      const refused = await c.post({ collection: 'demo-elevation', zones: [ALPS[0]], zone_depth: 0 });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('7');
      const body = (await refused.json()) as Json;
      expect(body).to.include({ code: 429, message: 'Quota exceeded' });
      expect(body.hint).to.match(/at most 3 open \(orders\.maxOpenOrders\)/);
      // Another owner's quota is its own.
      expect((await demo.post({ collection: 'demo-elevation', zones: [ALPS[0]], zone_depth: 0 })).status).to.equal(201);
      expect((await c.del(`/orders/${open[0]!.id}`)).status).to.equal(200);
      expect((await c.post({ collection: 'demo-elevation', zones: [ALPS[0]], zone_depth: 0 })).status).to.equal(201);
      for (const o of open) await c.del(`/orders/${o.id}`);
    });

    it('DELETE dismisses: queued jobs never start, the running one stops leaving no result, a finished job keeps its state and result', async () => {
      const token = 'dismiss-token-0123456789';
      await s.app.container.get<TokenStore>(Symbol.for('TokenStore')).createToken('dismisser', sha256Hex(token));
      const c = client(s, token);
      const order = await created(c, { collection: 'demo-elevation', zones: FOUR, zone_depth: 3 });
      // Wait until the first job is done and another is running (concurrency 1).
      const end = Date.now() + 30_000;
      for (;;) {
        const o = await c.json(`/orders/${order.id}`);
        if (o.job_counts.successful >= 1 && o.job_counts.running === 1) break;
        if (Date.now() > end) throw new Error(`never caught a running job: ${JSON.stringify(o.job_counts)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const res = await c.del(`/orders/${order.id}`);
      expect(res.status).to.equal(200);
      const dismissed = (await res.json()) as Json;
      expect(dismissed.status).to.equal('dismissed');
      // Jobs run in order: those finished before the DELETE (at least the first) stay successful.
      const done = (dismissed.jobs as Json[]).filter((j) => j.status === 'successful');
      const rest = (dismissed.jobs as Json[]).slice(done.length);
      expect(done.length).to.be.within(1, 3);
      for (const j of done) expect(j.result.rows).to.be.greaterThan(0);
      expect(rest.map((j) => [j.status, j.result])).to.deep.equal(rest.map(() => ['dismissed', null]));
      await new Promise((r) => setTimeout(r, 2500));
      const later = await c.json(`/orders/${order.id}`);
      expect(later.status).to.equal('dismissed');
      expect(later.job_counts).to.deep.equal({ accepted: 0, running: 0, successful: done.length, failed: 0, dismissed: rest.length });
      expect(later.jobs.map((j: Json) => j.status)).to.deep.equal(dismissed.jobs.map((j: Json) => j.status), 'no state changes after the dismissal');
      const outcomes = later.jobs.map((j: Json) => j.attempts.map((a: Json) => a.outcome));
      expect(outcomes.slice(0, done.length)).to.deep.equal(done.map(() => ['successful']));
      expect(outcomes.filter((o: string[]) => o.length === 0).length).to.be.at.least(1, 'a queued job never started');
      expect(outcomes.flat().filter((o: string) => o === 'dismissed')).to.have.length(1, 'the running attempt stopped');
      expect(outcomes.flat()).to.not.include('running');
      const data = path.join(s.config.orders.resultsRoot, String(order.id), 'data');
      expect(readdirSync(data).sort()).to.deep.equal(done.map((j) => `part-${j.id}.parquet`).sort(), 'only the finished jobs left files');
      for (const j of done) expect((await c.get(`/orders/${order.id}/jobs/${j.id}/results`)).status).to.equal(200);
      for (const j of rest) expect((await c.get(`/orders/${order.id}/jobs/${j.id}/results`)).status).to.equal(404);
      expect((await c.del(`/orders/${order.id}`)).status).to.equal(200, 'dismissing again is harmless');
      expect((await c.del('/orders/987654')).status).to.equal(404);
    });

    it('DELETE leaves a finished order and its results as they are', async () => {
      const order = await created(demo, { collection: 'demo-elevation', zones: [ALPS[0]], zone_depth: 0 });
      const done = await settled(demo, order.id);
      expect(done.status).to.equal('successful');
      const res = await demo.del(`/orders/${order.id}`);
      expect(res.status).to.equal(200);
      const after = (await res.json()) as Json;
      expect(after.status).to.equal('successful');
      expect(after.jobs.map((j: Json) => [j.status, j.result])).to.deep.equal(done.jobs.map((j: Json) => ['successful', j.result]));
      expect((await demo.get(`/orders/${order.id}/jobs/${done.jobs[0].id}/results`)).status).to.equal(200);
    });
  });
});
