import type { Dggrs } from '../../../domain/dggrs/dggrs.js';
import { outlineToRings } from '../../../domain/geometry/rfc7946.js';

/**
 * A small inline SVG map of zone outlines (equirectangular, no tiles, no network). Pieces split
 * at the antimeridian are shifted next to a reference longitude so neighbours stay adjacent.
 */
export interface SvgShape {
  d: string;
  cls: string;
  href?: string;
  title: string;
}

export interface SvgMap {
  viewBox: string;
  width: number;
  height: number;
  shapes: SvgShape[];
  strokeWidth: number;
}

export interface ZoneToDraw {
  zoneId: string;
  cls: string;
  href?: string;
}

export function zoneSvgMap(grid: Dggrs, zones: readonly ZoneToDraw[], refLon: number, width = 480): SvgMap | undefined {
  const pieces: { ring: number[][]; z: ZoneToDraw }[] = [];
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
      pieces.push({ ring: ring.map(([x, y]) => [x! + shift, y!]), z });
    }
  }
  if (pieces.length === 0) return undefined;
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const { ring } of pieces) for (const [x, y] of ring) {
    w = Math.min(w, x!); e = Math.max(e, x!); s = Math.min(s, y!); n = Math.max(n, y!);
  }
  const k = Math.max(0.2, Math.cos((((s + n) / 2) * Math.PI) / 180));
  const pad = Math.max((e - w) * k, n - s) * 0.04 + 1e-9;
  const vx = w * k - pad, vy = -n - pad, vw = (e - w) * k + 2 * pad, vh = n - s + 2 * pad;
  const height = Math.max(120, Math.min(480, Math.round((width * vh) / vw)));
  const shapes = pieces.map(({ ring, z }) => ({
    d: 'M' + ring.map(([x, y]) => `${round(x! * k)},${round(-y!)}`).join('L') + 'Z',
    cls: z.cls,
    title: z.zoneId,
    ...(z.href ? { href: z.href } : {}),
  }));
  return { viewBox: `${round(vx)} ${round(vy)} ${round(vw)} ${round(vh)}`, width, height, shapes, strokeWidth: round(Math.max(vw, vh) / 400) };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
