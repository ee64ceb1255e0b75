import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { TOKENS } from '../../src/app/tokens.js';
import { AppError } from '../../src/ports/errors.js';
import type { ZoneDataService } from '../../src/app/zone-data/zone-data-service.js';
import { httpStatus } from '../support/http-status.js';

/**
 * CQL2 on zone queries of raster collections: a zone is kept when its field values at the
 * listed level (and its outline, as `geometry`) satisfy the filter. The lake's counterpart
 * (zones of the matching rows) is tested with the lake fixture in lake-zone-data.test.ts.
 */
const grid = GRID_FACTORIES.IVEA7H!();
const PARENT = 'E4-120-A';

describe('zone queries filtered by raster values', function () {
  this.timeout(120_000);
  let s: TestServer;
  let service: ZoneDataService;
  before(async () => {
    s = await startTestServer();
    service = s.app.container.get<ZoneDataService>(TOKENS.ZoneDataService);
  });
  after(async () => s?.close());

  const values = async (zone: string, depth: number): Promise<Map<string, number | null>> => {
    const body = (await (await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones/${zone}/data?zone-depth=${depth}&f=json`)).json()) as {
      zones: { zoneIds: string[] }[];
      values: { elevation: { data: (number | null)[] }[] };
    };
    return new Map(body.zones[0]!.zoneIds.map((z, i) => [z, body.values.elevation[0]!.data[i]!]));
  };

  it('keeps the sub-zones of a parent whose value satisfies the filter, as zone data gives them', async () => {
    const level = grid.zoneLevel(PARENT) + 2;
    const listing = grid.subZones(PARENT, 2);
    const own = await values(PARENT, 2);
    for (const filter of ['elevation > 2000', 'elevation BETWEEN 1000 AND 1500 OR elevation < 600', 'NOT (elevation <= 2500)']) {
      const keep = await service.zoneQueryFilter('demo-elevation', grid, level, { parent: { zoneId: PARENT, depth: 2 } }, { filter });
      const test = (v: number) => (filter === 'elevation > 2000' ? v > 2000 : filter.startsWith('NOT') ? v > 2500 : (v >= 1000 && v <= 1500) || v < 600);
      const expected = listing.filter((z) => own.get(z) !== null && test(own.get(z)!));
      expect(listing.filter(keep), filter).to.deep.equal(expected);
      expect(expected.length, filter).to.be.within(1, listing.length - 1);
    }
  });

  it('evaluates spatial predicates on the zone outline', async () => {
    const level = grid.zoneLevel(PARENT) + 2;
    const [lon, lat] = grid.describeZone(grid.subZones(PARENT, 2)[20]!).centroid;
    const keep = await service.zoneQueryFilter('demo-elevation', grid, level, { parent: { zoneId: PARENT, depth: 2 } }, { filter: `S_INTERSECTS(geometry, POINT(${lon} ${lat}))` });
    expect(grid.subZones(PARENT, 2).filter(keep)).to.deep.equal([grid.zoneFromPoint(lon, lat, level)]);
  });

  it('over a bbox, keeps the zones whose own value passes (within the sampling difference of two lattices)', async () => {
    const level = 6;
    const bbox: [number, number, number, number] = [9.5, 46.1, 10.5, 46.7];
    const listing = grid.zonesInBBox(level, bbox);
    const keep = await service.zoneQueryFilter('demo-elevation', grid, level, { boxes: [bbox] }, { filter: 'elevation > 2000' });
    let kept = 0, dropped = 0;
    for (const z of listing) {
      const v = (await values(z, 0)).get(z);
      if (v === null || v === undefined) continue;
      if (keep(z)) {
        kept++;
        expect(v, z).to.be.above(2000 - 100);
      } else {
        dropped++;
        expect(v, z).to.be.below(2000 + 100);
      }
    }
    expect(kept, 'kept').to.be.above(0);
    expect(dropped, 'dropped').to.be.above(0);
  });

  it('over HTTP: GET zones?filter= on the raster collection lists the same zones', async () => {
    const own = await values(PARENT, 2);
    const expected = grid.subZones(PARENT, 2).filter((z) => (own.get(z) ?? -Infinity) > 2000);
    const res = await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones?parent-zone=${PARENT}&zone-level=2&filter=${encodeURIComponent('elevation > 2000')}`);
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { zones: string[] }).zones).to.deep.equal(expected);
    expect(res.headers.get('ogc-zones-total')).to.equal(String(expected.length));
  });

  it('refuses a function the evaluator cannot run with 400 before reading (was a 500 while listing)', async () => {
    const res = await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones?filter=${encodeURIComponent('javascript:alert(1)')}`);
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { code: number; message: string; hint: string };
    expect(body.code).to.equal(400);
    expect(body.hint).to.contain('javascript:alert');
  });

  it('refuses unknown properties (400) and malformed CQL2 (syntax error with a position) before reading', async () => {
    const ask = (filter: string) => service.zoneQueryFilter('demo-elevation', grid, 6, { parent: { zoneId: PARENT, depth: 2 } }, { filter });
    let err: unknown;
    try {
      await ask('height > 3');
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(AppError);
    expect(httpStatus(err)).to.equal(400);
    expect((err as AppError).hint).to.contain('elevation');
    err = undefined;
    try {
      await ask('elevation >');
    } catch (e) {
      err = e;
    }
    expect((err as Error).name).to.equal('Cql2SyntaxError');
    expect((err as Error).message).to.match(/position \d+/);
  });
});

describe('a spatial filter past limits.maxSpatialZoneVertices: the hint names what the request itself can change', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ limits: { maxSpatialZoneVertices: 1000 } });
  });
  after(async () => s?.close());

  const filter = encodeURIComponent('S_INTERSECTS(geometry, POLYGON((9 45, 11 45, 11 47, 9 47, 9 45)))');
  const refused = async (path: string): Promise<string> => {
    const res = await s.get(path);
    const body = (await res.json()) as { hint: string };
    expect(res.status, body.hint).to.equal(422);
    expect(body.hint).to.contain('limits.maxSpatialZoneVertices');
    return body.hint;
  };

  it('zone data: a shallower zone-depth or a finer zone', async () => {
    const hint = await refused(`/collections/demo-elevation/dggs/IVEA7H/zones/${PARENT}/data?zone-depth=3&filter=${filter}`);
    expect(hint).to.contain('shallower zone-depth').and.to.contain('finer zone').and.not.to.contain('zone-level');
  });

  it('zone list: a coarser zone-level, a smaller bbox or a parent-zone', async () => {
    const hint = await refused(`/collections/demo-elevation/dggs/IVEA7H/zones?parent-zone=${PARENT}&zone-level=3&filter=${filter}`);
    expect(hint).to.contain('coarser zone-level').and.not.to.contain('zone-depth');
  });

  it('vector tile: a coarser zone-level (the tile chooses the depth of its reads)', async () => {
    const hint = await refused(`/collections/demo-elevation/dggs/IVEA7H/tiles/WebMercatorQuad/6/22/33?filter=${filter}`);
    expect(hint).to.contain('coarser zone-level').and.not.to.contain('zone-depth');
  });
});
