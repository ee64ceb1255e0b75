/**
 * The keys of a zone pyramid's cells (src/ports/zone-pyramid-store.ts): a cell of level L is keyed
 * by the grid's numeric key of its zone and by a coarse key, the key of the zone of the coarse
 * level C holding the cell zone's centroid (a cell at or above C is its own coarse zone). The
 * ingest that writes cells and the reader that asks for them both compute keys here, so they
 * agree to the bit: a point on a border (a 7H vertex child's centroid is a corner of its parent)
 * goes wherever the grid's zone-from-point puts it, the same way on both sides.
 */
import type { Dggrs, LonLat, Stepped } from '../dggrs/dggrs.js';

/** A grid with numeric zone keys (what a pyramid needs). */
export type KeyedGrid = Dggrs & Required<Pick<Dggrs, 'zoneKeyFromPoint' | 'zoneIdFromKey' | 'maxZoneKeyLevel'>>;

export function hasZoneKeys(grid: Dggrs): grid is KeyedGrid {
  return !!grid.zoneKeyFromPoint && !!grid.zoneIdFromKey && grid.maxZoneKeyLevel !== undefined;
}

/** The zone's centroid: the grid's cheap one where it has it, else its description's (the same point). */
export function zoneCentroidOf(grid: Dggrs, zoneId: string): LonLat {
  return grid.zoneCentroid ? grid.zoneCentroid(zoneId) : grid.describeZone(zoneId).centroid;
}

/**
 * The key of a zone from its id: read from the id where the grid can (exact), else the key of the
 * zone holding its centroid, checked to name the zone back (a RangeError when it does not).
 */
export function zoneKeyOfId(grid: KeyedGrid, zoneId: string): number {
  if (grid.zoneKeyFromId) return grid.zoneKeyFromId(zoneId);
  const level = grid.zoneLevel(zoneId);
  const [lon, lat] = zoneCentroidOf(grid, zoneId);
  const key = grid.zoneKeyFromPoint(lon, lat, level);
  if (Number.isNaN(key) || grid.zoneIdFromKey(key, level) !== zoneId) throw new RangeError(`${grid.id}: no numeric key names zone ${zoneId}`);
  return key;
}

/** The coarse key of the cell with key `key` at `level` (see above); NaN when the grid places no zone of `coarseLevel` there. */
export function coarseKey(grid: KeyedGrid, level: number, key: number, coarseLevel: number): number {
  if (level <= coarseLevel) return key;
  const [lon, lat] = zoneCentroidOf(grid, grid.zoneIdFromKey(key, level));
  return grid.zoneKeyFromPoint(lon, lat, coarseLevel);
}

/** The coarse key of a zone given by its id. */
export function coarseKeyOfZone(grid: KeyedGrid, zoneId: string, coarseLevel: number): number {
  const level = grid.zoneLevel(zoneId);
  if (level <= coarseLevel) return zoneKeyOfId(grid, zoneId);
  const [lon, lat] = zoneCentroidOf(grid, zoneId);
  return grid.zoneKeyFromPoint(lon, lat, coarseLevel);
}

/** Zones whose keys are computed between two pauses of stepped work (about a millisecond). */
const ZONES_PER_STEP = 256;

/** The keys of some zones of one level, in their order, and their distinct coarse keys (ascending): a pyramid read. */
export interface ZoneKeys {
  keys: number[];
  coarse: number[];
}

/** Keys and coarse keys of `zones` (all of one level), pausing every few hundred zones. */
export function* zoneKeysOf(grid: KeyedGrid, zones: readonly string[], coarseLevel: number): Stepped<ZoneKeys> {
  const keys: number[] = new Array(zones.length);
  const coarse = new Set<number>();
  for (let i = 0; i < zones.length; i++) {
    const zone = zones[i]!;
    keys[i] = zoneKeyOfId(grid, zone);
    const c = coarseKeyOfZone(grid, zone, coarseLevel);
    if (!Number.isNaN(c)) coarse.add(c);
    if (i % ZONES_PER_STEP === ZONES_PER_STEP - 1) yield;
  }
  return { keys, coarse: [...coarse].sort((a, b) => a - b) };
}
