import { expect } from 'chai';
import { mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturedLogs } from '../support/captured-logs.js';

type Check = { componentId?: string; componentType: string; status: string; output?: string; time: string };
type Health = { status: string; checks?: Record<string, Check[]>; code?: number; message?: string; hint?: string };

const HEALTH_TYPE = /^application\/health\+json(;|$)/;
/** The readiness checks' time box on the first service, long enough for many probes to arrive during one slowed check. */
const CHECK_TIMEOUT_MS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function probe(s: TestServer, path: string): Promise<{ status: number; body: Health; headers: Headers }> {
  const res = await s.get(path);
  return { status: res.status, body: (await res.json()) as Health, headers: res.headers };
}

/** The statuses of many readiness probes sent at once. */
async function together(s: TestServer, n: number): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, async () => (await s.get('/health/ready')).status));
}

describe('HTTP: health probes', function () {
  this.timeout(60_000);

  describe('on a service whose datastore an operator initialises', () => {
    let s: TestServer;
    before(async () => {
      const health = { cacheMs: 0, checkTimeoutMs: CHECK_TIMEOUT_MS };
      s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', health, admin: { port: 0 } }, datastore: { kind: 'sqlite', file: ':memory:', autoInitialize: false } });
    });
    after(() => s?.close());

    it('live: 200 {"status":"pass"} as application/health+json, never cached, for GET and HEAD', async () => {
      const { status, body, headers } = await probe(s, '/health/live');
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ status: 'pass' });
      expect(headers.get('content-type')).to.match(HEALTH_TYPE);
      expect(headers.get('cache-control')).to.equal('no-store');
      const head = await fetch(`${s.base}/health/live`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.match(HEALTH_TYPE);
    });

    it('ready: 503 naming the datastore check until POST /admin/initialize, then 200 pass', async () => {
      const before = await probe(s, '/health/ready');
      expect(before.status).to.equal(503);
      expect(before.headers.get('content-type')).to.match(HEALTH_TYPE);
      expect(before.headers.get('cache-control')).to.equal('no-store');
      // An ApiError and a health response at once.
      expect(before.body).to.include({ code: 503, message: 'Service not ready', status: 'fail' });
      expect(before.body.hint).to.contain('datastore:initialized');
      const [datastore] = before.body.checks!['datastore:initialized']!;
      expect(datastore).to.include({ componentType: 'datastore', status: 'fail' });
      expect(datastore!.output).to.contain('POST /admin/initialize');
      expect(Date.parse(datastore!.time)).to.be.closeTo(Date.now(), 60_000);
      // Live does not depend on the datastore.
      expect((await s.get('/health/live')).status).to.equal(200);

      expect((await fetch(`${s.admin}/admin/initialize`, { method: 'POST' })).status).to.equal(200);
      const after = await probe(s, '/health/ready');
      expect(after.status).to.equal(200);
      expect(after.body.status).to.equal('pass');
      expect(after.body).to.not.have.property('code');
      expect(after.body.checks!['datastore:initialized']![0]!.status).to.equal('pass');
      // Each collection with a local source of the default config is checked, and passes.
      const sources = after.body.checks!['collections:source']!;
      expect(sources.map((c) => c.componentId)).to.include.members(s.config.collections.filter((c) => c.backing.kind !== 'ogc-features').map((c) => c.id));
      for (const c of sources) expect(c, c.componentId).to.include({ componentType: 'collection', status: 'pass' });
    });

    it('ready: probes arriving together cost one round of checks', async () => {
      const admin = s.app.container.get<{ status(): Promise<unknown> }>(Symbol.for('DatastoreAdmin'));
      const status = admin.status.bind(admin);
      let asked = 0;
      // Slowed, so that every probe arrives while the first one's round of checks runs.
      admin.status = async () => {
        asked++;
        await sleep(CHECK_TIMEOUT_MS / 2);
        return status();
      };
      try {
        expect(await together(s, 20)).to.deep.equal(Array(20).fill(200));
        expect(asked).to.equal(1);
      } finally {
        admin.status = status;
      }
    });

    it('ready: a datastore that never answers fails its check within the time box, and probes pile no queries up', async () => {
      const admin = s.app.container.get<{ status(): Promise<unknown> }>(Symbol.for('DatastoreAdmin'));
      const status = admin.status.bind(admin);
      let asked = 0;
      admin.status = () => {
        asked++;
        return new Promise(() => {});
      };
      try {
        const started = performance.now();
        const { status: code, body } = await probe(s, '/health/ready');
        // A generous bound for a loaded machine.
        expect(performance.now() - started).to.be.below(CHECK_TIMEOUT_MS + 8000);
        expect(code).to.equal(503);
        expect(body.checks!['datastore:initialized']![0]!.output).to.equal(`The datastore did not answer within ${CHECK_TIMEOUT_MS} ms.`);
        for (let i = 0; i < 2; i++) expect((await s.get('/health/ready')).status).to.equal(503);
        expect(asked, 'the hung question is waited on again, not asked again').to.equal(1);
      } finally {
        admin.status = status;
      }
    });
  });

  describe('on a service with lake collections', () => {
    const lakeRoot = mkdtempSync(path.join(tmpdir(), 'dggs-health-lake-'));
    const lake = (id: string, optional = false) => ({ id, title: id, backing: { kind: 'parquet-lake', optional } });
    let s: TestServer;
    const logs = capturedLogs('info');
    before(async () => {
      for (const id of ['steady', 'fragile', 'extra']) mkdirSync(path.join(lakeRoot, id, 'data'), { recursive: true });
      s = await startTestServer(
        {
          server: { host: '127.0.0.1', port: 0, logLevel: 'silent', health: { cacheMs: 0 } },
          lake: { root: lakeRoot, aggregationThreads: 0 },
          collections: [lake('steady'), lake('fragile'), lake('extra', true), lake('absent', true)],
        },
        logs.logger,
      );
    });
    after(() => s?.close());

    const sourceCheck = (body: Health, id: string) => body.checks!['collections:source']!.find((c) => c.componentId === id)!;

    it('ready with a warn for an optional source missing at start: that collection is degraded, the service serves', async () => {
      const { status, body } = await probe(s, '/health/ready');
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.status).to.equal('warn');
      expect(sourceCheck(body, 'steady').status).to.equal('pass');
      expect(sourceCheck(body, 'absent')).to.include({ componentType: 'collection', status: 'warn' });
      expect(sourceCheck(body, 'absent').output).to.match(/missing when the service started.*restarts/);
    });

    it('an optional source that goes missing warns; a source that is not optional going missing fails, named, without its path', async () => {
      renameSync(path.join(lakeRoot, 'extra'), path.join(lakeRoot, 'extra-moved'));
      const degraded = await probe(s, '/health/ready');
      expect(degraded.status).to.equal(200);
      expect(sourceCheck(degraded.body, 'extra').status).to.equal('warn');

      renameSync(path.join(lakeRoot, 'fragile'), path.join(lakeRoot, 'fragile-moved'));
      try {
        const failed = await probe(s, '/health/ready');
        expect(failed.status).to.equal(503);
        expect(failed.body).to.include({ code: 503, status: 'fail' });
        expect(failed.body.hint).to.contain('collections:source (fragile)');
        const fragile = sourceCheck(failed.body, 'fragile');
        expect(fragile.status).to.equal('fail');
        expect(fragile.output).to.contain('collections[1].id');
        expect(JSON.stringify(failed.body)).to.not.contain(lakeRoot);
        expect(sourceCheck(failed.body, 'steady').status).to.equal('pass');
        // The log says what the answer leaves out, once per change.
        const logged = await logs.first((l) => l.msg === 'readiness check does not pass' && l.collection === 'fragile');
        expect(logged.what).to.contain('fragile');
        await probe(s, '/health/ready');
        expect(logs.lines.filter((l) => l.msg === 'readiness check does not pass' && l.collection === 'fragile')).to.have.length(1);
      } finally {
        renameSync(path.join(lakeRoot, 'fragile-moved'), path.join(lakeRoot, 'fragile'));
        renameSync(path.join(lakeRoot, 'extra-moved'), path.join(lakeRoot, 'extra'));
      }
      const back = await probe(s, '/health/ready');
      expect(back.status).to.equal(200);
      expect(sourceCheck(back.body, 'fragile').status).to.equal('pass');
      expect(sourceCheck(back.body, 'extra').status).to.equal('pass');
      await logs.first((l) => l.msg === 'readiness check passes again' && l.collection === 'fragile');
    });
  });

  it('reuses a readiness answer for server.health.cacheMs', async () => {
    const s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', health: { cacheMs: 60_000 } } });
    try {
      const admin = s.app.container.get<{ status(): Promise<unknown> }>(Symbol.for('DatastoreAdmin'));
      const status = admin.status.bind(admin);
      let asked = 0;
      admin.status = () => {
        asked++;
        return status();
      };
      for (let i = 0; i < 5; i++) expect((await s.get('/health/ready')).status).to.equal(200);
      expect(asked).to.equal(1);
    } finally {
      await s.close();
    }
  });

  it('readiness fails as soon as the service starts stopping, while it finishes what it holds', async () => {
    const s = await startTestServer();
    const health = s.app.container.get<{ ready(): Promise<Health> }>(Symbol.for('HealthService'));
    expect((await health.ready()).status).to.equal('pass');
    const closing = s.close();
    const report = await health.ready();
    await closing;
    expect(report.status).to.equal('fail');
    expect(report.checks!['service:stopping']![0]).to.include({ componentType: 'system', status: 'fail' });
  });

  it('documents the probes in the API document under the tag Operations', async () => {
    const s = await startTestServer();
    try {
      const doc = (await (await s.get('/api/openapi.json')).json()) as { paths: Record<string, Record<string, { tags: string[]; operationId: string; responses: Record<string, { content: Record<string, unknown> }> }>> };
      for (const p of ['/health/live', '/health/ready', '/metrics']) expect(doc.paths[p]?.get?.tags, p).to.deep.equal(['Operations']);
      expect(Object.keys(doc.paths['/health/ready']!.get!.responses)).to.include.members(['200', '503']);
      expect(Object.keys(doc.paths['/health/ready']!.get!.responses['503']!.content)).to.deep.equal(['application/health+json']);
    } finally {
      await s.close();
    }
  });
});
