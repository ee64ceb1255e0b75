/**
 * Zone info requests per second beside a restify hello-world, on 1 and 2 threads
 * (1 and 2 processes of each on one port, `server.processes`, see http-throughput.ts), the same connections and duration for both,
 * in the same run. JSON with refined geometry (the defaults), in two runs: cycling through 200
 * IVEA7H zones of level 5, whose answers the service keeps (server.zoneInfoCacheBytes) after the
 * first round, and through 20,000 zones of level 7, far more than it keeps (each answer computed).
 * Beside the computed run, what bounds it: restify answering one of those answers, encoded once and
 * stringified per request.
 * `npm run bench zone-info`.
 */
import { reportRow } from './summary-table.js';
import { startBodyServer, startHelloWorld, startService, throughput } from './http-throughput.js';

const SECONDS = 8;
const CONNECTIONS = 16;

export async function run(): Promise<void> {
  for (const threads of [1, 2]) {
    const hellos = [await startHelloWorld(threads)];
    const services = [await startService(threads)];
    try {
      const zonesOf = async (q: string) => ((await (await fetch(`${services[0]!.base}/dggs/IVEA7H/zones?${q}`)).json()) as { zones: string[] }).zones;
      const runs = [
        { label: '200 zones, answers kept', zones: await zonesOf('zone-level=5&bbox=-10,35,30,60&limit=200') },
        { label: '20,000 zones, each computed', zones: await zonesOf('zone-level=7&bbox=-10,35,30,60&limit=20000') },
      ];
      const hello = await throughput(hellos, ['/'], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
      for (const run of runs) {
        const paths = run.zones.map((z) => `/dggs/IVEA7H/zones/${encodeURIComponent(z)}`);
        // Answers are kept per process: a first round over every process's connections.
        await throughput(services, paths, { seconds: 2, connections: CONNECTIONS, settleMs: 0 });
        const info = await throughput(services, paths, { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
        console.log(`${threads} thread${threads > 1 ? 's' : ''}, ${run.label}: zone info ${info.reqPerSec.toFixed(0)} req/s (mean latency ${info.latencyMs.toFixed(1)} ms, CPU ${(info.cpuMsPerRequest * 1000).toFixed(0)} µs/req, errors ${info.errors + info.non2xx}); restify hello-world ${hello.reqPerSec.toFixed(0)} req/s (${hello.latencyMs.toFixed(1)} ms, CPU ${(hello.cpuMsPerRequest * 1000).toFixed(0)} µs/req); ratio ${(info.reqPerSec / hello.reqPerSec).toFixed(2)}x (CPU per request: ${(hello.cpuMsPerRequest / info.cpuMsPerRequest).toFixed(2)}x)`);
        if (run === runs[1]) {
          // What bounds a computed answer: the same restify serving one of these very answers,
          // encoded once, and stringified on every request.
          const bodies = await Promise.all(Array.from({ length: threads }, async () => startBodyServer(await (await fetch(services[0]!.base + paths[0]!)).text())));
          // (The bound stays two restify servers on two ports: it bounds what any process could do.)
          try {
            const encoded = await throughput(bodies, ['/encoded'], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
            const stringified = await throughput(bodies, ['/stringify'], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
            console.log(`  bound: restify answering that zone's JSON encoded once ${encoded.reqPerSec.toFixed(0)} req/s (${(encoded.reqPerSec / hello.reqPerSec).toFixed(2)}x hello-world), stringified per request ${stringified.reqPerSec.toFixed(0)} req/s (${(stringified.reqPerSec / hello.reqPerSec).toFixed(2)}x)`);
          } finally {
            for (const b of bodies) b.stop();
          }
        }
        reportRow({
          work: `Zone info requests/s vs a restify hello-world (${run.label})`,
          threads,
          ours: `${info.reqPerSec.toFixed(0)} req/s (CPU ${(info.cpuMsPerRequest * 1000).toFixed(0)} µs/req)`,
          reference: `hello-world ${hello.reqPerSec.toFixed(0)} req/s (CPU ${(hello.cpuMsPerRequest * 1000).toFixed(0)} µs/req)`,
          ratio: `${(info.reqPerSec / hello.reqPerSec).toFixed(2)}x (by CPU/req ${(hello.cpuMsPerRequest / info.cpuMsPerRequest).toFixed(2)}x)`,
          target: '>= 0.3x',
        });
      }
    } finally {
      for (const s of services) await s.stop();
      for (const h of hellos) h.stop();
    }
  }
}
