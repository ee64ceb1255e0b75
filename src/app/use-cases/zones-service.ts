import type { BBox, Dggrs, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { Collection } from '../../domain/collection.js';
import type { CollectionsService } from './collections-service.js';
import { BadRequestError, NotFoundError, ValidationError } from '../errors.js';

/**
 * Zones over grids: resolves a grid (and optionally a collection), lists zones of a box or of a
 * parent zone a page at a time, and describes single zones. Routes stay thin on top of it.
 */

/** Zone lists estimated above this many zones (over all pages) are refused before being materialised. */
export const MAX_ZONES_PER_QUERY = 1_000_000;

export interface ZoneListQuery {
  bbox?: BBox;
  zoneLevel?: number;
  parentZone?: string;
  compactZones?: boolean;
  limit?: number;
  offset?: number;
}

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

export class ZonesService {
  constructor(
    private readonly grids: GridRegistry,
    private readonly collections: CollectionsService,
    private readonly maxZonesPerPage: number,
  ) {}

  listGrids(): Dggrs[] {
    return this.grids.list();
  }

  get defaultGrid(): Dggrs {
    return this.grids.defaultGrid;
  }

  grid(id: string): Dggrs {
    const g = this.grids.get(id);
    if (!g) {
      throw new NotFoundError('DGGRS not found', `No grid "${truncate(id)}". Available grids: ${this.grids.list().map((x) => x.id).join(', ')}.`);
    }
    return g;
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

  listZones(grid: Dggrs, q: ZoneListQuery, collection?: Collection): ZoneListPage {
    if (q.compactZones) {
      throw new BadRequestError('compact-zones is not supported', 'Compaction is not implemented: omit compact-zones or set compact-zones=false.');
    }
    const limit = Math.min(q.limit ?? this.maxZonesPerPage, this.maxZonesPerPage);
    const offset = q.offset ?? 0;
    let all: string[];
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
      this.guard(grid.subZoneCount(parent, depth), 'parent-zone and zone-level');
      all = grid.subZones(parent, depth);
    } else {
      level = q.zoneLevel ?? grid.defaultLevel;
      if (level > grid.maxRefinementLevel) {
        throw new ValidationError('Invalid query parameter', `zone-level must be between 0 and ${grid.maxRefinementLevel} for ${grid.id}.`);
      }
      const world: BBox = [-180, -90, 180, 90];
      boxes = collection ? clampToExtent(q.bbox ?? world, collection) : [q.bbox ?? world];
      const estimate = boxes.reduce((s, b) => s + grid.estimateZonesInBBox(level, b), 0);
      this.guard(estimate, 'bbox and zone-level');
      all = boxes.length === 1 ? grid.zonesInBBox(level, boxes[0]!) : [...new Set(boxes.flatMap((b) => grid.zonesInBBox(level, b)))];
    }
    const zones = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? offset + limit : undefined;
    return { grid, collection, level, zones, total: all.length, offset, limit, boxes, ...(next !== undefined ? { nextOffset: next } : {}) };
  }

  private guard(estimate: number, what: string): void {
    if (estimate > MAX_ZONES_PER_QUERY) {
      throw new ValidationError(
        'Zone list too large',
        `${what} select about ${Math.round(estimate).toLocaleString('en-US')} zones; a zone list may hold at most ${MAX_ZONES_PER_QUERY.toLocaleString('en-US')} zones (over all pages). Use a smaller bbox, a coarser zone-level or parent-zone.`,
      );
    }
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
