/**
 * Shared by the pyramid ingest tests: the demo lake's collections with a pyramid over them, a
 * store recording what each part wrote, a queue recording its tasks, the cells computed straight
 * from the lake's rows, and the comparison of published cells with them.
 */
import { expect } from 'chai';
import path from 'node:path';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { EnabledGridRegistry } from '../../src/app/grid-registry.js';
import { ConfigCollectionCatalog } from '../../src/app/config/config-collection-catalog.js';
import { PyramidIngest } from '../../src/app/pyramids/pyramid-ingest.js';
import { PyramidPartJob } from '../../src/app/pyramids/pyramid-part-job.js';
import { pointOfWkb } from '../../src/domain/aggregation/wkb-point.js';
import type { Collection } from '../../src/domain/collection.js';
import type { LakeReader } from '../../src/ports/lake-reader.js';
import type { PyramidPartQueue, PyramidPartTask } from '../../src/ports/pyramid-parts.js';
import { ALL_TIME, type PyramidCell, type PyramidLayout, type PyramidRef, type ZonePyramidStore } from '../../src/ports/zone-pyramid-store.js';
import { MemoryPyramidStore } from './memory-pyramid-store.js';
import { REPO_ROOT } from './test-server.js';

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

export interface Direct {
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

