/**
 * `npm run ingest -- <collection> --pyramid clickhouse`: builds a collection's zone pyramid from
 * its source lake. A generation of the store is prepared, a first pass over the rows' points
 * counts the rows of each coarse zone (and the pyramid's bbox and time extent), the parts are
 * planned from it (part-plan.ts) and queued, workers run them (PyramidPartJob: here, and any
 * `npm run worker` sharing the queue), and once every part is done the generation is published
 * with its full layout. A part that fails for good fails the ingest with its reason; nothing is
 * published then, and the previous pyramid stays the one served.
 */
import type { Collection, Extent } from '../../domain/collection.js';
import type { BBox, Dggrs } from '../../domain/dggrs/dggrs.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { PyramidPartOutcome, PyramidPartQueue, PyramidPartState, PyramidPartTask } from '../../ports/pyramid-parts.js';
import { runStepped, takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import type { PyramidLayout, PyramidPeriod, ZonePyramidStore } from '../../ports/zone-pyramid-store.js';
import { chooseCoarseLevel, PartPlanError, planParts, type PyramidSurvey } from './part-plan.js';
import { scanPointRows } from './point-rows.js';
import type { PyramidPartJob } from './pyramid-part-job.js';

export interface PyramidIngestRequest {
  /** A `clickhouse-pyramid` collection id. */
  collectionId: string;
  /** Default: the backing's grid. */
  grid?: string;
  /** Default: the backing's levels. */
  levels?: number[];
  /** Parts this process runs at once (0: only other workers run them). */
  workers: number;
  log?: (line: string) => void;
}

export interface PyramidIngestOptions {
  maxPartRows: number;
  /** How often the parts' states are looked at (and a progress line written). */
  pollMs: number;
  /** Parts a worker is given at least (several per worker balance the load). */
  partsPerWorker: number;
}

/** The ingest cannot run as asked, or a part failed for good; the message says which and why. */
/** Workers parts are planned for at least: others than this process's may share the queue. */
const MIN_WORKERS_PLANNED = 4;

/** Coarse zones meeting the lake's extent beyond which the rows are counted per zone instead (a pass over them). */
const MAX_EXTENT_ZONES = 20_000;

export class PyramidIngestError extends Error {
  override readonly name = 'PyramidIngestError';
}

export class PyramidIngest {
  constructor(
    private readonly lake: LakeReader,
    private readonly grids: GridRegistry,
    private readonly collections: CollectionCatalog,
    private readonly store: ZonePyramidStore,
    private readonly queue: PyramidPartQueue,
    private readonly job: PyramidPartJob,
    private readonly options: PyramidIngestOptions,
  ) {}

  async ingest(req: PyramidIngestRequest): Promise<PyramidLayout> {
    const log = req.log ?? (() => undefined);
    const t0 = performance.now();
    const resolved = this.resolve(req);
    const { collection, source, grid, levels } = resolved;
    const extent = await this.lake.extent?.(source);
    const coarseLevel = resolved.coarseLevel ?? await finerWhileFew(grid, levels, extent?.spatial?.bbox[0], Math.max(req.workers, MIN_WORKERS_PLANNED) * this.options.partsPerWorker);
    const backing = collection.backing as Extract<Collection['backing'], { kind: 'clickhouse-pyramid' }>;
    const [dataset, allFields] = await Promise.all([this.lake.describe(source), this.lake.fields(source)]);
    const fields = Object.entries(allFields)
      .filter(([, m]) => m.type === 'number' || m.type === 'integer')
      .map(([name]) => name);
    let period: PyramidPeriod | undefined = backing.period;
    if (period && !dataset.datetimeColumn) {
      log(`${source.id} has no datetime column: all-time cells only (the backing's period "${period}" is not used)`);
      period = undefined;
    }
    const ref = { table: backing.table };
    const generation = await this.store.prepare(ref, { dggrsId: grid.id, levels, coarseLevel, fields, ...(period ? { period } : {}) });
    const survey = (await this.fromExtent(extent, grid, coarseLevel, levels, dataset.totalRows)) ?? (await this.survey(source, grid, coarseLevel, levels, period !== undefined));
    log(
      survey.estimated
        ? `${source.id}: about ${survey.rows.toLocaleString('en')} rows, ${survey.perCoarse.size} coarse zones of level ${coarseLevel} meet its extent`
        : `${source.id}: ${survey.rows.toLocaleString('en')} rows with a place, ${survey.perCoarse.size} coarse zones of level ${coarseLevel} hold rows (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    // Enough parts for this process's workers and a few other processes' (workers 0: others only).
    const targetRows = Math.max(50_000, Math.min(this.options.maxPartRows, Math.ceil(survey.rows / (Math.max(req.workers, MIN_WORKERS_PLANNED) * this.options.partsPerWorker))));
    let planned;
    try {
      planned = planParts(grid, levels, coarseLevel, survey, { targetRows, maxPartRows: this.options.maxPartRows });
    } catch (e) {
      if (e instanceof PartPlanError) throw new PyramidIngestError(e.message);
      throw e;
    }
    // Generations are the store's names; a run's name is unique whatever the store calls them.
    const ingest = `${backing.table}/${generation}/${Date.now().toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
    const tasks: PyramidPartTask[] = planned.map((p) => ({
      ingest,
      generation,
      part: p.part,
      table: backing.table,
      source: source.id,
      dggrsId: grid.id,
      levels: p.levels,
      coarseLevel,
      coarse: p.coarse,
      ...(p.bbox ? { bbox: p.bbox } : {}),
      fields,
      ...(period ? { period } : {}),
    }));
    log(`${tasks.length} part(s) of generation ${generation}, levels ${levels.join(',')}, coarse level ${coarseLevel}${period ? `, per ${period}` : ''}`);
    await this.queue.enqueue(tasks);
    if (req.workers > 0) await this.queue.work((task, signal) => this.job.run(task, signal), req.workers);
    const outcomes = await this.waitForParts(ingest, tasks.length, log);
    // Every row with a place once: the parts of the coarse level own each row's level-C cell (or, without them, the part above).
    const counting = tasks.some((t) => t.coarse.length > 0) ? (t: PyramidPartTask) => t.coarse.length > 0 : () => true;
    const rows = tasks.filter(counting).reduce((n, t) => n + (outcomes.get(t.part)?.ownRows ?? 0), 0);
    const layout: PyramidLayout = {
      dggrsId: grid.id,
      levels,
      coarseLevel,
      fields,
      ...(period ? { period } : {}),
      ...(period && survey.timeExtent ? { timeExtent: survey.timeExtent } : {}),
      ...(survey.bbox ? { bbox: survey.bbox } : {}),
      rows,
      source: `${source.id} ${dataset.source}`,
      ingestedAt: new Date().toISOString(),
    };
    await this.store.publish(ref, generation, layout);
    log(`published generation ${generation} of ${backing.table}: ${rows.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s (${Math.round(rows / ((performance.now() - t0) / 1000)).toLocaleString('en')} rows/s)`);
    return layout;
  }

  /** The request checked; `coarseLevel` when the backing sets it. */
  private resolve(req: PyramidIngestRequest): { collection: Collection; source: Collection; grid: Dggrs; levels: number[]; coarseLevel?: number } {
    const collection = this.collections.get(req.collectionId);
    if (!collection) throw new PyramidIngestError(`no collection "${req.collectionId}" in the config`);
    const backing = collection.backing;
    if (backing.kind !== 'clickhouse-pyramid') throw new PyramidIngestError(`"${collection.id}" is a ${backing.kind} collection; --pyramid ingests clickhouse-pyramid collections`);
    const source = this.collections.get(backing.source);
    if (!source || source.backing.kind !== 'parquet-lake') throw new PyramidIngestError(`"${collection.id}" reads "${backing.source}", which is not a parquet-lake collection of the config`);
    const grid = this.grids.get(req.grid ?? backing.grid);
    if (!grid) throw new PyramidIngestError(`grid "${req.grid ?? backing.grid}" is not enabled (grids.enabled)`);
    if (!grid.zoneKeyFromPoint || !grid.zoneIdFromKey || grid.maxZoneKeyLevel === undefined) throw new PyramidIngestError(`${grid.id} has no numeric zone keys: a pyramid needs them`);
    const levels = [...new Set(req.levels ?? backing.levels)].sort((a, b) => a - b);
    if (levels.length === 0) throw new PyramidIngestError('no levels to ingest');
    const top = Math.min(grid.maxZoneKeyLevel, grid.maxRefinementLevel);
    const beyond = levels.filter((l) => l < 0 || l > top);
    if (beyond.length) throw new PyramidIngestError(`${grid.id} has zone keys for levels 0-${top}, not ${beyond.join(', ')}`);
    const coarseLevel = backing.coarseLevel;
    if (coarseLevel !== undefined && (coarseLevel < 0 || coarseLevel > top)) throw new PyramidIngestError(`coarse level ${coarseLevel} is beyond ${grid.id}'s zone keys (0-${top})`);
    return { collection, source, grid, levels, ...(coarseLevel !== undefined ? { coarseLevel } : {}) };
  }

  /**
   * The survey from the lake's extent as its files give it (no pass over the rows): the coarse
   * zones meeting its bbox, the rows spread evenly over them. Undefined when the lake gives no bbox
   * or too many zones meet it (then the rows are counted: `survey`).
   */
  private async fromExtent(extent: Extent | undefined, grid: Dggrs, coarseLevel: number, levels: number[], totalRows: number): Promise<PyramidSurvey | undefined> {
    const bbox = extent?.spatial?.bbox[0];
    if (!bbox) return undefined;
    const [start, end] = extent.temporal?.interval[0] ?? [null, null];
    const timeExtent: [number, number] | undefined = start && end ? [Date.parse(start), Date.parse(end)] : undefined;
    const out: PyramidSurvey = { rows: totalRows, bbox, ...(timeExtent ? { timeExtent } : {}), perCoarse: new Map(), estimated: true };
    if (!levels.some((l) => l >= coarseLevel)) return out;
    const selection = grid.selectZonesInBBox(coarseLevel, bbox);
    const n = await runStepped(selection.count(MAX_EXTENT_ZONES));
    if (n > MAX_EXTENT_ZONES) return undefined;
    const zones = await runStepped(selection.page({ offset: 0, limit: n }));
    const each = Math.ceil(totalRows / Math.max(1, zones.length));
    for (const [i, id] of zones.entries()) {
      const [lon, lat] = grid.describeZone(id).centroid;
      out.perCoarse.set(grid.zoneKeyFromPoint!(lon, lat, coarseLevel), each);
      if (i % 256 === 255 && turnDue()) await takeTurn();
    }
    return out;
  }

  /** One pass over the rows' points (and instants): rows per coarse zone, bbox, time extent. */
  private async survey(source: Collection, grid: Dggrs, coarseLevel: number, levels: number[], timed: boolean): Promise<PyramidSurvey> {
    const out: PyramidSurvey = { rows: 0, perCoarse: new Map() };
    const counting = levels.some((l) => l >= coarseLevel);
    await scanPointRows(this.lake, source, { fields: [], ...(timed ? { time: true } : {}), workClass: 'pyramid-ingest' }, async (b) => {
      for (let i = 0; i < b.size; i++) {
        const lon = b.x[i]!, lat = b.y[i]!;
        if (!Number.isFinite(lon) || !(lat >= -90 && lat <= 90)) continue;
        out.rows++;
        const box = out.bbox;
        if (!box) out.bbox = [lon, lat, lon, lat];
        else [box[0], box[1], box[2], box[3]] = [Math.min(box[0], lon), Math.min(box[1], lat), Math.max(box[2], lon), Math.max(box[3], lat)];
        const t = b.time?.[i];
        if (t !== undefined && Number.isFinite(t)) out.timeExtent = out.timeExtent ? [Math.min(out.timeExtent[0], t), Math.max(out.timeExtent[1], t)] : [t, t];
        if (counting) {
          const key = grid.zoneKeyFromPoint!(lon, lat, coarseLevel);
          if (!Number.isNaN(key)) out.perCoarse.set(key, (out.perCoarse.get(key) ?? 0) + 1);
        }
        if ((i & 2047) === 0 && turnDue()) await takeTurn();
      }
    });
    return out;
  }

  /** Until every part is done (their outcomes by part); a progress line as parts start and end; throws with the first part that failed for good. */
  private async waitForParts(ingest: string, total: number, log: (line: string) => void): Promise<Map<string, PyramidPartOutcome>> {
    const start = performance.now();
    let said = '';
    for (;;) {
      const states: PyramidPartState[] = await this.queue.states(ingest);
      const failed = states.find((s) => s.state === 'failed');
      if (failed) {
        await this.queue.cancel(ingest);
        throw new PyramidIngestError(`part ${failed.part} failed: ${failed.reason ?? 'no reason given'}; nothing was published`);
      }
      const done = states.filter((s) => s.state === 'done');
      const rows = done.reduce((n, s) => n + (s.outcome?.rows ?? 0), 0);
      const seconds = (performance.now() - start) / 1000;
      const running = states.filter((s) => s.state === 'running').length;
      // A line when a part starts or ends, not every poll.
      const changed = `${done.length}/${running}`;
      if (changed !== said) log(`parts ${done.length}/${total} done, ${running} running, ${rows.toLocaleString('en')} rows read (${seconds > 0 ? Math.round(rows / seconds).toLocaleString('en') : 0} rows/s)`);
      said = changed;
      if (done.length >= total) return new Map(done.map((s) => [s.part, s.outcome!]));
      await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }
}

/**
 * The default coarse level (chooseCoarseLevel), made finer one level at a time while fewer than
 * `parts` of its zones meet the lake's box: a lake
 * small beside the coarse zones would otherwise give few parts, each reading most of it (a part
 * reads its zones' box widened by a finer zone).
 */
export async function finerWhileFew(grid: Dggrs, levels: readonly number[], bbox: BBox | undefined, parts: number): Promise<number> {
  let level = chooseCoarseLevel(levels, undefined);
  if (!bbox) return level;
  const top = levels[levels.length - 1]!;
  while (level < top && (await runStepped(grid.selectZonesInBBox(level, bbox).count(parts))) < parts) level++;
  return level;
}

