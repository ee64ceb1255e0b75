import { expect } from 'chai';
import { decodeWkb } from '../../../src/domain/geometry/wkb.js';
import { representativePoint, wkbPointXY } from '../../../src/domain/geometry/representative-point.js';

/** Little- or big-endian 2D WKB written by hand, so the decoder is checked against the format, not against itself. */
function wkb(type: number, body: number[][] | number[][][] | number[], little = true): Uint8Array {
  const out: number[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    little ? b.writeUInt32LE(n) : b.writeUInt32BE(n);
    out.push(...b);
  };
  const f64 = (n: number) => {
    const b = Buffer.alloc(8);
    little ? b.writeDoubleLE(n) : b.writeDoubleBE(n);
    out.push(...b);
  };
  out.push(little ? 1 : 0);
  u32(type);
  if (type === 1) (body as number[]).forEach(f64);
  else if (type === 2) {
    u32(body.length);
    (body as number[][]).forEach((p) => p.forEach(f64));
  } else if (type === 3) {
    u32(body.length);
    (body as number[][][]).forEach((r) => {
      u32(r.length);
      r.forEach((p) => p.forEach(f64));
    });
  }
  return Uint8Array.from(out);
}

describe('WKB and representative points', () => {
  it('decodes points in both byte orders, with the fast path agreeing', () => {
    for (const little of [true, false]) {
      const b = wkb(1, [12.5, -33.25], little);
      expect(decodeWkb(b)).to.deep.equal({ type: 'Point', coordinates: [12.5, -33.25] });
      expect(wkbPointXY(b)).to.deep.equal([12.5, -33.25]);
    }
    expect(wkbPointXY(wkb(2, [[0, 0], [1, 1]]))).to.equal(undefined);
  });

  it('decodes lines and polygons with holes', () => {
    expect(decodeWkb(wkb(2, [[0, 0], [2, 0], [2, 1]]))).to.deep.equal({ type: 'LineString', coordinates: [[0, 0], [2, 0], [2, 1]] });
    const poly = decodeWkb(wkb(3, [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]]], false));
    expect(poly.type).to.equal('Polygon');
  });

  it('refuses truncated WKB', () => {
    expect(() => decodeWkb(wkb(1, [1, 2]).subarray(0, 12))).to.throw();
  });

  it('takes the area centroid of polygons (holes subtract) and the length centroid of lines', () => {
    expect(representativePoint({ type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 2], [0, 2], [0, 0]]] })).to.deep.equal([2, 1]);
    // A 4x4 square with a 2x2 hole in its upper-right quarter: centroid moves down-left.
    const holed = representativePoint({ type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]]] })!;
    expect(holed[0]).to.be.closeTo(20 / 12, 1e-12);
    expect(holed[1]).to.be.closeTo(20 / 12, 1e-12);
    // Clockwise rings give the same answer.
    expect(representativePoint({ type: 'Polygon', coordinates: [[[0, 0], [0, 2], [4, 2], [4, 0], [0, 0]]] })).to.deep.equal([2, 1]);
    expect(representativePoint({ type: 'LineString', coordinates: [[0, 0], [2, 0], [2, 2]] })).to.deep.equal([1.5, 0.5]);
    expect(representativePoint({ type: 'MultiPoint', coordinates: [[0, 0], [2, 4]] })).to.deep.equal([1, 2]);
    // Mixed collection: the polygon (highest dimension) decides.
    expect(representativePoint({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [100, 100] }, { type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]] }] })).to.deep.equal([1, 1]);
    // Degenerate polygon falls back to its outline.
    expect(representativePoint({ type: 'Polygon', coordinates: [[[0, 0], [2, 0], [0, 0]]] })).to.deep.equal([1, 0]);
    expect(representativePoint({ type: 'MultiPoint', coordinates: [] })).to.equal(undefined);
  });
});
