/** GeoJSON-like geometries (RFC 7946 shapes, without `bbox`/foreign members). */
export type Position = number[];

export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPoint'; coordinates: Position[] }
  | { type: 'MultiLineString'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] }
  | { type: 'GeometryCollection'; geometries: Geometry[] };

/** [minx, miny, maxx, maxy] */
export type Envelope = [number, number, number, number];

/** Envelope of all coordinates; undefined for a geometry without any. */
export function envelope(g: Geometry): Envelope | undefined {
  const e: Envelope = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (p: Position): void => {
    e[0] = Math.min(e[0], p[0]!);
    e[1] = Math.min(e[1], p[1]!);
    e[2] = Math.max(e[2], p[0]!);
    e[3] = Math.max(e[3], p[1]!);
  };
  const walk = (x: Geometry): void => {
    switch (x.type) {
      case 'Point':
        return add(x.coordinates);
      case 'LineString':
      case 'MultiPoint':
        return x.coordinates.forEach(add);
      case 'Polygon':
      case 'MultiLineString':
        return x.coordinates.forEach((r) => r.forEach(add));
      case 'MultiPolygon':
        return x.coordinates.forEach((p) => p.forEach((r) => r.forEach(add)));
      case 'GeometryCollection':
        return x.geometries.forEach(walk);
    }
  };
  walk(g);
  return e[0] <= e[2] ? e : undefined;
}

/**
 * A CQL2 BBOX as a polygon (x/y only). A box whose west edge is east of its east edge crosses
 * the antimeridian and becomes two boxes.
 */
export function bboxToGeometry(bbox: readonly number[]): Geometry {
  const [w, s, e, n] = bbox.length === 6 ? [bbox[0]!, bbox[1]!, bbox[3]!, bbox[4]!] : [bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!];
  const box = (x0: number, x1: number): Position[][] => [[[x0, s], [x1, s], [x1, n], [x0, n], [x0, s]]];
  if (w <= e) return { type: 'Polygon', coordinates: box(w, e) };
  return { type: 'MultiPolygon', coordinates: [box(w, 180), box(-180, e)] };
}
