import { expect } from 'chai';
import { DuckDBInstance } from '@duckdb/node-api';
import { bboxToGeometry, envelope, type Geometry } from '../../../src/domain/geometry/geojson.js';
import { exhaustiveRelation, spatialRelation, type SpatialRelation } from '../../../src/domain/geometry/relate.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';
import { decodeWkb, WkbError } from '../../../src/domain/geometry/wkb.js';
import { toWkt } from '../../../src/domain/geometry/wkt.js';
import { parseWkt } from '../../../src/domain/cql2/text-parser.js';

/** Geometry of a WKT literal, read as CQL2-Text reads it (some samples lie outside CRS84, which a filter would refuse). */
const g = parseWkt;

describe('geometry: WKB and WKT', () => {
  const samples = [
    'POINT(1 2)',
    'POINT Z (1 2 3)',
    'LINESTRING(0 0, 1 1, 2 0)',
    'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))',
    'MULTIPOINT((1 2), (3 4))',
    'MULTILINESTRING((0 0, 1 1), (2 2, 3 3))',
    'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))',
    'GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))',
  ];

  it('decodes the WKB DuckDB writes for every geometry type, and WKT round-trips', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    for (const wkt of samples) {
      const geometry = g(wkt);
      const r = await conn.runAndReadAll('SELECT ST_AsWKB(CAST($1 AS GEOMETRY)) AS wkb', [toWkt(geometry)]);
      const blob = r.getRowObjects()[0]!.wkb as { bytes: Uint8Array };
      expect(decodeWkb(blob.bytes), wkt).to.deep.equal(geometry);
      expect(g(toWkt(geometry)), wkt).to.deep.equal(geometry);
    }
  });

  it('reads EWKB with SRID and big-endian input, and rejects truncated data', () => {
    // Big-endian EWKB point with SRID 4326.
    const buf = new DataView(new ArrayBuffer(1 + 4 + 4 + 16));
    buf.setUint8(0, 0);
    buf.setUint32(1, 0x20000001);
    buf.setUint32(5, 4326);
    buf.setFloat64(9, 7.5);
    buf.setFloat64(17, -3);
    expect(decodeWkb(new Uint8Array(buf.buffer))).to.deep.equal({ type: 'Point', coordinates: [7.5, -3] });
    expect(() => decodeWkb(new Uint8Array(buf.buffer).slice(0, 12))).to.throw(WkbError);
    expect(() => decodeWkb(new Uint8Array([1, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0x0f]))).to.throw(WkbError);
  });

  it('computes envelopes and splits antimeridian boxes', () => {
    expect(envelope(g('LINESTRING(3 -1, -2 5)'))).to.deep.equal([-2, -1, 3, 5]);
    expect(bboxToGeometry([170, -10, -170, 10]).type).to.equal('MultiPolygon');
    expect(bboxToGeometry([0, 0, -5, 1, 1, 5])).to.deep.equal(g('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'));
  });
});

describe('geometry: spatial relations', () => {
  const square = 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))';
  const cases: [SpatialRelation, string, string, boolean][] = [
    // point / point
    ['equals', 'POINT(1 1)', 'POINT(1 1)', true],
    ['intersects', 'POINT(1 1)', 'POINT(1 2)', false],
    ['within', 'POINT(1 1)', 'MULTIPOINT((1 1), (2 2))', true],
    ['contains', 'MULTIPOINT((1 1), (2 2))', 'POINT(2 2)', true],
    ['overlaps', 'MULTIPOINT((1 1), (2 2))', 'MULTIPOINT((2 2), (3 3))', true],
    // point / line
    ['intersects', 'POINT(1 1)', 'LINESTRING(0 0, 2 2)', true],
    ['within', 'POINT(1 1)', 'LINESTRING(0 0, 2 2)', true],
    ['within', 'POINT(0 0)', 'LINESTRING(0 0, 2 2)', false],
    ['touches', 'POINT(0 0)', 'LINESTRING(0 0, 2 2)', true],
    ['touches', 'POINT(0 0)', 'LINESTRING(0 0, 2 2, 0 2, 0 0)', false],
    ['crosses', 'MULTIPOINT((1 1), (5 5))', 'LINESTRING(0 0, 2 2)', true],
    // point / polygon
    ['within', 'POINT(2 2)', square, true],
    ['within', 'POINT(0 2)', square, false],
    ['touches', 'POINT(0 2)', square, true],
    ['disjoint', 'POINT(5 5)', square, true],
    ['within', 'POINT(2 2)', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1))', false],
    ['contains', square, 'POINT(2 2)', true],
    // line / line
    ['crosses', 'LINESTRING(0 0, 2 2)', 'LINESTRING(0 2, 2 0)', true],
    ['touches', 'LINESTRING(0 0, 1 1)', 'LINESTRING(1 1, 2 0)', true],
    ['overlaps', 'LINESTRING(0 0, 2 0)', 'LINESTRING(1 0, 3 0)', true],
    ['crosses', 'LINESTRING(0 0, 2 0)', 'LINESTRING(1 0, 3 0)', false],
    ['within', 'LINESTRING(1 0, 2 0)', 'LINESTRING(0 0, 3 0)', true],
    ['equals', 'LINESTRING(0 0, 1 0, 2 0)', 'LINESTRING(2 0, 0 0)', true],
    ['intersects', 'LINESTRING(0 0, 1 0)', 'LINESTRING(0 1, 1 1)', false],
    ['intersects', 'MULTILINESTRING((9 9, 8 8), (0 0, 2 2))', 'LINESTRING(0 2, 2 0)', true],
    // line / polygon
    ['within', 'LINESTRING(1 1, 3 3)', square, true],
    ['within', 'LINESTRING(0 0, 4 0)', square, false],
    ['touches', 'LINESTRING(0 0, 4 0)', square, true],
    ['crosses', 'LINESTRING(2 2, 6 2)', square, true],
    ['crosses', square, 'LINESTRING(2 2, 6 2)', true],
    ['within', 'LINESTRING(1 1, 3 1, 3 3)', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1.5 1.5, 2.5 1.5, 2.5 2.5, 1.5 2.5, 1.5 1.5))', true],
    ['within', 'LINESTRING(1 2, 3 2)', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1.5 1.5, 2.5 1.5, 2.5 2.5, 1.5 2.5, 1.5 1.5))', false],
    // a concave polygon: the line leaves through the notch although both ends are inside
    ['within', 'LINESTRING(1 3, 3 3)', 'POLYGON((0 0, 4 0, 4 4, 2.5 4, 2 2, 1.5 4, 0 4, 0 0))', false],
    // polygon / polygon
    ['within', 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', square, true],
    ['within', square, square, true],
    ['equals', square, 'POLYGON((0 0, 0 4, 4 4, 4 0, 0 0))', true],
    ['overlaps', square, 'POLYGON((2 2, 6 2, 6 6, 2 6, 2 2))', true],
    ['touches', square, 'POLYGON((4 0, 8 0, 8 4, 4 4, 4 0))', true],
    ['touches', square, 'POLYGON((4 4, 8 4, 8 8, 4 8, 4 4))', true],
    ['intersects', square, 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', true],
    ['disjoint', square, 'POLYGON((5 5, 6 5, 6 6, 5 6, 5 5))', true],
    ['within', square, 'POLYGON((-1 -1, 5 -1, 5 5, -1 5, -1 -1), (1 1, 2 1, 2 2, 1 2, 1 1))', false],
    ['intersects', 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', 'POLYGON((-1 -1, 5 -1, 5 5, -1 5, -1 -1), (0.5 0.5, 3 0.5, 3 3, 0.5 3, 0.5 0.5))', false],
    ['within', 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((3 3, 4 3, 4 4, 3 3)))', square, true],
    // an area that fills exactly the other's hole touches it and is not within it
    ['within', 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))', false],
    ['touches', 'POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))', true],
    // a square inside a ring-shaped polygon's hole, not touching it
    ['disjoint', 'POLYGON((1.2 1.2, 1.8 1.2, 1.8 1.8, 1.2 1.8, 1.2 1.2))', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))', true],
    // two crossing bars: boundaries cross, neither contains the other
    ['overlaps', 'POLYGON((0 1, 4 1, 4 2, 0 2, 0 1))', 'POLYGON((1 0, 2 0, 2 4, 1 4, 1 0))', true],
    ['contains', 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'POLYGON((0 0, 5 0, 5 5, 0 5, 0 0))', true],
    ['contains', square, 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((3 3, 5 3, 5 5, 3 3)))', false],
  ];

  for (const [rel, a, b, expected] of cases) {
    it(`${rel}(${a}, ${b}) is ${expected}`, () => {
      expect(spatialRelation(rel, g(a), g(b))).to.equal(expected);
    });
  }
});

describe('geometry: a single point clear of the other geometry takes the short way, with the same answers', () => {
  const others = [
    'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1))',
    'POLYGON((0 0, 4 0, 2 3, 0 0))',
    'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((2 2, 4 2, 4 4, 2 4, 2 2)))',
    'LINESTRING(0 0, 2 2, 4 0)',
    'MULTIPOINT((1 1), (3 3))',
    'GEOMETRYCOLLECTION(POINT(0 4), LINESTRING(0 0, 4 0), POLYGON((1 1, 3 1, 3 3, 1 1)))',
    'POLYGON((1000000 1000000, 1000004 1000000, 1000002 1000003, 1000000 1000000))',
  ];
  const relations: SpatialRelation[] = ['intersects', 'disjoint', 'equals', 'within', 'contains', 'touches', 'overlaps', 'crosses'];

  it('matches the exhaustive method for points inside, outside, on and just off the edges and vertices', () => {
    const random = mulberry32(11);
    let compared = 0;
    for (const wkt of others) {
      const other = g(wkt);
      const [x0, y0, x1, y1] = envelope(other)!;
      const scale = Math.max(1, Math.abs(x0), Math.abs(y0), Math.abs(x1), Math.abs(y1));
      const near = [0, 1e-10, 1e-9, 2e-9, 3e-9, 1e-8, 1e-6].flatMap((d) => [d * scale, -d * scale]);
      const points: [number, number][] = [];
      for (let i = 0; i < 150; i++) points.push([x0 + (x1 - x0) * (random() * 1.4 - 0.2), y0 + (y1 - y0) * (random() * 1.4 - 0.2)]);
      for (const [vx, vy] of [[x0, y0], [x1, y1], [(x0 + x1) / 2, y0], [x0, (y0 + y1) / 2], [1, 1], [2, 2], [1e6 + 2, 1e6 + 3]] as [number, number][]) {
        for (const d of near) points.push([vx + d, vy], [vx, vy + d], [vx + d, vy + d]);
      }
      points.push([NaN, NaN], [Infinity, 1]);
      for (const [x, y] of points) {
        const p: Geometry = { type: 'Point', coordinates: [x, y] };
        for (const rel of relations) {
          expect(spatialRelation(rel, p, other), `${rel}(POINT(${x} ${y}), ${wkt})`).to.equal(exhaustiveRelation(rel, p, other));
          expect(spatialRelation(rel, other, p), `${rel}(${wkt}, POINT(${x} ${y}))`).to.equal(exhaustiveRelation(rel, other, p));
          compared++;
        }
      }
    }
    expect(compared).to.be.greaterThan(10_000);
  });
});
