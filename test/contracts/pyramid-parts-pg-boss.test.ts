/**
 * Pyramid ingest parts through pg-boss on a real PostgreSQL: the ingest queues its parts, runs
 * them itself and beside other worker processes; a part thrown once is retried, a worker killed
 * mid-part (SIGKILL) has its part retried by another once its heartbeat stops, and the published
 * cells equal the direct computation from the demo lake.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';
import { PgBossPyramidParts } from '../../src/adapters/jobs/pg-boss-pyramid-parts.js';
import type { PyramidPartJob } from '../../src/app/pyramids/pyramid-part-job.js';
import type { PyramidPartHandler, PyramidPartTask } from '../../src/ports/pyramid-parts.js';
import { startPostgres, type PostgresHandle } from '../support/postgres.js';
import { REPO_ROOT } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';
import { demoCollections, directCells, expectCellsEqual, ingestOf, LAKE_ROOT, publishedCells, recordingQueue, RecordingStore } from '../support/pyramid-ingest-fixtures.js';

describe('pyramid parts on pg-boss (PostgreSQL)', function () {
  this.timeout(180_000);
  let pg: PostgresHandle;
  let lake: DuckDbLake;
  const levels = [1, 2, 3, 4];
  const collections = demoCollections('day').map((c) => (c.backing.kind === 'clickhouse-pyramid' ? { ...c, backing: { ...c.backing, levels } } : c));
  const fields = ['temperature', 'humidity', 'wind_speed'];
  const queueOf = () => new PgBossPyramidParts({ url: pg.url, schema: pg.schema, maxAttempts: 3, retryDelaySeconds: 1, heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 });
  let child: ChildProcess | undefined;

  before(async () => {
    pg = await startPostgres();
    await ensureDemoLake(LAKE_ROOT);
    lake = new DuckDbLake(LAKE_ROOT);
  });
  after(async () => {
    child?.kill('SIGKILL');
    await lake?.close();
    await pg?.stop();
  });

  it('runs every part, retrying one thrown once, and publishes cells equal to the direct computation', async () => {
    const store = new RecordingStore();
    const queue = recordingQueue(queueOf());
    const attempts = new Map<string, number>();
    const { ingest } = ingestOf(lake, store, queue, collections, (job) => {
      const run: PyramidPartHandler = async (task, signal) => {
        const n = (attempts.get(task.part) ?? 0) + 1;
        attempts.set(task.part, n);
        if (task.part.endsWith('00002') && n === 1) throw new Error('a passing fault');
        return job.run(task, signal);
      };
      return { run } as unknown as PyramidPartJob;
    });
    try {
      await ingest.ingest({ collectionId: 'stations-pyramid', workers: 2 });
    } finally {
      await queue.close();
    }
    const retried = queue.tasks.find((t) => t.part.endsWith('00002'))!;
    expect(attempts.get(retried.part)).to.equal(2);
    expect([...attempts.values()].filter((n) => n === 1).length).to.equal(queue.tasks.length - 1);
    const direct = await directCells(lake, collections[0]!, fields, levels, 'day');
    expectCellsEqual(await publishedCells(store, direct, levels), direct);
  });

  it('a worker killed mid-part: another runs the part once the heartbeat stops, and the cells are whole', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/support/pyramid-part-hanger.ts'), pg.url, pg.schema], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const took = new Promise<string>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /took (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child!.once('exit', (code) => reject(new Error(`the worker exited (${code}) before taking a part: ${out}`)));
    });
    const store = new RecordingStore();
    const queue = recordingQueue(queueOf());
    const ran: string[] = [];
    let killed: string | undefined;
    const { ingest } = ingestOf(lake, store, queue, collections, (job) => {
      const run = async (task: PyramidPartTask, signal: AbortSignal) => {
        // This process waits until the other worker holds a part, then kills it.
        if (!killed) {
          killed = await took;
          child!.kill('SIGKILL');
        }
        ran.push(task.part);
        return job.run(task, signal);
      };
      return { run } as unknown as PyramidPartJob;
    });
    try {
      await ingest.ingest({ collectionId: 'stations-pyramid', workers: 1 });
    } finally {
      await queue.close();
    }
    expect(killed).to.be.a('string');
    expect(ran, 'the killed part ran here').to.include(killed);
    expect([...ran].sort()).to.deep.equal(queue.tasks.map((t) => t.part).sort());
    const direct = await directCells(lake, collections[0]!, fields, levels, 'day');
    expectCellsEqual(await publishedCells(store, direct, levels), direct);
  });
});
