/**
 * All cores behind one port: requests per second of one service with `server.processes` 1 and
 * with one process per core (`auto`), on the same port, for zone info (200 IVEA7H zones of level 5,
 * answers kept) and raster zone data (demo-elevation, level-5 zones at depth 3, the decoded-tile
 * cache warm), with the ratio N / 1; beside them restify hello-world on 1 and N cluster workers
 * on one port, the same connections and duration, in the same run. The load generator shares the
 * machine's cores with the service: on a small machine it takes a share of what N processes could use.
 * `npm run bench processes`.
 */
import { availableParallelism } from 'node:os';
import { reportRow } from './summary-table.js';
import { startHelloWorld, startService, throughput, type Throughput } from './http-throughput.js';

const SECONDS = 8;
const CONNECTIONS = 32;
const GRID = 'IVEA7H';

const rate = (t: Throughput) => `${t.reqPerSec.toFixed(0)} req/s (CPU ${(t.cpuMsPerRequest * 1000).toFixed(0)} µs/req, errors ${t.errors + t.non2xx})`;

export async function run(): Promise<void> {
  const cores = availableParallelism();
  if (cores < 2) {
    console.log('one core: nothing to compare');
    return;
  }
  const figures = new Map<number, { hello: Throughput; info: Throughput; data: Throughput }>();
  for (const n of [1, cores]) {
    const hello = await startHelloWorld(n);
    const service = await startService(n);
    try {
      const list = async (q: string) => ((await (await fetch(`${service.base}${q}`)).json()) as { zones: string[] }).zones;
      const infoPaths = (await list(`/dggs/${GRID}/zones?zone-level=5&bbox=-10,35,30,60&limit=200`)).map((z) => `/dggs/${GRID}/zones/${encodeURIComponent(z)}`);
      // Level-5 zones well inside the demo raster (5-16E, 44-48N).
      const dataPaths = (await list(`/dggs/${GRID}/zones?zone-level=5&bbox=7,45,14,47&limit=40`)).map((z) => `/collections/demo-elevation/dggs/${GRID}/zones/${encodeURIComponent(z)}/data?zone-depth=3`);
      // Warm every process (each has its own caches): the connections are spread over them all.
      await throughput([service], [...infoPaths, ...dataPaths], { seconds: 3, connections: CONNECTIONS, settleMs: 0 });
      const h = await throughput([hello], ['/'], { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
      const info = await throughput([service], infoPaths, { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
      const data = await throughput([service], dataPaths, { seconds: SECONDS, connections: CONNECTIONS, settleMs: 500 });
      figures.set(n, { hello: h, info, data });
      console.log(`${n} process${n > 1 ? 'es' : ''} on one port: zone info ${rate(info)}; raster zone data ${rate(data)}; restify hello-world ${rate(h)}`);
    } finally {
      await service.stop();
      hello.stop();
    }
  }
  const one = figures.get(1)!;
  const all = figures.get(cores)!;
  const ratio = (a: Throughput, b: Throughput) => `${(a.reqPerSec / b.reqPerSec).toFixed(2)}x`;
  reportRow({
    work: `Zone info requests/s, ${cores} processes on one port (server.processes) vs 1`,
    threads: cores,
    ours: `${all.info.reqPerSec.toFixed(0)} req/s`,
    reference: `1 process ${one.info.reqPerSec.toFixed(0)} req/s; hello-world ${all.hello.reqPerSec.toFixed(0)} on ${cores}, ${one.hello.reqPerSec.toFixed(0)} on 1 (${ratio(all.hello, one.hello)})`,
    ratio: `${ratio(all.info, one.info)} (vs hello-world on ${cores}: ${ratio(all.info, all.hello)})`,
    target: `>= hello-world's own ${cores}/1 ratio`,
  });
  reportRow({
    work: `Raster zone data requests/s (demo-elevation, level 5, depth 3), ${cores} processes on one port vs 1`,
    threads: cores,
    ours: `${all.data.reqPerSec.toFixed(0)} req/s`,
    reference: `1 process ${one.data.reqPerSec.toFixed(0)} req/s`,
    ratio: ratio(all.data, one.data),
    target: `>= hello-world's own ${cores}/1 ratio`,
  });
}
