/**
 * The lake decides points against boxes in SQL (point-box-sql.ts) and leaves the rest to the
 * exact per-row test. Whatever SQL decides must be what the exact test answers: checked here
 * against the exhaustive relation (relate.ts's general method), row by row, for points on,
 * next to (by a few ulps and by multiples of the tolerance) and away from the edges, in both
 * byte orders, for NaN and infinite coordinates, Z points and other shapes, with every
 * predicate in both operand orders.
 */
import { expect } from 'chai';
import { DuckDBInstance, blobValue, type DuckDBConnection } from '@duckdb/node-api';
import { toDuckDbSql, type Cql2Columns } from '../../../src/adapters/lake/cql2-duckdb-sql.js';
import { parseCql2Text, SPATIAL_OPS, type Expr, type SpatialOp } from '../../../src/domain/cql2/index.js';
import { bboxToGeometry, envelope, type Geometry } from '../../../src/domain/geometry/geojson.js';
import { exhaustiveRelation, type SpatialRelation } from '../../../src/domain/geometry/relate.js';
import { decodeWkb } from '../../../src/domain/geometry/wkb.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

const RELATION: Record<SpatialOp, SpatialRelation> = {
  s_intersects: 'intersects',
  s_disjoint: 'disjoint',
  s_equals: 'equals',
  s_within: 'within',
  s_contains: 'contains',
  s_touches: 'touches',
  s_overlaps: 'overlaps',
  s_crosses: 'crosses',
};

function point(x: number, y: number, little = true): Uint8Array {
  const v = new DataView(new ArrayBuffer(21));
  v.setUint8(0, little ? 1 : 0);
  v.setUint32(1, 1, little);
  v.setFloat64(5, x, little);
  v.setFloat64(13, y, little);
  return new Uint8Array(v.buffer);
}

function pointZ(x: number, y: number, z: number): Uint8Array {
  const v = new DataView(new ArrayBuffer(29));
  v.setUint8(0, 1);
  v.setUint32(1, 1001, true);
  [x, y, z].forEach((c, i) => v.setFloat64(5 + 8 * i, c, true));
  return new Uint8Array(v.buffer);
}

/** The next double above (dir 1) or below (dir -1), `k` times. */
function ulps(x: number, k: number): number {
  const v = new DataView(new ArrayBuffer(8));
  let r = x;
  for (let i = 0; i < Math.abs(k); i++) {
    if (r === 0) r = k > 0 ? 5e-324 : -5e-324;
    else {
      v.setFloat64(0, r);
      const bits = v.getBigInt64(0);
      v.setBigInt64(0, bits + ((r > 0) === k > 0 ? 1n : -1n));
      r = v.getFloat64(0);
    }
  }
  return r;
}

interface Case {
  name: string;
  /** A CQL2-Text literal. */
  literal: string;
  /** [xmin, ymin, xmax, ymax] of the box(es), to place points around. */
  boxes: [number, number, number, number][];
}

const CASES: Case[] = [
  { name: 'bbox', literal: 'BBOX(0, 0, 10, 5)', boxes: [[0, 0, 10, 5]] },
  { name: 'world', literal: 'BBOX(-180, -90, 180, 90)', boxes: [[-180, -90, 180, 90]] },
  { name: 'antimeridian bbox', literal: 'BBOX(170, -10, -170, 10)', boxes: [[170, -10, 180, 10], [-180, -10, -170, 10]] },
  { name: 'tiny box', literal: 'BBOX(1, 1, 1.0000001, 1.0000001)', boxes: [[1, 1, 1.0000001, 1.0000001]] },
  // The largest coordinates a filter may hold (CRS84), where the margin is widest.
  { name: 'large coordinates', literal: 'BBOX(179.9, -90, 180, -89.9)', boxes: [[179.9, -90, 180, -89.9]] },
  { name: 'clockwise rectangle polygon', literal: 'POLYGON((2 1, 2 3, 6 3, 6 1, 2 1))', boxes: [[2, 1, 6, 3]] },
  { name: 'rectangles as a multipolygon', literal: 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((1 0, 3 0, 3 2, 1 2, 1 0)))', boxes: [[0, 0, 1, 1], [1, 0, 3, 2]] },
  { name: 'degenerate box (left to the exact test)', literal: 'BBOX(2, 2, 2, 3)', boxes: [[2, 2, 2, 3]] },
  { name: 'triangle (left to the exact test)', literal: 'POLYGON((0 0, 4 0, 2 3, 0 0))', boxes: [[0, 0, 4, 3]] },
];

/** Points on, by the edges of, inside and outside every box, plus odd rows. */
function rows(boxes: [number, number, number, number][], random: () => number): (Uint8Array | null)[] {
  const out: (Uint8Array | null)[] = [];
  for (const [x0, y0, x1, y1] of boxes) {
    const scale = Math.max(1, ...[x0, y0, x1, y1].map(Math.abs));
    const eps = scale * 1e-9;
    const offsets = [0, ...[1, 3].flatMap((k) => [{ ulps: k }, { ulps: -k }]), ...[0.5, 1, 2, 4, 8, 1e4].flatMap((k) => [k * eps, -k * eps])];
    const shift = (v: number, o: number | { ulps: number }) => (typeof o === 'number' ? v + o : ulps(v, o.ulps));
    const [mx, my] = [(x0 + x1) / 2, (y0 + y1) / 2];
    for (const o of offsets) {
      // Across each edge at its middle, and along both edges at each corner; both byte orders.
      for (const y of [y0, y1]) out.push(point(mx, shift(y, o)), point(x0, shift(y, o), false), point(x1, shift(y, o)));
      for (const x of [x0, x1]) out.push(point(shift(x, o), my, false), point(shift(x, o), y0), point(shift(x, o), y1, false));
    }
    for (let i = 0; i < 40; i++) {
      const x = x0 + (x1 - x0) * (random() * 1.4 - 0.2);
      const y = y0 + (y1 - y0) * (random() * 1.4 - 0.2);
      out.push(point(x, y, i % 2 === 0));
    }
  }
  out.push(point(NaN, NaN), point(NaN, 1), point(1, NaN, false), point(Infinity, 1), point(1, -Infinity, false), point(-0, 0), pointZ(1, 1, 5), null);
  return out;
}

const ODD_SHAPES = ['MULTIPOINT((1 1), (50 50))', 'LINESTRING(-1 1, 11 1)', 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', 'POLYGON((-5 -5, 20 -5, 20 20, -5 20, -5 -5))'];

describe('lake: points against boxes decided in SQL, as the exact test answers', function () {
  this.timeout(60_000);
  let conn: DuckDBConnection;
  const columns: Cql2Columns = { id: { type: 'integer' }, geom: { type: 'geometry' } };

  before(async () => {
    conn = await (await DuckDBInstance.create(':memory:')).connect();
  });

  async function load(blobs: (Uint8Array | null)[]): Promise<void> {
    await conn.run('CREATE OR REPLACE TABLE t (id INTEGER, geom BLOB)');
    const extra: Uint8Array[] = [];
    for (const wkt of ODD_SHAPES) {
      const r = await conn.runAndReadAll(`SELECT ST_AsWKB(CAST('${wkt}' AS GEOMETRY)) AS b`);
      extra.push((r.getRowObjects()[0]!.b as { bytes: Uint8Array }).bytes);
    }
    const a = await conn.createAppender('t');
    [...blobs, ...extra].forEach((b, i) => {
      a.appendInteger(i);
      if (b) a.appendValue(blobValue(b));
      else a.appendNull();
      a.endRow();
    });
    a.closeSync();
  }

  /** Ids SQL decides as matching plus the undecided ids the residual keeps, and the ids SQL decided. */
  async function run(filter: string): Promise<{ ids: number[]; decided: Set<number> }> {
    const f = toDuckDbSql(parseCql2Text(filter), columns);
    const r = f.residual!;
    const cols = r.columns.map((c) => `, ${c.sql} AS ${c.alias}`).join('');
    const rows = (await conn.runAndReadAll(`SELECT id, (${f.sql}) AS __where, ${r.undecided} AS __open${cols} FROM t ORDER BY id`, f.params)).getRowObjects();
    for (const row of rows) expect(typeof row.__open, 'undecided is never NULL').to.equal('boolean');
    return {
      ids: rows.filter((row) => row.__where === true && (row.__open === false || r.test(row))).map((row) => Number(row.id)),
      decided: new Set(rows.filter((row) => row.__open === false).map((row) => Number(row.id))),
    };
  }

  /** Finite 2D points farther than 5 tolerances from every box edge: SQL must settle these. */
  async function clearPoints(boxes: [number, number, number, number][]): Promise<number[]> {
    const all = (await conn.runAndReadAll('SELECT id, geom FROM t ORDER BY id')).getRowObjects();
    const scale = Math.max(1, ...boxes.flat().map(Math.abs));
    return all
      .filter((row) => {
        const bytes = (row.geom as { bytes: Uint8Array } | null)?.bytes;
        if (!bytes || bytes.length !== 21) return false;
        const g = decodeWkb(bytes);
        if (g.type !== 'Point') return false;
        const [x, y] = g.coordinates as [number, number];
        if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
        const eps = Math.max(scale, Math.abs(x), Math.abs(y)) * 1e-9;
        return boxes.every(([x0, y0, x1, y1]) => {
          const inside = x > x0 && x < x1 && y > y0 && y < y1;
          const d = inside ? Math.min(x - x0, x1 - x, y - y0, y1 - y) : Math.hypot(Math.max(x0 - x, 0, x - x1), Math.max(y0 - y, 0, y - y1));
          return d > 5 * eps;
        });
      })
      .map((row) => Number(row.id));
  }

  /**
   * The documented answer: the exact relation, for every predicate but S_DISJOINT only where the
   * closed envelopes meet (the envelope prefilter; the exact test alone also counts points up
   * to its 1e-9 tolerance outside an edge).
   */
  function expected(all: { id: number; g: Geometry | null }[], literal: Geometry, op: SpatialOp, columnFirst: boolean): number[] {
    const box = envelope(literal)!;
    const meets = (g: Geometry) => {
      const e = envelope(g);
      return !!e && e[0] <= box[2] && e[2] >= box[0] && e[1] <= box[3] && e[3] >= box[1];
    };
    return all
      .filter(({ g }) => {
        if (g === null) return false;
        if (op !== 's_disjoint' && !meets(g)) return false;
        return columnFirst ? exhaustiveRelation(RELATION[op], g, literal) : exhaustiveRelation(RELATION[op], literal, g);
      })
      .map(({ id }) => id);
  }

  for (const c of CASES) {
    it(`${c.name}: every predicate in both orders equals the exact test`, async () => {
      await load(rows(c.boxes, mulberry32(7)));
      const e = parseCql2Text(`S_INTERSECTS(geom, ${c.literal})`) as Expr & { kind: 'spatial' };
      const literal = e.right.kind === 'bbox' ? bboxToGeometry(e.right.bbox) : (e.right as { geometry: Geometry }).geometry;
      const clear = await clearPoints(c.boxes);
      const all = (await conn.runAndReadAll('SELECT id, geom FROM t ORDER BY id')).getRowObjects().map((row) => ({
        id: Number(row.id),
        g: row.geom === null ? null : decodeWkb((row.geom as { bytes: Uint8Array }).bytes),
      }));
      expect(clear.length).to.be.greaterThan(50);
      for (const op of SPATIAL_OPS) {
        for (const columnFirst of [true, false]) {
          const text = columnFirst ? `${op.toUpperCase()}(geom, ${c.literal})` : `${op.toUpperCase()}(${c.literal}, geom)`;
          const got = await run(text);
          expect(got.ids, text).to.deep.equal(expected(all, literal, op, columnFirst));
          if (c.name.includes('exact test')) expect(got.decided.size, `${text}: nothing is decided in SQL`).to.equal(0);
          else expect(clear.filter((id) => !got.decided.has(id)), `${text}: clear points SQL left undecided`).to.deep.equal([]);
        }
      }
    });
  }
});
