/** Geodetic extents of densified zone outlines (DGGAL's getZoneWGS84Extent), shared by the 7H and 3H grids. */

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
