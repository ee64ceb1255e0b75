import { inject, injectable } from 'inversify';
import type { BBox, Dggrs, LonLat, Stepped } from '../../domain/dggrs/dggrs.js';
import type { Collection, FieldMeta } from '../../domain/collection.js';
import { outlineToGeoJson, type ZonePolygon } from '../../domain/geometry/rfc7946.js';
import { inRange, tileBoxes, tileInMatrix, tileRange, WEB_MERCATOR_QUAD, type TileRange } from '../../domain/tiles/web-mercator-quad.js';
import { levelForZoom, maxZoomFor, zoneWidthPixels, type ZoomLevelRule } from '../../domain/tiles/zoom-level-rule.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import { NotFoundError, ValidationError } from '../../ports/errors.js';
import { runStepped, takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import type { ZoneData } from '../../domain/zone-data.js';
import { selectFields, type ZoneDataLimits, type ZoneDataQuery } from '../zone-data/zone-data-service.js';
import { intersectBoxes } from '../zones/zones-service.js';
import { TOKENS } from '../tokens.js';
import { ancestorDepth, zonesPerAncestor } from '../zone-data/ancestor-reads.js';

/** The tiles' configuration (config `tiles`). */
export interface TilesConfig {
  zonePixels: number;
  levelOffset: Record<string, number>;
  maxZonesPerTile: number;
  maxZoneLevelDelta: number;
}

/** What the tiles need of the zone-data use case: values exactly as zone data gives them. */
export interface TileValues {
  collection(collectionId: string): Collection;
  fields(collectionId: string): Promise<Record<string, FieldMeta>>;
  collectionZoneData(collectionId: string, q: ZoneDataQuery, signal?: AbortSignal): Promise<ZoneData>;
}

/** The data selection a collection's tiles carry, as zone data takes it. */
export interface TileSelection {
  properties?: string[];
  datetime?: string;
  filter?: string;
  filterLang?: 'cql2-text' | 'cql2-json';
}

export interface TileRequest extends TileSelection {
  dggrsId: string;
  collectionId?: string;
  z: number;
  x: number;
  y: number;
  /** Overrides the rule's level (bounded by maxZoneLevelDelta and maxZonesPerTile). */
  zoneLevel?: number;
}

/** One zone of a tile: its id, its RFC 7946 polygon and, on a collection, its non-null values. */
export interface TileZone {
  zoneId: string;
  geometry: ZonePolygon;
  values: Record<string, number>;
}

export interface TileContent {
  level: number;
  zones: TileZone[];
  /**
   * On a collection: the relative depth at which the zone data of the zones' ancestors was read.
   * Raster values are sampled per depth, so a zone's value is the one zone data gives as a
   * sub-zone of its ancestor at this depth (the same at any depth for rows).
   */
  dataDepth?: number;
}

/** A tileset of a grid or of a collection's data on a grid. */
export interface Tileset {
  grid: Dggrs;
  collection?: Collection;
  minZoom: number;
  maxZoom: number;
  /** Lon/lat extent of the tiles with content: the collection's extent, else the world. */
  bounds: BBox;
  /** Tiles of each zoom 0..maxZoom that may hold zones (tiles beyond them are 404). */
  limits: TileRange[];
}

/** Part of a tile's box added on each side: the tile buffer (64 of 4096) and a little more for simplification. */
const TILE_MARGIN = 80 / 4096;
/** A tile's reads test the sub-zones of ancestors it chooses: the request changes them by its zone-level. */
const TILE_FEWER_ZONES = 'Ask a coarser zone-level for this tile';
/** Zones whose centroid ancestor did not hold them are read one by one, up to this many a tile. */
const MAX_STRAYS = 64;

/** Zones wider than this many pixels at the equator are drawn with densified edges. */
const REFINE_ABOVE_PIXELS = 64;
/** Zone-data reads of one tile in progress together (a lake read waits on DuckDB's threads, not the loop). */
const READS_AT_ONCE = 4;

const WORLD: BBox = [-180, -90, 180, 90];

/**
 * Vector tiles of zones: which zones a WebMercatorQuad tile holds (the zoom-to-level rule,
 * docs/tiles.md), their RFC 7946 outlines and, on a collection, their values from the zone-data
 * use case (the same values a zone-data request answers). Encoding is the HTTP side's (MVT).
 */
@injectable()
export class TilesService {
  constructor(
    @inject(TOKENS.GridRegistry) private readonly grids: GridRegistry,
    @inject(TOKENS.ZoneDataService) private readonly values: TileValues,
    @inject(TOKENS.TilesConfig) private readonly config: TilesConfig,
    @inject(TOKENS.ZoneDataLimits) private readonly limits: Pick<ZoneDataLimits, 'maxSubZones' | 'maxZoneDataValues'>,
  ) {}

  collection(collectionId: string): Collection {
    return this.values.collection(collectionId);
  }

  rule(grid: Dggrs): ZoomLevelRule {
    return { zonePixels: this.config.zonePixels, levelOffset: this.config.levelOffset[grid.id] ?? 0 };
  }

  /** The level the rule gives a tile of zoom z on the grid. */
  levelFor(grid: Dggrs, z: number): number {
    return levelForZoom(grid, z, this.rule(grid));
  }

  tileset(dggrsId: string, collectionId?: string): Tileset {
    const grid = this.grids.require(dggrsId);
    const collection = collectionId !== undefined ? this.values.collection(collectionId) : undefined;
    const maxZoom = maxZoomFor(grid, this.rule(grid));
    const bounds = collection?.extent?.spatial?.bbox?.[0] ?? WORLD;
    // A zone at the extent's edge reaches into the next tile (zones are at most a tenth of a tile wide).
    const limits = Array.from({ length: maxZoom + 1 }, (_, z) => tileRange(z, bounds, collection ? 1 : 0));
    return { grid, ...(collection ? { collection } : {}), minZoom: 0, maxZoom, bounds, limits };
  }

  /** The fields a collection's tiles carry for `properties` (all of the collection's when absent); an unknown one is refused as zone data refuses it. */
  async tileFields(collectionId: string, properties?: string[]): Promise<string[]> {
    const known = Object.keys(await this.values.fields(collectionId));
    return properties && properties.length > 0 ? selectFields(known, properties, undefined) : known;
  }

  /**
   * The zones of one tile. Everything that grows the work is checked before it is done: the tile
   * in the matrix and in the tileset's limits (404), `zone-level` within its bound and the zones
   * the tile lists (estimated, then counted) under tiles.maxZonesPerTile.
   */
  async tile(q: TileRequest, signal?: AbortSignal): Promise<TileContent> {
    const { z, x, y } = q;
    const set = this.tileset(q.dggrsId, q.collectionId);
    const { grid, collection } = set;
    if (!tileInMatrix(z, x, y)) {
      throw new NotFoundError('Tile not found', `WebMercatorQuad has tile matrices 0-${WEB_MERCATOR_QUAD.maxZoom}; matrix z holds rows and columns 0 to 2^z - 1 (${z}/${y}/${x} is outside).`);
    }
    const limit = set.limits[Math.min(z, set.maxZoom)]!;
    const shift = z - Math.min(z, set.maxZoom);
    // Beyond maxZoom the limits of maxZoom hold, scaled (clients may ask tiles a map would overzoom).
    const scaled = { ...limit, minCol: limit.minCol * 2 ** shift, maxCol: (limit.maxCol + 1) * 2 ** shift - 1, minRow: limit.minRow * 2 ** shift, maxRow: (limit.maxRow + 1) * 2 ** shift - 1 };
    if (!inRange(scaled, x, y)) {
      throw new NotFoundError('Tile not found', `Tile ${z}/${y}/${x} is outside the tileset's limits at zoom ${z} (rows ${scaled.minRow}-${scaled.maxRow}, columns ${scaled.minCol}-${scaled.maxCol}): the data's extent. See tileMatrixSetLimits in the tileset description.`);
    }
    const level = this.level(grid, z, q.zoneLevel);
    let boxes = tileBoxes(z, x, y, TILE_MARGIN);
    if (collection) boxes = boxes.flatMap((b) => clampBox(b, collection));
    if (boxes.length === 0) return { level, zones: [] };
    const zoneIds = await this.listZones(grid, level, boxes, q.zoneLevel !== undefined);
    signal?.throwIfAborted();
    // The rule's zones are a few pixels: their corners draw them. A coarser zone-level's are large
    // enough for their edges' curvature to show, which the grid's densified outlines follow.
    const refined = zoneWidthPixels(grid, level, z) > REFINE_ABOVE_PIXELS;
    const outlines = await runStepped(outlinesOf(grid, zoneIds, refined));
    signal?.throwIfAborted();
    if (!collection) return { level, zones: outlines.map((o) => ({ zoneId: o.zoneId, geometry: o.geometry, values: {} })) };
    const { values, depth } = await this.zoneValues(grid, collection, level, outlines, q, signal);
    const zones: TileZone[] = [];
    for (const o of outlines) {
      const v = values.get(o.zoneId);
      if (v && Object.keys(v).length > 0) zones.push({ zoneId: o.zoneId, geometry: o.geometry, values: v });
    }
    return { level, zones, dataDepth: depth };
  }

  private level(grid: Dggrs, z: number, asked: number | undefined): number {
    const ruled = this.levelFor(grid, z);
    if (asked === undefined) return ruled;
    const max = Math.min(grid.maxRefinementLevel, ruled + this.config.maxZoneLevelDelta);
    if (asked > max) {
      throw new ValidationError('Invalid query parameter', `zone-level ${asked} is too fine for zoom ${z} of ${grid.id}: the rule gives level ${ruled}, and a tile may ask at most ${this.config.maxZoneLevelDelta} levels finer (tiles.maxZoneLevelDelta) within the grid's levels 0-${grid.maxRefinementLevel}: at most ${max}.`);
    }
    return asked;
  }

  /** The zones of `level` meeting the boxes, bounded by tiles.maxZonesPerTile before any is listed. */
  private async listZones(grid: Dggrs, level: number, boxes: BBox[], asked: boolean): Promise<string[]> {
    const max = this.config.maxZonesPerTile;
    const refuse = (n: string) =>
      new ValidationError('Tile too large', `The tile holds ${n} zones of level ${level} of ${grid.id}; a tile may hold at most ${max} (tiles.maxZonesPerTile).${asked ? ' Ask a coarser zone-level.' : ' Raise tiles.zonePixels or lower tiles.levelOffset for this grid.'}`);
    const estimate = boxes.reduce((n, b) => n + grid.estimateZonesInBBox(level, b), 0);
    // The estimate comes from areas; an exact count (stopped past the bound) decides near the bound.
    if (estimate > 4 * max) throw refuse(`about ${Math.round(estimate)}`);
    const selection = grid.selectZonesInBBox(level, boxes);
    const total = await runStepped(selection.count(max));
    if (total > max) throw refuse(`more than ${max}`);
    return runStepped(selection.page({ offset: 0, limit: total }));
  }

  /**
   * Values of the tile's zones from the zone-data use case: the zones are grouped by an ancestor
   * `d` levels up (the zone of that level holding the zone's centroid), and each ancestor's zone
   * data at depth d gives its sub-zones' values. `d` balances the values computed in vain (coarse
   * ancestors reach past the tile) against the number of reads, within the zone-data limits. A
   * zone its centroid's ancestor does not list (grids whose children reach past their parent) is
   * read on its own, at depth 0.
   */
  private async zoneValues(grid: Dggrs, collection: Collection, level: number, zones: ZoneOutline[], q: TileSelection, signal?: AbortSignal): Promise<{ values: Map<string, Record<string, number>>; depth: number }> {
    const out = new Map<string, Record<string, number>>();
    if (zones.length === 0) return { values: out, depth: 0 };
    const fields = Math.max(1, (await this.tileFields(collection.id, q.properties)).length);
    // About the tile's zones over each ancestor's, plus the ancestors along the tile's edges.
    const covering = (k: number) => zones.length / zonesPerAncestor(grid, level, k);
    const d = ancestorDepth(grid, level, collection.backing.kind, fields, this.limits, (k) => (k === 0 ? zones.length : covering(k) + 4 * Math.sqrt(covering(k)) + 4));
    const ancestors = await runStepped(ancestorsOf(grid, zones, level - d));
    const wanted = new Set(zones.map((z) => z.zoneId));
    const read = async (zoneId: string, depth: number) => {
      if (turnDue()) await takeTurn(signal);
      const data = await this.values.collectionZoneData(collection.id, { dggrsId: grid.id, zoneId, zoneDepth: String(depth), ...selection(q), fewerZones: TILE_FEWER_ZONES }, signal);
      for (const dv of data.depths) {
        if (dv.depth !== depth) continue;
        dv.zones.forEach((id, i) => {
          if (!wanted.has(id) || out.has(id)) return;
          const v: Record<string, number> = {};
          for (const [f, column] of Object.entries(dv.values)) {
            const x = column[i];
            if (x !== null && x !== undefined && Number.isFinite(x)) v[f] = x;
          }
          out.set(id, v);
        });
      }
    };
    await inParallel([...ancestors], READS_AT_ONCE, (ancestor) => read(ancestor, d));
    if (d > 0) {
      const strays = zones.filter((z) => !out.has(z.zoneId)).slice(0, MAX_STRAYS);
      await inParallel(strays, READS_AT_ONCE, (s) => read(s.zoneId, 0));
    }
    return { values: out, depth: d };
  }
}

interface ZoneOutline {
  zoneId: string;
  geometry: ZonePolygon;
  centroid: LonLat;
}

function* outlinesOf(grid: Dggrs, zoneIds: string[], refined: boolean): Stepped<ZoneOutline[]> {
  const out: ZoneOutline[] = [];
  for (const zoneId of zoneIds) {
    const ring = grid.zoneOutline(zoneId, refined);
    out.push({ zoneId, geometry: outlineToGeoJson(ring), centroid: ringCentre(ring) });
    yield;
  }
  return out;
}

/** The zones of `level` holding the zones' centroids. */
function* ancestorsOf(grid: Dggrs, zones: ZoneOutline[], level: number): Stepped<Set<string>> {
  const out = new Set<string>();
  for (const z of zones) {
    out.add(grid.zoneFromPoint(z.centroid[0], z.centroid[1], level));
    yield;
  }
  return out;
}

/**
 * A point well inside a zone: the mean of its corners (the ring's longitudes are continuous, so
 * the mean is the zone's even across the antimeridian), folded back into [-180, 180].
 */
function ringCentre(ring: readonly LonLat[]): LonLat {
  const n = ring.length > 1 ? ring.length - 1 : ring.length;
  let lon = 0, lat = 0;
  for (let i = 0; i < n; i++) {
    lon += ring[i]![0];
    lat += ring[i]![1];
  }
  lon /= n;
  lat /= n;
  return [((((lon + 180) % 360) + 360) % 360) - 180, Math.max(-90, Math.min(90, lat))];
}

/** Runs `work` on every item, at most `width` at a time; the first failure rejects, and no item is started after it. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      try {
        await work(items[next++]!);
      } catch (err) {
        next = items.length;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

function clampBox(b: BBox, collection: Collection): BBox[] {
  const extent = collection.extent?.spatial?.bbox?.[0];
  return extent ? intersectBoxes(b, extent) : [b];
}

function selection(q: TileSelection): Omit<ZoneDataQuery, 'dggrsId' | 'zoneId' | 'zoneDepth'> {
  return {
    ...(q.properties ? { properties: q.properties } : {}),
    ...(q.datetime !== undefined ? { datetime: q.datetime } : {}),
    ...(q.filter !== undefined ? { filter: q.filter } : {}),
    ...(q.filterLang ? { filterLang: q.filterLang } : {}),
  };
}
