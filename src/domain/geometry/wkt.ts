/** WKT writer, used to hand literal geometries to SQL engines as a bound string. */
import type { Geometry, Position } from './geojson.js';

const pt = (p: Position): string => p.map((n) => String(n)).join(' ');
const seq = (ps: Position[]): string => `(${ps.map(pt).join(', ')})`;
const rings = (rs: Position[][]): string => `(${rs.map(seq).join(', ')})`;

const hasZ = (g: Geometry): boolean => {
  switch (g.type) {
    case 'Point':
      return g.coordinates.length > 2;
    case 'LineString':
    case 'MultiPoint':
      return g.coordinates.some((p) => p.length > 2);
    case 'Polygon':
    case 'MultiLineString':
      return g.coordinates.some((r) => r.some((p) => p.length > 2));
    case 'MultiPolygon':
      return g.coordinates.some((x) => x.some((r) => r.some((p) => p.length > 2)));
    case 'GeometryCollection':
      return g.geometries.some(hasZ);
  }
};

/** Writes x y (x y z when any position has z; missing z become 0 so all positions agree). */
export function toWkt(g: Geometry): string {
  const z = hasZ(g);
  const norm = (p: Position): Position => (z ? [p[0]!, p[1]!, p[2] ?? 0] : [p[0]!, p[1]!]);
  const tag = (name: string): string => (z ? `${name} Z ` : `${name} `);
  switch (g.type) {
    case 'Point':
      return `${tag('POINT')}(${pt(norm(g.coordinates))})`;
    case 'LineString':
      return tag('LINESTRING') + seq(g.coordinates.map(norm));
    case 'Polygon':
      return tag('POLYGON') + rings(g.coordinates.map((r) => r.map(norm)));
    case 'MultiPoint':
      return `${tag('MULTIPOINT')}(${g.coordinates.map((p) => `(${pt(norm(p))})`).join(', ')})`;
    case 'MultiLineString':
      return tag('MULTILINESTRING') + rings(g.coordinates.map((r) => r.map(norm)));
    case 'MultiPolygon':
      return `${tag('MULTIPOLYGON')}(${g.coordinates.map((poly) => rings(poly.map((r) => r.map(norm)))).join(', ')})`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION (${g.geometries.map(toWkt).join(', ')})`;
  }
}
