import { expect } from 'chai';
import { zoneFeature, zoneFeatureCollectionChunks } from '../../../src/http/encoders/zone-list-geojson.js';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';

/**
 * The zone list's GeoJSON text is written directly rather than by JSON.stringify of feature objects:
 * it must be byte for byte what JSON.stringify gives for the same FeatureCollection, on zones across the
 * antimeridian (MultiPolygons) and round the poles included.
 */
describe('zone list GeoJSON encoder', () => {
  for (const id of ['IVEA7H', 'ISEA3H', 'H3', 'A5']) {
    for (const refined of [false, true]) {
      it(`${id}, refined-geometry=${refined}: the bytes JSON.stringify gives`, () => {
        const grid = GRID_FACTORIES[id]!();
        const zones = [
          ...grid.zonesInBBox(1, [170, -30, -170, 30]),
          ...grid.zonesInBBox(1, [-180, 80, 180, 90]),
          ...grid.zonesInBBox(3, [5, 5, 25, 25]),
        ];
        expect(zones.length).to.be.greaterThan(10);
        const links = [{ href: 'http://x/zones', rel: 'self', type: 'application/geo+json' }];
        const pieces = [...zoneFeatureCollectionChunks(grid, zones, refined, links, { numberMatched: 12345 })].filter((c) => c !== undefined);
        const bytes = Buffer.concat(pieces);
        const expected = JSON.stringify({
          type: 'FeatureCollection',
          features: zones.map((z) => zoneFeature(grid, z, refined, { level: grid.zoneLevel(z) })),
          numberReturned: zones.length,
          numberMatched: 12345,
          links,
        });
        expect(expected).to.contain('MultiPolygon');
        expect(bytes.toString('utf8')).to.equal(expected);
      });
    }
  }
});
