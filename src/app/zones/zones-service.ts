import { inject, injectable, optional } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { BBox, Dggrs, Stepped, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import { isTemporal, type Collection } from '../../domain/collection.js';
import type { CollectionsService } from '../collections/collections-service.js';
import { InvalidRequestError, NotFoundError, ValidationError } from '../../ports/errors.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import { parseTimeRestriction } from '../../domain/time-interval.js';
import type { ZoneDataService, ZoneQueryScope } from '../zone-data/zone-data-service.js';

/**
 * Zones over grids: resolves a grid (and optionally a collection), lists zones of a box or of a
 * parent zone a page at a time, and describes single zones. Routes stay thin on top of it.
 */

/** Zone lists of more zones than this (over all pages) are refused, counted before any is listed. */
export const MAX_ZONES_PER_QUERY = 1_000_000;
/**
 * Bbox lists whose edges cross more zones than this are refused before counting: counting and paging
 * cost about the zones along the edges (a square box under MAX_ZONES_PER_QUERY has at most about 4,000).
 */
export const MAX_EDGE_ZONES = 100_000;

export interface ZoneListQuery {
  bbox?: BBox;
  zoneLevel?: number;
  parentZone?: string;
  compactZones?: boolean;
  limit?: number;
  offset?: number;
  /**
   * A CQL2 zone query (zone-query-cql2-filter): builds, for the list's level and area once both are
   * checked, the test a zone must pass to be listed (zones where matching data exists).
   */
  keep?: (level: number, scope: ZoneQueryScope) => Promise<(zoneId: string) => boolean>;
}

/** A zone list as asked: the zones of a box or parent, and on a collection those holding matching data. */
export interface ZoneListRequest extends Omit<ZoneListQuery, 'keep'> {
  /** CQL2 the data in a listed zone must match (collection lists only). */
  filter?: string;
  filterLang?: 'cql2-text' | 'cql2-json';
  /** On a collection with a time axis: the zones with data in this interval (ignored elsewhere). */
  datetime?: string;
}

/** Tests the data of a collection in each zone of a list (the zone-data use case answers it). */
export type ZoneDataFilter = Pick<ZoneDataService, 'zoneQueryFilter'>;

export interface ZoneListPage {
  grid: Dggrs;
  collection?: Collection;
  /** Absolute level of the listed zones. */
  level: number;
  /** The zones of this page. */
  zones: string[];
  total: number;
  offset: number;
  limit: number;
  /** Offset of the next page, when there is one. */
  nextOffset?: number;
  /** The boxes actually searched (after clamping to the collection's extent); empty for parent-zone lists. */
  boxes: BBox[];
}

@injectable()
export class ZonesService {
  constructor(
    @inject(TOKENS.GridRegistry) private readonly grids: GridRegistry,
    @inject(TOKENS.CollectionsService) private readonly collections: CollectionsService,
    @inject(TOKENS.MaxZonesPerPage) private readonly maxZonesPerPage: number,
    // Zone lists filtered by data ask the zone-data use case which zones hold matching data.
    @inject(TOKENS.ZoneDataService) @optional() private readonly dataFilter?: ZoneDataFilter,
  ) {}

  /**
   * A page of zones as asked: `filter` (and `datetime` on a collection with a time axis) keeps the
   * zones where the collection has matching data; a bare grid has none to match.
   */
  list(grid: Dggrs, q: ZoneListRequest, collection?: Collection, signal?: AbortSignal): Promise<ZoneListPage> {
    const { filter, filterLang, datetime, ...query } = q;
    // An interval open at both ends (`../..`) restricts nothing: the list is the one without datetime.
    const when = datetime !== undefined && collection && isTemporal(collection) && !unrestricted(datetime) ? { datetime } : {};
    if (filter === undefined && !('datetime' in when)) return this.listZones(grid, query, collection);
    if (!collection || !this.dataFilter) throw new InvalidRequestError('filter needs a collection', 'A zone query filter tests the data in each zone: use /collections/{collection_id}/dggs/{dggrs_id}/zones?filter=...');
    const test = { ...(filter !== undefined ? { filter } : {}), ...(filterLang ? { filterLang } : {}), ...when };
    const dataFilter = this.dataFilter;
    return this.listZones(grid, { ...query, keep: (level, area) => dataFilter.zoneQueryFilter(collection.id, grid, level, area, test, signal) }, collection);
  }

  listGrids(): Dggrs[] {
    return this.grids.list();
  }

  get defaultGrid(): Dggrs {
    return this.grids.defaultGrid;
  }

  grid(id: string): Dggrs {
    return this.grids.require(id);
  }

  collection(id: string): Collection {
    return this.collections.get(id);
  }

  /** A valid zone of the grid, or 404 saying what zone ids look like. */
  zone(grid: Dggrs, zoneId: string): string {
    if (!safeIsValid(grid, zoneId)) {
      throw new NotFoundError('Zone not found', `"${truncate(zoneId)}" is not a zone of ${grid.id}. Zone ids of ${grid.id} have the form ${grid.zoneIdForm}.`);
    }
    return zoneId;
  }

  describe(grid: Dggrs, zoneId: string): ZoneDescription {
    return grid.describeZone(this.zone(grid, zoneId));
  }

  /**
   * One page of a zone list. The list's size is known before any zone is listed (a closed form for
   * parent zones, the grid's count for boxes), refused over MAX_ZONES_PER_QUERY, and only the page's
   * zones are produced; the grid's work runs in slices that leave the event loop free.
   */
  async listZones(grid: Dggrs, q: ZoneListQuery, collection?: Collection): Promise<ZoneListPage> {
    if (q.compactZones) {
      throw new InvalidRequestError('compact-zones is not supported', 'Compaction is not implemented: omit compact-zones or set compact-zones=false.');
    }
    const limit = Math.min(q.limit ?? this.maxZonesPerPage, this.maxZonesPerPage);
    const offset = q.offset ?? 0;
    let zones: string[];
    let total: number;
    let level: number;
    let boxes: BBox[] = [];

    if (q.parentZone !== undefined) {
      const parent = this.zone(grid, q.parentZone);
      const depth = q.zoneLevel ?? 1;
      const parentLevel = grid.zoneLevel(parent);
      level = parentLevel + depth;
      if (depth > grid.maxRelativeDepth) {
        throw new ValidationError('Invalid query parameter', `zone-level is the depth below parent-zone: at most ${grid.maxRelativeDepth} for ${grid.id}.`);
      }
      if (level > grid.maxRefinementLevel) {
        throw new ValidationError('Invalid query parameter', `parent-zone is at level ${parentLevel}; with zone-level ${depth} that is level ${level}, beyond ${grid.id}'s maximum ${grid.maxRefinementLevel}.`);
      }
      total = grid.subZoneCount(parent, depth);
      this.guard(total, 'parent-zone and zone-level');
      if (q.keep) ({ zones, total } = await keptPage(await q.keep(level, { parent: { zoneId: parent, depth } }), async (o, l) => grid.subZones(parent, depth, { offset: o, limit: l }), total, offset, limit));
      else zones = offset < total ? grid.subZones(parent, depth, { offset, limit }) : [];
    } else {
      level = q.zoneLevel ?? grid.defaultLevel;
      if (level > grid.maxRefinementLevel) {
        throw new ValidationError('Invalid query parameter', `zone-level must be between 0 and ${grid.maxRefinementLevel} for ${grid.id}.`);
      }
      const world: BBox = [-180, -90, 180, 90];
      boxes = collection ? clampToExtent(q.bbox ?? world, collection) : [q.bbox ?? world];
      const selection = grid.selectZonesInBBox(level, boxes);
      if (selection.edgeZones > MAX_EDGE_ZONES) {
        const estimate = boxes.reduce((n, b) => n + grid.estimateZonesInBBox(level, b), 0);
        this.guard(estimate, 'bbox and zone-level', 'about');
        throw new ValidationError(
          'Zone list too costly',
          `The bbox edges cross about ${fmt(selection.edgeZones)} zones of level ${level}; zone lists are counted along their edges, at most ${fmt(MAX_EDGE_ZONES)} edge zones. Use a coarser zone-level or a less elongated bbox.`,
        );
      }
      total = await runStepped(selection.count(MAX_ZONES_PER_QUERY));
      this.guard(total, 'bbox and zone-level', 'more than');
      if (q.keep) ({ zones, total } = await keptPage(await q.keep(level, { boxes }), (o, l) => runStepped(selection.page({ offset: o, limit: l })), total, offset, limit));
      else zones = offset < total ? await runStepped(selection.page({ offset, limit })) : [];
    }
    const next = offset + limit < total ? offset + limit : undefined;
    return { grid, collection, level, zones, total, offset, limit, boxes, ...(next !== undefined ? { nextOffset: next } : {}) };
  }

  /** Refuses a list over MAX_ZONES_PER_QUERY; `how` qualifies `count` when it is not exact. */
  private guard(count: number, what: string, how = ''): void {
    if (count > MAX_ZONES_PER_QUERY) {
      const size = how === 'more than' ? `more than ${fmt(MAX_ZONES_PER_QUERY)}` : `${how ? `${how} ` : ''}${fmt(count)}`;
      throw new ValidationError(
        'Zone list too large',
        `${what} select ${size} zones; a zone list may hold at most ${fmt(MAX_ZONES_PER_QUERY)} zones (over all pages). Use a smaller bbox, a coarser zone-level or parent-zone.`,
      );
    }
  }
}

/** `datetime` that restricts no time (empty, `../..`, `/..`, `../`, `/`); a malformed one is refused later, where it is parsed. */
function unrestricted(datetime: string): boolean {
  try {
    return parseTimeRestriction(datetime) === undefined;
  } catch {
    return false;
  }
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Zones a filtered list is walked in at a time: memory of one such page. */
const KEEP_WALK = 1000;

/**
 * The requested page of the zones `keep` passes, and how many pass in all: the whole list is walked
 * a page at a time, each zone a step of `runStepped`, so the event loop gets a turn every slice of
 * testing however long each test takes.
 */
async function keptPage(keep: (zoneId: string) => boolean, page: (offset: number, limit: number) => Promise<string[]>, total: number, offset: number, limit: number): Promise<{ zones: string[]; total: number }> {
  const found = { zones: [] as string[], kept: 0 };
  for (let o = 0; o < total; o += KEEP_WALK) await runStepped(keepIn(await page(o, KEEP_WALK), keep, found, offset, limit));
  return { zones: found.zones, total: found.kept };
}

function* keepIn(zones: string[], keep: (zoneId: string) => boolean, found: { zones: string[]; kept: number }, offset: number, limit: number): Stepped<void> {
  for (const z of zones) {
    if (keep(z)) {
      if (found.kept >= offset && found.zones.length < limit) found.zones.push(z);
      found.kept++;
    }
    yield;
  }
}

/**
 * The query box intersected with the collection's overall extent (its first bbox). Longitude
 * ranges are arcs on the circle, so boxes crossing the antimeridian intersect correctly; the
 * intersection can be two boxes (or none).
 */
export function clampToExtent(bbox: BBox, collection: Collection): BBox[] {
  const extent = collection.extent?.spatial?.bbox?.[0];
  if (!extent) return [bbox];
  return intersectBoxes(bbox, extent);
}

export function intersectBoxes(a: BBox, b: BBox): BBox[] {
  const s = Math.max(a[1], b[1]);
  const n = Math.min(a[3], b[3]);
  if (s > n) return [];
  const out: [number, number][] = [];
  for (const [a0, a1] of lonIntervals(a)) {
    for (const [b0, b1] of lonIntervals(b)) {
      const lo = Math.max(a0, b0);
      const hi = Math.min(a1, b1);
      if (lo <= hi) out.push([lo, hi]);
    }
  }
  // Rejoin the two halves of a range that crosses the antimeridian.
  const east = out.find(([, hi]) => hi === 180);
  const west = out.find(([lo]) => lo === -180);
  if (east && west && east !== west && out.length === 2) return [[east[0], s, west[1], n]];
  return out.map(([lo, hi]) => [lo, s, hi, n]);
}

function lonIntervals([w, , e]: BBox): [number, number][] {
  return w > e ? [[w, 180], [-180, e]] : [[w, e]];
}

function safeIsValid(grid: Dggrs, zoneId: string): boolean {
  try {
    return zoneId.length > 0 && zoneId.length <= 64 && grid.isValidZone(zoneId);
  } catch {
    return false;
  }
}

function truncate(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}…` : s;
}
