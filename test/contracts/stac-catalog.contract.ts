import { expect } from 'chai';
import type { StacCatalog, StacItemDescriptor } from '../../src/ports/stac-catalog.js';

/** STAC Item JSON the suite hands to each adapter's factory. */
export type StacItemJson = Record<string, unknown>;

export function stacItemJson(id: string, opts: { datetime?: string | null; start?: string; end?: string; bbox?: number[]; geometry?: unknown; cloud?: number; asset?: string }): StacItemJson {
  const bbox = opts.bbox ?? [0, 0, 1, 1];
  const [w, s, e, n] = [bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!];
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    bbox,
    geometry: opts.geometry ?? { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] },
    properties: {
      datetime: opts.datetime === undefined ? '2024-06-01T10:00:00Z' : opts.datetime,
      ...(opts.start ? { start_datetime: opts.start } : {}),
      ...(opts.end ? { end_datetime: opts.end } : {}),
      ...(opts.cloud !== undefined ? { 'eo:cloud_cover': opts.cloud } : {}),
    },
    assets: { data: { href: opts.asset ?? `./${id}.tif`, type: 'image/tiff; application=geotiff' } },
    links: [],
  };
}

/** Items of the suite: places and times the searches below tell apart. */
export const CONTRACT_ITEMS: StacItemJson[] = [
  stacItemJson('alps', { bbox: [5, 44, 16, 48], datetime: '2024-05-10T10:30:00Z', cloud: 35 }),
  stacItemJson('east', { bbox: [10, 44, 16, 48], datetime: '2024-07-19T10:30:00Z', cloud: 2 }),
  stacItemJson('season', { bbox: [5, 44, 10, 48], datetime: null, start: '2024-03-01T00:00:00Z', end: '2024-03-31T23:59:59Z' }),
  stacItemJson('fiji', { bbox: [177, -20, -178, -15], geometry: { type: 'MultiPolygon', coordinates: [[[[177, -20], [180, -20], [180, -15], [177, -15], [177, -20]]], [[[-180, -20], [-178, -20], [-178, -15], [-180, -15], [-180, -20]]]] }, datetime: '2024-06-01T00:00:00Z' }),
];

const ids = (items: StacItemDescriptor[]) => items.map((i) => i.id).sort();
const at = (s: string) => Date.parse(s);

/**
 * What every StacCatalog adapter must do. `make` builds a catalog holding exactly these items
 * (static adapter: files on disk or over HTTP; STAC API: served by the fixture API; in-memory:
 * parsed descriptors).
 */
export function stacCatalogContract(name: string, make: (items: StacItemJson[]) => Promise<StacCatalog>): void {
  describe(`StacCatalog contract: ${name}`, () => {
    let catalog: StacCatalog;
    before(async () => {
      catalog = await make(CONTRACT_ITEMS);
    });

    it('finds every item for a world-wide box', async () => {
      expect(ids(await catalog.search({ bbox: [-180, -90, 180, 90] }))).to.deep.equal(['alps', 'east', 'fiji', 'season']);
    });

    it('finds items whose bbox intersects the box (touching counts) and not the others', async () => {
      expect(ids(await catalog.search({ bbox: [6, 45, 7, 46] }))).to.deep.equal(['alps', 'season']);
      expect(ids(await catalog.search({ bbox: [11, 45, 12, 46] }))).to.deep.equal(['alps', 'east']);
      expect(ids(await catalog.search({ bbox: [16, 48, 17, 49] }))).to.deep.equal(['alps', 'east']);
      expect(await catalog.search({ bbox: [20, 0, 21, 1] })).to.deep.equal([]);
    });

    it('handles boxes across the antimeridian, on either side', async () => {
      expect(ids(await catalog.search({ bbox: [179, -18, -179, -17] }))).to.deep.equal(['fiji']);
      expect(ids(await catalog.search({ bbox: [-179, -18, -178.5, -17] }))).to.deep.equal(['fiji']);
      expect(ids(await catalog.search({ bbox: [178, -18, 179, -17] }))).to.deep.equal(['fiji']);
    });

    it('filters by datetime against datetime and start_datetime..end_datetime, open ends included', async () => {
      const world = [-180, -90, 180, 90] as [number, number, number, number];
      expect(ids(await catalog.search({ bbox: world, datetime: { start: at('2024-07-01T00:00:00Z'), end: null } }))).to.deep.equal(['east']);
      expect(ids(await catalog.search({ bbox: world, datetime: { start: null, end: at('2024-05-31T00:00:00Z') } }))).to.deep.equal(['alps', 'season']);
      expect(ids(await catalog.search({ bbox: world, datetime: { start: at('2024-03-15T00:00:00Z'), end: at('2024-03-15T00:00:00Z') } }))).to.deep.equal(['season']);
      expect(ids(await catalog.search({ bbox: world, datetime: { start: at('2024-05-10T10:30:00Z'), end: at('2024-05-10T10:30:00Z') } }))).to.deep.equal(['alps']);
      expect(await catalog.search({ bbox: world, datetime: { start: at('2025-01-01T00:00:00Z'), end: null } })).to.deep.equal([]);
    });

    it('filters by cloud cover: at most maxCloudCover, items that do not say left out', async () => {
      const world = [-180, -90, 180, 90] as [number, number, number, number];
      expect(ids(await catalog.search({ bbox: world, maxCloudCover: 10 }))).to.deep.equal(['east']);
      expect(ids(await catalog.search({ bbox: world, maxCloudCover: 35 }))).to.deep.equal(['alps', 'east']);
      expect(ids(await catalog.search({ bbox: world, maxCloudCover: 35, datetime: { start: at('2024-06-01T00:00:00Z'), end: null } }))).to.deep.equal(['east']);
    });

    it('searches by the zone polygon: at least the items meeting it, none whose bbox misses its bbox', async () => {
      // A triangle east of 12°E: meets alps and east; season (5..10°E) and fiji miss even its bbox.
      const intersects = { type: 'Polygon' as const, coordinates: [[[12, 45], [15, 45], [15, 47], [12, 45]]] };
      expect(ids(await catalog.search({ bbox: [12, 45, 15, 47], intersects }))).to.deep.equal(['alps', 'east']);
    });

    it('describes items: time bounds, cloud cover, footprint polygons, assets', async () => {
      const all = await catalog.search({ bbox: [-180, -90, 180, 90] });
      const byId = Object.fromEntries(all.map((i) => [i.id, i]));
      expect(byId.alps!.start).to.equal(at('2024-05-10T10:30:00Z'));
      expect(byId.alps!.end).to.equal(byId.alps!.start);
      expect(byId.alps!.cloudCover).to.equal(35);
      expect(byId.alps!.bbox).to.deep.equal([5, 44, 16, 48]);
      expect(byId.alps!.footprint).to.have.length(1);
      expect(byId.season!.start).to.equal(at('2024-03-01T00:00:00Z'));
      expect(byId.season!.end).to.equal(at('2024-03-31T23:59:59Z'));
      expect(byId.season).to.not.have.property('cloudCover');
      expect(byId.fiji!.footprint).to.have.length(2);
      expect(byId.east!.assets.data!.href).to.match(/east\.tif$/);
      expect(byId.east!.assets.data!.type).to.equal('image/tiff; application=geotiff');
    });
  });
}
