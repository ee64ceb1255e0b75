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
/** Longitude step (degrees) within which an edge counts as running over a pole. */
const POLE_EDGE_EPS = 1e-6;

/** The outline as a GeoJSON Polygon, or a MultiPolygon when it crosses the antimeridian. */
export function outlineToGeoJson(ring: readonly LonLatPair[]): ZonePolygon {
  const pieces = outlineToRings(ring);
  if (pieces.length === 1) return { type: 'Polygon', coordinates: [pieces[0]!] };
  return { type: 'MultiPolygon', coordinates: pieces.map((p) => [p]) };
}

/** The exterior rings (closed, CCW, longitudes in [-180, 180]) the outline becomes. */
export function outlineToRings(ring: readonly LonLatPair[]): Position[][] {
  return plainRing(ring) ?? outlineToRingsByClipping(ring);
}

/**
 * outlineToRings by the general steps above, for every outline (`outlineToRings` takes them only when
 * `plainRing` declines).
 */
export function outlineToRingsByClipping(ring: readonly LonLatPair[]): Position[][] {
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
    const strip = clipHalfPlane([region], lo, 'east').flatMap((r) => clipHalfPlane([r], hi, 'west'));
    for (const piece of strip) {
      const shifted = tidy(piece.map(([x, y]) => [clampLon(x! - 360 * k), clampLat(y!)]));
      if (shifted.length >= 3 && Math.abs(signedArea(shifted)) > AREA_EPS) pieces.push(closeCcw(shifted));
    }
  }
  if (pieces.length === 0) throw new Error('zone outline has no area');
  return pieces;
}

/** Scratch coordinates of plainRing, grown as needed (zone outlines have a few dozen points). */
let xs = new Float64Array(64), ys = new Float64Array(64);

/**
 * The common case, the same numbers as the general steps without their intermediate arrays: an outline
 * touching no pole and no 180°-wide step, not winding round a pole, strictly inside (-180, 180) once
 * unwrapped. There the clips at ±180 keep every point and find no lobe, so what remains of the general
 * steps is: unwrap (longitudes accumulated step by step, as unwrapRegion does), tidy, clamp, tidy,
 * close counter-clockwise. Undefined for any other outline (and for degenerate ones, so that the
 * general steps raise their own errors).
 */
function plainRing(input: readonly LonLatPair[]): Position[][] | undefined {
  let n = input.length;
  if (n > xs.length) {
    xs = new Float64Array(2 * n);
    ys = new Float64Array(2 * n);
  }
  // Drop the closing point(s), whether repeated as is or shifted by a whole turn.
  while (n > 1) {
    const a = input[0]!, b = input[n - 1]!;
    const dx = Math.abs(b[0]! - a[0]!);
    if (b[1] === a[1] && (dx < 1e-9 || Math.abs(dx - 360) < 1e-9)) n--;
    else break;
  }
  // tidyOpen (pole vertices are left to the general steps).
  let m = 0;
  for (let i = 0; i < n; i++) {
    const p = input[i]!;
    const x = p[0]!, y = p[1]!;
    if (Math.abs(Math.abs(y) - 90) < POLE_EPS) return undefined;
    if (m > 0 && Math.abs(xs[m - 1]! - x) < 1e-12 && Math.abs(ys[m - 1]! - y) < 1e-12) continue;
    xs[m] = x;
    ys[m++] = y;
  }
  if (m < 3) return undefined;
  // Unwrap in place: each longitude becomes the previous one plus the normalised step.
  const first = xs[0]!;
  let x = first, minX = first, maxX = first, from = first;
  for (let i = 0; i < m; i++) {
    const to = i + 1 < m ? xs[i + 1]! : first;
    const d = norm180(to - from);
    if (Math.abs(Math.abs(d) - 180) < POLE_EDGE_EPS) return undefined;
    from = to;
    x += d;
    if (i < m - 1) {
      xs[i + 1] = x;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
    }
  }
  if (Math.abs(x - first) >= 180 || !(minX > -180 && maxX < 180)) return undefined;
  // tidy, then clampLat and tidy again (clampLon and the shift by 0 world copies change nothing here).
  m = tidyInPlace(m);
  for (let i = 0; i < m; i++) ys[i] = clampLat(ys[i]!);
  m = tidyInPlace(m);
  if (m < 3) return undefined;
  // signedArea of the ring.
  const x0 = xs[0]!, y0 = ys[0]!;
  let s = 0;
  for (let i = 0; i < m; i++) {
    const j = i + 1 < m ? i + 1 : 0;
    s += (xs[i]! - x0) * (ys[j]! - y0) - (xs[j]! - x0) * (ys[i]! - y0);
  }
  const area = s / 2;
  if (!(Math.abs(area) > AREA_EPS)) return undefined;
  const out: Position[] = new Array(m + 1);
  if (area < 0) for (let i = 0; i < m; i++) out[i] = [xs[m - 1 - i]!, ys[m - 1 - i]!];
  else for (let i = 0; i < m; i++) out[i] = [xs[i]!, ys[i]!];
  out[m] = [out[0]![0]!, out[0]![1]!];
  return [out];
}

/** tidy on the first m scratch points: repeated points and closing points removed; the new count. */
function tidyInPlace(m: number): number {
  let k = 0;
  for (let i = 0; i < m; i++) {
    if (k > 0 && Math.abs(xs[k - 1]! - xs[i]!) < 1e-12 && Math.abs(ys[k - 1]! - ys[i]!) < 1e-12) continue;
    xs[k] = xs[i]!;
    ys[k++] = ys[i]!;
  }
  while (k > 1 && Math.abs(xs[0]! - xs[k - 1]!) < 1e-12 && Math.abs(ys[0]! - ys[k - 1]!) < 1e-12) k--;
  return k;
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
  if (pts.length < 3) return pts;

  // A vertex on a pole has no longitude: the ring runs up one meridian and down another there.
  // Such passages, and edges whose ends are half a turn apart (they run over a pole too), are
  // the steps whose east-or-west sense the shortest way round cannot tell.
  const isPole = (p: Position) => Math.abs(Math.abs(p[1]!) - 90) < POLE_EPS;
  const start = pts.findIndex((p) => !isPole(p));
  if (start < 0) return [];
  const real: Position[] = [];
  const poleAfter: Array<number | undefined> = [];
  for (let i = 0; i < pts.length; i++) {
    const p = pts[(start + i) % pts.length]!;
    if (isPole(p)) poleAfter[real.length - 1] = p[1]! > 0 ? 90 : -90;
    else real.push(p);
  }
  const n = real.length;
  if (n < 2) return [];
  const steps = real.map((a, i) => norm180(real[(i + 1) % n]![0]! - a[0]!));
  const passages = new Map<number, number>();
  steps.forEach((d, i) => {
    const a = real[i]!, b = real[(i + 1) % n]!;
    if (poleAfter[i] !== undefined) passages.set(i, poleAfter[i]!);
    else if (Math.abs(Math.abs(d) - 180) < POLE_EDGE_EPS) passages.set(i, a[1]! + b[1]! >= 0 ? 90 : -90);
  });
  // The pole lies on the boundary of such a zone, so the ring cannot wind round it.
  if (passages.size > 0) signPassagesForZeroWinding(steps, [...passages.keys()]);

  const out: Position[] = [[real[0]![0]!, real[0]![1]!]];
  let x = real[0]![0]!;
  for (let i = 0; i < n; i++) {
    const pole = passages.get(i);
    if (pole !== undefined) out.push([x, pole], [x + steps[i]!, pole]);
    x += steps[i]!;
    if (i < n - 1) out.push([x, real[i + 1]![1]!]);
  }
  const winding = x - real[0]![0]!;
  if (Math.abs(winding) < 180) return out;
  return capAroundPole(out, winding);
}

/**
 * A ring that winds once round a pole bounds a cap: the zone is the small side, so the pole is
 * the one on the side of the ring's mean latitude. The ring is restarted where it crosses the
 * antimeridian and closed along the pole parallel there, so the cap spans exactly one world
 * copy and becomes one polygon (a seam anywhere else would make two pieces sharing an edge).
 */
function capAroundPole(chain: Position[], winding: number): Position[] {
  const meanLat = chain.reduce((s, p) => s + p[1]!, 0) / chain.length;
  const pole = meanLat >= 0 ? 90 : -90;
  const n = chain.length;
  const closed = [...chain, [chain[0]![0]! + winding, chain[0]![1]!]];
  const x0 = chain[0]![0]!;
  // The antimeridian copy c with x0 <= c < x0 + |winding| (or the mirror when winding west).
  const dir = Math.sign(winding);
  const c = dir > 0 ? -180 + 360 * Math.ceil((x0 + 180) / 360) : -180 + 360 * Math.floor((x0 + 180) / 360);
  let cut = 0;
  while (cut < n && dir * (closed[cut + 1]![0]! - c) < 0) cut++;
  const a = closed[cut]!, b = closed[cut + 1]!;
  const start = crossing(a, b, c);
  const out: Position[] = [start];
  for (let i = cut + 1; i <= n; i++) out.push(closed[i]!);
  for (let i = 1; i <= cut; i++) out.push([closed[i]![0]! + winding, closed[i]![1]!]);
  out.push([c + winding, start[1]!], [c + winding, pole], [c, pole]);
  return tidyOpen(out);
}

/** Each passage step may go either way round (d or d ∓ 360): picks the senses that sum the ring's steps to zero. */
function signPassagesForZeroWinding(steps: number[], passages: number[]): void {
  if (passages.length > 8) return;
  const choices = passages.map((i) => {
    const d = steps[i]!;
    return [d, d - 360 * (d >= 0 ? 1 : -1)];
  });
  const others = steps.reduce((s, d, i) => (passages.includes(i) ? s : s + d), 0);
  let best = 0, bestTotal = Infinity;
  for (let pick = 0; pick < 1 << passages.length; pick++) {
    const total = Math.abs(choices.reduce((s, c, k) => s + c[(pick >> k) & 1]!, others));
    if (total < bestTotal - 1e-9) [best, bestTotal] = [pick, total];
  }
  passages.forEach((i, k) => (steps[i] = choices[k]![(best >> k) & 1]!));
}

/**
 * The parts of simple rings on one side of the vertical line x = `at`. Sutherland–Hodgman keeps
 * one ring, so a ring that crosses the line several times comes back with its separate lobes
 * joined by zero-width bridges along the line; those are undone by cutting the ring at its
 * edges on the line and joining each chain's end to the chain start next along the line in
 * the ring's direction of travel there.
 */
function clipHalfPlane(rings: Position[][], at: number, keep: 'east' | 'west'): Position[][] {
  const out: Position[][] = [];
  for (const ring of rings) {
    const clipped = clip(ring, keep === 'east' ? (p) => p[0]! >= at : (p) => p[0]! <= at, at);
    if (clipped.length >= 3) out.push(...separateLobes(tidy(clipped), at, keep));
  }
  return out;
}

function separateLobes(ring: Position[], at: number, keep: 'east' | 'west'): Position[][] {
  const n = ring.length;
  const onLine = (p: Position) => p[0] === at;
  const lineEdges: number[] = [];
  for (let i = 0; i < n; i++) if (onLine(ring[i]!) && onLine(ring[(i + 1) % n]!)) lineEdges.push(i);
  if (lineEdges.length < 2) return [ring];
  // Chains between consecutive edges on the line; each starts and ends on the line.
  const chains: Position[][] = [];
  for (let k = 0; k < lineEdges.length; k++) {
    const from = (lineEdges[k]! + 1) % n;
    const to = lineEdges[(k + 1) % lineEdges.length]!;
    const chain: Position[] = [];
    for (let i = from; ; i = (i + 1) % n) {
      chain.push(ring[i]!);
      if (i === to) break;
    }
    if (chain.some((p) => !onLine(p))) chains.push(chain);
  }
  if (chains.length < 2) return [ring];
  // A counter-clockwise ring kept west of the line runs north along it (interior on its left).
  const up = (signedArea(ring) > 0) === (keep === 'west');
  const rings: Position[][] = [];
  const used = new Set<number>();
  for (let first = 0; first < chains.length; first++) {
    if (used.has(first)) continue;
    const lobe: Position[] = [];
    for (let c = first; c >= 0 && !used.has(c); ) {
      used.add(c);
      lobe.push(...chains[c]!);
      const endY = chains[c]![chains[c]!.length - 1]![1]!;
      let next = -1, gap = Infinity;
      chains.forEach((ch, j) => {
        const d = (up ? 1 : -1) * (ch[0]![1]! - endY);
        if (d >= 0 && d < gap && (!used.has(j) || j === first)) [next, gap] = [j, d];
      });
      c = next === first ? -1 : next;
    }
    rings.push(lobe);
  }
  return rings;
}

/** Sutherland–Hodgman against one vertical line x = `at`. */
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

/**
 * Shoelace area, with coordinates taken relative to the first point: on raw lon/lat the products
 * cancel to noise for zones a few centimetres wide (level 19), and their area came out as zero.
 */
export function signedArea(ring: readonly Position[]): number {
  if (ring.length === 0) return 0;
  const x0 = ring[0]![0]!, y0 = ring[0]![1]!;
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i]!, b = ring[(i + 1) % ring.length]!;
    s += (a[0]! - x0) * (b[1]! - y0) - (b[0]! - x0) * (a[1]! - y0);
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
