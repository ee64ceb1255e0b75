/**
 * The bbox listing as it was written before zone lists were counted without listing: DGGAL's
 * listZones literally (start from the 12 level-0 zones, replace the set by the children of its
 * members level by level, keep a child when its extent meets the box, sort by 64-bit id). Kept as an
 * independent reference for the lattice-based selection; slow, so for small levels and boxes only.
 */
import type { BBox } from '../../../src/domain/dggrs/dggrs.js';
import { extentsIntersect, type RadExtent } from '../../../src/domain/dggrs/core/box-cover.js';
import { children, zoneId, type I7HZone } from '../../../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { extentRadians } from '../../../src/domain/dggrs/lattices/7h/i7h-outline.js';
import type { SliceAndDiceProjection } from '../../../src/domain/dggrs/projections/slice-and-dice-projection.js';

const DEG = Math.PI / 180;

export function descentZonesInBBox(proj: SliceAndDiceProjection, level: number, bbox: BBox): string[] {
  const [minLon, minLat, maxLon, maxLat] = bbox;
  const box: RadExtent = [minLat * DEG, minLon * DEG, maxLat * DEG, maxLon * DEG];
  const whole = minLat <= -90 && maxLat >= 90 && minLon <= -180 && maxLon >= 180;
  let current: I7HZone[] = [];
  for (let root = 0; root < 12; root++) current.push({ k: 0, root, ix: 0, sh: 0 });
  if (level === 0 && !whole) current = current.filter((z) => extentsIntersect(extentRadians(z, proj), box));
  for (let l = 1; l <= level; l++) {
    const seen = new Set<string>();
    const next: I7HZone[] = [];
    for (const z of current) {
      for (const c of children(z)) {
        const id = zoneId(c);
        if (seen.has(id)) continue;
        if (!whole && !extentsIntersect(extentRadians(c, proj), box)) continue;
        seen.add(id);
        next.push(c);
      }
    }
    current = next;
  }
  current.sort((a, b) => a.k - b.k || a.root - b.root || a.ix - b.ix || a.sh - b.sh);
  return current.map(zoneId);
}
