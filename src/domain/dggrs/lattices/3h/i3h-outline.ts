/**
 * Densified outlines and extents of 3H zones, as DGGAL's RI3H computes them (getBaseRefinedVertices,
 * refine5x6, getRefinedVertices, getZoneWGS84Extent). The 3H grids densify through DGGAL's older
 * refine5x6 path rather than the 7H vertex walk, and their odd levels have corners on the rhombus
 * seams, so they keep their own rules here; the extents decide bbox lists and must agree exactly.
 */
import { i3hCentroid, POW3, type I3HZone } from './i3h-zone.js';
import { hexZoneLevel } from '../hex-zone.js';
import { atPoleVertex, edgeAlongPoleCut, moveVertex, type Pt } from '../rhombic-5x6-net.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { extentAround, type GeoRadians } from '../../core/outline-extent.js';
import { samePlace } from '../../core/same-place.js';

const DEG = Math.PI / 180;
const E = 1e-11;

/**
 * Corners for densification (DGGAL's getBaseRefinedVertices with crs84 set): the polygon's corners with
 * points just off the seams where an odd-level zone's corner sits on one, moved back into range.
 */
export function baseRefinedVertices(z: I3HZone): Pt[] {
  const p = POW3[z.k]!;
  const d = 1.0 / p;
  let row: number, col: number;
  if (z.root === 10) { row = 0; col = p - 1; }
  else if (z.root === 11) { row = 6 * p - 1; col = 4 * p; }
  else {
    const y = Math.floor(z.ix / p);
    row = ((z.root + 1) >> 1) * p + y;
    col = (z.root >> 1) * p + (z.ix - y * p);
  }
  const tlx = col * d, tly = row * d;
  const out: Pt[] = [];
  /** Adds a corner; `fix` first moves the previous corner back into range when it left it (DGGAL does this before some corners only). */
  const at = (dx: number, dy: number, fix = false): void => {
    const last = out[out.length - 1];
    if (fix && last && (last.y < 0 || last.x < 0)) { last.x += 5; last.y += 5; }
    const v = { x: 0, y: 0 };
    moveVertex(tlx, tly, dx, dy, v);
    out.push(v);
  };
  const polar = (dx: number, dy: number, steps: readonly number[]): void => {
    const v = { x: 0, y: 0 };
    moveVertex(tlx, tly, dx, dy, v);
    for (const s of steps) out.push({ x: v.x + s, y: v.y + s });
  };
  switch (z.sh) {
    case 0:
      if (z.root === 10) polar(d / 3, -d / 3, [5, 1, 2, 3, 4]);
      else if (z.root === 11) polar(-d / 3, d / 3, [0, -1, -2, -3, 1]);
      else {
        at(d / 3, -d / 3); at(-d / 3, (-2 * d) / 3, true); at((-2 * d) / 3, -d / 3, true);
        at(-d / 3, d / 3, true); at(d / 3, (2 * d) / 3, true); at((2 * d) / 3, d / 3, true);
      }
      break;
    case 1:
      if (z.root === 10) polar((2 * d) / 3, 0, [0, 1, 2, 3, 4]);
      else if (z.root === 11) polar(d / 3, d, [0, -1, -2, -3, -4]);
      else {
        at(0, -d / 3); at(-d / 3, -d / 3, true); at(-d / 3, 0, true); at(0, d / 3, true); at(d / 3, d / 3); at(d / 3, 0, true);
      }
      break;
    case 2:
      at(d / 3, d / 3); at((2 * d) / 3, (2 * d) / 3); at(d, (2 * d) / 3); at(d, d / 3); at((2 * d) / 3, 2e-11); at(d / 3, 2e-11);
      break;
    default:
      at(2e-11, (2 * d) / 3); at(d / 3, d); at((2 * d) / 3, d); at((2 * d) / 3, (2 * d) / 3); at(d / 3, d / 3); at(2e-11, d / 3);
  }
  return out;
}

/**
 * One edge p -> n densified into `points` (DGGAL's addIntermediatePoints as the 3H path calls it):
 * i1/i2 are the exit and glued entry points of an edge crossing an interruption; edges at the geographic
 * poles get twenty times the points.
 */
function addEdgePoints(points: Pt[], p: Pt, n: Pt, nDivisions: number, i1: Pt | null, i2: Pt | null): void {
  let dx = n.x - p.x, dy = n.y - p.y;
  const nearPole = (i1 !== null && i2 !== null && (atPoleVertex(i1) || atPoleVertex(i2))) || edgeAlongPoleCut(p, n);
  if (!nDivisions) nDivisions = 1;
  if (nearPole) nDivisions *= 20;
  if (dx < -3) { dx += 5; dy += 5; }
  if (dx > 3) { dx -= 5; dy -= 5; }
  if (i1 !== null && i2 !== null) {
    const pi1x = i1.x - p.x, pi1y = i1.y - p.y;
    const i2nx = n.x - i2.x, i2ny = n.y - i2.y;
    const l1 = Math.sqrt(pi1x * pi1x + pi1y * pi1y);
    const l2 = Math.sqrt(i2nx * i2nx + i2ny * i2ny);
    const t = (nDivisions * l1) / (l1 + l2);
    const ti = Math.trunc(t);
    points.push({ x: p.x, y: p.y });
    for (let j = 1; j < nDivisions; j += nearPole && Math.abs(j - t) >= 20 ? 20 : 1) {
      if (j < t) points.push({ x: p.x + (j * pi1x) / t, y: p.y + (j * pi1y) / t });
      if (j === ti || (j === 1 && !ti)) points.push({ x: i1.x, y: i1.y }, { x: i2.x, y: i2.y });
      if (j > t) points.push({ x: i2.x + ((j - t) * i2nx) / (nDivisions - t), y: i2.y + ((j - t) * i2ny) / (nDivisions - t) });
    }
  } else if (nDivisions === 1) points.push({ x: p.x, y: p.y });
  else for (let j = 0; j < nDivisions; j++) points.push({ x: p.x + (j * dx) / nDivisions, y: p.y + (j * dy) / nDivisions });
}

/**
 * The outline densified in 5x6 (DGGAL's refine5x6 with wrapping on): edges that leave a rhombus through
 * an interruption continue from the glued point, edges across the (5, 5) period are unwrapped.
 */
export function refine5x6(src: readonly Pt[], nDivisions: number): Pt[] {
  const points: Pt[] = [];
  const count = src.length;
  for (let i = 0; i < count; i++) {
    let p = { x: src[i]!.x, y: src[i]!.y };
    let next = { x: src[(i + 1) % count]!.x, y: src[(i + 1) % count]!.y };
    let cpx1 = Math.floor(p.x + E), cpy1 = Math.floor(p.y + E);
    let cnx1 = Math.floor(next.x + E), cny1 = Math.floor(next.y + E);
    const cpx2 = Math.floor(p.x - E), cpy2 = Math.floor(p.y - E);
    const cnx2 = Math.floor(next.x - E), cny2 = Math.floor(next.y - E);
    const nTopRightOfP = (next.x > p.x + E && next.x - p.x < 3) || p.x - next.x > 3;
    const nTopLeftOfP = (next.x < p.x - E && p.x - next.x < 3) || next.x - p.x > 3;
    const nBottomRightOfP = (next.y > p.y && next.y - p.y < 3) || p.y - next.y > 3;
    const nBottomLeftOfP = (next.y < p.y - E && p.y - next.y < 3) || next.y - p.y > 3;
    const atTopRight = cpx2 !== cpx1 && p.x > p.y && nTopRightOfP;
    const atTopLeft = cpy2 !== cpy1 && p.x > p.y && nTopLeftOfP;
    const atBottomLeft = cpx2 !== cpx1 && p.y > p.x + 1 && nBottomLeftOfP;
    const atBottomRight = cpy2 !== cpy1 && p.y > p.x + 1 && nBottomRightOfP;
    const nextAtTopRight = cnx2 !== cnx1 && next.x > next.y && nTopLeftOfP;
    const nextAtTopLeft = cny2 !== cny1 && next.x > next.y && nTopRightOfP;
    const nextAtBottomLeft = cnx2 !== cnx1 && next.y > next.x + 1 && nBottomRightOfP;
    const nextAtBottomRight = cny2 !== cny1 && next.y > next.x + 1 && nBottomLeftOfP;
    let dx = next.x - p.x, dy = next.y - p.y;

    // Both ends on either side of the same interruption: the two points, nothing between.
    if ((atTopRight && nextAtTopLeft) || (atTopLeft && nextAtTopRight) || (atBottomRight && nextAtBottomLeft) || (atBottomLeft && nextAtBottomRight)) {
      points.push(p, next);
      continue;
    }
    if (Math.abs(dx) < E && Math.abs(dy) < E) continue;

    // Cross now where the crossing is at an end of the edge rather than along it.
    if (atTopRight) p = { x: cpx1 + 1.0 - (p.y - cpy1), y: cpy1 + 1 };
    else if (atTopLeft) p = { x: cpx1, y: cpy1 - (p.x - cpx1) };
    else if (atBottomLeft) p = { x: cpx1 - (p.y - cpy1), y: cpy1 };
    else if (atBottomRight) p = { x: cpx1 + 1, y: cpy1 + (cpx1 + 1 - p.x) };
    if (nextAtTopRight) next = { x: cnx1 + 1.0 - (next.y - cny1), y: cny1 + 1 };
    else if (nextAtTopLeft) next = { x: cnx1, y: cny1 - (next.x - cnx1) };
    else if (nextAtBottomLeft) next = { x: cnx1 - (next.y - cny1), y: cny1 };
    else if (nextAtBottomRight) next = { x: cnx1 + 1, y: cny1 + (cnx1 + 1 - next.x) };
    if (p.x > 5 + E || p.y > 6 + E) { p.x -= 5; p.y -= 5; }
    else if (p.x < -E || p.y < -E) { p.x += 5; p.y += 5; }
    if (next.x > 5 + E || next.y > 6 + E) { next.x -= 5; next.y -= 5; }
    else if (next.x < -E || next.y < -E) { next.x += 5; next.y += 5; }

    cpx1 = Math.floor(p.x + E); cpy1 = Math.floor(p.y + E);
    cnx1 = Math.floor(next.x + E); cny1 = Math.floor(next.y + E);
    const cpx = cpx1, cpy = cpy1, cnx = cnx1, cny = cny1;
    dx = next.x - p.x;
    dy = next.y - p.y;
    const nSouth = ((cnx + cny) & 1) === 1, pSouth = ((cpx + cpy) & 1) === 1;
    let pi1: Pt = { x: 0, y: 0 }, pi2: Pt = { x: 0, y: 0 };
    let interrupted = false, skip = false;

    if (cpx !== cnx && cpy !== cny) {
      if (cnx - cpx > 3) {
        dx -= 5; dy -= 5;
        if (cpy === 0 && cny === 4 && cnx === 4) {
          // Across the top dent to the left while wrapping: straight for the edge, at 30 degrees.
          interrupted = true;
          pi1 = { x: p.x + 0.5 * (cpy - p.y), y: cpy };
          pi2 = { x: cnx + 1, y: cny + 1 - (pi1.x - cpx) };
        } else if (cpy === 1 && cny === 5 && cnx === 4) {
          interrupted = true;
          pi1 = { x: cpx, y: p.y + 0.5 * (cpx - p.x) };
          pi2 = { x: cnx + 1 - (pi1.y - cpy), y: cny + 1 };
        } else if (!(cpy === 0 && cny === 5 && cnx === 4)) skip = true;
      } else if (cnx - cpx < -3) {
        dx += 5; dy += 5;
        if (cpy === 5 && cny === 0 && cnx === 0) {
          // An uninterrupted wrap to the right: the distance left after the wrap point.
          const w1 = { x: 5, y: p.y + (dy * (5 - p.x)) / dx };
          const w2 = { x: w1.x - 5, y: w1.y - 5 };
          dx -= w2.x + 5 - w1.x;
          dy -= w2.y + 5 - w1.y;
        } else if (cpy === 4 && cny === 0 && cnx === 0) {
          interrupted = true;
          pi1 = { x: cpx + 1, y: p.y + 0.5 * (cpx + 1 - p.x) };
          pi2 = { x: cnx + 1 - (pi1.y - cpy), y: cny };
        } else if (cpy === 5 && cny === 1 && cnx === 0) {
          interrupted = true;
          pi1 = { x: p.x + 0.5 * (cpy + 1 - p.y), y: cpy + 1 };
          pi2 = { x: cnx, y: cny + (cpx + 1 - pi1.x) };
        } else skip = true;
      } else if (nSouth === pSouth) {
        if (cnx > cpx && !nSouth) {
          interrupted = true;
          pi1 = { x: cpx + 1, y: p.y + 0.5 * (cpx + 1 - p.x) };
          pi2 = { x: cnx + (cpy + 1 - pi1.y), y: cny };
        } else if (cnx < cpx && !nSouth) {
          interrupted = true;
          pi1 = { x: p.x + 0.5 * (cpy - p.y), y: cpy };
          pi2 = { x: cnx + 1, y: cny + 1 - (pi1.x - cpx) };
        } else if (cnx > cpx && nSouth) {
          interrupted = true;
          pi1 = { x: p.x + 0.5 * (cpy + 1 - p.y), y: cpy + 1 };
          pi2 = { x: cnx, y: cny + (cpx + 1 - pi1.x) };
        } else if (cnx < cpx && nSouth) {
          interrupted = true;
          pi1 = { x: cpx, y: p.y + 0.5 * (cpx - p.x) };
          pi2 = { x: cnx + 1 - (pi1.y - cpy), y: cny + 1 };
        }
        // (Otherwise DGGAL only skips the edge after a wrap, which has not happened here.)
      }
    }
    if (skip) continue;
    if (Math.abs(dx) < E && Math.abs(dy) < E) continue;
    addEdgePoints(points, p, next, nDivisions, interrupted ? pi1 : null, interrupted ? pi2 : null);
  }
  return points;
}

/** Edge divisions DGGAL uses for 3H outlines and extents, by level. */
export const i3hDivisions = (level: number): number => (level < 3 ? 20 : level < 5 ? 15 : level < 8 ? 10 : level < 10 ? 8 : 5);

/** Longitude relative to `cLon` wrapped into [-pi, pi] with DGGAL's 1e-7 rad tolerance (wrapLonAt). */
function wrapLonAt(lon: number, cLon: number): number {
  lon -= cLon;
  if (lon < -Math.PI - 1e-7) lon += 2 * Math.PI * Math.floor((Math.PI - lon) / (2 * Math.PI));
  else if (lon > Math.PI + 1e-7) lon -= 2 * Math.PI * Math.floor((lon + Math.PI) / (2 * Math.PI));
  return lon;
}

/** WGS84 centroid in radians, its longitude brought within pi (+1e-9) of zero. */
export function centroidRadians(z: I3HZone, proj: SliceAndDiceProjection): GeoRadians {
  const c = i3hCentroid(z);
  const g = { lat: 0, lon: 0 };
  proj.inverse(c.x, c.y, z.sh > 0, g);
  return { lat: g.lat * DEG, lon: g.lon * DEG };
}

const onPole = (p: GeoRadians): boolean => Math.abs(p.lat) === Math.PI / 2;

/**
 * Whether outline point b repeats a: one place on the ground, except two points on a pole at different
 * longitudes, which are a pole pair (the outline's stretch along the pole in lon/lat), not a repeat.
 */
function repeated(a: GeoRadians, b: GeoRadians): boolean {
  if (onPole(a) && onPole(b)) return Math.abs(a.lon - b.lon) < 1e-11;
  return samePlace(a, b);
}

/**
 * Each run of points on a pole (where a longitude is arbitrary) replaced by a pair on that pole at the
 * longitudes of the points either side: the outline runs along the pole between its two edges there.
 * A ring all on a pole is left as it is.
 */
function poleRunsAsPairs(pts: readonly GeoRadians[]): GeoRadians[] {
  const n = pts.length;
  const start = pts.findIndex((p) => !onPole(p));
  if (start < 0) return [...pts];
  const out: GeoRadians[] = [];
  for (let k = 0; k < n; k++) {
    const p = pts[(start + k) % n]!;
    if (!onPole(p)) { out.push(p); continue; }
    let end = k;
    while (end + 1 < n && onPole(pts[(start + end + 1) % n]!)) end++;
    const before = pts[(start + k - 1) % n]!, after = pts[(start + end + 1) % n]!;
    out.push({ lat: p.lat, lon: before.lon });
    if (Math.abs(after.lon - before.lon) >= 1e-11) out.push({ lat: p.lat, lon: after.lon });
    k = end;
  }
  return out;
}

/**
 * Densified outline in geodetic radians, longitudes continuous around the centroid (DGGAL's
 * getRefinedVertices for WGS84). With `polarPairs`, points within 1e-6 degrees of a pole become two
 * points at +-90 degrees, at the longitudes of the outline just before and after it (DGGAL's rule).
 * Without, the points are kept where they are, and only those on a pole become such pairs (see
 * poleRunsAsPairs); a centroid on a pole then has no longitude to turn odd-level points by 180 degrees
 * against (DGGAL's rule for odd levels turned 180 degrees the points beside a 3H level-33 zone's corner
 * on a pole, and the outline crossed itself).
 */
export function i3hRefinedRadians(z: I3HZone, proj: SliceAndDiceProjection, polarPairs = true): GeoRadians[] {
  const level = hexZoneLevel(z);
  const r = refine5x6(baseRefinedVertices(z), i3hDivisions(level));
  const centroid = centroidRadians(z, proj);
  const odd = z.sh > 0;
  const turnOdd = odd && (polarPairs || !onPole(centroid));
  let clon = centroid.lon;
  if (clon < -Math.PI - 1e-9) clon += 2 * Math.PI;
  if (clon > Math.PI + 1e-9) clon -= 2 * Math.PI;
  // DGGAL's eC compiler emitted 0.05 degrees as this constant; the last bits matter for unwrapping.
  const base = clon - 0.0008726646259972;
  const poleOffset = 0.001 * 2 ** (level >> 1);
  const out: GeoRadians[] = [];
  const g = { lat: 0, lon: 0 };
  const dropRepeat = (): void => {
    const m = out.length;
    if (m >= 2 && repeated(out[m - 1]!, out[m - 2]!)) out.pop();
  };
  const addPolar = (x: number, y: number): void => {
    if (!proj.inverse(x, y, true, g)) return;
    let lon = g.lon * DEG;
    const dDeg = g.lon - clon / DEG;
    if (dDeg < -95) lon += Math.PI;
    else if (dDeg > 95) lon -= Math.PI;
    out.push({ lat: Math.sign(g.lat) * (Math.PI / 2), lon });
    dropRepeat();
  };
  for (let i = 0; i < r.length; i++) {
    const q = r[i]!;
    if (!proj.inverse(q.x, q.y, odd, g)) continue;
    let lon = wrapLonAt(g.lon * DEG, base) + base;
    if (turnOdd) {
      const dDeg = lon / DEG - clon / DEG;
      if (dDeg < -120) lon += Math.PI;
      else if (dDeg > 120) lon -= Math.PI;
    }
    if (polarPairs && Math.abs(g.lat) > 89.999999) {
      // Step a little either way along the outline's direction at that pole (DGGAL's offsets).
      const v = 0.00001 * poleOffset;
      let d1x: number, d1y: number, d2x: number, d2y: number;
      if (g.lat < 0) {
        if (q.y > 3) { d1x = 0; d1y = -v; d2x = 0; d2y = v; }
        else { d1x = -v; d1y = 0; d2x = v; d2y = 0; }
      } else if (q.x < 1) { d1x = v; d1y = 0; d2x = -v; d2y = 0; }
      else { d1x = 0; d1y = v; d2x = 0; d2y = -v; }
      addPolar(q.x + d1x * poleOffset, q.y + d1y * poleOffset);
      addPolar(q.x + d2x * poleOffset, q.y + d2y * poleOffset);
    } else out.push({ lat: g.lat * DEG, lon });
    dropRepeat();
    const m = out.length;
    if (m >= 2 && i === r.length - 1 && repeated(out[0]!, out[m - 1]!)) out.pop();
  }
  return polarPairs ? out : poleRunsAsPairs(out);
}

/** Extent in radians [llLat, llLon, urLat, urLon]; llLon > urLon when crossing the antimeridian. */
export function i3hExtentRadians(z: I3HZone, proj: SliceAndDiceProjection, pts: readonly GeoRadians[] = i3hRefinedRadians(z, proj)): [number, number, number, number] {
  return extentAround(pts, centroidRadians(z, proj).lon);
}

/**
 * DGGAL's quick extent from the plain corners (getZoneWGS84ExtentApproximate), which its bbox listing
 * tests before the refined one; the polar zones span all longitudes up to their pole.
 */
export function i3hApproxExtentRadians(z: I3HZone, corners: readonly Pt[], proj: SliceAndDiceProjection): [number, number, number, number] {
  const g = { lat: 0, lon: 0 };
  const pts: GeoRadians[] = [];
  for (const v of corners) if (proj.inverse(v.x, v.y, z.sh > 0, g)) pts.push({ lat: g.lat * DEG, lon: g.lon * DEG });
  const e = extentAround(pts, centroidRadians(z, proj).lon);
  if (z.root === 10) { e[1] = -Math.PI; e[3] = Math.PI; e[2] = Math.PI / 2; }
  else if (z.root === 11) { e[1] = -Math.PI; e[3] = Math.PI; e[0] = -Math.PI / 2; }
  return e;
}
