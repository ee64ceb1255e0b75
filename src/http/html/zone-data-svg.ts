import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { zoneSvgMap, type SvgMap } from './zone-svg.js';

/**
 * A choropleth of one field over sub-zones, built on the shared zone map: each zone gets a CSS
 * class for one of RAMP's bins (or `cn` for null), so the shared `_svg-map` template draws it
 * unchanged and the page's stylesheet supplies the colours.
 */
export const RAMP = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];
export const NULL_COLOUR = '#b0b0b0';

export interface ChoroplethLegend {
  field: string;
  min: number | null;
  max: number | null;
  ramp: string[];
  nullColour: string;
  nulls: number;
}

export interface Choropleth {
  map: SvgMap | undefined;
  legend: ChoroplethLegend;
  /** `.c0{fill:...}` rules for the bins and nulls. */
  css: string;
}

export function choropleth(
  grid: Dggrs,
  zones: readonly string[],
  values: readonly (number | null)[],
  field: string,
  refLon: number,
  href: (zoneId: string) => string,
): Choropleth {
  let min = Infinity, max = -Infinity, nulls = 0;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) nulls++;
    else { min = Math.min(min, v); max = Math.max(max, v); }
  }
  const has = min <= max;
  const bin = (v: number | null | undefined): string => {
    if (v === null || v === undefined || !Number.isFinite(v) || !has) return 'cn';
    // A constant field has no spread: paint it with the middle of the ramp.
    const t = max > min ? (v - min) / (max - min) : 0.5;
    return `c${Math.min(RAMP.length - 1, Math.floor(t * RAMP.length))}`;
  };
  const map = zoneSvgMap(grid, zones.map((z, i) => ({ zoneId: z, cls: bin(values[i]), href: href(z) })), refLon);
  const css = [...RAMP.map((c, i) => `svg.map .c${i}{fill:${c};fill-opacity:.85;stroke:#333;stroke-opacity:.35}`), `svg.map .cn{fill:${NULL_COLOUR};fill-opacity:.7;stroke:#777}`].join('\n');
  return { map, legend: { field, min: has ? min : null, max: has ? max : null, ramp: RAMP, nullColour: NULL_COLOUR, nulls }, css };
}
