/**
 * The vector features of a parquet-lake collection in one zone, their geometry quantized to the
 * zone's sub-zones at one depth: the content of DGGS-JSON-FG (OGC 21-038r1 /req/data-dggs-jsonfg).
 *
 * The zone at that depth is the union of its sub-zones in the grid's order: a position is inside
 * when the sub-zone holding it is one of them (the same rule that assigns values in DGGS-JSON), and
 * its local index is its 1-based place in that order. Rows are read from the zone's extent (an exact
 * envelope test in the lake), counted first and refused over MAX_ZONE_FEATURES; quantizing is bounded
 * by MAX_QUANTIZED_POSITIONS densified positions, and the event loop gets a turn between slices.
 */
import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Collection } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { Geometry } from '../../domain/geometry/geojson.js';
import { decodeWkb, WkbError } from '../../domain/geometry/wkb.js';
import { dggsPlace, QuantizeBudgetError, type DggsPlace, type Quantizer } from '../../domain/geometry/dggs-place.js';
import { zoneSpanDegrees } from '../../domain/zone-data.js';
import { InvalidDatetimeError, parseTimeRestriction } from '../../domain/time-interval.js';
import type { GridRegistry } from '../../ports/grid-registry.js';
import type { CollectionCatalog } from '../../ports/collection-catalog.js';
import type { LakeReader, LakeValue } from '../../ports/lake-reader.js';
import { withLakeFaults } from '../lake-faults.js';
import { zoneDepthParam } from '../zone-depth-param.js';
import { InvalidRequestError, NotFoundError, UnsupportedFormatError, ValidationError } from '../../ports/errors.js';
import { selectColumns } from './items-service.js';
import { parseFilter, type RowSelection } from './row-selection.js';
import { DEFAULT_LAKE_QUERY_SECONDS, LakeTimeBudget } from './lake-time-budget.js';

/** Features one answer may carry (counted before any is quantized). */
export const MAX_ZONE_FEATURES = 10_000;
/** Positions (vertices and the points densifying their segments) one answer may locate. */
export const MAX_QUANTIZED_POSITIONS = 2_000_000;
/** Features quantized between two turns of the event loop. */
const FEATURES_PER_TURN = 200;

/** Local sub-zone indices, or global zone ids (the `-zoneids` profiles). */
export type PlaceNaming = 'index' | 'zone-id';

export interface ZoneFeaturesQuery extends RowSelection {
  dggrsId: string;
  zoneId: string;
  /** One relative depth; the grid's default depth when absent. */
  zoneDepth?: string;
  naming: PlaceNaming;
  /** Also give each feature its CRS84 `geometry` (the `-plus` profiles). */
  withGeometry: boolean;
}

export interface ZoneFeature {
  dggsPlace: DggsPlace;
  geometry: Geometry | null;
  time: string | null;
  properties: Record<string, LakeValue>;
}

export interface ZoneFeatures {
  grid: Dggrs;
  zoneId: string;
  depth: number;
  /** Rows of the zone's extent that were looked at. */
  candidates: number;
  features: ZoneFeature[];
}

@injectable()
export class ZoneFeaturesService {
  constructor(
    @inject(TOKENS.GridRegistry) private readonly grids: GridRegistry,
    @inject(TOKENS.CollectionCatalog) private readonly catalog: CollectionCatalog,
    @inject(TOKENS.LakeReader) private readonly lake: LakeReader,
    @inject(TOKENS.MaxSubZones) private readonly maxSubZones: number,
    @inject(TOKENS.LakeTimeBudget) private readonly lakeTime = new LakeTimeBudget(DEFAULT_LAKE_QUERY_SECONDS),
  ) {}

  /** True when the collection's zone data can be given as features (a parquet lake). */
  hasFeatures(collectionId: string): boolean {
    return this.catalog.get(collectionId)?.backing.kind === 'parquet-lake';
  }

  /** `signal`: the work stops when it aborts (the client left); the lake read is bounded by limits.lakeQuerySeconds too. */
  async features(collectionId: string, q: ZoneFeaturesQuery, signal?: AbortSignal): Promise<ZoneFeatures> {
    const c = this.lakeCollection(collectionId);
    const grid = this.grids.require(q.dggrsId);
    if (!grid.isValidZone(q.zoneId)) throw new NotFoundError('Zone not found', `"${q.zoneId.slice(0, 64)}" is not a zone of ${grid.id}; zone ids look like ${grid.zoneIdForm}.`);
    const depth = this.depth(grid, q.zoneId, q.zoneDepth);
    const count = grid.subZoneCount(q.zoneId, depth);
    if (count > this.maxSubZones) {
      throw new ValidationError('Too many sub-zones', `zone-depth ${depth} below ${q.zoneId} has ${count} sub-zones; at most ${this.maxSubZones} (limits.maxSubZones). Use a smaller zone-depth.`);
    }
    const dataset = await withLakeFaults(c.id, () => this.lake.describe(c));
    const geometryColumn = dataset.geometryColumn;
    if (!geometryColumn) throw new UnsupportedFormatError(['dggs+json', 'json'], `${c.id} has no geometry column, so no features to place.`);
    const columns = selectColumns(dataset, { ...(q.properties ? { properties: q.properties } : {}), ...(q.excludeProperties ? { excludeProperties: q.excludeProperties } : {}), keepGeometry: false })
      .filter((n) => n !== geometryColumn);
    let datetime;
    try {
      datetime = parseTimeRestriction(q.datetime);
    } catch (e) {
      if (e instanceof InvalidDatetimeError) throw new ValidationError('Invalid query parameter', e.message);
      throw e;
    }
    const request = {
      offset: 0,
      limit: MAX_ZONE_FEATURES,
      columns: [geometryColumn, ...columns, ...(dataset.datetimeColumn && !columns.includes(dataset.datetimeColumn) ? [dataset.datetimeColumn] : [])],
      bbox: grid.describeZone(q.zoneId).bbox,
      ...(datetime && dataset.datetimeColumn ? { datetime } : {}),
      ...(q.filter !== undefined ? { filter: parseFilter(q.filter, q.filterLang ?? 'cql2-text') } : {}),
    };
    const page = await this.lakeTime.run(signal, (s) => withLakeFaults(c.id, () => this.lake.page(c, { ...request, signal: s, workClass: 'zone-data' })));
    if (page.numberMatched > MAX_ZONE_FEATURES) {
      throw new ValidationError('Too many features', `${page.numberMatched} rows of ${c.id} lie in the extent of ${q.zoneId}; DGGS-JSON-FG carries at most ${MAX_ZONE_FEATURES}. Use a smaller zone, a filter or datetime.`);
    }

    const subZones = grid.subZones(q.zoneId, depth);
    const index = new Map(subZones.map((z, i) => [z, i + 1]));
    const level = grid.zoneLevel(q.zoneId) + depth;
    const quantizer: Quantizer = {
      locate: (lon, lat) => {
        try {
          return index.get(grid.zoneFromPoint(lon, lat, level)) ?? 0;
        } catch {
          return 0;
        }
      },
      name: q.naming === 'index' ? (i) => i : (i) => (i > 0 ? subZones[i - 1]! : null),
      // An eighth of a sub-zone's span: a line misses only corners it clips for less than that.
      step: zoneSpanDegrees(grid, level) / 8,
      budget: { left: MAX_QUANTIZED_POSITIONS },
    };
    const features: ZoneFeature[] = [];
    for (let r = 0; r < page.rows.length; r++) {
      const values = page.rows[r]!.values;
      const wkb = values[geometryColumn];
      if (!(wkb instanceof Uint8Array)) continue;
      let geometry: Geometry;
      try {
        geometry = decodeWkb(wkb);
      } catch (e) {
        if (e instanceof WkbError) continue;
        throw e;
      }
      let place: DggsPlace | null;
      try {
        place = dggsPlace(geometry, quantizer);
      } catch (e) {
        if (e instanceof QuantizeBudgetError) {
          throw new ValidationError('Too many positions', `Quantizing the features of ${q.zoneId} at zone-depth ${depth} needs more than ${MAX_QUANTIZED_POSITIONS} positions. Use a smaller zone-depth or a smaller zone.`);
        }
        throw e;
      }
      if (place) {
        const time = dataset.datetimeColumn ? values[dataset.datetimeColumn] : null;
        features.push({
          dggsPlace: place,
          geometry: q.withGeometry ? geometry : null,
          time: typeof time === 'string' ? time : null,
          properties: Object.fromEntries(columns.map((n) => [n, values[n] ?? null])),
        });
      }
      if (r % FEATURES_PER_TURN === FEATURES_PER_TURN - 1) {
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
    }
    return { grid, zoneId: q.zoneId, depth, candidates: page.rows.length, features };
  }

  private lakeCollection(collectionId: string): Collection {
    const c = this.catalog.get(collectionId);
    if (!c) throw new NotFoundError('Collection not found', 'See /collections for the collection ids.');
    if (c.backing.kind !== 'parquet-lake') {
      throw new UnsupportedFormatError(['dggs+json', 'json', 'geo+json'], `DGGS-JSON-FG places vector features: it is offered for parquet-lake collections, and ${c.id} is "${c.backing.kind}".`);
    }
    return c;
  }

  /** The one depth of the quantization (the profile's `depth`). */
  private depth(grid: Dggrs, zoneId: string, text: string | undefined): number {
    const depths = zoneDepthParam(grid, text);
    if (depths.length !== 1) throw new InvalidRequestError('One zone-depth', 'DGGS-JSON-FG quantizes to the sub-zones of one depth: give zone-depth a single value, like 5.');
    const depth = depths[0]!;
    const most = Math.min(grid.maxRelativeDepth, grid.maxRefinementLevel - grid.zoneLevel(zoneId));
    if (depth > most) throw new ValidationError('zone-depth too deep', `zone-depth may be at most ${most} for ${zoneId} of ${grid.id}.`);
    return depth;
  }
}
