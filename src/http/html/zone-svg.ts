import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { outlineToRings } from '../../domain/geometry/rfc7946.js';
import { svgMap, type SvgMap } from './svg-map.js';

export type { SvgMap, SvgShape } from './svg-map.js';

export interface ZoneToDraw {
  zoneId: string;
  cls: string;
  href?: string;
}

/**
 * A map of zone outlines. Pieces split at the antimeridian are shifted next to a reference
 * longitude so neighbours stay adjacent.
 */
export function zoneSvgMap(grid: Dggrs, zones: readonly ZoneToDraw[], refLon: number, width = 480): SvgMap | undefined {
  const polygons: NonNullable<Parameters<typeof svgMap>[0]['polygons']> = [];
  for (const z of zones) {
    let rings: number[][][];
    try {
      rings = outlineToRings(grid.zoneOutline(z.zoneId, true));
    } catch {
      continue;
    }
    for (const ring of rings) {
      const xs = ring.map((p) => p[0]!);
      const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
      const shift = Math.max(...xs) - Math.min(...xs) >= 359 ? 0 : 360 * Math.round((refLon - cx) / 360);
      polygons.push({ rings: [ring.map(([x, y]) => [x! + shift, y!])], cls: z.cls, title: z.zoneId, ...(z.href ? { href: z.href } : {}) });
    }
  }
  if (polygons.length === 0) return undefined;
  // Many zones without links: one path per class keeps a world of zones small.
  if (polygons.length > 300 && polygons.every((p) => !p.href)) {
    const byClass = new Map<string, number[][][]>();
    for (const p of polygons) {
      const rings = byClass.get(p.cls) ?? [];
      rings.push(...p.rings);
      byClass.set(p.cls, rings);
    }
    return svgMap({ polygons: [...byClass].map(([cls, rings]) => ({ rings, cls, title: `${zones.length.toLocaleString('en-US')} zones` })), width, graticule: true, thin: true });
  }
  return svgMap({ polygons, width, graticule: true });
}
