/** Geodetic extents of zone outlines and corners (DGGAL's getZoneWGS84Extent), shared by the grids. */

/** A geodetic position in radians. */
export interface GeoRadians {
  lat: number;
  lon: number;
}

/**
 * Extent in radians [llLat, llLon, urLat, urLon] of outline points whose longitudes are continuous
 * around the centroid's `clon`; llLon > urLon when it crosses the antimeridian.
 */
export function extentAround(pts: readonly GeoRadians[], clon: number): [number, number, number, number] {
  let minD = 99999, maxD = -99999;
  let llLat = Math.PI / 2, urLat = -Math.PI / 2, llLon = Math.PI, urLon = -Math.PI;
  for (const p of pts) {
    let d = p.lon - clon;
    if (d > Math.PI) d -= 2 * Math.PI;
    if (d < -Math.PI) d += 2 * Math.PI;
    if (p.lat > urLat) urLat = p.lat;
    if (p.lat < llLat) llLat = p.lat;
    if (d > maxD) { maxD = d; urLon = p.lon; }
    if (d < minD) { minD = d; llLon = p.lon; }
  }
  if (llLon < -Math.PI) llLon += 2 * Math.PI;
  if (urLon > Math.PI) urLon -= 2 * Math.PI;
  return [llLat, llLon, urLat, urLon];
}

/**
 * Extent in radians [llLat, llLon, urLat, urLon] of a zone's corners (the HEALPix grids' rule): a corner
 * on a pole adds no longitude, and corners more than half the globe apart in longitude are taken to
 * straddle the antimeridian (llLon > urLon, from the corners on either side of it).
 */
export function cornersExtent(v: readonly GeoRadians[]): [number, number, number, number] {
  let llLat = Number.MAX_VALUE, llLon = Number.MAX_VALUE, urLat = -Number.MAX_VALUE, urLon = -Number.MAX_VALUE;
  for (const p of v) {
    if (p.lat < llLat) llLat = p.lat;
    if (p.lat > urLat) urLat = p.lat;
    if (Math.abs(Math.abs(p.lat) - Math.PI / 2) > 1e-11) {
      if (p.lon < llLon) llLon = p.lon;
      if (p.lon > urLon) urLon = p.lon;
    }
  }
  if (urLon - llLon > Math.PI) {
    llLon = Math.PI; urLon = -Math.PI;
    for (const p of v) {
      if (p.lon > 0 && p.lon < llLon) llLon = p.lon;
      if (p.lon < 0 && p.lon > urLon) urLon = p.lon;
    }
  }
  return [llLat, llLon, urLat, urLon];
}

/**
 * The densified outline of the zone last asked for: a zone's description (its bbox) and its geometry
 * both need it, and a zone info request asks for both. The points are never modified.
 */
export class LastOutline {
  private zoneId: string | undefined;
  private pts: readonly GeoRadians[] = [];

  get(zoneId: string, make: () => readonly GeoRadians[]): readonly GeoRadians[] {
    if (this.zoneId !== zoneId) {
      this.pts = make();
      this.zoneId = zoneId;
    }
    return this.pts;
  }
}
