/**
 * `server.processes`: the service as a real supervisor with two HTTP processes on one port (a
 * child process, as in production). Both processes answer; `/metrics` from either sums both; a
 * process killed with SIGKILL is restarted while the port keeps answering; an order accepted by
 * process 2 runs in process 1 (the in-process queue of SQLite); SIGTERM lets an open request finish
 * and the supervisor exits 0; the admin listener is process 1's alone.
 */
import { expect } from 'chai';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { parsePrometheusText, type Exposition } from '../support/prometheus-text.js';

type LogLine = Record<string, unknown> & { msg?: string; process?: number | string; pid?: number; requestId?: string; url?: string };

/** One request on a connection of its own, so that each may go to either process. */
function request(base: string, path: string, o: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method: o.method ?? 'GET', agent: false, headers: { Connection: 'close', ...o.headers }, ...(o.timeoutMs ? { signal: AbortSignal.timeout(o.timeoutMs) } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

async function metrics(base: string): Promise<Exposition> {
  const res = await request(base, '/metrics');
  expect(res.status, res.body.slice(0, 300)).to.equal(200);
  return parsePrometheusText(res.body);
}

function logLines(s: ServerProcess): LogLine[] {
  return s.logTail().flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

/** Polls until `check` holds; the bound only keeps a broken service from hanging the suite. */
async function until(what: string, check: () => Promise<boolean> | boolean, boundMs = 90_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const processesSummed = async (base: string) => (await metrics(base)).value('dggs_processes');

describe('server.processes: two HTTP processes behind one port', function () {
  this.timeout(300_000);
  let s: ServerProcess;
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-processes-'));
  const adminSocket = path.join(dir, 'admin.sock');

  before(async () => {
    s = await startServerProcess({ config: { server: { processes: 2, logLevel: 'info', admin: { socket: adminSocket } }, orders: { retryDelaySeconds: 0 } }, logLines: 20_000, startTimeoutMs: 120_000 });
    await until('both processes serve', async () => (await processesSummed(s.base)) === 2);
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the admin listener in process 1 only, on its own socket', async () => {
    const holders = logLines(s).filter((l) => l.msg?.startsWith('admin routes listening on'));
    expect(holders.map((l) => l.process)).to.deep.equal([1]);
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ socketPath: adminSocket, path: '/admin/status', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      }).on('error', reject);
    });
    expect(status).to.equal(200);
  });

  it('answers from both processes, and /metrics from either sums the requests of both', async () => {
    const before = (await metrics(s.base)).value('http_requests_total', { method: 'GET', route: '/dggs', status: '200' }) ?? 0;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await request(s.base, '/dggs');
      expect(res.status).to.equal(200);
      ids.push(String(res.headers['x-request-id']));
    }
    // A request's line is logged as its answer ends, and reaches us through a pipe: wait for it.
    const logged = () => new Map(logLines(s).filter((l) => l.requestId && ids.includes(l.requestId)).map((l) => [l.requestId, l.process]));
    await until('every request logged', () => logged().size === 20);
    const served = logged();
    expect(new Set(served.values())).to.deep.equal(new Set([1, 2]));
    // Each scrape goes to either process; every one must give the sum over both.
    for (let i = 0; i < 4; i++) {
      const m = await metrics(s.base);
      expect(m.value('dggs_processes')).to.equal(2);
      expect(m.value('http_requests_total', { method: 'GET', route: '/dggs', status: '200' })).to.equal(before + 20);
    }
  });

  it('hands an order accepted by process 2 to process 1, which runs the in-process queue', async () => {
    const headers = { Authorization: 'Bearer demo-token-change-me', 'Content-Type': 'application/json' };
    let order: { id: number } | undefined;
    for (let i = 0; i < 10 && !order; i++) {
      const res = await request(s.base, '/orders', { method: 'POST', headers, body: JSON.stringify({ title: 'handed over', collection: 'demo-elevation', zones: ['F4-120-B'], zone_depth: 1 }) });
      expect(res.status, res.body).to.equal(201);
      const id = res.headers['x-request-id'];
      await until('the order request logged', () => logLines(s).some((l) => l.requestId === id));
      if (logLines(s).find((l) => l.requestId === id)?.process === 2) order = JSON.parse(res.body) as { id: number };
    }
    expect(order, 'an order accepted by process 2').to.not.equal(undefined);
    let status = '';
    await until('the order is final', async () => {
      status = (JSON.parse((await request(s.base, `/orders/${order!.id}`, { headers })).body) as { status: string }).status;
      return ['successful', 'failed'].includes(status);
    });
    expect(status).to.equal('successful');
    const attempt = logLines(s).find((l) => l.msg === 'job attempt started' && l.orderId === order!.id);
    expect(attempt?.process).to.equal(1);
  });

  it('restarts a process killed with SIGKILL while the port keeps answering', async () => {
    const victim = logLines(s).find((l) => l.process === 2 && l.requestId && typeof l.pid === 'number')!.pid!;
    let answered = 0;
    const failures: string[] = [];
    let running = true;
    // One request at a time: at most one can be on the killed process's connection when it dies
    // (that one may never be answered: the bound ends it).
    const load = (async () => {
      while (running) {
        try {
          const res = await request(s.base, '/conformance', { timeoutMs: 20_000 });
          if (res.status === 200) answered++;
          else failures.push(`status ${res.status}`);
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    })();
    await until('requests flow', () => answered >= 5);
    process.kill(victim, 'SIGKILL');
    await until('process 2 restarted', () => logLines(s).some((l) => l.msg === 'process 2 restarted'));
    await until('both processes serve again', async () => (await processesSummed(s.base)) === 2);
    const after = answered;
    await until('requests flow after the restart', () => answered >= after + 5);
    running = false;
    await load;
    expect(failures.length, failures.join('; ')).to.be.at.most(1);
    const m = await metrics(s.base);
    expect(m.value('dggs_process_restarts_total', { reason: 'signal' })).to.equal(1);
    const died = logLines(s).find((l) => l.msg?.startsWith('process 2 died'));
    expect(died).to.include({ signal: 'SIGKILL' });
  });

  it('on SIGTERM finishes the open request, then exits 0', async () => {
    const body = JSON.stringify({ collections: [{ id: 'demo-elevation', fields: ['elevation'] }] });
    // A request whose body is half sent: open in whichever process took its connection.
    const req = http.request(`${s.base}/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1`, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await until('the request is open', async () => ((await metrics(s.base)).value('http_requests_in_flight') ?? 0) >= 2);
    process.kill(s.pid, 'SIGTERM');
    await until('both processes stopping', () => new Set(logLines(s).filter((l) => l.msg === 'stopping' && typeof l.process === 'number').map((l) => l.process)).size === 2);
    req.end(body.slice(10));
    const { status, text } = await answer;
    expect(status, text.slice(0, 300)).to.equal(200);
    expect((JSON.parse(text) as { depths?: unknown }).depths ?? JSON.parse(text)).to.not.equal(undefined);
    expect(await s.exited).to.deep.equal({ code: 0, signal: null });
  });
});
