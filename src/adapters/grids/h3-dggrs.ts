import * as h3 from 'h3-js';
import type { BBox, Dggrs, GridLevelInfo, LonLat, ZoneDescription } from '../../domain/dggrs/dggrs.js';

const MAX_RES = 15;
const DENSIFY_SEGMENTS = 8;

/**
 * H3 (Uber's aperture-7 hexagonal grid on an icosahedral gnomonic projection) through h3-js:
 * a second grid family behind the same Dggrs interface. Areas are h3-js's spherical areas on
 * the authalic sphere, not WGS84 geodesic ones.
 */
export class H3Dggrs implements Dggrs {
  readonly id = 'H3';
  readonly title = 'H3: hexagonal hierarchical geospatial index';
  readonly description = 'Uber H3, aperture 7 hexagons (and 12 pentagons per level) on an icosahedron with a gnomonic projection; zone ids are 15-digit hexadecimal cell indexes.';
  readonly uri = 'https://h3geo.org/#/documentation/core-library/overview';
  readonly crs = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  readonly defaultLevel = 3;
  readonly defaultDepth = 2;
  readonly maxRefinementLevel = MAX_RES;
  /** 7^6 = 117,649 sub-zones at depth 6: deeper would outgrow any response. */
  readonly maxRelativeDepth = 6;
  readonly zoneIdForm = '15 lowercase hexadecimal digits, like 831f8dfffffffff';

  isValidZone(zoneId: string): boolean {
    return /^[0-9a-f]{15,16}$/.test(zoneId) && h3.isValidCell(zoneId);
  }

  zoneLevel(zoneId: string): number {
    return h3.getResolution(zoneId);
  }

  zoneFromPoint(lon: number, lat: number, level: number): string {
    return h3.latLngToCell(lat, lon, level);
  }

  describeZone(zoneId: string): ZoneDescription {
    const [lat, lon] = h3.cellToLatLng(zoneId);
    const vertices = cornersOf(zoneId);
    const pentagon = h3.isPentagon(zoneId);
    return {
      id: zoneId,
      level: h3.getResolution(zoneId),
      shape: pentagon ? 'pentagon' : 'hexagon',
      edgeCount: vertices.length,
      centroid: [lon, lat],
      vertices,
      areaMetersSquare: h3.cellArea(zoneId, h3.UNITS.m2),
      bbox: ringBBox(this.zoneOutline(zoneId, false)),
    };
  }

  zoneOutline(zoneId: string, refined: boolean): LonLat[] {
    const corners = unwrap(cornersOf(zoneId));
    const ring: LonLat[] = [];
    for (let i = 0; i < corners.length; i++) {
      const a = corners[i]!;
      const b = corners[(i + 1) % corners.length]!;
      ring.push(a);
      if (refined) for (let s = 1; s < DENSIFY_SEGMENTS; s++) ring.push(greatCirclePoint(a, b, s / DENSIFY_SEGMENTS));
    }
    ring.push(ring[0]!);
    return unwrap(ring);
  }

  parents(zoneId: string): string[] {
    const res = h3.getResolution(zoneId);
    return res === 0 ? [] : [h3.cellToParent(zoneId, res - 1)];
  }

  children(zoneId: string): string[] {
    return this.subZones(zoneId, 1);
  }

  neighbours(zoneId: string): string[] {
    return h3.gridDisk(zoneId, 1).filter((h) => h !== zoneId);
  }

  /** Centre child first, then h3's own order. */
  subZones(zoneId: string, relativeDepth: number): string[] {
    if (relativeDepth === 0) return [zoneId];
    const res = h3.getResolution(zoneId) + relativeDepth;
    const center = h3.cellToCenterChild(zoneId, res);
    return [center, ...h3.cellToChildren(zoneId, res).filter((c) => c !== center)];
  }

  subZoneCount(zoneId: string, relativeDepth: number): number {
    return h3.cellToChildrenSize(zoneId, h3.getResolution(zoneId) + relativeDepth);
  }

  zonesInBBox(level: number, bbox: BBox): string[] {
    const [w, s, e, n] = bbox;
    const boxes: BBox[] = w > e ? [[w, s, 180, n], [-180, s, e, n]] : [bbox];
    const out = new Set<string>();
    for (const [bw, bs, be, bn] of boxes) {
      // Split into narrow strips: h3 treats polygon edges as great-circle arcs.
      const strips = Math.max(1, Math.ceil((be - bw) / 90));
      for (let i = 0; i < strips; i++) {
        const x0 = bw + ((be - bw) * i) / strips;
        const x1 = bw + ((be - bw) * (i + 1)) / strips;
        const ring = [[bs, x0], [bs, x1], [bn, x1], [bn, x0], [bs, x0]];
        for (const h of h3.polygonToCellsExperimental([ring], level, h3.POLYGON_TO_CELLS_FLAGS.containmentOverlapping)) out.add(h);
      }
    }
    return [...out];
  }

  estimateZonesInBBox(level: number, bbox: BBox): number {
    const [w, s, e, n] = bbox;
    const width = ((e - w + 360) % 360 || (e === w ? 0 : 360)) * (Math.PI / 180);
    const fraction = (width * (Math.sin((n * Math.PI) / 180) - Math.sin((s * Math.PI) / 180))) / (4 * Math.PI);
    return Math.ceil(fraction * h3.getNumCells(level) * 1.2) + 1;
  }

  levelInfo(level: number): GridLevelInfo {
    return { level, zoneCount: h3.getNumCells(level), zoneAreaMetersSquare: h3.getHexagonAreaAvg(level, h3.UNITS.m2) };
  }
}

/** True corners [lon, lat], not closed (h3's GeoJSON form repeats the first one). */
function cornersOf(zoneId: string): LonLat[] {
  return h3.cellToBoundary(zoneId).map(([lat, lon]) => [lon, lat] as LonLat);
}

/** Makes longitudes continuous along a ring so it never jumps across the antimeridian. */
function unwrap(ring: LonLat[]): LonLat[] {
  const out: LonLat[] = [];
  for (const [lon, lat] of ring) {
    if (out.length === 0) {
      out.push([lon, lat]);
      continue;
    }
    const prev = out[out.length - 1]![0];
    let x = lon;
    while (x - prev > 180) x -= 360;
    while (prev - x > 180) x += 360;
    out.push([x, lat]);
  }
  return out;
}

function ringBBox(ring: LonLat[]): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [x, y] of ring) {
    w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
  }
  if (e - w >= 360) return [-180, s, 180, n];
  const wrap = (x: number) => ((((x + 180) % 360) + 360) % 360) - 180;
  return [wrap(w), s, e > 180 || e < -180 ? wrap(e) : e, n];
}

function greatCirclePoint(a: LonLat, b: LonLat, t: number): LonLat {
  const rad = Math.PI / 180;
  const va = toVec(a[0] * rad, a[1] * rad);
  const vb = toVec(b[0] * rad, b[1] * rad);
  const dot = Math.min(1, Math.max(-1, va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2]));
  const omega = Math.acos(dot);
  if (omega < 1e-12) return a;
  const sa = Math.sin((1 - t) * omega) / Math.sin(omega);
  const sb = Math.sin(t * omega) / Math.sin(omega);
  const v = [sa * va[0] + sb * vb[0], sa * va[1] + sb * vb[1], sa * va[2] + sb * vb[2]] as const;
  return [Math.atan2(v[1], v[0]) / rad, Math.atan2(v[2], Math.hypot(v[0], v[1])) / rad];
}

function toVec(lon: number, lat: number): [number, number, number] {
  return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
}
