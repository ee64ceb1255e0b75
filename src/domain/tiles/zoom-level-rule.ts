import type { Dggrs } from '../dggrs/dggrs.js';
import { metresPerPixel, WEB_MERCATOR_QUAD } from './web-mercator-quad.js';

/** How a grid's levels are matched to the zooms of its tiles. */
export interface ZoomLevelRule {
  /** Widest a regular zone of the chosen level may be, in pixels of a 256-pixel tile at the equator. */
  zonePixels: number;
  /** Levels added to the chosen one (negative: coarser zones, fewer per tile), before the cap. */
  levelOffset: number;
}

/** Width of a regular zone of `level`, pixels at the equator on a 256-pixel tile at zoom z: the square root of its area. */
export function zoneWidthPixels(grid: Dggrs, level: number, z: number): number {
  return Math.sqrt(grid.levelInfo(level).zoneAreaMetersSquare) / metresPerPixel(z);
}

/**
 * The level whose zones a tile of zoom z holds: the coarsest level whose regular zone is at most
 * `zonePixels` wide at the equator, shifted by `levelOffset`, and capped at the grid's finest
 * level. A grid refining by aperture a divides a zone's width by sqrt(a) a level, so the chosen
 * zones are between zonePixels / sqrt(a) and zonePixels wide (Web Mercator widens them by
 * 1 / cos(latitude) away from the equator).
 */
export function levelForZoom(grid: Dggrs, z: number, rule: ZoomLevelRule): number {
  const max = grid.maxRefinementLevel;
  let level = max;
  for (let l = 0; l <= max; l++) {
    if (zoneWidthPixels(grid, l, z) <= rule.zonePixels) {
      level = l;
      break;
    }
  }
  return Math.max(0, Math.min(max, level + rule.levelOffset));
}

/**
 * The last zoom with tiles of their own: the first zoom at which the rule reaches the grid's finest
 * level (a map overzooms its tiles beyond it), or the matrix set's last zoom.
 */
export function maxZoomFor(grid: Dggrs, rule: ZoomLevelRule): number {
  for (let z = 0; z < WEB_MERCATOR_QUAD.maxZoom; z++) {
    if (levelForZoom(grid, z, rule) >= grid.maxRefinementLevel) return z;
  }
  return WEB_MERCATOR_QUAD.maxZoom;
}
