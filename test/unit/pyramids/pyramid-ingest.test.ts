/**
 * The pyramid ingest on the demo lake into the in-memory store: every cell (each field's count,
 * valid, sum, min, max and M2, at each level, all-time and per day) equals a direct computation
 * from the lake's rows; each cell comes from exactly one part; a part run again leaves the same
 * cells; a failing part is retried, and one failing for good fails the ingest with nothing
 * published. The parts through pg-boss on PostgreSQL are in pyramid-parts-pg-boss.test.ts.
 */
import { expect } from 'chai';
import path from 'node:path';
import { DuckDbLake } from '../../../src/adapters/lake/duckdb-lake.js';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import { InProcessPyramidParts } from '../../../src/adapters/jobs/in-process-pyramid-parts.js';
import { EnabledGridRegistry } from '../../../src/app/grid-registry.js';
import { ConfigCollectionCatalog } from '../../../src/app/config/config-collection-catalog.js';
import { PyramidIngest, PyramidIngestError } from '../../../src/app/pyramids/pyramid-ingest.js';
import { PyramidPartJob } from '../../../src/app/pyramids/pyramid-part-job.js';
import { coarseKeyOfCell } from '../../../src/domain/aggregation/pyramid-cells.js';
import { pointOfWkb } from '../../../src/domain/aggregation/wkb-point.js';
import type { Collection } from '../../../src/domain/collection.js';
import type { LakeReader } from '../../../src/ports/lake-reader.js';
import type { PyramidPartHandler, PyramidPartQueue, PyramidPartTask } from '../../../src/ports/pyramid-parts.js';
import { ALL_TIME, type PyramidCell, type PyramidLayout, type PyramidRef, type ZonePyramidStore } from '../../../src/ports/zone-pyramid-store.js';
import { MemoryPyramidStore } from '../../support/memory-pyramid-store.js';
import { REPO_ROOT } from '../../support/test-server.js';
import { ensureDemoLake } from '../../../scripts/demo/make-lake.js';

export const LAKE_ROOT = path.join(REPO_ROOT, 'data/demo/lake');
export const LEVELS = [0, 1, 2, 3, 4, 5];

export function demoCollections(period?: 'day'): Collection[] {
  return [
    { id: 'demo-stations', title: 'stations', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } },
    { id: 'stations-pyramid', title: 'pyramid', backing: { kind: 'clickhouse-pyramid', table: 'stations', source: 'demo-stations', grid: 'IVEA7H', levels: LEVELS, ...(period ? { period } : {}) } },
  ];
}

/** A store recording the cells each part wrote (its last attempt), over the memory store. */
export class RecordingStore implements ZonePyramidStore {
  readonly inner = new MemoryPyramidStore();
  readonly parts = new Map<string, PyramidCell[]>();
  layout = (ref: PyramidRef) => this.inner.layout(ref);
  read: ZonePyramidStore['read'] = (ref, request) => this.inner.read(ref, request);
  prepare: ZonePyramidStore['prepare'] = (ref, layout) => this.inner.prepare(ref, layout);
  async writePart(ref: PyramidRef, generation: string, part: string, cells: AsyncIterable<PyramidCell[]>): Promise<void> {
    const kept: PyramidCell[] = [];
    async function* copy() {
      for await (const batch of cells) {
        kept.push(...batch);
        yield batch;
      }
    }
    await this.inner.writePart(ref, generation, part, copy());
    this.parts.set(`${generation}/${part}`, kept);
  }
  publish = (ref: PyramidRef, generation: string, layout: PyramidLayout) => this.inner.publish(ref, generation, layout);
  close = async () => {};
}

/** A queue keeping the tasks given to it, over another. */
export function recordingQueue(inner: PyramidPartQueue): PyramidPartQueue & { tasks: PyramidPartTask[] } {
  const tasks: PyramidPartTask[] = [];
  return {
    tasks,
    enqueue: (t) => {
      tasks.push(...t);
      return inner.enqueue(t);
    },
    work: (h, n) => inner.work(h, n),
    states: (g) => inner.states(g),
    cancel: (g) => inner.cancel(g),
    close: (ms) => inner.close(ms),
  };
}

interface Direct {
  count: number;
  values: number[][];
}

/** Cells straight from the rows: `level/key/period` -> rows and each field's valid values. */
export async function directCells(lake: LakeReader, source: Collection, fields: string[], levels: number[], period: 'day' | undefined): Promise<Map<string, Direct>> {
  const grid = GRID_FACTORIES.IVEA7H!();
  const out = new Map<string, Direct>();
  const add = (id: string, row: number[]) => {
    let d = out.get(id);
    if (!d) out.set(id, (d = { count: 0, values: fields.map(() => []) }));
    d.count++;
    row.forEach((v, f) => {
      if (Number.isFinite(v)) d.values[f]!.push(v);
    });
  };
  await lake.scan(source, { columns: ['geometry', 'datetime', ...fields] }, (chunk) => {
    for (let i = 0; i < chunk.size; i++) {
      const g = chunk.columns.geometry![i];
      const p = g instanceof Uint8Array ? pointOfWkb(g) : undefined;
      if (!p) continue;
      const t = chunk.columns.datetime![i];
      const day = typeof t === 'string' ? Date.parse(`${t.slice(0, 10)}T00:00:00Z`) : undefined;
      const row = fields.map((f) => {
        const v = chunk.columns[f]![i];
        return typeof v === 'number' ? v : NaN;
      });
      for (const level of levels) {
        const key = grid.zoneKeyFromPoint!(p[0], p[1], level);
        add(`${level}/${key}/${ALL_TIME}`, row);
        if (period && day !== undefined) add(`${level}/${key}/${day}`, row);
      }
    }
  });
  return out;
}

/** Checks `cells` against the direct computation, cell by cell, exactly for counts and extremes, to rounding for sums and M2. */
export function expectCellsEqual(cells: PyramidCell[], direct: Map<string, Direct>): void {
  const ids = cells.map((c) => `${c.level}/${c.key}/${c.period}`);
  expect(new Set(ids).size, 'no cell twice').to.equal(ids.length);
  expect([...ids].sort(), 'the same cells').to.deep.equal([...direct.keys()].sort());
  // Mismatches gathered, then one assertion: an expect per value would take most of the test's time.
  const wrong: string[] = [];
  const close = (a: number, b: number, rel: number) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));
  for (const [k, c] of cells.entries()) {
    const id = ids[k]!;
    const d = direct.get(id)!;
    if (c.count !== d.count) wrong.push(`${id} count ${c.count} != ${d.count}`);
    c.fields.forEach((m, f) => {
      const vs = d.values[f]!;
      if (m.valid !== vs.length) wrong.push(`${id} field ${f} valid ${m.valid} != ${vs.length}`);
      if (vs.length === 0) {
        if (!Number.isNaN(m.min) || !Number.isNaN(m.max)) wrong.push(`${id} field ${f}: min/max of no value not NaN`);
        return;
      }
      const sum = vs.reduce((a, b) => a + b, 0);
      const mean = sum / vs.length;
      const m2 = vs.reduce((a, v) => a + (v - mean) ** 2, 0);
      const [min, max] = [vs.reduce((a, b) => Math.min(a, b)), vs.reduce((a, b) => Math.max(a, b))];
      if (m.min !== min || m.max !== max) wrong.push(`${id} field ${f} min/max ${m.min}/${m.max} != ${min}/${max}`);
      if (!close(m.sum, sum, 1e-9)) wrong.push(`${id} field ${f} sum ${m.sum} != ${sum}`);
      if (!close(m.m2, m2, 1e-7)) wrong.push(`${id} field ${f} m2 ${m.m2} != ${m2}`);
    });
  }
  expect(wrong.slice(0, 20), `${wrong.length} values differ`).to.deep.equal([]);
  expect(cells.length).to.be.greaterThan(0);
}

/** Every cell of the published generation, read back through the port (all-time, then per period). */
export async function publishedCells(store: ZonePyramidStore, direct: Map<string, Direct>, levels: number[]): Promise<PyramidCell[]> {
  const layout = (await store.layout({ table: 'stations' }))!;
  const out: PyramidCell[] = [];
  for (const level of levels) {
    const keys = [...new Set([...direct.keys()].filter((id) => id.startsWith(`${level}/`)).map((id) => Number(id.split('/')[1])))];
    const req = { level, keys, coarse: [], fields: layout.fields };
    out.push(...(await store.read({ table: 'stations' }, req)));
    if (layout.period) out.push(...(await store.read({ table: 'stations' }, { ...req, periods: { from: -8.64e15, to: 8.64e15 } })));
  }
  return out;
}

export function ingestOf(lake: LakeReader, store: ZonePyramidStore, queue: PyramidPartQueue, collections: Collection[], handler?: (job: PyramidPartJob) => PyramidPartJob): { ingest: PyramidIngest; job: PyramidPartJob } {
  const grids = new EnabledGridRegistry([GRID_FACTORIES.IVEA7H!()], 'IVEA7H');
  const catalog = new ConfigCollectionCatalog(collections);
  const plain = new PyramidPartJob(lake, grids, catalog, store, { maxPartCells: 1_000_000 });
  const job = handler ? handler(plain) : plain;
  return { ingest: new PyramidIngest(lake, grids, catalog, store, queue, job, { maxPartRows: 10_000_000, pollMs: 20, partsPerWorker: 4 }), job };
}

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
    expect(layout).to.deep.include({ dggrsId: 'IVEA7H', levels: LEVELS, coarseLevel: 2, fields, period: 'day', rows: 186_000 });
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
        expect(c.coarse).to.equal(coarseKeyOfCell(grid, c.level, c.key, 2));
      }
    }
    expect(seen.size).to.equal(direct.size);
    expect(store.parts.size, 'several parts').to.be.greaterThan(2);
    expect(queue.tasks.filter((t) => t.coarse.length === 0).map((t) => t.levels), 'levels above the coarse one in one part').to.deep.equal([[0, 1]]);
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

  it('a part failing once is retried and the cells are whole', async () => {
    const store = new RecordingStore();
    const queue = new InProcessPyramidParts({ maxAttempts: 2, retryDelayMs: 10 });
    let failures = 0;
    const { ingest } = ingestOf(lake, store, queue, collections, (job) => {
      const run: PyramidPartHandler = async (task, signal) => {
        if (task.part.endsWith('00001') && failures++ === 0) throw new Error('a worker fell over');
        return job.run(task, signal);
      };
      return { run } as unknown as PyramidPartJob;
    });
    await ingest.ingest({ collectionId: 'stations-pyramid', workers: 1 });
    await queue.close();
    expect(failures).to.equal(2);
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
