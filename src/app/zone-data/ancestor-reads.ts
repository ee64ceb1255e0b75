/**
 * Values of many zones of one level read as the sub-zones of a few ancestors (tiles, filtered zone
 * lists): one zone-data read per ancestor. How far up the ancestors are is a trade: coarse ancestors
 * compute zones in vain (outside the wanted area), fine ones take more reads. Both features choose
 * it here, with the same read costs.
 */
import type { BackingKind } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';

/**
 * What one zone-data read of a backing kind costs, in zone values computed: a raster read is a
 * window of cached tiles; a lake's read is a DuckDB scan (20-30 ms for the demo lake), worth
 * thousands of zones binned. A remote API's read costs more still, but its features are bounded
 * (remoteBackends.maxFeatures, per request): smaller ancestors read fewer features in vain, so
 * more tiles and zone lists stay within that bound.
 */
export const READ_COST: Record<BackingKind, number> = { 'raster-url': 200, stac: 400, 'parquet-lake': 5000, 'ogc-features': 1000, 'clickhouse-pyramid': 1000 };

/** The zone-data bounds one ancestor's read must stay within. */
export interface AncestorReadLimits {
  maxSubZones: number;
  maxZoneDataValues: number;
}

/**
 * The ancestors' relative depth d (0: the zones themselves): the least estimated work, reads
 * (`READ_COST` each) plus zone values computed, among the depths whose one read stays within the
 * zone-data limits (with a 1.2 margin: a grid's children may outnumber the aperture's count).
 * `ancestorsAt(d)` estimates how many ancestors of level `level - d` cover the wanted zones.
 */
export function ancestorDepth(grid: Dggrs, level: number, kind: BackingKind, fields: number, limits: AncestorReadLimits, ancestorsAt: (d: number) => number): number {
  const readCost = READ_COST[kind];
  let best = { d: 0, cost: ancestorsAt(0) * (1 + readCost) };
  const top = Math.min(grid.maxRelativeDepth, level);
  for (let d = 1; d <= top; d++) {
    const perAncestor = zonesPerAncestor(grid, level, d);
    if (perAncestor * 1.2 > limits.maxSubZones || perAncestor * 1.2 * Math.max(1, fields) > limits.maxZoneDataValues) break;
    const cost = ancestorsAt(d) * (perAncestor + readCost);
    if (cost < best.cost) best = { d, cost };
  }
  return best.d;
}

/** About how many zones of `level` one ancestor `d` levels up holds. */
export function zonesPerAncestor(grid: Dggrs, level: number, d: number): number {
  return grid.levelInfo(level).zoneCount / grid.levelInfo(level - d).zoneCount;
}
