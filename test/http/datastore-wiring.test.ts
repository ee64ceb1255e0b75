import { expect } from 'chai';
import net from 'node:net';
import { startTestServer } from '../support/test-server.js';
import { startPostgres, type PostgresHandle } from '../support/postgres.js';
import { isLoopbackPeer } from '../../src/http/routes/admin.js';
import type { Request } from 'restify';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';

describe('HTTP: datastore wiring, readiness and faults', function () {
  this.timeout(60_000);

  it('the same app boots on either datastore adapter the config names (SQLite, PostgreSQL)', async () => {
    const pg: PostgresHandle = await startPostgres();
    try {
      for (const datastore of [undefined, { kind: 'postgres', url: pg.url, schema: pg.schema, autoInitialize: true }]) {
        const s = await startTestServer(datastore ? { datastore } : {});
        try {
          const res = await s.get('/concepts');
          expect(res.status, JSON.stringify(datastore)).to.equal(200);
          expect((await res.json()).concepts.length).to.be.greaterThan(0);
          expect(s.app.container.get<{ constructor: { name: string } }>(Symbol.for('DatastoreAdmin')).constructor.name).to.equal('KnexDatastore');
        } finally {
          await s.close();
        }
      }
    } finally {
      await pg.stop();
    }
  });

  it('answers 503 ApiError on /conformance, /concepts and /orders until an operator initialises', async () => {
    const s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', admin: { port: 0 } }, datastore: { kind: 'sqlite', file: ':memory:', autoInitialize: false }, auth: { tokenSha256: [sha256Hex('t0k3n')] } });
    try {
      for (const path of ['/conformance', '/concepts', '/concepts/1', '/orders']) {
        const res = await s.get(path, { Authorization: 'Bearer t0k3n' });
        expect(res.status, path).to.equal(503);
        expect(await res.json()).to.include({ code: 503, message: 'Datastore not initialized' });
      }
      const init = await fetch(`${s.admin}/admin/initialize`, { method: 'POST' });
      expect(init.status).to.equal(200);
      expect((await init.json()).initialized).to.equal(true);
      expect((await s.get('/conformance')).status).to.equal(200);
      expect((await s.get('/concepts')).status).to.equal(200);
    } finally {
      await s.close();
    }
  });

  it('remembers an initialised datastore: /conformance and the orders routes then make no round trip to learn it', async () => {
    const s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', admin: { port: 0 } }, datastore: { kind: 'sqlite', file: ':memory:', autoInitialize: false } });
    const admin = s.app.container.get<{ status(): Promise<unknown> }>(Symbol.for('DatastoreAdmin'));
    const status = admin.status.bind(admin);
    let asked = 0;
    admin.status = () => {
      asked++;
      return status();
    };
    try {
      expect((await s.get('/conformance')).status).to.equal(503);
      expect((await s.get('/conformance')).status).to.equal(503);
      expect(asked, 'asked while not initialised').to.equal(2);
      expect((await fetch(`${s.admin}/admin/initialize`, { method: 'POST' })).status).to.equal(200);
      asked = 0;
      expect((await s.get('/conformance')).status).to.equal(200);
      expect(asked, 'asked once more, answered yes').to.equal(1);
      const answers = await Promise.all(Array.from({ length: 50 }, () => s.get('/conformance')));
      expect(answers.map((r) => r.status)).to.deep.equal(answers.map(() => 200));
      for (const path of ['/concepts', '/orders']) await s.get(path, { Authorization: 'Bearer demo-token-change-me' });
      expect(asked, 'never asked again').to.equal(1);
    } finally {
      await s.close();
    }
  });

  it('an internal fault is a 500 ApiError with no stack trace or driver detail', async () => {
    const port = await freePort();
    const s = await startTestServer({ datastore: { kind: 'postgres', url: `postgres://nobody@127.0.0.1:${port}/none`, autoInitialize: false } });
    try {
      const res = await s.get('/conformance');
      expect(res.status).to.equal(500);
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.equal({ code: 500, message: 'Internal server error', hint: "The failure was logged under this answer's X-Request-Id; retry later, or report it with that id." });
      expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect(text).to.not.match(/ECONNREFUSED|at .*\.ts|knex/);
    } finally {
      await s.close();
    }
  });

  it('admin routes accept only loopback TCP peers and ignore forwarded-for headers', async () => {
    const peer = (remoteAddress: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress }, headers }) as unknown as Request;
    expect(isLoopbackPeer(peer('127.0.0.1'))).to.equal(true);
    expect(isLoopbackPeer(peer('127.8.9.10'))).to.equal(true);
    expect(isLoopbackPeer(peer('::1'))).to.equal(true);
    expect(isLoopbackPeer(peer('::ffff:127.0.0.1'))).to.equal(true);
    expect(isLoopbackPeer(peer('10.0.0.5', { 'x-forwarded-for': '127.0.0.1' }))).to.equal(false);
    expect(isLoopbackPeer(peer('192.168.1.2'))).to.equal(false);
    expect(isLoopbackPeer(peer('::ffff:10.0.0.1'))).to.equal(false);
    expect(isLoopbackPeer(peer('fe80::1'))).to.equal(false);
    expect(isLoopbackPeer(peer(''))).to.equal(false);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
