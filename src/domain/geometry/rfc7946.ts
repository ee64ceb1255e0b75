/**
 * Zone outlines to valid RFC 7946 GeoJSON.
 *
 * Grids return a zone outline as a closed ring whose longitudes are continuous (a zone across
 * the antimeridian runs e.g. from 175 to 185 rather than jumping to -175). GeoJSON wants every
 * longitude within [-180, 180] (RFC 7946 §3.1.9: split at the antimeridian), exteriors
 * counter-clockwise (§3.1.6), and lines that are straight in lon/lat. So:
 *   1. a ring that winds once around a pole is closed along that pole's parallel (lat ±90),
 *      giving a region that is x-monotone in lon/lat;
 *   2. the region is cut into 360°-wide strips (one per world copy it touches), each strip is
 *      shifted back into [-180, 180];
 *   3. each piece is cleaned, closed and oriented counter-clockwise.
 * Cuts interpolate linearly in lon/lat, which is exactly how RFC 7946 interprets the edge.
 */
import type { Position } from './geojson.js';

export type LonLatPair = readonly [number, number] | readonly number[];

export type ZonePolygon = { type: 'Polygon'; coordinates: Position[][] } | { type: 'MultiPolygon'; coordinates: Position[][][] };

const POLE_EPS = 1e-12;
const AREA_EPS = 1e-18;

/** The outline as a GeoJSON Polygon, or a MultiPolygon when it crosses the antimeridian. */
export function outlineToGeoJson(ring: readonly LonLatPair[]): ZonePolygon {
  const pieces = outlineToRings(ring);
  if (pieces.length === 1) return { type: 'Polygon', coordinates: [pieces[0]!] };
  return { type: 'MultiPolygon', coordinates: pieces.map((p) => [p]) };
}

/** The exterior rings (closed, CCW, longitudes in [-180, 180]) the outline becomes. */
export function outlineToRings(ring: readonly LonLatPair[]): Position[][] {
  const region = unwrapRegion(ring);
  if (region.length < 3) throw new Error('zone outline needs at least three distinct points');
  let minX = Infinity, maxX = -Infinity;
  for (const [x] of region) {
    minX = Math.min(minX, x!);
    maxX = Math.max(maxX, x!);
  }
  const pieces: Position[][] = [];
  const k0 = Math.floor((minX + 180) / 360);
  const k1 = Math.ceil((maxX + 180) / 360) - 1;
  for (let k = k0; k <= Math.max(k0, k1); k++) {
    const lo = -180 + 360 * k;
    const hi = 180 + 360 * k;
    let piece = clip(region, (p) => p[0]! >= lo, lo);
    piece = clip(piece, (p) => p[0]! <= hi, hi);
    const shifted = tidy(piece.map(([x, y]) => [clampLon(x! - 360 * k), clampLat(y!)]));
    if (shifted.length >= 3 && Math.abs(signedArea(shifted)) > AREA_EPS) pieces.push(closeCcw(shifted));
  }
  if (pieces.length === 0) throw new Error('zone outline has no area');
  return pieces;
}

/**
 * The outline as an open ring of continuous longitudes; a ring that encloses a pole gets the
 * pole's edge appended so the region it bounds is the zone, not the rest of the world.
 */
function unwrapRegion(input: readonly LonLatPair[]): Position[] {
  let pts: Position[] = input.map((p) => [p[0]!, p[1]!]);
  // Drop the closing point, whether repeated as is or shifted by a whole turn.
  while (pts.length > 1) {
    const a = pts[0]!, b = pts[pts.length - 1]!;
    const dx = Math.abs(b[0]! - a[0]!);
    if (b[1] === a[1] && (dx < 1e-9 || Math.abs(dx - 360) < 1e-9)) pts.pop();
    else break;
  }
  pts = tidyOpen(pts);
  const n = pts.length;
  if (n < 3) return pts;

  // A vertex on a pole has no longitude: it becomes the pole at its neighbours' longitudes.
  const isPole = (p: Position) => Math.abs(Math.abs(p[1]!) - 90) < POLE_EPS;
  if (pts.some(isPole)) return unwrapThroughPole(pts, isPole);

  // Longitude step along each edge, the shortest way round.
  const steps = pts.map((a, i) => norm180(pts[(i + 1) % n]![0]! - a[0]!));
  const out: Position[] = [[pts[0]![0]!, pts[0]![1]!]];
  let x = pts[0]![0]!;
  for (let i = 0; i < n - 1; i++) {
    x += steps[i]!;
    out.push([x, pts[i + 1]![1]!]);
  }
  const winding = x + steps[n - 1]! - pts[0]![0]!;
  if (Math.abs(winding) < 180) return out;
  // Encircles a pole: close along the pole parallel. The zone is the small side, so the pole is
  // the one on the side of the ring's mean latitude.
  const meanLat = out.reduce((s, p) => s + p[1]!, 0) / out.length;
  const pole = meanLat >= 0 ? 90 : -90;
  const endX = pts[0]![0]! + winding;
  out.push([endX, pts[0]![1]!], [endX, pole], [pts[0]![0]!, pole]);
  return out;
}

/** A ring through a pole: the pole vertex becomes two points on the pole parallel. */
function unwrapThroughPole(pts: Position[], isPole: (p: Position) => boolean): Position[] {
  const n = pts.length;
  const start = pts.findIndex((p) => !isPole(p));
  if (start < 0) return [];
  const seq: Position[] = [];
  for (let i = 0; i < n; i++) seq.push(pts[(start + i) % n]!);
  const out: Position[] = [[seq[0]![0]!, seq[0]![1]!]];
  let x = seq[0]![0]!;
  for (let i = 1; i <= n; i++) {
    const p = seq[i % n]!;
    if (isPole(p)) {
      // Pole: stay at the previous longitude, then jump along the pole to the next real point.
      out.push([x, p[1]!]);
      let j = i + 1;
      while (j <= n && isPole(seq[j % n]!)) j++;
      const next = seq[j % n]!;
      x += norm180(next[0]! - x);
      out.push([x, p[1]!]);
      i = j - 1;
      continue;
    }
    if (i === n) break;
    x += norm180(p[0]! - x);
    out.push([x, p[1]!]);
  }
  // Closing back to the first point must not have moved a whole turn.
  const last = out[out.length - 1]!;
  const shift = Math.round((last[0]! - out[0]![0]!) / 360) * 360;
  if (shift !== 0 && isPole(last)) last[0] = last[0]! - shift;
  return out;
}

/** Sutherland–Hodgman against one vertical line x = `at`; the region is x-monotone enough. */
function clip(ring: Position[], inside: (p: Position) => boolean, at: number): Position[] {
  const out: Position[] = [];
  const n = ring.length;
  for (let i = 0; i < n; i++) {
    const cur = ring[i]!, prev = ring[(i + n - 1) % n]!;
    const cin = inside(cur), pin = inside(prev);
    if (cin) {
      if (!pin) out.push(crossing(prev, cur, at));
      out.push(cur);
    } else if (pin) out.push(crossing(prev, cur, at));
  }
  return out;
}

function crossing(a: Position, b: Position, x: number): Position {
  const t = (x - a[0]!) / (b[0]! - a[0]!);
  return [x, a[1]! + t * (b[1]! - a[1]!)];
}

export function signedArea(ring: readonly Position[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i]!, b = ring[(i + 1) % ring.length]!;
    s += a[0]! * b[1]! - b[0]! * a[1]!;
  }
  return s / 2;
}

function closeCcw(open: Position[]): Position[] {
  const ring = signedArea(open) < 0 ? [...open].reverse() : open;
  return [...ring, [ring[0]![0]!, ring[0]![1]!]];
}

/** Removes repeated points and the closing point. */
function tidy(ring: Position[]): Position[] {
  const out = tidyOpen(ring);
  while (out.length > 1 && same(out[0]!, out[out.length - 1]!)) out.pop();
  return out;
}

function tidyOpen(ring: Position[]): Position[] {
  const out: Position[] = [];
  for (const p of ring) if (out.length === 0 || !same(out[out.length - 1]!, p)) out.push(p);
  return out;
}

const same = (a: Position, b: Position) => Math.abs(a[0]! - b[0]!) < 1e-12 && Math.abs(a[1]! - b[1]!) < 1e-12;
const norm180 = (d: number) => d - 360 * Math.round(d / 360);
const clampLon = (x: number) => (x < -180 ? -180 : x > 180 ? 180 : x);
const clampLat = (y: number) => (y < -90 ? -90 : y > 90 ? 90 : y);

/** Checks a GeoJSON polygon against RFC 7946 rules; returns the problems (empty when valid). */
export function rfc7946Problems(g: ZonePolygon): string[] {
  const problems: string[] = [];
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  polys.forEach((poly, pi) =>
    poly.forEach((ring, ri) => {
      const where = `polygon ${pi} ring ${ri}`;
      if (ring.length < 4) problems.push(`${where}: fewer than 4 positions`);
      const a = ring[0]!, b = ring[ring.length - 1]!;
      if (a[0] !== b[0] || a[1] !== b[1]) problems.push(`${where}: not closed`);
      if (ring.some((p) => p[0]! < -180 || p[0]! > 180 || p[1]! < -90 || p[1]! > 90)) problems.push(`${where}: position out of range`);
      const area = signedArea(ring.slice(0, -1));
      if (ri === 0 && area <= 0) problems.push(`${where}: exterior not counter-clockwise`);
      if (ri > 0 && area >= 0) problems.push(`${where}: hole not clockwise`);
    }),
  );
  return problems;
}
