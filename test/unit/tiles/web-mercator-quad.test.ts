/** WebMercatorQuad tile math: tile edges in lon/lat, the boxes a tile's zones are listed in, tile ranges of a box. */
import { expect } from 'chai';
import { columnLongitude, latitudeRow, longitudeColumn, metresPerPixel, rowLatitude, tileBoxes, tileInMatrix, tileRange, WEB_MERCATOR_QUAD } from '../../../src/domain/tiles/web-mercator-quad.js';

describe('WebMercatorQuad tile math', () => {
  it('puts the matrix edges at 180° and 85.0511°, and inverts rows and columns', () => {
    expect(columnLongitude(0, 0)).to.equal(-180);
    expect(columnLongitude(3, 8)).to.equal(180);
    expect(rowLatitude(0, 0)).to.be.closeTo(85.0511287798, 1e-9);
    expect(rowLatitude(0, 1)).to.be.closeTo(-85.0511287798, 1e-9);
    expect(rowLatitude(4, 8)).to.be.closeTo(0, 1e-12);
    expect(WEB_MERCATOR_QUAD.maxLatitude).to.be.closeTo(85.0511287798, 1e-9);
    for (const [z, lon, lat] of [[5, 7.3, 46.2], [11, -122.4, 37.8], [2, 179.9, -60]] as const) {
      expect(columnLongitude(z, longitudeColumn(z, lon))).to.be.closeTo(lon, 1e-9);
      expect(rowLatitude(z, latitudeRow(z, lat))).to.be.closeTo(lat, 1e-9);
    }
    // Zoom 0: 156543.03 m a pixel (OGC 17-083r4 annex D.1).
    expect(metresPerPixel(0)).to.be.closeTo(156543.0339, 1e-3);
    expect(metresPerPixel(10)).to.be.closeTo(156543.0339 / 1024, 1e-6);
  });

  it('knows the matrix: 0-24, rows and columns 0 to 2^z - 1', () => {
    expect(tileInMatrix(0, 0, 0)).to.equal(true);
    expect(tileInMatrix(3, 7, 7)).to.equal(true);
    expect(tileInMatrix(3, 8, 0)).to.equal(false);
    expect(tileInMatrix(3, 0, 8)).to.equal(false);
    expect(tileInMatrix(25, 0, 0)).to.equal(false);
    expect(tileInMatrix(-1, 0, 0)).to.equal(false);
    expect(tileInMatrix(2, 1.5, 0)).to.equal(false);
  });

  it('lists a tile\'s zones in one box, two across the antimeridian, reaching just past the matrix on the edge rows', () => {
    const [mid] = tileBoxes(2, 1, 1);
    expect(mid).to.deep.equal([-90, 0, 0, rowLatitude(2, 1)]);
    const west = tileBoxes(2, 0, 1, 0.1);
    expect(west).to.have.length(2);
    expect(west[0]![0]).to.be.closeTo(180 - 9, 1e-9);
    expect(west[0]![2]).to.equal(180);
    expect(west[1]![0]).to.equal(-180);
    expect(west[1]![2]).to.be.closeTo(-90 + 9, 1e-9);
    const east = tileBoxes(2, 3, 1, 0.1);
    expect(east).to.have.length(2);
    expect(east[1]![2]).to.be.closeTo(-180 + 9, 1e-9);
    // The edge rows reach just past 85.05°, not to the pole (a tall box would list zones nobody sees).
    const top = tileBoxes(10, 500, 0, 0.02)[0]!;
    expect(top[3]).to.be.above(WEB_MERCATOR_QUAD.maxLatitude).and.below(85.06);
    expect(tileBoxes(2, 1, 3, 0.02)[0]![1]).to.be.below(-WEB_MERCATOR_QUAD.maxLatitude).and.above(-86);
    const world = tileBoxes(0, 0, 0, 0.1);
    expect(world).to.have.length(1);
    expect(world[0]!.slice(0, 1).concat(world[0]!.slice(2, 3))).to.deep.equal([-180, 180]);
  });

  it('gives the tiles a box meets, grown and clamped, every column for a box across the antimeridian', () => {
    expect(tileRange(0, [-10, 35, 30, 60])).to.deep.equal({ zoom: 0, minCol: 0, maxCol: 0, minRow: 0, maxRow: 0 });
    // Europe at zoom 4: columns 7 (-22.5..0) to 9 (22.5..45), rows 5 (55.8..66.5) to 6 (40.9..55.8) and 7 for 35° N.
    expect(tileRange(4, [-10, 35, 30, 60])).to.deep.equal({ zoom: 4, minCol: 7, maxCol: 9, minRow: 4, maxRow: 6 });
    expect(tileRange(4, [-10, 35, 30, 60], 1)).to.deep.equal({ zoom: 4, minCol: 6, maxCol: 10, minRow: 3, maxRow: 7 });
    expect(tileRange(2, [170, -10, -170, 10])).to.deep.equal({ zoom: 2, minCol: 0, maxCol: 3, minRow: 1, maxRow: 2 });
    expect(tileRange(1, [-180, -90, 180, 90], 1)).to.deep.equal({ zoom: 1, minCol: 0, maxCol: 1, minRow: 0, maxRow: 1 });
  });
});
