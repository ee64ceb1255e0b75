import { inject, injectable, optional } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Collection, BackingKind, FieldMeta } from '../../domain/collection.js';
import type { BBox, Dggrs } from '../../domain/dggrs/dggrs.js';
import { widenBox, zoneDataCost, zoneSpanDegrees, type ZoneData, type ZoneDataOptions, type ZoneDataRequest } from '../../domain/zone-data.js';
import { applyZoneFilter, checkSpatialWork, zoneFilter, zonePasses } from './zone-filter.js';
import { joinZoneData } from '../../domain/zone-data-join.js';
import { zoneDepthParam } from '../zone-depth-param.js';
import { ancestorDepth } from './ancestor-reads.js';
import { InvalidDatetimeError, parseTimeRestriction, type TimeInterval } from '../../domain/time-interval.js';
import { remoteReads } from '../../domain/remote-reads.js';
import { Cql2SyntaxError, parseCql2Json, properties as filterProperties, type Expr } from '../../domain/cql2/index.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import { LakeNotFoundError, LakeQueryError } from '../../ports/lake-reader.js';
import { AppError, InvalidRequestError, NotFoundError, ValidationError } from '../../ports/errors.js';
import { WorkBudget } from './work-budget.js';
import type { AdmissionStats } from '../../ports/metrics.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { DEFAULT_LAKE_QUERY_SECONDS, LakeTimeBudget } from '../items/lake-time-budget.js';
import { parseFilter, type FilterLang, type RowSelection } from '../items/row-selection.js';

/** Zone data from a client-supplied raster URL (the ad-hoc GET). */
export interface AdHocRasterSource {
  adHocZoneData(url: string, request: ZoneDataRequest): Promise<ZoneData>;
}

/** The contract's ValueItem: statistics of one field over the whole zone. */
export interface ValueItem {
  average: number | null;
  maximum: number | null;
  minimum: number | null;
  stdDev: number | null;
}

/** A zone-data request as the route parsed it; the service validates the meaning. */
export interface ZoneDataQuery extends RowSelection {
  dggrsId: string;
  zoneId: string;
  zoneDepth?: string;
  options?: ZoneDataOptions;
  /** The encoding writes every sub-zone's outline (geo+json, geoparquet): its vertices are bounded. */
  outline?: { refined: boolean };
  /** The answer's encoding refuses what it cannot write or would write too large, before any value is computed. */
  check?: FormatCheck;
  /** How the caller's request would test fewer sub-zones, for the hint of a too-costly spatial filter (default: zone-depth, zone). */
  fewerZones?: string;
}

/** What the answer will hold, for its encoding's own bounds (a zone-data encoding's `check`). */
export interface ZoneDataPlan {
  grid: Dggrs;
  zoneId: string;
  depths: readonly number[];
  columns: number;
  limits: ZoneDataLimits;
}
export type FormatCheck = (plan: ZoneDataPlan) => void;

/** One selection of a cross-collection request: fields of one collection, under a prefix. */
export interface CrossCollectionSelection {
  id: string;
  fields: string[];
  alias?: string;
  /** CQL2-Text (string) or CQL2-JSON (object). */
  filter?: string | Record<string, unknown>;
}

export interface CrossCollectionQuery {
  dggrsId: string;
  zoneId: string;
  zoneDepth?: string;
  datetime?: string;
  outline?: { refined: boolean };
  check?: FormatCheck;
  selections: CrossCollectionSelection[];
}

/** The area of a zone query: the sub-zones of a parent, or the zones meeting some boxes. */
export type ZoneQueryScope = { parent: { zoneId: string; depth: number } } | { boxes: BBox[] };

export interface ZoneQueryFilter {
  /** Absent for a zone query by `datetime` alone (row sources: zones with a row in the interval). */
  filter?: string;
  filterLang?: FilterLang;
  datetime?: string;
}

export interface ZoneDataLimits {
  /** Sub-zones of all requested depths together. */
  maxSubZones: number;
  /** Sub-zones times output columns: the values one answer carries. */
  maxZoneDataValues: number;
  /** Outline vertices the geometry encodings may write for one answer. */
  maxGeometryVertices: number;
  /** Sub-zones all zone-data computations in progress may hold together (default: twice maxSubZones). */
  maxSubZonesInFlight?: number;
  /** Longest a computation waits for room in that budget before a 503 (default 20). */
  zoneDataQueueSeconds?: number;
  /** Zones (or sub-zones) a zone filter tests times the vertices of the geometry literals its spatial predicates compare them with. */
  maxSpatialZoneVertices: number;
  /** Longest the lake work of one request may run before it is stopped with a 503 (default 30). */
  lakeQuerySeconds?: number;
  /** Cells (pixels times samples per pixel) the rasterized encodings may write for one answer. */
  maxRasterCells: number;
}

/** Computations waiting for room beyond this are refused at once. */
const MAX_QUEUED = 256;

/** A selection checked against its collection, ready to read. */
interface PlannedSelection {
  label: string;
  prefix: string;
  collection: Collection;
  source: ZoneDataSource;
  fields: string[];
  filter?: Expr;
}

/**
 * The zone-data use case: resolves the grid, zone and collection, validates depths, fields and
 * time, and hands the request to the source of the collection's backing kind.
 */
@injectable()
export class ZoneDataService {
  /**
   * Admission control of the computations (HTTP and jobs alike): a computation's memory grows
   * with its sub-zones (ids, lookup tables, accumulators, the outlines of the sub-zones it
   * refines), so their sum is what bounds the process, however many requests arrive together.
   */
  private readonly budget: WorkBudget;
  /** How long the lake work of one request may run (limits.lakeQuerySeconds). */
  private readonly lakeTime: LakeTimeBudget;

  constructor(
    @inject(TOKENS.GridRegistry) private readonly grids: GridRegistry,
    @inject(TOKENS.CollectionCatalog) private readonly catalog: CollectionCatalog,
    @inject(TOKENS.ZoneDataSources) private readonly sources: Partial<Record<BackingKind, ZoneDataSource>>,
    @inject(TOKENS.AdHocRasterSource) @optional() private readonly adHoc: AdHocRasterSource | undefined,
    @inject(TOKENS.ZoneDataLimits) private readonly limits: ZoneDataLimits,
  ) {
    this.lakeTime = new LakeTimeBudget(limits.lakeQuerySeconds ?? DEFAULT_LAKE_QUERY_SECONDS);
    const capacity = Math.max(limits.maxSubZones, limits.maxSubZonesInFlight ?? 2 * limits.maxSubZones);
    const queueSeconds = limits.zoneDataQueueSeconds ?? 20;
    this.budget = new WorkBudget({
      capacity,
      maxWaitMs: queueSeconds * 1000,
      maxQueued: MAX_QUEUED,
      describe: (cost, used, cap, waitedMs) =>
        `Zone-data computations in progress hold ${used} of the ${cap} sub-zones they may hold together (limits.maxSubZonesInFlight); this one needs ${cost} and ${
          waitedMs > 0 ? `waited ${(waitedMs / 1000).toFixed(1)} s (limits.zoneDataQueueSeconds)` : `${MAX_QUEUED} others are waiting`
        }. Retry after the Retry-After seconds, or ask a shallower zone-depth.`,
    });
  }

  /** The admission control's state and counts since start (the metrics read them). */
  admission(): AdmissionStats {
    return this.budget.stats();
  }

  grid(dggrsId: string): Dggrs {
    return this.grids.require(dggrsId);
  }

  collection(collectionId: string): Collection {
    const c = this.catalog.get(collectionId);
    if (!c) throw new NotFoundError('Collection not found', 'See /collections for the collection ids.');
    return c;
  }

  private source(c: Collection): ZoneDataSource {
    const s = this.sources[c.backing.kind];
    if (!s) throw new ValidationError('Zone data not available', `Collections backed by "${c.backing.kind}" do not serve zone data yet.`);
    return s;
  }

  /** The fields `properties` and `exclude-properties` may name. */
  async fields(collectionId: string): Promise<Record<string, FieldMeta>> {
    const c = this.collection(collectionId);
    return this.source(c).fields(c);
  }

  /**
   * `signal` (here and in the other computations): the work stops when it aborts (the client
   * left, the job stopped), waiting or running.
   */
  async collectionZoneData(collectionId: string, q: ZoneDataQuery, signal?: AbortSignal): Promise<ZoneData> {
    const c = this.collection(collectionId);
    const grid = this.grid(q.dggrsId);
    const source = this.source(c);
    const known = Object.keys(await source.fields(c));
    const fields = selectFields(known, q.properties, q.excludeProperties);
    // OGC data-cql2-filter: the filter tests each sub-zone's own values and outline (not the rows).
    const test = q.filter !== undefined ? zoneFilter(c, known, parseFilter(q.filter, q.filterLang ?? 'cql2-text'), 'zone data') : undefined;
    const request = this.request(grid, q, fields);
    const columns = fields.length * statCount(q.options);
    // With statistics the answer's columns are `<field>_<stat>`: the filter's fields (their
    // configured statistic) are then read on their own; else they join the read's fields.
    const separate = test !== undefined && test.fields.length > 0 && (q.options?.stats?.length ?? 0) > 0;
    const extra = !test ? [] : separate ? test.fields : test.fields.filter((f) => !fields.includes(f));
    const subZones = this.bound(grid, request, columns + extra.length, q.outline);
    if (test) checkSpatialWork(test, subZones, `sub-zones of ${request.zoneId}`, this.limits.maxSpatialZoneVertices, q.fewerZones ?? 'Ask a shallower zone-depth or a finer zone');
    q.check?.({ grid, zoneId: request.zoneId, depths: request.depths, columns, limits: this.limits });
    return this.budget.run(subZones, async () => {
      const base = { ...request, reads: remoteReads(), ...(signal ? { signal } : {}) };
      if (!test) return this.read(source, c, base, '');
      if (separate) {
        const { stats: _stats, ...plain } = request.options;
        // One after the other, in this one admission slot and one lake time budget: a failure of
        // the first leaves the second unstarted.
        const { data, values } = await this.timed(c, signal, async (s) => {
          const at = { ...base, ...(s ? { signal: s } : {}) };
          const data = await this.guard('', () => source.zoneData(c, at));
          return { data, values: await this.guard('', () => source.zoneData(c, { ...at, fields: test.fields, options: plain })) };
        });
        return applyZoneFilter(data, values, test, grid, [], signal);
      }
      const data = await this.read(source, c, { ...base, fields: [...fields, ...extra] }, '');
      return applyZoneFilter(data, data, test, grid, extra, signal);
    }, signal);
  }

  /**
   * The cross-collection POST: every selection is checked (collection, fields, filter) and the
   * whole answer's cost bounded before any source is read; then the sources are read
   * concurrently and joined on zone id in the domain.
   */
  async crossCollectionZoneData(q: CrossCollectionQuery, signal?: AbortSignal): Promise<ZoneData> {
    const grid = this.grid(q.dggrsId);
    const request = this.request(grid, q, []);
    const plans: PlannedSelection[] = [];
    const prefixes = new Set<string>();
    for (const [i, sel] of q.selections.entries()) {
      const label = `collections[${i}] (${sel.id}): `;
      const prefix = sel.alias ?? sel.id;
      if (prefixes.has(prefix)) {
        throw new ValidationError('Invalid request body', `${label}the column prefix "${prefix}" is already used; give each selection of one collection its own alias.`);
      }
      prefixes.add(prefix);
      const collection = this.catalog.get(sel.id);
      if (!collection) throw new NotFoundError('Collection not found', `${label}no such collection; see /collections for the collection ids.`);
      const source = this.source(collection);
      const known = Object.keys(await source.fields(collection));
      const unknown = sel.fields.filter((f) => !known.includes(f));
      if (unknown.length > 0) {
        throw new InvalidRequestError('Unknown field', `${label}unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid fields: ${known.join(', ') || '(none)'}.`);
      }
      let filter: Expr | undefined;
      if (sel.filter !== undefined) {
        if (!source.filterQueryables) throw this.noFilter(collection, label);
        filter = await this.filter(collection, source, parseSpec(sel.filter, label), label);
      }
      plans.push({ label, prefix, collection, source, fields: [...new Set(sel.fields)], ...(filter ? { filter } : {}) });
    }
    const columns = plans.reduce((n, p) => n + p.fields.length, 0);
    const subZones = this.bound(grid, request, columns, q.outline);
    q.check?.({ grid, zoneId: request.zoneId, depths: request.depths, columns, limits: this.limits });
    // One client request: the remote reads of all its selections count together.
    const reads = remoteReads();
    // The selections are computed concurrently: each holds its own sub-zones.
    return this.budget.run(subZones * plans.length, async () => {
      const parts = await Promise.all(
        plans.map(async (p) => ({ prefix: p.prefix, data: await this.read(p.source, p.collection, { ...request, reads, fields: p.fields, ...(p.filter ? { filter: p.filter } : {}), ...(signal ? { signal } : {}) }, p.label) })),
      );
      return joinZoneData(grid.id, q.zoneId, request.depths, parts);
    }, signal);
  }

  /**
   * The `filter` of a zone query on a collection, as a test on zone ids of `level` (OGC
   * zone-query-cql2-filter): the zones whose OWN values at `level` (each field its configured
   * statistic, from the zone data of ancestors) and outline (`geometry`) satisfy the filter, a
   * null value making a comparison unknown (the zone is left out), for every backing kind; with
   * `datetime`, the values are those of the interval. `datetime` alone keeps, on row sources
   * (parquet lake, OGC API Features), the zones holding a row (feature) in the interval, and so
   * does a filter reading no field (`geometry` alone) with `datetime`; raster values have no time
   * of their own here, so there every zone is kept. Everything is checked,
   * and the work bounded, before any source is read.
   */
  async zoneQueryFilter(collectionId: string, grid: Dggrs, level: number, scope: ZoneQueryScope, q: ZoneQueryFilter, signal?: AbortSignal): Promise<(zoneId: string) => boolean> {
    const c = this.collection(collectionId);
    const source = this.source(c);
    const expr = q.filter !== undefined ? parseFilter(q.filter, q.filterLang ?? 'cql2-text') : undefined;
    const datetime = parseDatetimeQuery(q.datetime);
    // The zones holding a row (feature) in the interval, on row sources.
    const withRows = async (): Promise<Set<string>> => {
      const query = { grid, level, boxes: 'boxes' in scope ? scope.boxes : [], ...('parent' in scope ? { parent: scope.parent } : {}), ...(datetime ? { datetime } : {}), reads: remoteReads() };
      return this.timed(c, signal, (s) => this.guard('', () => source.zonesWithRows!(c, { ...query, ...(s ? { signal: s } : {}) })));
    };
    if (!expr) {
      if (!source.zonesWithRows) return () => true;
      const found = await withRows();
      return (z) => found.has(z);
    }
    const test = zoneFilter(c, Object.keys(await source.fields(c)), expr, 'a zone query');
    const zones = 'parent' in scope ? grid.subZoneCount(scope.parent.zoneId, scope.parent.depth) : scope.boxes.reduce((n, b) => n + grid.estimateZonesInBBox(level, b), 0);
    checkSpatialWork(test, zones, `zones of level ${level} of ${c.id}`, this.limits.maxSpatialZoneVertices, 'Use a coarser zone-level, a smaller bbox or a parent-zone');
    const fields = test.fields;
    if (fields.length === 0) {
      // A filter on `geometry` alone reads no values, so `datetime` would restrict nothing: on a row
      // source it keeps, as without a filter, only the zones holding a row in the interval.
      if (!datetime || !source.zonesWithRows) return (z) => zonePasses(test, grid, z, {});
      const found = await withRows();
      return (z) => found.has(z) && zonePasses(test, grid, z, {});
    }
    const values = new Map<string, Record<string, number | null>>();
    const under = 'parent' in scope ? [{ zoneId: scope.parent.zoneId, depth: scope.parent.depth }] : this.ancestors(grid, level, scope.boxes, c.backing.kind, fields.length);
    // One count of remote reads for all the ancestors: a STAC API is searched once per ancestor.
    const reads = remoteReads();
    const requests = under.map((u) => ({ ...this.request(grid, { zoneId: u.zoneId, zoneDepth: String(u.depth), ...(q.datetime ? { datetime: q.datetime } : {}) }, fields), reads }));
    const total = requests.reduce((n, r) => n + zoneDataCost(grid, r.zoneId, r.depths, fields.length).values, 0);
    if (total > this.limits.maxZoneDataValues) {
      throw new ValidationError('Too many values', `A filtered zone query on ${c.id} computes each zone's values: ${total} here; the limit is ${this.limits.maxZoneDataValues} (limits.maxZoneDataValues). Use a smaller bbox, a coarser zone-level or parent-zone.`);
    }
    // A lake's reads together are one piece of lake work, bounded by limits.lakeQuerySeconds.
    await this.timed(c, signal, async (s) => {
      for (const r of requests) {
        // A read whose inputs are cached settles in promise callbacks alone, which run before any
        // I/O: without a turn here, tens of ancestors were one stretch of the loop (0.5-1 s).
        if (turnDue()) await takeTurn(s);
        const data = await this.budget.run(zoneDataCost(grid, r.zoneId, r.depths, fields.length).subZones, () => this.guard('', () => source.zoneData(c, { ...r, ...(s ? { signal: s } : {}) })), s);
        for (const d of data.depths) {
          d.zones.forEach((z, i) => {
            if (!values.has(z)) values.set(z, Object.fromEntries(fields.map((f) => [f, d.values[f]?.[i] ?? null])));
          });
        }
      }
    });
    const none = Object.fromEntries(fields.map((f) => [f, null]));
    return (z) => zonePasses(test, grid, z, values.get(z) ?? none);
  }

  /**
   * Ancestors whose sub-zones at `level` cover the boxes (grown by one ancestor, since sub-zones
   * reach past their parent), so one zone-data computation per ancestor gives every zone's values;
   * their level is the one tiles choose too (ancestorDepth: zones computed in vain against reads).
   */
  private ancestors(grid: Dggrs, level: number, boxes: BBox[], kind: BackingKind, fields: number): { zoneId: string; depth: number }[] {
    const grown = (d: number) => boxes.map((b) => widenBox(b, d === 0 ? 0 : zoneSpanDegrees(grid, level - d)));
    const depth = ancestorDepth(grid, level, kind, fields, this.limits, (d) => grown(d).reduce((n, b) => n + grid.estimateZonesInBBox(level - d, b), 0));
    return [...new Set(grown(depth).flatMap((b) => grid.zonesInBBox(level - depth, b)))].map((zoneId) => ({ zoneId, depth }));
  }

  /** A parsed filter, checked against the source's queryables before any row is read. */
  private async filter(c: Collection, source: ZoneDataSource, expr: Expr, label: string): Promise<Expr> {
    if (!source.filterQueryables) throw this.noFilter(c, label);
    const valid = await source.filterQueryables(c);
    const unknown = filterProperties(expr).filter((p) => !valid.includes(p));
    if (unknown.length > 0) {
      throw new InvalidRequestError('Invalid filter', `${label}unknown property ${unknown.map((n) => `"${n.slice(0, 64)}"`).join(', ')}; valid properties: ${valid.join(', ') || '(none)'}. See /collections/${c.id}/queryables.`);
    }
    return expr;
  }

  private noFilter(c: Collection, label: string): InvalidRequestError {
    return new InvalidRequestError('Filter not supported', `${label}CQL2 filters restrict the rows of row-based collections (parquet-lake, ogc-features); "${c.id}" is backed by ${c.backing.kind}, which has no rows to filter. Drop the filter for this collection.`);
  }

  /** Reads one source, turning the lake's own errors into API errors that name the selection. */
  private read(source: ZoneDataSource, c: Collection, request: ZoneDataRequest, label: string): Promise<ZoneData> {
    return this.timed(c, request.signal, (signal) => this.guard(label, () => source.zoneData(c, { ...request, ...(signal ? { signal } : {}) })));
  }

  /**
   * Work on the collection's source: a lake's is bounded by limits.lakeQuerySeconds (its signal then
   * aborts at the budget too). A pyramid's reads are bounded by its store (clickhouse.timeoutMs).
   */
  private timed<T>(c: Collection, signal: AbortSignal | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    return c.backing.kind === 'parquet-lake' ? this.lakeTime.run(signal, work) : work(signal);
  }

  private async guard<T>(label: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof LakeNotFoundError) throw new NotFoundError('Collection has no lake data', `${label}no parquet files were found under the collection's lake prefix.`);
      if (e instanceof LakeQueryError) throw new InvalidRequestError(e.message, `${label}${e.hint}`);
      if (label && e instanceof AppError) throw e.withHintPrefix(label);
      throw e;
    }
  }

  /**
   * The cost bound, checked before any source is read: sub-zones over all depths, values
   * (sub-zones x output columns), and outline vertices for the geometry encodings. Gives the
   * sub-zones, the request's weight in the in-flight budget.
   */
  private bound(grid: Dggrs, request: ZoneDataRequest, columns: number, outline: { refined: boolean } | undefined): number {
    const cost = zoneDataCost(grid, request.zoneId, request.depths, Math.max(1, columns), outline);
    const asked = `zone-depth ${request.depths.join(',')} of ${request.zoneId}`;
    if (cost.subZones > this.limits.maxSubZones) {
      throw new ValidationError('Too many sub-zones', `${asked} resolves ${cost.subZones} sub-zones; the limit is ${this.limits.maxSubZones} (limits.maxSubZones). Ask a shallower depth or a finer zone.`);
    }
    if (cost.values > this.limits.maxZoneDataValues) {
      throw new ValidationError(
        'Too many values',
        `${asked} with ${columns} output column${columns === 1 ? '' : 's'} gives ${cost.values} values (sub-zones x columns); the limit is ${this.limits.maxZoneDataValues} (limits.maxZoneDataValues). Ask fewer fields or statistics, fewer depths, or a finer zone.`,
      );
    }
    if (outline && cost.vertices > this.limits.maxGeometryVertices) {
      throw new ValidationError(
        'Too much geometry',
        `${asked} would write ${cost.vertices} outline vertices${outline.refined ? ' with refined-geometry=true' : ''}; the limit is ${this.limits.maxGeometryVertices} (limits.maxGeometryVertices). Use refined-geometry=false, fewer depths, or a format without geometry (f=json, f=parquet).`,
      );
    }
    return cost.subZones;
  }

  async adHocZoneData(cogUrl: string | undefined, q: ZoneDataQuery, signal?: AbortSignal): Promise<ZoneData> {
    if (!cogUrl) {
      throw new InvalidRequestError(
        'Missing cog-url',
        'Add cog-url=<URL of a Cloud-Optimized GeoTIFF> to compute zone data from a raster, use /collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data, or POST a cross-collection body to this path.',
      );
    }
    const grid = this.grid(q.dggrsId);
    const request = this.request(grid, q, []);
    const columns = (q.options?.bands?.length ?? 1) * statCount(q.options);
    const subZones = this.bound(grid, request, columns, q.outline);
    q.check?.({ grid, zoneId: request.zoneId, depths: request.depths, columns, limits: this.limits });
    const adHoc = this.adHoc;
    if (!adHoc) throw new ValidationError('Ad-hoc rasters not available', 'This service reads no client rasters.');
    return this.budget.run(subZones, () => adHoc.adHocZoneData(cogUrl, { ...request, ...(signal ? { signal } : {}) }), signal);
  }

  /**
   * Statistics of each field over one zone, for the zone-info response of a collection (the
   * contract's `statistics`: ValueItem per field). Raster sources compute them from the pixels
   * (mean, max, min, population stdDev); a source that does not honour `options.stats` gives
   * its depth-0 value as average, minimum and maximum.
   */
  async zoneStatistics(collectionId: string, dggrsId: string, zoneId: string, datetime?: string, signal?: AbortSignal): Promise<Record<string, ValueItem>> {
    const c = this.collection(collectionId);
    const grid = this.grid(dggrsId);
    const source = this.source(c);
    const names = Object.keys(await source.fields(c));
    const request = this.request(grid, { zoneId, zoneDepth: '0', ...(datetime ? { datetime } : {}), options: { stats: ['mean', 'max', 'min', 'stdDev'] } }, names);
    const data = await this.read(source, c, { ...request, reads: remoteReads(), ...(signal ? { signal } : {}) }, '');
    const at = (name: string) => data.depths[0]?.values[name]?.[0] ?? null;
    const out: Record<string, ValueItem> = {};
    for (const name of names) {
      if (`${name}_mean` in data.fields) out[name] = { average: at(`${name}_mean`), maximum: at(`${name}_max`), minimum: at(`${name}_min`), stdDev: at(`${name}_stdDev`) };
      else if (name in data.fields) out[name] = { average: at(name), maximum: at(name), minimum: at(name), stdDev: null };
    }
    return out;
  }

  private request(grid: Dggrs, q: Pick<ZoneDataQuery, 'zoneId' | 'zoneDepth' | 'datetime' | 'options'>, fields: string[]): ZoneDataRequest {
    if (!grid.isValidZone(q.zoneId)) throw new NotFoundError('Zone not found', `"${q.zoneId}" is not a zone of ${grid.id}; zone ids look like ${grid.zoneIdForm}.`);
    const depths = this.depths(grid, q.zoneId, q.zoneDepth);
    const datetime = parseDatetimeQuery(q.datetime);
    return { grid, zoneId: q.zoneId, depths, fields, ...(datetime ? { datetime } : {}), options: q.options ?? {} };
  }

  private depths(grid: Dggrs, zoneId: string, text: string | undefined): number[] {
    const depths = zoneDepthParam(grid, text);
    const deepest = depths[depths.length - 1]!;
    if (deepest > grid.maxRelativeDepth) {
      throw new ValidationError('zone-depth too deep', `${grid.id} serves zone data down to a relative depth of ${grid.maxRelativeDepth} (max_relative_depth); asked ${deepest}.`);
    }
    const level = grid.zoneLevel(zoneId);
    if (level + deepest > grid.maxRefinementLevel) {
      throw new ValidationError('zone-depth too deep', `Zone ${zoneId} is at level ${level}; ${grid.id} has levels up to ${grid.maxRefinementLevel}, so zone-depth can be at most ${grid.maxRefinementLevel - level}.`);
    }
    return depths;
  }
}

/** `datetime` as given (422 when malformed); empty or open at both ends (`../..`) means none. */
function parseDatetimeQuery(text: string | undefined): TimeInterval | undefined {
  try {
    return parseTimeRestriction(text);
  } catch (err) {
    if (err instanceof InvalidDatetimeError) throw new ValidationError('Invalid query parameter', err.message);
    throw err;
  }
}

/** Output columns per selected field: one per `cog-stat` statistic, else one. */
function statCount(options: ZoneDataOptions | undefined): number {
  return Math.max(1, options?.stats?.length ?? 0);
}

/** A body filter: CQL2-Text as a string, CQL2-JSON as an object; syntax errors name the selection and the position. */
function parseSpec(spec: string | Record<string, unknown>, label: string): Expr {
  try {
    return typeof spec === 'string' ? parseFilter(spec, 'cql2-text') : parseCql2Json(spec);
  } catch (e) {
    if (e instanceof Cql2SyntaxError) throw new InvalidRequestError('Invalid filter', `${label}${e.message}`);
    throw e;
  }
}

/** `properties` keeps and orders fields, `exclude-properties` then drops some; unknown names are 400. */
export function selectFields(known: string[], properties: string[] | undefined, exclude: string[] | undefined): string[] {
  const unknown = [...(properties ?? []), ...(exclude ?? [])].filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new InvalidRequestError('Unknown field', `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid fields: ${known.join(', ') || '(none)'}.`);
  }
  const kept = properties && properties.length > 0 ? [...new Set(properties)] : known;
  const out = kept.filter((n) => !(exclude ?? []).includes(n));
  if (out.length === 0) throw new InvalidRequestError('No field selected', `properties and exclude-properties leave no field; valid fields: ${known.join(', ')}.`);
  return out;
}
