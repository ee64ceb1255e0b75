/**
 * Densified outlines and geodetic extents of 7H zones (DGGAL's getBaseRefinedVertices, getRefinedVertices
 * and getZoneWGS84Extent). The extent decides which zones a bbox listing keeps, so it must be computed
 * from exactly the same densified outline as the reference.
 */
import { centroidOf, latticeVertices, outlineEdges, POW7, zoneEdgeCount, type I7HZone } from './i7h-zone.js';
import { hexZoneLevel } from '../hex-zone.js';
import { addIntermediatePoints, rotateCCW, type Pt } from '../rhombic-5x6-net.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { extentAround, type GeoRadians } from '../../core/outline-extent.js';
import { samePlace } from '../../core/same-place.js';

const DEG = Math.PI / 180;

/** Densified outline in 5x6 (crs84 mode), nDivisions points per edge. */
export function refined5x6(z: I7HZone, nDivisions: number): Pt[] {
  const pts: Pt[] = [];
  const oonp = 1.0 / (7 * POW7[z.k]!);
  const polar = (z.sh === 0 && (z.root === 10 || z.root === 11)) || (z.sh === 1 && z.root > 9);
  if (polar) {
    let b: Pt, ab: Pt, d: Pt;
    const s = z.root === 10 ? 1 : -1;
    if (z.sh === 0) {
      const A = 7 / 3.0, B = 14 / 3.0;
      const a = z.root === 10 ? { x: 1 - oonp * B, y: 0 - oonp * A } : { x: 4 + oonp * B, y: 6 + oonp * A };
      b = z.root === 10 ? { x: 1 - oonp * A, y: 0 + oonp * A } : { x: 4 + oonp * A, y: 6 - oonp * A };
      ab = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      d = { x: b.x - ab.x, y: b.y - ab.y };
      rotateCCW(d);
      d.x += b.x; d.y += b.y;
    } else {
      const A = 4 / 3.0, B = 5 / 3.0, C = 1 / 3.0, r = 1 / 5.0;
      let a: Pt, c: Pt;
      if (z.root === 10) {
        a = { x: 1 - oonp * B, y: 0 - oonp * C };
        b = { x: 1 - oonp * C, y: 0 + oonp * A };
        c = { x: 1 + oonp * A, y: 0 + oonp * B };
      } else {
        a = { x: 4 + oonp * B, y: 6 + oonp * C };
        b = { x: 4 + oonp * C, y: 6 - oonp * A };
        c = { x: 4 - oonp * A, y: 6 - oonp * B };
      }
      ab = { x: a.x + (b.x - a.x) * r, y: a.y + (b.y - a.y) * r };
      d = { x: b.x + (c.x - b.x) * r, y: b.y + (c.y - b.y) * r };
    }
    for (let i = 0; i < 5; i++) {
      const j = i < 4 ? i + 1 : 0;
      addIntermediatePoints(pts,
        { x: b.x + s * i, y: b.y + s * i }, { x: b.x + s * j, y: b.y + s * j }, nDivisions,
        { x: d.x + s * i, y: d.y + s * i }, { x: ab.x + s * j, y: ab.y + s * j }, true);
    }
    return pts;
  }
  const edges = outlineEdges(z);
  for (const [i, e] of edges.entries()) {
    // The walk is closed once it is back at its first corner. DGGAL walks on regardless: at the zone on
    // an icosahedron vertex whose corner its edge snap doubles (58.4°N 168.8°W at levels 16 and 18) the
    // fifth edge, across the interruption, already ends at the start, and the sixth runs along the first
    // again, a back-run that makes the ring invalid (DGGAL's geom is that ring).
    if (i > 0 && sameNetPoint(e.p, edges[0]!.p)) break;
    addIntermediatePoints(pts, e.p, e.n, nDivisions, e.i1, e.i2, true);
  }
  return pts;
}

/** Whether two net points are one corner: equal, or a whole turn of the net apart (it repeats every (5, 5)). */
function sameNetPoint(a: Pt, b: Pt): boolean {
  const dx = a.x - b.x, dy = a.y - b.y;
  const turns = Math.round(dx / 5);
  return Math.abs(dx - 5 * turns) < 1e-12 && Math.abs(dy - 5 * turns) < 1e-12;
}

export const refinementDivisions = (level: number): number => (level < 3 ? 20 : level < 5 ? 15 : 12);

/** Wraps into [-pi, pi] with DGGAL's 1e-7 rad tolerance. */
function wrapLonLoose(lon: number): number {
  while (lon < -Math.PI - 1e-7) lon += 2 * Math.PI;
  while (lon > Math.PI + 1e-7) lon -= 2 * Math.PI;
  return lon;
}

/**
 * Densified outline in geodetic radians as [lat, lon] pairs, longitudes continuous around the centroid
 * (may leave [-pi, pi]). Consecutive duplicates (both sides of an interruption) are dropped. DGGAL turns
 * a point more than 120° of longitude from the centroid's by half a turn (only zones beside a pole have
 * such points); `halfTurnFarPoints` false leaves every point where it is instead.
 */
export function refinedGeoRadians(z: I7HZone, proj: SliceAndDiceProjection, halfTurnFarPoints = true): GeoRadians[] {
  const r = refined5x6(z, refinementDivisions(hexZoneLevel(z)));
  const g = { lat: 0, lon: 0 };
  const c = centroidOf(z);
  proj.inverse(c.x, c.y, z.sh > 0, g);
  let clon = g.lon * DEG;
  if (clon < -Math.PI - 1e-9) clon += 2 * Math.PI;
  if (clon > Math.PI + 1e-9) clon -= 2 * Math.PI;
  // DGGAL's eC compiler emitted 0.05 degrees as this constant; the last bits matter for unwrapping.
  const base = clon - 0.0008726646259972;
  const out: GeoRadians[] = [];
  for (let i = 0; i < r.length; i++) {
    if (!proj.inverse(r[i]!.x, r[i]!.y, true, g)) continue;
    const lat = g.lat * DEG;
    let lon = wrapLonLoose(g.lon * DEG - base) + base;
    const dDeg = lon / DEG - clon / DEG;
    if (halfTurnFarPoints && dDeg < -120) lon += Math.PI;
    else if (halfTurnFarPoints && dDeg > 120) lon -= Math.PI;
    out.push({ lat, lon });
    const m = out.length;
    if (m >= 2 && samePlace(out[m - 1]!, out[m - 2]!)) out.pop();
    const m2 = out.length;
    if (m2 >= 2 && i === r.length - 1 && samePlace(out[0]!, out[m2 - 1]!)) out.pop();
  }
  return out;
}

/** Extent in radians [llLat, llLon, urLat, urLon]; llLon > urLon when crossing the antimeridian. */
export function extentRadians(z: I7HZone, proj: SliceAndDiceProjection, pts: readonly GeoRadians[] = refinedGeoRadians(z, proj)): [number, number, number, number] {
  const c = centroidOf(z);
  const g = { lat: 0, lon: 0 };
  proj.inverse(c.x, c.y, z.sh > 0, g);
  return extentAround(pts, g.lon * DEG);
}

export function cornersInLattice(z: I7HZone): Pt[] {
  return latticeVertices(z.k, z.root, z.sh, centroidOf(z), zoneEdgeCount(z));
}
