/**
 * The spatial and temporal selection of a zone query (OGC 21-038r1 /req/zone-query/bbox, bbox-crs,
 * subset, subset-crs, datetime), reduced to one CRS84 box and one `datetime` text.
 *
 * Coordinates are accepted in OGC:CRS84 only (the grids' CRS and every collection's storage CRS), as
 * a URI (http or https, CRS84 or the CRS84h of 3D boxes) or a safe CURIE (`[OGC:CRS84]`); any other
 * CRS is a 400 naming these. `subset` takes the axes Lat and Lon (with the standard's synonyms) and,
 * on a collection with a temporal extent, `time`; repeated `subset` parameters read as one list.
 */
import type { BBox } from '../domain/dggrs/dggrs.js';
import { InvalidDatetimeError, parseTimeRestriction } from '../domain/time-interval.js';
import { InvalidRequestError } from '../ports/errors.js';

const CRS84 = [
  'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  'http://www.opengis.net/def/crs/OGC/0/CRS84h',
  'http://www.opengis.net/def/crs/OGC/1.3/CRS84h',
  '[OGC:CRS84]',
  '[OGC:CRS84h]',
  'OGC:CRS84',
  'OGC:CRS84h',
];
const CRS84_FORMS = new Set(CRS84.map((c) => c.toLowerCase()));
export const SUPPORTED_CRS_TEXT = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84 (also https, [OGC:CRS84], and CRS84h for a box with heights)';

const LAT = new Set(['lat', 'latitude']);
const LON = new Set(['lon', 'long', 'longitude']);

/** Every value of a repeatable query parameter, in order (the route kit keeps only the last). */
export function allValues(url: string | undefined, name: string): string[] {
  return new URL(url ?? '/', 'http://x').searchParams.getAll(name);
}

export interface ZoneQueryAreaInput {
  bbox?: BBox;
  bboxCrs?: string;
  /** Every `subset` value of the request, in order. */
  subsets: string[];
  subsetCrs?: string;
  datetime?: string;
  /** The collection has a time axis (a temporal extent); bare grid routes have none. */
  temporal: boolean;
}

export interface ZoneQueryArea {
  bbox?: BBox;
  datetime?: string;
}

function checkCrs(crs: string | undefined, param: string): void {
  if (crs === undefined) return;
  const key = crs.trim().replace(/^https:/i, 'http:').toLowerCase();
  if (!CRS84_FORMS.has(key)) {
    throw new InvalidRequestError('Unsupported CRS', `${param} "${crs.slice(0, 120)}" is not supported: coordinates are read in ${SUPPORTED_CRS_TEXT}.`);
  }
}

interface AxisSubset {
  axis: string;
  low: string;
  high: string;
}

/** `Axis(low:high)` or `Axis(point)`, comma-separated; a quoted point may hold commas and colons. */
function parseSubsets(values: string[]): AxisSubset[] {
  const out: AxisSubset[] = [];
  const item = /\s*([A-Za-z_][\w.-]*)\s*\(\s*((?:"[^"]*"|[^:()"])*?)\s*(?::\s*((?:"[^"]*"|[^:()"])*?)\s*)?\)\s*(,|$)/y;
  for (const value of values) {
    item.lastIndex = 0;
    let at = 0;
    while (at < value.length) {
      item.lastIndex = at;
      const m = item.exec(value);
      if (!m || m[0].length === 0) {
        throw new InvalidRequestError('Invalid subset', `subset "${value.slice(0, 120)}" is not axis(low:high) or axis(point) items separated by commas, like Lat(40:50),Lon(0:10).`);
      }
      const low = m[2]!;
      out.push({ axis: m[1]!, low, high: m[3] ?? low });
      at = item.lastIndex;
    }
  }
  return out;
}

function coordinate(text: string, axis: string, open: number): number {
  const t = text.trim();
  if (t === '*') return open;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) {
    throw new InvalidRequestError('Invalid subset', `${axis} bounds are numbers or *, not "${t.slice(0, 40)}".`);
  }
  return Number(t);
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

function unquote(t: string): string {
  const s = t.trim();
  return s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1) : s;
}

export function zoneQueryArea(input: ZoneQueryAreaInput): ZoneQueryArea {
  const subsets = parseSubsets(input.subsets);
  const axes = `Lat, Lon${input.temporal ? ', time' : ''}`;
  let lat: [number, number] | undefined;
  let lon: [number, number] | undefined;
  let time: string | undefined;
  for (const s of subsets) {
    const name = s.axis.toLowerCase();
    const twice = () => new InvalidRequestError('Invalid subset', `axis ${s.axis} is subset twice.`);
    if (LAT.has(name)) {
      if (lat) throw twice();
      // Latitudes outside the CRS range keep the part within it (an inverted range stays an error).
      const [lo, hi] = [coordinate(s.low, s.axis, -90), coordinate(s.high, s.axis, 90)];
      if (lo > hi) throw new InvalidRequestError('Invalid subset', `${s.axis}(${s.low}:${s.high}): the low latitude is above the high one.`);
      lat = [clamp(lo, -90, 90), clamp(hi, -90, 90)];
    } else if (LON.has(name)) {
      if (lon) throw twice();
      // low > high crosses the antimeridian; beyond +-180 keeps the part within the range.
      const lo = coordinate(s.low, s.axis, -180), hi = coordinate(s.high, s.axis, 180);
      lon = [clamp(lo, -180, 180), clamp(hi, -180, 180)];
    } else if (name === 'time' && input.temporal) {
      if (time !== undefined) throw twice();
      const lo = unquote(s.low), hi = unquote(s.high);
      time = s.low === s.high ? lo : `${lo === '*' ? '..' : lo}/${hi === '*' ? '..' : hi}`;
    } else {
      throw new InvalidRequestError('Invalid subset', `axis "${s.axis.slice(0, 40)}" is not an axis of this resource: use ${axes}.`);
    }
  }

  const spatialSubset = lat !== undefined || lon !== undefined;
  if (spatialSubset && input.bbox) {
    throw new InvalidRequestError('Invalid subset', 'subset on Lat/Lon and bbox both select an area: use one of them.');
  }
  if (input.bbox) checkCrs(input.bboxCrs, 'bbox-crs');
  if (spatialSubset) checkCrs(input.subsetCrs, 'subset-crs');
  if (time !== undefined && input.datetime !== undefined) {
    throw new InvalidRequestError('Invalid subset', 'subset on time and datetime both select a time: use one of them.');
  }
  const datetime = time ?? input.datetime;
  // Checked as zone data and items read it: empty or open at both ends restricts nothing.
  if (datetime !== undefined) {
    try {
      parseTimeRestriction(datetime);
    } catch (e) {
      if (e instanceof InvalidDatetimeError) throw new InvalidRequestError('Invalid datetime', e.message);
      throw e;
    }
  }

  const bbox: BBox | undefined = input.bbox ?? (spatialSubset ? [lon?.[0] ?? -180, lat?.[0] ?? -90, lon?.[1] ?? 180, lat?.[1] ?? 90] : undefined);
  return { ...(bbox ? { bbox } : {}), ...(datetime !== undefined ? { datetime } : {}) };
}

/**
 * `subset` on zone data (OGC 21-038r1 /req/data-subsetting/subset): only axes beyond the DGGRS's own.
 * Lat and Lon are axes of the grid (the zone and zone-depth select them), so they are a 400; `time`, on a
 * collection with a temporal extent, reads as `datetime` (both at once is a 400); no other axis exists.
 * Returns the `datetime` the request selects.
 */
export function zoneDataSubset(input: { subsets: string[]; datetime?: string; temporal: boolean }): string | undefined {
  let time: string | undefined;
  for (const s of parseSubsets(input.subsets)) {
    const name = s.axis.toLowerCase();
    if (LAT.has(name) || LON.has(name)) {
      throw new InvalidRequestError('Invalid subset', `${s.axis} is an axis of the grid: zone data covers its zone; choose the zone (and zone-depth) instead of subsetting ${s.axis}.`);
    }
    if (name !== 'time' || !input.temporal) {
      throw new InvalidRequestError('Invalid subset', `axis "${s.axis.slice(0, 40)}" is not an axis of this data beyond the grid's: ${input.temporal ? 'use time' : 'it has none (no time axis either)'}.`);
    }
    if (time !== undefined) throw new InvalidRequestError('Invalid subset', 'axis time is subset twice.');
    const lo = unquote(s.low), hi = unquote(s.high);
    time = s.low === s.high ? lo : `${lo === '*' ? '..' : lo}/${hi === '*' ? '..' : hi}`;
  }
  if (time !== undefined && input.datetime !== undefined) {
    throw new InvalidRequestError('Invalid subset', 'subset on time and datetime both select a time: use one of them.');
  }
  return time ?? input.datetime;
}
