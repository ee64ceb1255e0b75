/**
 * One part of a pyramid ingest, as any worker runs it: reads the lake rows of the part's box as
 * plain columns, bins each row that can reach its zones at every level of the part (rows deep in a
 * neighbour's coarse zone are skipped, by the grid's clearances) and accumulates each cell's
 * moments (domain/aggregation/pyramid-cells.ts), then writes the cells the part owns (see part-plan.ts)
 * through `writePart`, which replaces an earlier attempt's cells: a retried part leaves the same
 * cells. Memory is one slot per cell met, bounded by `maxPartCells` (checked between batches).
 */
import { PyramidCellAccumulator } from '../../domain/aggregation/pyramid-cells.js';
import { coarseKey, hasZoneKeys } from '../../domain/aggregation/pyramid-keys.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
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
    if (!hasZoneKeys(grid)) throw new Error(`${grid.id} has no numeric zone keys`);
    const keyed = grid;
    const source = this.collections.get(task.source);
    if (!source || source.backing.kind !== 'parquet-lake') throw new Error(`the pyramid's source "${task.source}" is not a parquet-lake collection of this config`);
    const owned = task.coarse.length > 0 ? { coarseLevel: task.coarseLevel, coarse: new Set(task.coarse), reach: finerReach(grid, task.coarse, task.coarseLevel) } : undefined;
    const acc = new PyramidCellAccumulator(grid, task.levels, task.fields.length, task.period, owned);
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
    const own = owned?.coarse;
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
        if (coarse === undefined) coarseOf.set(id, (coarse = coarseKey(keyed, c.level, c.key, task.coarseLevel)));
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

const DEG = Math.PI / 180;

/**
 * How far (radians) a cell finer than the coarse level reaches from its centroid near the part's
 * zones: the largest centroid-to-corner angle of their children (the biggest finer zones), and a
 * fifth more for the neighbours' children, shaped alike.
 */
function finerReach(grid: Dggrs, coarse: readonly number[], coarseLevel: number): number {
  let reach = 0;
  for (const key of coarse) {
    for (const child of grid.children(grid.zoneIdFromKey!(key, coarseLevel))) {
      const c = grid.describeZone(child);
      for (const v of c.vertices) reach = Math.max(reach, angle(c.centroid, v));
    }
  }
  return reach * 1.2 + 1e-9;
}

/** Great-circle angle between two [lon, lat] points, degrees in, radians out. */
function angle(a: readonly [number, number], b: readonly [number, number]): number {
  const [la, lb] = [a[1] * DEG, b[1] * DEG];
  const h = Math.sin((lb - la) / 2) ** 2 + Math.cos(la) * Math.cos(lb) * Math.sin(((b[0] - a[0]) * DEG) / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

