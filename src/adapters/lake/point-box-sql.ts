/**
 * Deciding a spatial predicate between WKB points and axis-aligned boxes inside DuckDB, with the
 * same answer as the exact per-row test (src/domain/geometry/relate.ts), so that most rows
 * never reach JS.
 *
 * Core DuckDB (no `spatial` extension) reads no coordinates, but `ST_Intersects_Extent` of a
 * point and a box is exactly "the point lies in the closed box". The exact test counts points
 * within `eps = 1e-9 * max(1, |coordinates|)` of an edge as on it; so a point in the box shrunk
 * by a margin larger than eps is surely inside, one outside the box widened by that margin is
 * surely outside, and only points in the thin band between (and every row that is not a finite
 * 2D point) are left to the exact test. A point close enough to the boundary for eps to matter
 * has coordinates no larger than the box's, so the margin is taken from the box alone.
 *
 * NaN and infinite coordinates (POINT EMPTY is NaN NaN) are found with extent tests too: an
 * infinite coordinate meets no finite box, and a NaN one fails every comparison, so it meets
 * both of two boxes no finite point can share. test/contracts/lake-reader* pins these rules.
 */
import type { Geometry, Position } from '../../domain/geometry/geojson.js';

export interface Box {
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
}

/** The margin relative to the box's scale: a safety factor of 4 over the exact test's 1e-9. */
const MARGIN = 4e-9;
const MAX = '1.7976931348623157e308';

function ringBox(ring: Position[]): Box | undefined {
  if (ring.length !== 5) return undefined;
  const xs = [...new Set(ring.map((p) => p[0]!))].sort((a, b) => a - b);
  const ys = [...new Set(ring.map((p) => p[1]!))].sort((a, b) => a - b);
  if (xs.length !== 2 || ys.length !== 2) return undefined;
  const [x0, x1] = xs as [number, number];
  const [y0, y1] = ys as [number, number];
  const corners = new Set(ring.slice(0, 4).map((p) => `${p[0] === x0 ? 0 : 1}${p[1] === y0 ? 0 : 1}`));
  if (corners.size !== 4) return undefined;
  for (let i = 0; i < 4; i++) {
    const [a, b] = [ring[i]!, ring[i + 1]!];
    if (a[0] !== b[0] && a[1] !== b[1]) return undefined; // a diagonal: a bow tie, not a rectangle
  }
  return { xmin: x0, ymin: y0, xmax: x1, ymax: y1 };
}

/** The geometry as non-degenerate axis-aligned boxes (a BBOX, polygons of one rectangular ring), else undefined. */
export function rectangles(g: Geometry): Box[] | undefined {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
  if (polygons.length === 0) return undefined;
  const boxes: Box[] = [];
  for (const p of polygons) {
    const box = p.length === 1 ? ringBox(p[0]!) : undefined;
    if (!box) return undefined;
    boxes.push(box);
  }
  return boxes;
}

const wkt = (b: Box): string => `POLYGON((${b.xmin} ${b.ymin}, ${b.xmax} ${b.ymin}, ${b.xmax} ${b.ymax}, ${b.xmin} ${b.ymax}, ${b.xmin} ${b.ymin}))`;

export interface PointBoxSql {
  /** TRUE for a blob that is a 2D point (21 bytes, either byte order); NULL for NULL. */
  isPoint: string;
  /** For points: TRUE when the SQL answer below is the exact one. */
  decided: string;
  /** For decided points: the point lies inside one of the boxes. */
  inside: string;
}

/**
 * SQL for points against boxes. `blob` is the WKB expression, `geom` the same as GEOMETRY;
 * `bind` turns a WKT box into a bound GEOMETRY parameter. Evaluate `decided` and `inside` only
 * where `isPoint` holds (inside a CASE): other blobs may not even be valid WKB.
 */
export function pointBoxSql(blob: string, geom: string, boxes: Box[], bind: (wkt: string) => string): PointBoxSql {
  const scale = Math.max(1, ...boxes.flatMap((b) => [b.xmin, b.ymin, b.xmax, b.ymax].map(Math.abs)));
  const m = MARGIN * scale;
  const meets = (b: Box) => `ST_Intersects_Extent(${geom}, ${bind(wkt(b))})`;
  const shrunk = boxes.map((b) => ({ xmin: b.xmin + m, ymin: b.ymin + m, xmax: b.xmax - m, ymax: b.ymax - m })).filter((b) => b.xmin <= b.xmax && b.ymin <= b.ymax);
  const widened = boxes.map((b) => ({ xmin: b.xmin - m, ymin: b.ymin - m, xmax: b.xmax + m, ymax: b.ymax + m }));
  const inside = shrunk.length ? `(${shrunk.map(meets).join(' OR ')})` : 'FALSE';
  const near = `(${widened.map(meets).join(' OR ')})`;
  const constant = (x0: string, y0: string, x1: string, y1: string) => `ST_Intersects_Extent(${geom}, 'POLYGON((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))'::GEOMETRY)`;
  const finite =
    `(${constant(`-${MAX}`, `-${MAX}`, MAX, MAX)}` +
    ` AND NOT (${constant(`-${MAX}`, `-${MAX}`, '-1', MAX)} AND ${constant('1', `-${MAX}`, MAX, MAX)})` +
    ` AND NOT (${constant(`-${MAX}`, `-${MAX}`, MAX, '-1')} AND ${constant(`-${MAX}`, '1', MAX, MAX)}))`;
  const header = (h: string, next: string) => `(${blob} >= '${h}'::BLOB AND ${blob} < '${next}'::BLOB)`;
  const isPoint =
    `(octet_length(${blob}) = 21 AND (${header('\\x01\\x01\\x00\\x00\\x00', '\\x01\\x01\\x00\\x00\\x01')}` +
    ` OR ${header('\\x00\\x00\\x00\\x00\\x01', '\\x00\\x00\\x00\\x00\\x02')}))`;
  return { isPoint, decided: `(${finite} AND (${inside} OR NOT ${near}))`, inside };
}
