/**
 * WKB reader (OGC/ISO WKB, including ISO Z/M/ZM type codes and PostGIS EWKB flags), since the
 * lake stores geometries as WKB and core DuckDB cannot evaluate spatial relations.
 * Coordinates beyond x/y/z are dropped.
 */
import type { Geometry, Position } from './geojson.js';

export class WkbError extends Error {
  override readonly name = 'WkbError';
}

export function decodeWkb(bytes: Uint8Array): Geometry {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // 2D points, the bulk of point lakes, without the general reader's setup.
  if (bytes.byteLength === 21 && bytes[0]! <= 1 && view.getUint32(1, bytes[0] === 1) === 1) {
    const little = bytes[0] === 1;
    return { type: 'Point', coordinates: [view.getFloat64(5, little), view.getFloat64(13, little)] };
  }
  let offset = 0;
  const need = (n: number): void => {
    if (offset + n > bytes.byteLength) throw new WkbError(`truncated WKB at byte ${offset}`);
  };

  const read = (depth: number): Geometry => {
    if (depth > 8) throw new WkbError('WKB nested too deeply');
    need(5);
    const little = view.getUint8(offset) === 1;
    offset += 1;
    let code = view.getUint32(offset, little);
    offset += 4;
    let hasZ = false;
    let hasM = false;
    // EWKB flags
    if (code & 0x80000000) hasZ = true;
    if (code & 0x40000000) hasM = true;
    if (code & 0x20000000) {
      need(4);
      offset += 4; // SRID
    }
    code &= 0x0fffffff;
    // ISO: 1000s = Z, 2000s = M, 3000s = ZM
    const iso = Math.floor(code / 1000);
    if (iso === 1 || iso === 3) hasZ = true;
    if (iso === 2 || iso === 3) hasM = true;
    const type = code % 1000;
    const dims = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0);
    const u32 = (): number => {
      need(4);
      const v = view.getUint32(offset, little);
      offset += 4;
      return v;
    };
    const point = (): Position => {
      need(8 * dims);
      const p: Position = [];
      for (let i = 0; i < dims; i++) p.push(view.getFloat64(offset + 8 * i, little));
      offset += 8 * dims;
      return hasZ ? p.slice(0, 3) : p.slice(0, 2);
    };
    const points = (): Position[] => {
      const n = u32();
      if (n * 8 * dims > bytes.byteLength - offset) throw new WkbError('WKB point count exceeds the data');
      return Array.from({ length: n }, point);
    };
    const rings = (): Position[][] => Array.from({ length: u32() }, points);
    const parts = <T extends Geometry>(expected: string): T[] =>
      Array.from({ length: u32() }, () => {
        const g = read(depth + 1);
        if (g.type !== expected) throw new WkbError(`expected ${expected} inside multi-geometry, found ${g.type}`);
        return g as T;
      });

    switch (type) {
      case 1:
        return { type: 'Point', coordinates: point() };
      case 2:
        return { type: 'LineString', coordinates: points() };
      case 3:
        return { type: 'Polygon', coordinates: rings() };
      case 4:
        return { type: 'MultiPoint', coordinates: parts<{ type: 'Point'; coordinates: Position }>('Point').map((p) => p.coordinates) };
      case 5:
        return {
          type: 'MultiLineString',
          coordinates: parts<{ type: 'LineString'; coordinates: Position[] }>('LineString').map((p) => p.coordinates),
        };
      case 6:
        return {
          type: 'MultiPolygon',
          coordinates: parts<{ type: 'Polygon'; coordinates: Position[][] }>('Polygon').map((p) => p.coordinates),
        };
      case 7:
        return { type: 'GeometryCollection', geometries: Array.from({ length: u32() }, () => read(depth + 1)) };
      default:
        throw new WkbError(`unsupported WKB geometry type ${code}`);
    }
  };
  return read(0);
}
