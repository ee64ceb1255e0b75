/**
 * Densified outlines and geodetic extents of rhombic (9R/4R) zones, as DGGAL's getI9RRefinedWGS84Vertices
 * and getZoneWGS84Extent compute them: 30 points per edge of the square, a point at a geographic pole
 * replaced by the pole seen from both of its edges (so the ring follows the pole line), longitudes
 * unwrapped around the centroid. The extent decides which zones a bbox listing keeps, so it comes from
 * exactly this outline.
 */
import type { RadExtent } from '../../core/box-cover.js';
import { rhombicCentroid5x6, rhombicCorners5x6, type RhombicLattice, type RhombicZone } from './rhombic-zone.js';
import type { GeoResult, SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';

/** What a rhombic grid asks of its projection of the 5x6 net (Slice & Dice, or any other of the same net). */
export type RhombicProjection = Pick<SliceAndDiceProjection, 'forward' | 'inverse'>;

const DEG = Math.PI / 180;
const ANCHORS = 30;
/** 0.05 degrees as DGGAL's compiler emitted it: the last bits matter for unwrapping. */
const WRAP_MARGIN = 0.0008726646259972;

/**
 * The 5x6 point DGGAL locates a geodetic point at (degrees), written to out[0], out[1]. At the exact poles
 * DGGAL's face search, whose candidate faces tie there, lands on the same unfolding whatever the
 * longitude: (5, 4.5) for the North Pole (clamped into root 8), and a hair above (2, 3.5) in the net, y just short of 3.5, for the South Pole
 * (as the projection gives it at longitude 0). Our projection's rounding may pick another unfolding of the
 * pole at other longitudes, so the poles are placed where DGGAL places them.
 */
export function rhombicForward(proj: RhombicProjection, lat: number, lon: number, out: Float64Array): void {
  if (lat === 90) { out[0] = 5; out[1] = 4.5; }
  else proj.forward(lat, lat === -90 ? 0 : lon, out);
}

/** Centroid in geodetic degrees (oddGrid false, as DGGAL asks for every rhombic point). */
export function rhombicCentroidGeo(lat: RhombicLattice, z: RhombicZone, proj: RhombicProjection): GeoResult {
  const c = rhombicCentroid5x6(lat, z);
  const g = { lat: 0, lon: 0 };
  proj.inverse(c.x, c.y, false, g);
  return g;
}

/** Wraps into [-pi, pi] relative to nothing, with DGGAL's 1e-7 rad tolerance (wrapLonAt with q = -1). */
function wrapLoose(lon: number): number {
  if (lon < -Math.PI - 1e-7) lon += 2 * Math.PI * Math.floor((Math.PI - lon) / (2 * Math.PI));
  else if (lon > Math.PI + 1e-7) lon -= 2 * Math.PI * Math.floor((lon + Math.PI) / (2 * Math.PI));
  return lon;
}

/**
 * The refined outline in geodetic degrees ({lat, lon}), not closed, longitudes continuous around the
 * centroid (they may leave [-180, 180]). Even at the deepest levels a square is wider than DGGAL's pole snap
 * (1e-8 in the net), so at most one corner lands on a pole and the outline stays a polygon.
 */
export function rhombicRefinedGeo(lat: RhombicLattice, z: RhombicZone, proj: RhombicProjection): GeoResult[] {
  const dp = rhombicCorners5x6(lat, z);
  const centroid = rhombicCentroidGeo(lat, z, proj);
  let clon = centroid.lon * DEG;
  if (clon < -Math.PI - 1e-9) clon += 2 * Math.PI;
  if (clon > Math.PI + 1e-9) clon -= 2 * Math.PI;
  const poleOffset = 0.001 * 2 ** z.level;
  const out: GeoResult[] = [];
  const g = { lat: 0, lon: 0 }, g2 = { lat: 0, lon: 0 };
  for (let i = 0; i < 4; i++) {
    const p = dp[i]!, np = dp[(i + 1) & 3]!, pp = dp[(i + 3) & 3]!;
    const dx = np.x - p.x, dy = np.y - p.y;
    for (let j = 0; j < ANCHORS; j++) {
      const x = p.x + (dx * j) / ANCHORS, y = p.y + (dy * j) / ANCHORS;
      if (!proj.inverse(x, y, false, g)) continue;
      if (Math.abs(g.lat) > 89.999999) {
        // The pole itself has no longitude: take the ones of points just before and after it.
        const bx = j ? -dx : pp.x - p.x, by = j ? -dy : pp.y - p.y;
        if (proj.inverse(x + bx * poleOffset, y + by * poleOffset, true, g2)) out.push({ lat: Math.sign(g2.lat) * 90, lon: g2.lon });
        if (proj.inverse(x + dx * poleOffset, y + dy * poleOffset, true, g2)) out.push({ lat: Math.sign(g2.lat) * 90, lon: g2.lon });
      } else out.push({ lat: g.lat, lon: g.lon });
    }
  }
  const base = clon - WRAP_MARGIN;
  for (const q of out) q.lon = (wrapLoose(q.lon * DEG - base) + base) / DEG;
  return out;
}

/** Extent in radians [llLat, llLon, urLat, urLon] (DGGAL's getZoneWGS84Extent); llLon > urLon across the antimeridian. */
export function rhombicExtentRadians(lat: RhombicLattice, z: RhombicZone, proj: RhombicProjection): RadExtent {
  const pts = rhombicRefinedGeo(lat, z, proj);
  const clon = rhombicCentroidGeo(lat, z, proj).lon * DEG;
  let minD = 99999, maxD = -99999;
  let llLat = Number.MAX_VALUE, urLat = -Number.MAX_VALUE, llLon = Number.MAX_VALUE, urLon = -Number.MAX_VALUE;
  for (const p of pts) {
    const plon = p.lon * DEG;
    let d = plon - clon;
    if (d > Math.PI) d -= 2 * Math.PI;
    if (d < -Math.PI) d += 2 * Math.PI;
    const plat = p.lat * DEG;
    if (plat > urLat) urLat = plat;
    if (plat < llLat) llLat = plat;
    if (d > maxD) { maxD = d; urLon = plon; }
    if (d < minD) { minD = d; llLon = plon; }
  }
  if (llLon < -Math.PI) llLon += 2 * Math.PI;
  if (urLon > Math.PI) urLon -= 2 * Math.PI;
  return [llLat, llLon, urLat, urLon];
}
