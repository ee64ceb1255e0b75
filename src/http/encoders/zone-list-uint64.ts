import type { Dggrs } from '../../domain/dggrs/dggrs.js';

/**
 * A zone list as 64-bit integers (OGC 21-038r1 /req/zone-uint64/content): the count of zones
 * returned, then each zone's 64-bit id as the grid defines it, all little-endian. For a grid
 * with such ids only (the route answers 406 for the others).
 */
export function zoneListUint64(grid: Dggrs, zones: readonly string[]): Buffer {
  const toUint64 = grid.zoneToUint64!.bind(grid);
  const out = Buffer.allocUnsafe(8 * (zones.length + 1));
  out.writeBigUInt64LE(BigInt(zones.length), 0);
  zones.forEach((z, i) => out.writeBigUInt64LE(toUint64(z), 8 * (i + 1)));
  return out;
}
