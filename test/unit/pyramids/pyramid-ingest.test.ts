/**
 * The pyramid ingest on the demo lake into the in-memory store: every cell (each field's count,
 * valid, sum, min, max and M2, at each level, all-time and per day) equals a direct computation
 * from the lake's rows; each cell comes from exactly one part; a part run again leaves the same
 * cells; a failing part is retried, and one failing for good fails the ingest with nothing
 * published. The parts through pg-boss on PostgreSQL are in pyramid-parts-pg-boss.test.ts.
 */
import { expect } from 'chai';
import { DuckDbLake } from '../../../src/adapters/lake/duckdb-lake.js';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { InProcessPyramidParts } from '../../../src/adapters/jobs/in-process-pyramid-parts.js';
import { PyramidIngest, PyramidIngestError } from '../../../src/app/pyramids/pyramid-ingest.js';
import type { PyramidPartJob } from '../../../src/app/pyramids/pyramid-part-job.js';
import { coarseKey, hasZoneKeys } from '../../../src/domain/aggregation/pyramid-keys.js';
import type { LakeReader } from '../../../src/ports/lake-reader.js';
import type { PyramidPartHandler } from '../../../src/ports/pyramid-parts.js';
import type { PyramidLayout } from '../../../src/ports/zone-pyramid-store.js';
import { demoCollections, directCells, expectCellsEqual, ingestOf, LAKE_ROOT, LEVELS, publishedCells, RecordingStore, recordingQueue, type Direct } from '../../support/pyramid-ingest-fixtures.js';
import { ensureDemoLake } from '../../../scripts/demo/make-lake.js';

describe('pyramid ingest on the demo lake (in-process parts, memory store)', function () {
  this.timeout(300_000);
  let lake: DuckDbLake;
  const collections = demoCollections('day');
  const fields = ['temperature', 'humidity', 'wind_speed'];
  let direct: Map<string, Direct>;
  let store: RecordingStore;
  let queue: ReturnType<typeof recordingQueue>;
  let job: PyramidPartJob;
  let layout: PyramidLayout;
  const grid = GRID_FACTORIES.IVEA7H!();
  if (!hasZoneKeys(grid)) throw new Error('IVEA7H has zone keys');

  before(async () => {
    await ensureDemoLake(LAKE_ROOT);
    lake = new DuckDbLake(LAKE_ROOT);
    direct = await directCells(lake, collections[0]!, fields, LEVELS, 'day');
    store = new RecordingStore();
    queue = recordingQueue(new InProcessPyramidParts({ maxAttempts: 2, retryDelayMs: 10 }));
    const built = ingestOf(lake, store, queue, collections);
    job = built.job;
    layout = await built.ingest.ingest({ collectionId: 'stations-pyramid', workers: 2 });
  });
  after(async () => {
    await queue?.close();
    await lake?.close();
  });

  it('publishes the layout: levels, coarse level, the numeric fields, period, extents, rows, source', async () => {
    expect(await store.layout({ table: 'stations' })).to.deep.equal(layout);
    // Level 2 by default, one finer here: about 15 level-2 zones meet the lake's box, fewer than the 16 parts planned for.
    expect(layout).to.deep.include({ dggrsId: 'IVEA7H', levels: LEVELS, coarseLevel: 3, fields, period: 'day', rows: 186_000 });
    expect(layout.timeExtent).to.deep.equal([Date.parse('2024-01-01T00:00:00Z'), Date.parse('2024-01-31T23:00:00Z')]);
    const [w, s, e, n] = layout.bbox!;
    expect(w).to.be.within(-10, -9).and.lessThan(e);
    expect(n).to.be.within(59, 60).and.greaterThan(s);
    expect(layout.source).to.match(/^demo-stations /);
    expect(Date.parse(layout.ingestedAt)).to.be.closeTo(Date.now(), 600_000);
  });

  it('every cell equals the direct computation, all-time and per day, at every level', async () => {
    expectCellsEqual(await publishedCells(store, direct, LEVELS), direct);
  });

  it('each cell comes from exactly one part, with the coarse key of its centroid', () => {
    const seen = new Map<string, string>();
    for (const [part, cells] of store.parts) {
      for (const c of cells) {
        const id = `${c.level}/${c.key}/${c.period}`;
        expect(seen.get(id), `${id} in ${part} and ${seen.get(id)}`).to.equal(undefined);
        seen.set(id, part);
        expect(c.coarse).to.equal(coarseKey(grid, c.level, c.key, 3));
      }
    }
    expect(seen.size).to.equal(direct.size);
    expect(store.parts.size, 'several parts').to.be.greaterThan(2);
    expect(queue.tasks.filter((t) => t.coarse.length === 0).map((t) => t.levels), 'levels above the coarse one in one part').to.deep.equal([[0, 1, 2]]);
  });

  it('a part run again leaves the same cells', async () => {
    const task = queue.tasks.find((t) => t.coarse.length > 0 && (store.parts.get(`${t.generation}/${t.part}`)?.length ?? 0) > 0)!;
    const before = store.parts.get(`${task.generation}/${task.part}`)!;
    await job.run(task);
    expect(store.parts.get(`${task.generation}/${task.part}`)).to.deep.equal(before);
    expectCellsEqual(await publishedCells(store, direct, LEVELS), direct);
  });
});

describe('pyramid ingest: faults of parts, readers without scanPoints, no period', function () {
  this.timeout(300_000);
  let lake: DuckDbLake;
  before(async () => {
    await ensureDemoLake(LAKE_ROOT);
    lake = new DuckDbLake(LAKE_ROOT);
  });
  after(() => lake?.close());
  const levels = [1, 2, 3];
  const collections = demoCollections().map((c) => (c.backing.kind === 'clickhouse-pyramid' ? { ...c, backing: { ...c.backing, levels } } : c));

  it('a part failing once is retried and the cells are whole (a reader without extent: rows counted per coarse zone first)', async () => {
    const store = new RecordingStore();
    const queue = new InProcessPyramidParts({ maxAttempts: 2, retryDelayMs: 10 });
    let failures = 0;
    const noExtent = new Proxy(lake, { get: (t, k) => (k === 'extent' ? undefined : (Reflect.get(t, k) as unknown)) }) as LakeReader;
    const { ingest } = ingestOf(noExtent, store, queue, collections, (job) => {
      const run: PyramidPartHandler = async (task, signal) => {
        if (task.part.endsWith('00001') && failures++ === 0) throw new Error('a worker fell over');
        return job.run(task, signal);
      };
      return { run } as unknown as PyramidPartJob;
    });
    const layout = await ingest.ingest({ collectionId: 'stations-pyramid', workers: 1 });
    await queue.close();
    expect(failures).to.equal(2);
    expect(layout.rows).to.equal(186_000);
    expect(layout.bbox![0]).to.be.within(-10, -9);
    const direct = await directCells(lake, collections[0]!, ['temperature', 'humidity', 'wind_speed'], levels, undefined);
    expectCellsEqual(await publishedCells(store, direct, levels), direct);
  });

  it('a part failing for good fails the ingest with its reason, and nothing is published', async () => {
    const store = new RecordingStore();
    const queue = new InProcessPyramidParts({ maxAttempts: 2, retryDelayMs: 10 });
    const { ingest } = ingestOf(lake, store, queue, collections, () => ({ run: async () => Promise.reject(new Error('the disk is on fire')) }) as unknown as PyramidPartJob);
    const err = await ingest.ingest({ collectionId: 'stations-pyramid', workers: 1 }).then(() => undefined, (e: unknown) => e);
    await queue.close();
    expect(err).to.be.instanceOf(PyramidIngestError);
    expect((err as Error).message).to.match(/part \S+ failed: the disk is on fire \(attempt 2 of 2\); nothing was published/);
    expect(await store.layout({ table: 'stations' })).to.equal(undefined);
  });

  it('reads rows through scan where the reader has no scanPoints (the object-store lake), with the same cells', async () => {
    const store = new RecordingStore();
    const queue = new InProcessPyramidParts({ maxAttempts: 1, retryDelayMs: 10 });
    const plainReader = new Proxy(lake, { get: (t, k) => (k === 'scanPoints' ? undefined : (Reflect.get(t, k) as unknown)) }) as LakeReader;
    const daily = demoCollections('day').map((c) => (c.backing.kind === 'clickhouse-pyramid' ? { ...c, backing: { ...c.backing, levels } } : c));
    const { ingest } = ingestOf(plainReader, store, queue, daily);
    const layout = await ingest.ingest({ collectionId: 'stations-pyramid', workers: 2 });
    await queue.close();
    expect(layout.period).to.equal('day');
    const direct = await directCells(lake, daily[0]!, ['temperature', 'humidity', 'wind_speed'], levels, 'day');
    expectCellsEqual(await publishedCells(store, direct, levels), direct);
  });

  it('refuses what it cannot ingest, naming it', async () => {
    const queue = new InProcessPyramidParts({ maxAttempts: 1, retryDelayMs: 10 });
    const { ingest } = ingestOf(lake, new RecordingStore(), queue, collections);
    const refusal = (req: Parameters<PyramidIngest['ingest']>[0]) => ingest.ingest(req).then(() => '', (e: unknown) => (e instanceof PyramidIngestError ? e.message : `not a refusal: ${String(e)}`));
    expect(await refusal({ collectionId: 'demo-stations', workers: 1 })).to.match(/parquet-lake collection; --pyramid ingests clickhouse-pyramid/);
    expect(await refusal({ collectionId: 'nope', workers: 1 })).to.match(/no collection "nope"/);
    expect(await refusal({ collectionId: 'stations-pyramid', grid: 'H3', workers: 1 })).to.match(/grid "H3" is not enabled/);
    expect(await refusal({ collectionId: 'stations-pyramid', levels: [3, 40], workers: 1 })).to.match(/not 40/);
    await queue.close();
  });
});
