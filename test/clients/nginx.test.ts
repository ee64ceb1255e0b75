import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { REPO_ROOT } from '../support/test-server.js';
import { startPostgres, type PostgresHandle } from '../support/postgres.js';
import { fillTemplate, makeCert, startNginx, testConfig, TEMPLATE, requireNginx, type NginxHost } from '../support/nginx.js';

/**
 * The reference deployment of docs/operations.md, run for real: Debian's nginx with
 * deploy/nginx.conf.template (TLS, the service under /sub/), two service processes behind it
 * (round robin, keep-alive), one worker, PostgreSQL. The client connects from another loopback
 * address than nginx's, so the service's view of "the client" can be told from the proxy's.
 */

const HOST = 'dggs.test';
const NGINX_ADDRESS = '127.0.0.2';
const CLIENT_ADDRESS = '127.0.0.3';
const TOKEN = 'demo-token-change-me';
const ALPS = ['F4-120-B', 'F4-121-E']; // IVEA7H level 5, inside the demo elevation raster
/** nginx's $request_id, which the template hands the service as X-Request-Id. */
const NGINX_ID = /^[0-9a-f]{32}$/;

type Json = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** A service or worker process, as `npm start` / `npm run worker` run it, its output kept. */
class Proc {
  child?: ChildProcess;
  out = '';
  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: Record<string, string>,
  ) {}
  start(): void {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DGGS__|DGGS_CONFIG$|PORT$|HOST$)/.test(k)));
    this.child = spawn('sh', ['scripts/node.sh', '--import', 'tsx', this.script], { cwd: REPO_ROOT, env: { ...inherited, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => (this.out = (this.out + d.toString()).slice(-8_000_000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
  }
  /** The JSON lines of its log. */
  logLines(): Json[] {
    return this.out.split('\n').flatMap((l) => {
      try {
        return l.startsWith('{') ? [JSON.parse(l) as Json] : [];
      } catch {
        return [];
      }
    });
  }
  async waitFor(text: string, ms = 90_000): Promise<void> {
    const end = Date.now() + ms;
    while (!this.out.includes(text)) {
      if (this.child?.exitCode !== null) throw new Error(`${this.name} exited (${this.child?.exitCode}):\n${this.out.slice(-4000)}`);
      if (Date.now() > end) throw new Error(`${this.name}: no "${text}" within ${ms} ms:\n${this.out.slice(-4000)}`);
      await sleep(100);
    }
  }
  stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function collect(req: http.ClientRequest, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (r: Reply): Json => JSON.parse(r.body.toString('utf8')) as Json;

/** Every URL a JSON answer links to: `links[].href` at any depth, and the Link header. */
function linkedUrls(r: Reply): string[] {
  const urls: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'links' && Array.isArray(x)) for (const l of x) if (typeof l?.href === 'string') urls.push(l.href);
        walk(x);
      }
    }
  };
  walk(json(r));
  const header = r.headers.link;
  for (const m of String(header ?? '').matchAll(/<([^>]*)>/g)) urls.push(m[1]!);
  return urls;
}

describe('nginx reference deployment (deploy/nginx.conf.template): TLS, /sub/, two processes and a worker', function () {
  this.timeout(180_000);
  let dir: string;
  let tls: { cert: string; key: string };
  let nginxPort: number;
  /** The service's public base: what a client reaching nginx at dggs.test:<port> is given. */
  let PUBLIC: string;

  before(async function () {
    this.timeout(120_000);
    requireNginx();
    dir = mkdtempSync(path.join(tmpdir(), 'dggs-nginx-'));
    tls = makeCert(dir, HOST);
    nginxPort = await freePort(NGINX_ADDRESS);
    PUBLIC = `https://${HOST}:${nginxPort}/sub/`;
  });

  it('the template filled in passes nginx -t; every placeholder is filled and no value goes unused', () => {
    const t = path.join(dir, 'syntax');
    mkdirSync(path.join(t, 'state'), { recursive: true });
    const conf = path.join(t, 'nginx.conf');
    writeFileSync(
      conf,
      fillTemplate(readFileSync(TEMPLATE, 'utf8'), { LISTEN: `${NGINX_ADDRESS}:${nginxPort}`, SERVER_NAME: HOST, TLS_CERT: tls.cert, TLS_KEY: tls.key, UPSTREAM_1: '127.0.0.1:1', UPSTREAM_2: '127.0.0.1:2', STATE_DIR: path.join(t, 'state') }),
    );
    const r = testConfig(t, conf);
    expect(r.ok, r.output).to.equal(true);
    expect(r.output).to.match(/syntax is ok/);
    expect(r.output, 'nginx complains').not.to.match(/\[(emerg|alert|crit|error)\]/);
    expect(() => fillTemplate(readFileSync(TEMPLATE, 'utf8'), { LISTEN: '443' })).to.throw(/has no value/);
  });

  describe('serving', () => {
    let pg: PostgresHandle | undefined;
    let nginx: NginxHost | undefined;
    const procs: Proc[] = [];
    let replicas: { proc: Proc; port: number; admin: string }[] = [];
    let worker: Proc;
    let agent: https.Agent;

    /** A request through nginx over TLS, from the client address, to `Host: dggs.test:<port>`. */
    const viaNginx = (method: string, p: string, headers: Record<string, string> = {}, body?: string) =>
      collect(https.request({ host: NGINX_ADDRESS, port: nginxPort, method, path: p, agent, headers: { host: `${HOST}:${nginxPort}`, ...headers } }), body);
    const get = (p: string, headers: Record<string, string> = {}) => viaNginx('GET', p, headers);

    before(async function () {
      this.timeout(240_000);
      pg = await startPostgres();
      const base = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as Json;
      const config = path.join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          ...base,
          server: { ...base.server, host: '127.0.0.1', logLevel: 'info', trustedProxies: ['127.0.0.1'] },
          datastore: { kind: 'postgres', url: pg.url, schema: pg.schema, autoInitialize: true },
          orders: { runInServer: false, resultsRoot: path.join(dir, 'results'), pollSeconds: 0.5 },
        }),
      );
      const ports = [await freePort('127.0.0.1'), await freePort('127.0.0.1')];
      replicas = ports.map((port, i) => {
        const admin = path.join(dir, `admin-${i + 1}.sock`);
        // Per process, as two systemd instances would differ: the port and the admin socket.
        const proc = new Proc(`service ${i + 1}`, 'src/main.ts', { DGGS_CONFIG: config, PORT: String(port), DGGS__server__admin__socket: admin });
        return { proc, port, admin };
      });
      worker = new Proc('worker', 'src/worker.ts', { DGGS_CONFIG: config });
      procs.push(...replicas.map((r) => r.proc), worker);
      // The first process migrates the schema; the others start on it.
      replicas[0]!.proc.start();
      await replicas[0]!.proc.waitFor('dggs-api listening');
      replicas[1]!.proc.start();
      worker.start();
      await Promise.all([replicas[1]!.proc.waitFor('dggs-api listening'), worker.waitFor('dggs-api worker running')]);
      nginx = await startNginx(dir, NGINX_ADDRESS, nginxPort, {
        LISTEN: `${NGINX_ADDRESS}:${nginxPort}`,
        SERVER_NAME: HOST,
        TLS_CERT: tls.cert,
        TLS_KEY: tls.key,
        UPSTREAM_1: `127.0.0.1:${ports[0]}`,
        UPSTREAM_2: `127.0.0.1:${ports[1]}`,
      });
      agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: readFileSync(tls.cert), servername: HOST, localAddress: CLIENT_ADDRESS });
    });

    after(async function () {
      this.timeout(60_000);
      agent?.destroy();
      await nginx?.stop();
      await Promise.all(procs.map((p) => p.stop()));
      await pg?.stop();
    });

    it('(a) links in the landing page, a zone list and a collection are https://dggs.test:<port>/sub/...; /sub redirects to /sub/', async () => {
      for (const p of ['/sub/?f=json', '/sub/dggs/IVEA7H/zones?f=json&zone-level=4&bbox=5,44,16,48', '/sub/collections/demo-elevation?f=json']) {
        const r = await get(p);
        expect(r.status, `${p}: ${r.body.toString().slice(0, 300)}`).to.equal(200);
        const urls = linkedUrls(r);
        const own = urls.filter((u) => new URL(u).hostname === HOST);
        expect(own.length, `${p}: links to the service`).to.be.greaterThan(0);
        for (const u of own) expect(u, p).to.satisfy((s: string) => s.startsWith(PUBLIC));
        for (const u of urls) expect(u, `${p}: a link to the service's own address`).not.to.match(/127\.0\.0\.1|localhost|^http:\/\/dggs\.test/);
      }
      const self = linkedUrls(await get('/sub/?f=json')).find((u) => u.startsWith(`${PUBLIC}?`) || u === PUBLIC);
      expect(self, 'the landing page links itself under /sub/').to.be.a('string');
      const redirect = await get('/sub');
      expect(redirect.status).to.equal(301);
      expect(redirect.headers.location).to.equal('/sub/');
    });

    it('(b) /sub/admin/... and /sub/metrics are 404 from outside, however spelt; the admin listener answers on its socket; the public port has no admin routes', async () => {
      for (const p of ['/sub/admin/status', '/sub/admin', '/sub/admin/', '/sub/metrics', '/sub/metrics/', '/sub/Metrics', '/sub/%61dmin/status', '/sub//admin/status', '/sub/x/../admin/status', '/sub/ADMIN/status', '/sub/metrics?x=1']) {
        const r = await get(p);
        expect(r.status, p).to.equal(404);
        expect(json(r), p).to.include({ code: 404 });
      }
      for (const { admin, port } of replicas) {
        const direct = await collect(http.request({ socketPath: admin, path: '/admin/status', headers: { host: 'localhost' } }));
        expect(direct.status, direct.body.toString()).to.equal(200);
        expect(json(direct)).to.be.an('object');
        const publicPort = await collect(http.request({ host: '127.0.0.1', port, path: '/admin/status' }));
        expect(publicPort.status, 'admin routes on the public listener').to.equal(404);
      }
    });

    it('(c) a GeoJSON zone list asked with Accept-Encoding: gzip arrives gzip-encoded and decodes to the identity body', async () => {
      const p = '/sub/dggs/IVEA7H/zones?f=geojson&zone-level=5&bbox=5,44,16,48';
      const gz = await get(p, { 'accept-encoding': 'gzip' });
      const plain = await get(p, { 'accept-encoding': 'identity' });
      expect(gz.status).to.equal(200);
      expect(plain.status).to.equal(200);
      expect(gz.headers['content-encoding']).to.equal('gzip');
      expect(plain.headers['content-encoding'] ?? 'identity').to.equal('identity');
      expect(String(gz.headers.vary).toLowerCase()).to.include('accept-encoding');
      const decoded = zlib.gunzipSync(gz.body);
      expect(decoded.equals(plain.body), 'gunzip(gzip body) = identity body').to.equal(true);
      expect(json(plain).type).to.equal('FeatureCollection');
      console.log(`      zone list GeoJSON: ${plain.body.length} bytes, ${gz.body.length} gzip-encoded through nginx`);
    });

    it('(d) a map loaded twice through round robin: every revalidation of pure and data answers is a 304, whichever process answers', async () => {
      const zones = ['F4-120-B', 'F4-121-E', 'F4-ED-G', 'F4-121-F'];
      const load: { kind: 'pure' | 'data'; path: string }[] = [
        ...zones.map((z) => ({ kind: 'pure' as const, path: `/sub/dggs/IVEA7H/zones/${z}?f=json` })),
        ...zones.slice(0, 2).map((z) => ({ kind: 'pure' as const, path: `/sub/dggs/IVEA7H/zones/${z}?f=geojson` })),
        { kind: 'pure', path: '/sub/dggs/IVEA7H/zones?f=json&zone-level=4&bbox=5,44,16,48' },
        { kind: 'pure', path: '/sub/dggs/IVEA7H/zones?f=geojson&zone-level=5&bbox=5,44,16,48' },
        { kind: 'pure', path: '/sub/dggs/IVEA7H/zones?f=geojson&zone-level=5&bbox=-10,35,0,45' },
        ...zones.slice(0, 3).map((z) => ({ kind: 'data' as const, path: `/sub/collections/demo-elevation/dggs/IVEA7H/zones/${z}/data?f=json` })),
        ...zones.slice(0, 3).map((z) => ({ kind: 'data' as const, path: `/sub/collections/demo-stations/dggs/IVEA7H/zones/${z}/data?f=json` })),
        ...zones.slice(0, 2).map((z) => ({ kind: 'data' as const, path: `/sub/collections/demo-ndvi/dggs/IVEA7H/zones/${z}/data?f=json` })),
        { kind: 'data', path: '/sub/collections/demo-stations/dggs/IVEA7H/zones?f=geojson&zone-level=4&bbox=5,44,16,48' },
        { kind: 'data', path: '/sub/collections/demo-elevation/dggs/IVEA7H/zones/F4-120-B/data?f=geojson' },
      ];
      const browser = { 'accept-encoding': 'gzip, deflate, br' };
      // Which process answered, from nginx's access log (written as the request ends, which may
      // be just after the client has the answer).
      const upstreamOf = async (r: Reply) => {
        const id = String(r.headers['x-request-id']);
        for (let i = 0; i < 20; i++) {
          const line = nginx!.accessLines().find((l) => l.includes(` id=${id} `));
          if (line) return line.match(/upstream=(\S+)/)?.[1];
          await sleep(50);
        }
        return undefined;
      };
      const first: { etag: string; upstream?: string }[] = [];
      for (const item of load) {
        const r = await get(item.path, browser);
        expect(r.status, `${item.path}: ${r.body.toString().slice(0, 200)}`).to.equal(200);
        expect(r.headers.etag, `${item.path}: ETag`).to.be.a('string');
        first.push({ etag: r.headers.etag!, upstream: await upstreamOf(r) });
      }
      // Requests between the loads until the last went where the first load began: round robin
      // then sends each revalidation to the other process.
      for (let i = 0; i < 4 && (await upstreamOf(await get('/sub/?f=json', browser))) !== first[0]!.upstream; i++);
      const rows: { kind: string; status: number; crossed: boolean }[] = [];
      for (const [i, item] of load.entries()) {
        const r = await get(item.path, { ...browser, 'if-none-match': first[i]!.etag });
        const upstream = await upstreamOf(r);
        rows.push({ kind: item.kind, status: r.status, crossed: upstream !== undefined && upstream !== first[i]!.upstream });
        if (r.status === 304) expect(r.body.length, `${item.path}: a 304 has no body`).to.equal(0);
      }
      const rate = (kind: string) => {
        const of = rows.filter((r) => r.kind === kind);
        return { n: of.length, notModified: of.filter((r) => r.status === 304).length, crossed: of.filter((r) => r.crossed).length };
      };
      const pure = rate('pure');
      const data = rate('data');
      console.log(`      304 on revalidation: pure ${pure.notModified}/${pure.n}, data ${data.notModified}/${data.n}; answered by the other process: ${pure.crossed + data.crossed}/${rows.length}`);
      expect(pure.notModified, 'pure answers revalidated as 304').to.equal(pure.n);
      expect(data.notModified, 'data answers revalidated as 304').to.equal(data.n);
      expect(pure.crossed + data.crossed, 'revalidations answered by the other process').to.be.at.least(rows.length / 2);
    });

    it('(e) the service logs the client as 127.0.0.3, also when it claims another address in X-Forwarded-For or Forwarded', async () => {
      for (const p of ['/sub/?f=json', '/sub/conformance?f=json', '/sub/collections?f=json', '/sub/dggs?f=json', '/sub/collections/demo-elevation?f=json', '/sub/dggs/IVEA7H?f=json']) {
        expect((await get(p)).status, p).to.equal(200);
      }
      const spoofed = await get('/sub/collections?f=json', { 'x-forwarded-for': '8.8.8.8', forwarded: 'for=8.8.8.8;proto=http;host=evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-prefix': '/evil', 'x-real-ip': '8.8.8.8' });
      expect(spoofed.status).to.equal(200);
      // nginx replaced what the client claimed: the links are still the public ones.
      for (const u of linkedUrls(spoofed)) {
        expect(u).not.to.match(/evil|127\.0\.0\.1|^http:\/\/dggs/);
        if (new URL(u).hostname === HOST) expect(u).to.satisfy((x: string) => x.startsWith(PUBLIC));
      }
      const id = String(spoofed.headers['x-request-id']);
      expect(id).to.match(NGINX_ID);
      // The request log line is written once the answer has ended.
      const logged = () => replicas.flatMap((r) => r.proc.logLines()).find((l) => l.requestId === id && l.msg === 'request');
      for (let i = 0; i < 50 && !logged(); i++) await sleep(100);
      const line = logged();
      expect(line, `request log line ${id}`).to.be.an('object');
      expect(line!.client).to.equal(CLIENT_ADDRESS);
      const viaProxy = replicas.flatMap((r) => r.proc.logLines()).filter((l) => l.msg === 'request' && NGINX_ID.test(String(l.requestId)));
      expect(viaProxy.length, 'requests logged from nginx').to.be.at.least(7);
      expect(viaProxy.filter((l) => l.client !== CLIENT_ADDRESS).map((l) => `${l.client} ${l.url}`)).to.deep.equal([]);
      const perReplica = replicas.map((r) => r.proc.logLines().filter((l) => l.msg === 'request' && NGINX_ID.test(String(l.requestId))).length);
      console.log(`      requests from nginx per process: ${perReplica.join(', ')}; client in all of them: ${CLIENT_ADDRESS}`);
      expect(Math.min(...perReplica), 'both processes serve').to.be.greaterThan(0);
    });

    it('(f) an order posted through nginx with the demo token completes, run by the worker process', async () => {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const posted = await viaNginx('POST', '/sub/orders', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ title: 'Alps through nginx', collection: 'demo-elevation', zones: ALPS, zone_depth: 2 }));
      expect(posted.status, posted.body.toString()).to.equal(201);
      const order = json(posted);
      const self = (order.links as Json[]).find((l) => l.rel === 'self')!.href as string;
      expect(self).to.equal(`${PUBLIC}orders/${order.id}`);
      let final: Json | undefined;
      const end = Date.now() + 90_000;
      while (!final) {
        const r = json(await get(`/sub/orders/${order.id}`, auth));
        if (['successful', 'failed', 'dismissed'].includes(r.status)) final = r;
        else if (Date.now() > end) throw new Error(`order not final: ${JSON.stringify(r.job_counts)}\n${worker.out.slice(-3000)}`);
        else await sleep(250);
      }
      expect(final.status, JSON.stringify(final.jobs?.map((j: Json) => j.message))).to.equal('successful');
      const workers = new Set((final.jobs as Json[]).flatMap((j) => (j.attempts as Json[]).map((a) => String(a.worker).split(':').at(-1))));
      expect([...workers]).to.deep.equal([String(worker.child!.pid)]);
      const results = ((final.jobs as Json[])[0]!.links as Json[]).find((l) => String(l.rel).endsWith('/results'))!.href as string;
      expect(results).to.satisfy((s: string) => s.startsWith(PUBLIC));
      const url = new URL(results);
      const r = await get(url.pathname + url.search, auth);
      expect(r.status).to.equal(200);
      expect(json(r).zoneId).to.equal(ALPS[0]);
    });
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
});
