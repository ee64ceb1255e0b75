/**
 * WKB (ISO, little-endian, 2D) for the polygonal zone geometries the RFC 7946 helpers produce:
 * GeoParquet stores geometry as WKB.
 */
import type { ZonePolygon } from './rfc7946.js';
import type { Position } from './geojson.js';

export function encodeZoneWkb(g: ZonePolygon): Uint8Array {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  const polySize = (p: Position[][]) => 9 + p.reduce((s, r) => s + 4 + 16 * r.length, 0);
  const size = g.type === 'Polygon' ? polySize(g.coordinates) : 9 + polys.reduce((s, p) => s + polySize(p), 0);
  const buf = new Uint8Array(size);
  const view = new DataView(buf.buffer);
  let o = 0;
  const header = (type: number, count: number) => {
    view.setUint8(o, 1);
    view.setUint32(o + 1, type, true);
    view.setUint32(o + 5, count, true);
    o += 9;
  };
  const polygon = (p: Position[][]) => {
    header(3, p.length);
    for (const ring of p) {
      view.setUint32(o, ring.length, true);
      o += 4;
      for (const pt of ring) {
        view.setFloat64(o, pt[0]!, true);
        view.setFloat64(o + 8, pt[1]!, true);
        o += 16;
      }
    }
  };
  if (g.type === 'Polygon') polygon(g.coordinates);
  else {
    header(6, polys.length);
    polys.forEach(polygon);
  }
  return buf;
}
