/**
 * The admin routes are served by a listener of their own (TCP on loopback or a Unix socket) and
 * never by the public one, whatever a request's headers say.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Request } from 'restify';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { capturedLogs, type CapturedLogs } from '../support/captured-logs.js';
import { ConfigError, parseConfig } from '../../src/app/config/load-config.js';
import { adminRoutes } from '../../src/http/routes/admin.js';
import { ForbiddenError } from '../../src/ports/errors.js';
import type { DatastoreAdmin } from '../../src/ports/datastore.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function exchange(target: { port: number } | { socketPath: string }, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ ...('port' in target ? { host: '127.0.0.1', port: target.port } : { socketPath: target.socketPath }), method, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ADMIN_PATHS: [string, string][] = [['GET', '/admin/status'], ['POST', '/admin/initialize'], ['POST', '/admin/migrate'], ['GET', '/admin'], ['HEAD', '/admin/status']];
const LOOKS_LOCAL = { 'X-Forwarded-For': '127.0.0.1', Forwarded: 'for=127.0.0.1;host=localhost', 'X-Real-IP': '::1', 'X-Forwarded-Host': 'localhost', 'X-Original-URL': '/admin/status' };

describe('HTTP: the admin listener', function () {
  this.timeout(60_000);

  describe('on TCP', () => {
    let s: TestServer;
    let logs: CapturedLogs;
    before(async () => {
      logs = capturedLogs('info');
      // The public listener trusts loopback as a proxy: forwarded headers from it are believed, and still open no admin route.
      s = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', trustedProxies: ['loopback'], admin: { port: 0 } }, datastore: { kind: 'sqlite', file: ':memory:', autoInitialize: false } }, logs.logger);
    });
    after(() => s.close());

    it('the public listener answers 404 on /admin, even to loopback with forwarded headers', async () => {
      const port = Number(new URL(s.base).port);
      for (const [method, p] of ADMIN_PATHS) {
        for (const headers of [{}, LOOKS_LOCAL]) {
          const res = await exchange({ port }, method, p, headers);
          expect(res.status, `${method} ${p}`).to.equal(404);
          if (method !== 'HEAD') expect(JSON.parse(res.body)).to.include({ code: 404 });
        }
      }
      // Nothing initialised the datastore behind our back.
      expect((await fetch(`${s.base}/conformance`)).status).to.equal(503);
    });

    it('the admin listener serves the admin routes, with the request log of the public one', async () => {
      expect(s.admin).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(s.admin).to.not.equal(s.base);
      const status = await fetch(`${s.admin}/admin/status`);
      expect(status.status).to.equal(200);
      expect((await status.json()).initialized).to.equal(false);
      const init = await fetch(`${s.admin}/admin/initialize`, { method: 'POST' });
      expect(init.status).to.equal(200);
      expect((await fetch(`${s.base}/conformance`)).status).to.equal(200);
      const line = await logs.first((l) => l.msg === 'request' && l.requestId === init.headers.get('x-request-id'));
      expect(line).to.include({ listener: 'admin', route: '/admin/initialize', status: 200, client: '127.0.0.1' });
    });

    it('the admin listener serves nothing else, and its errors are ApiErrors', async () => {
      for (const p of ['/collections', '/conformance', '/', '/admin/nothing']) {
        const res = await fetch(`${s.admin}${p}`);
        expect(res.status, p).to.equal(404);
        expect(await res.json()).to.include({ code: 404 });
      }
      const wrong = await fetch(`${s.admin}/admin/status`, { method: 'DELETE' });
      expect(wrong.status).to.equal(405);
      expect(await wrong.json()).to.include({ code: 405 });
    });
  });

  it('on TCP its routes refuse peers off loopback; on a Unix socket the file permissions decide', async () => {
    const datastore = { status: async () => ({ initialized: true }) } as unknown as DatastoreAdmin;
    const from = (remoteAddress: string | undefined) => ({ socket: { remoteAddress }, headers: { 'x-forwarded-for': '127.0.0.1' } }) as unknown as Request;
    const tcp = adminRoutes(datastore, { loopbackOnly: true }).routes;
    const unix = adminRoutes(datastore, { loopbackOnly: false }).routes;
    expect(tcp.map((r) => r.path)).to.deep.equal(['/admin/status', '/admin/initialize', '/admin/migrate']);
    for (const route of tcp) {
      expect(() => route.authorize!(from('192.0.2.1'))).to.throw(ForbiddenError);
      expect(() => route.authorize!(from('127.0.0.1'))).to.not.throw();
    }
    for (const route of unix) expect(() => route.authorize!(from(undefined))).to.not.throw();
  });

  it('without server.admin no listener serves the admin routes', async () => {
    const s = await startTestServer();
    try {
      expect(s.app.adminListener()).to.equal(undefined);
      expect(s.admin).to.equal(undefined);
      expect(s.app.container.isBound(Symbol.for('AdminHttpServer'))).to.equal(false);
      expect((await fetch(`${s.base}/admin/status`)).status).to.equal(404);
    } finally {
      await s.close();
    }
  });

  it('refuses an admin config that is neither a port nor a socket, naming the key', () => {
    for (const admin of [{}, { port: 1, socket: '/a.sock' }, { host: '127.0.0.1', socket: '/a.sock' }, { host: '127.0.0.1' }, { port: 70000 }]) {
      expect(() => parseConfig({ server: { admin } }), JSON.stringify(admin)).to.throw(ConfigError, /key "server\.admin(\.port)?"/);
    }
    expect(parseConfig({ server: { admin: { port: 9091 } } }).server.admin).to.deep.equal({ host: '127.0.0.1', port: 9091 });
  });

  describe('on a Unix socket', () => {
    let dir: string;
    let socket: string;
    const config = () => ({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', admin: { socket } } });
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'dggs-admin-'));
      socket = path.join(dir, 'admin.sock');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('serves the admin routes on an owner-only socket, removed on close', async () => {
      const s = await startTestServer(config());
      try {
        expect(s.app.adminListener()).to.deep.equal({ socket });
        const st = statSync(socket);
        expect(st.isSocket()).to.equal(true);
        expect(st.mode & 0o777, (st.mode & 0o777).toString(8)).to.equal(0o600);
        const res = await exchange({ socketPath: socket }, 'GET', '/admin/status');
        expect(res.status).to.equal(200);
        expect(JSON.parse(res.body).initialized).to.equal(true);
        expect((await exchange({ socketPath: socket }, 'GET', '/collections')).status).to.equal(404);
        expect((await fetch(`${s.base}/admin/status`)).status).to.equal(404);
      } finally {
        await s.close();
      }
      expect(existsSync(socket), 'socket removed').to.equal(false);
    });

    it('replaces a stale socket file at start', async () => {
      // A process killed while listening leaves its socket file behind.
      const killed = spawnSync(process.execPath, ['-e', "require('net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))", socket]);
      expect(killed.signal).to.equal('SIGKILL');
      expect(statSync(socket).isSocket()).to.equal(true);
      const s = await startTestServer(config());
      try {
        expect((await exchange({ socketPath: socket }, 'GET', '/admin/status')).status).to.equal(200);
      } finally {
        await s.close();
      }
    });

    it('refuses to start on a socket a live process serves, or on a file that is not a socket', async () => {
      const live = net.createServer();
      await new Promise<void>((resolve) => live.listen(socket, resolve));
      try {
        let failure: unknown;
        await startTestServer(config()).then((s) => s.close(), (err: unknown) => (failure = err));
        expect(String(failure)).to.contain('a running process listens on this socket');
      } finally {
        await new Promise((r) => live.close(r));
      }
      writeFileSync(socket, 'not a socket');
      let failure: unknown;
      await startTestServer(config()).then((s) => s.close(), (err: unknown) => (failure = err));
      expect(String(failure)).to.contain('is not a socket');
      expect(existsSync(socket), 'the file is left alone').to.equal(true);
    });
  });
});
