/**
 * The static routes (`/conformance` once served 898 req/s under 64 connections against zone
 * info's 10,693): `/conformance`, the landing page and `/collections` beside a restify
 * hello-world, on one service process, the same connections and duration, in the same run; by
 * requests per second and by the service's main-thread CPU per request (which hardly moves with
 * other load on the machine). Then `/conformance` probed every 50 ms while 2,000 POST /orders
 * arrive, 32 at a time (it once peaked at 5.3 s).
 * `npm run bench static-routes`.
 */
import { blockedMs, ping, type Ping } from '../scripts/fuzz/canary.js';
import { startServerProcess } from '../scripts/fuzz/server-process.js';
import { startHelloWorld, throughput } from './http-throughput.js';

const SECONDS = 8;
const CONNECTIONS = 64;
const ORDERS = 2000;
const AT_ONCE = 32;
const TOKEN = 'demo-token-change-me';

export async function run(): Promise<void> {
  const hello = await startHelloWorld();
  const service = await startServerProcess();
  try {
    const ref = await throughput([hello], ['/'], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
    console.log(`restify hello-world: ${ref.reqPerSec.toFixed(0)} req/s (CPU ${(ref.cpuMsPerRequest * 1000).toFixed(0)} µs/req)`);
    for (const path of ['/conformance', '/', '/collections']) {
      const t = await throughput([service], [path], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
      const ratio = `${(t.reqPerSec / ref.reqPerSec).toFixed(2)}x (by CPU/req ${(ref.cpuMsPerRequest / t.cpuMsPerRequest).toFixed(2)}x)`;
      console.log(`GET ${path}: ${t.reqPerSec.toFixed(0)} req/s (mean latency ${t.latencyMs.toFixed(1)} ms, CPU ${(t.cpuMsPerRequest * 1000).toFixed(0)} µs/req, errors ${t.errors + t.non2xx}); ${ratio} hello-world`);
    }

    // A flood of orders: each POST checks readiness, the quota and writes in the datastore.
    const statuses = new Map<number, number>();
    let sent = 0;
    const poster = async () => {
      while (sent < ORDERS) {
        const i = sent++;
        const res = await fetch(`${service.base}/orders`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ collection: 'demo-elevation', zones: [['F4-120-B', 'F4-121-E', 'F4-ED-G'][i % 3]], zone_depth: 0 }),
        }).catch(() => undefined);
        if (res) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await res?.arrayBuffer();
      }
    };
    const pings: Ping[] = [];
    let flooding = true;
    const prober = (async () => {
      while (flooding) {
        pings.push(await ping(service));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const started = performance.now();
    await Promise.all(Array.from({ length: AT_ONCE }, poster));
    const floodMs = performance.now() - started;
    flooding = false;
    await prober;
    const walls = pings.map((p) => p.wallMs).sort((a, b) => a - b);
    const held = pings.map(blockedMs).sort((a, b) => a - b);
    const q = (xs: number[], f: number) => xs[Math.min(xs.length - 1, Math.floor(f * xs.length))]!;
    console.log(
      `GET /conformance during ${ORDERS} POST /orders (${AT_ONCE} at once, ${(floodMs / 1000).toFixed(1)} s; answers ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}): ` +
        `${pings.length} probes, ${pings.filter((p) => !p.ok).length} not 200; wall p50 ${q(walls, 0.5).toFixed(0)} ms, p99 ${q(walls, 0.99).toFixed(0)} ms, max ${walls[walls.length - 1]!.toFixed(0)} ms; ` +
        `kept waiting by the service (canary.ts) max ${held[held.length - 1]!.toFixed(0)} ms`,
    );
  } finally {
    await service.stop();
    hello.stop();
  }
}
