import { inject, injectable, optional } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Dggrs, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import type { Collection } from '../../domain/collection.js';
import { outlineToGeoJson, type ZonePolygon } from '../../domain/geometry/rfc7946.js';
import type { ZoneDataService } from '../zone-data/zone-data-service.js';
import type { ZonesService } from './zones-service.js';

/** Per-field statistics of a collection in a zone (the zone-data use case computes them). */
export type ZoneStatistics = Pick<ZoneDataService, 'zoneStatistics'>;

export interface ZoneInfoQuery {
  dggrsId: string;
  zoneId: string;
  /** Zone info of a collection's zone carries its statistics. */
  collectionId?: string | undefined;
  /** Densify the zone's edges in `geometry`. */
  refined: boolean;
}

/** A zone and what surrounds it in its grid; on a collection, the collection's values there. */
export interface ZoneInfo {
  grid: Dggrs;
  collection?: Collection | undefined;
  zone: ZoneDescription;
  geometry: ZonePolygon;
  parents: string[];
  children: string[];
  neighbours: string[];
  statistics?: Awaited<ReturnType<ZoneStatistics['zoneStatistics']>>;
  /** The statistics were left out (their source failed or was not ready in time): another ask may have them. */
  statisticsLeftOut?: true;
}

/**
 * Statistics are an extra of zone info: they are left out when the source fails, and when it
 * has not answered within STATISTICS_MS (a remote backend over a large zone can take far longer
 * than the zone info itself); the work is then told to stop, as when the client leaves.
 */
const STATISTICS_MS = 2000;
const LEFT_OUT = Symbol('statistics left out');

/** Describes one zone of a grid, on its own or as a zone of a collection. */
@injectable()
export class ZoneInfoService {
  constructor(
    @inject(TOKENS.ZonesService) private readonly zones: ZonesService,
    @inject(TOKENS.ZoneDataService) @optional() private readonly stats?: ZoneStatistics,
    private readonly statisticsMs = STATISTICS_MS,
  ) {}

  async zoneInfo(q: ZoneInfoQuery, signal?: AbortSignal): Promise<ZoneInfo> {
    const collection = q.collectionId === undefined ? undefined : this.zones.collection(q.collectionId);
    const grid = this.zones.grid(q.dggrsId);
    const zone = this.zones.describe(grid, q.zoneId);
    const info: ZoneInfo = {
      grid,
      collection,
      zone,
      parents: grid.parents(zone.id),
      children: grid.children(zone.id),
      neighbours: grid.neighbours(zone.id),
      geometry: outlineToGeoJson(grid.zoneOutline(zone.id, q.refined)),
    };
    const statistics = collection ? await this.statistics(collection, grid, zone.id, signal) : undefined;
    if (statistics === LEFT_OUT) return { ...info, statisticsLeftOut: true };
    return statistics && Object.keys(statistics).length ? { ...info, statistics } : info;
  }

  /** The collection's statistics in the zone; undefined for backings without zone data; LEFT_OUT after a failure or no answer in time. */
  private async statistics(collection: Collection, grid: Dggrs, zoneId: string, signal?: AbortSignal): Promise<ZoneInfo['statistics'] | typeof LEFT_OUT> {
    if (!this.stats) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new AbortController();
    try {
      const given = new Promise<typeof LEFT_OUT>((resolve) => (timer = setTimeout(() => {
        resolve(LEFT_OUT);
        late.abort(new Error('zone statistics left out: not ready in time'));
      }, this.statisticsMs)));
      const work = this.stats.zoneStatistics(collection.id, grid.id, zoneId, undefined, signal ? AbortSignal.any([signal, late.signal]) : late.signal);
      work.catch(() => undefined);
      return await Promise.race([work, given]);
    } catch {
      return LEFT_OUT;
    } finally {
      clearTimeout(timer);
    }
  }
}
