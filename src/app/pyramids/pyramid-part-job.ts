/**
 * One part of a pyramid ingest, as any worker runs it: reads the lake rows of the part's box as
 * plain columns, bins each at every level of the part and accumulates each cell's moments
 * (domain/aggregation/pyramid-cells.ts), then writes the cells the part owns (see part-plan.ts)
 * through `writePart`, which replaces an earlier attempt's cells: a retried part leaves the same
 * cells. Memory is one slot per cell met, bounded by `maxPartCells` (checked between batches).
 */
import { coarseKeyOfCell, PyramidCellAccumulator } from '../../domain/aggregation/pyramid-cells.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { PyramidPartOutcome, PyramidPartTask } from '../../ports/pyramid-parts.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { ALL_TIME, type PyramidCell, type ZonePyramidStore } from '../../ports/zone-pyramid-store.js';
import { scanPointRows } from './point-rows.js';

export interface PyramidPartLimits {
  /** Cells one part may hold in memory; a part meeting more fails (a finer coarse level splits it). */
  maxPartCells: number;
}

/** Cells handed to the store at once. */
const WRITE_BATCH = 10_000;
/** Rows binned between two checks for a turn of the event loop. */
const ROWS_PER_SLICE = 2048;

export class PyramidPartJob {
  constructor(
    private readonly lake: LakeReader,
    private readonly grids: GridRegistry,
    private readonly collections: CollectionCatalog,
    private readonly store: ZonePyramidStore,
    private readonly limits: PyramidPartLimits,
  ) {}

  async run(task: PyramidPartTask, signal?: AbortSignal): Promise<PyramidPartOutcome> {
    const grid = this.grids.require(task.dggrsId);
    const source = this.collections.get(task.source);
    if (!source || source.backing.kind !== 'parquet-lake') throw new Error(`the pyramid's source "${task.source}" is not a parquet-lake collection of this config`);
    const acc = new PyramidCellAccumulator(grid, task.levels, task.fields.length, task.period);
    const timed = task.period !== undefined;
    await scanPointRows(
      this.lake,
      source,
      { fields: task.fields, ...(timed ? { time: true } : {}), ...(task.bbox ? { bbox: task.bbox } : {}), ...(signal ? { signal } : {}), workClass: 'pyramid-ingest' },
      async (b) => {
        for (let from = 0; from < b.size; from += ROWS_PER_SLICE) {
          acc.add(b.x, b.y, b.values, Math.min(b.size, from + ROWS_PER_SLICE), b.time, from);
          if (turnDue()) await takeTurn(signal);
        }
        if (acc.cells > this.limits.maxPartCells) {
          throw new Error(`part ${task.part} holds more than ${this.limits.maxPartCells.toLocaleString('en')} cells: set the backing's coarseLevel to a finer level so parts are smaller`);
        }
      },
    );
    const own = task.coarse.length > 0 ? new Set(task.coarse) : undefined;
    // A cell's coarse key, once per (level, key): its periods share it.
    const coarseOf = new Map<string, number>();
    let cells = 0;
    let ownRows = 0;
    const first = task.levels[0];
    async function* batches(): AsyncGenerator<PyramidCell[]> {
      let out: PyramidCell[] = [];
      for (const c of acc.results()) {
        const id = `${c.level}/${c.key}`;
        let coarse = coarseOf.get(id);
        if (coarse === undefined) coarseOf.set(id, (coarse = coarseKeyOfCell(grid, c.level, c.key, task.coarseLevel)));
        if (own && !own.has(coarse)) continue;
        if (c.level === first && c.period === ALL_TIME) ownRows += c.count;
        out.push({ level: c.level, key: c.key, coarse, period: c.period, count: c.count, fields: c.fields });
        if (out.length === WRITE_BATCH) {
          cells += out.length;
          yield out;
          out = [];
        }
        if (turnDue()) await takeTurn(signal);
      }
      if (out.length > 0) {
        cells += out.length;
        yield out;
      }
    }
    await this.store.writePart({ table: task.table }, task.generation, task.part, batches(), signal);
    return { rows: acc.rows, ownRows, cells };
  }
}
