import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';

// Demo scenes (data/demo/stac): 05-10 everywhere (cloud 35), 06-14 everywhere (5),
// 07-19 east of lon 10 (2), 08-23 north-west, lon 5-11 lat 46-48 (60).
const NW = '851f8227fffffff'; // lon 7, lat 47: under 05-10, 06-14, 08-23
const SPLIT = '851ea6d7fffffff'; // lon 9.9-10.1, lat 45: half under 07-19, whole under 05-10 and 06-14
const SUMMER = 'datetime=2024-05-01/2024-08-31';

interface Body {
  values: Record<string, { depth: number; data: (number | null)[] }[]>;
  links: { rel: string; href: string; title?: string }[];
}
interface Problem {
  title?: string;
  detail?: string;
  code?: string;
}

describe('STAC zone data over HTTP (demo-ndvi)', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    // A raster-url collection on the 06-14 scene gives reference values for the same computation.
    const collections = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: Record<string, unknown>[] }).collections;
    const ndvi = collections.find((c) => c.id === 'demo-ndvi')!.backing as { fields: unknown };
    const reference = { id: 'scene-0614', title: 'One scene', backing: { kind: 'raster-url', url: 'data/demo/stac/scenes/ndvi-2024-06-14.tif', noData: -1, fields: ndvi.fields } };
    s = await startTestServer({ collections: [...collections, reference] });
  });
  after(async () => s.close());

  async function data(zone: string, query: string, collection = 'demo-ndvi'): Promise<Body> {
    const res = await s.get(`/collections/${collection}/dggs/H3/zones/${zone}/data?zone-depth=1&${query}`);
    expect(res.status, await res.clone().text()).to.equal(200);
    return (await res.json()) as Body;
  }
  const scenes = (b: Body) => b.links.filter((l) => l.rel === 'source').map((l) => /ndvi-\d{4}-\d{2}-\d{2}/.exec(l.href)?.[0]);
  const values = (b: Body) => b.values.ndvi![0]!.data;

  it('single (collection default, no threshold) takes the newest scene over the zone', async () => {
    const b = await data(NW, '');
    expect(scenes(b)).to.deep.equal(['ndvi-2024-08-23']);
    expect(b.links.find((l) => l.rel === 'source')!.title).to.match(/ndvi-2024-08-23.*100%/);
    expect(values(b)).to.have.length(7);
    for (const v of values(b)) if (v !== null) expect(v).to.be.within(-1, 1);
  });

  it('latest takes the newest scene whose box meets the zone, whatever its coverage', async () => {
    expect(scenes(await data(SPLIT, 'stac-search-strategy=latest'))).to.deep.equal(['ndvi-2024-07-19']);
    expect(scenes(await data(SPLIT, 'stac-search-strategy=latest&intersection_percent=100'))).to.deep.equal(['ndvi-2024-07-19']);
  });

  it('single honours intersection_percent: a half-covering scene passes 30 but not 100', async () => {
    expect(scenes(await data(SPLIT, 'intersection_percent=30'))).to.deep.equal(['ndvi-2024-07-19']);
    expect(scenes(await data(SPLIT, 'stac-search-strategy=single&intersection_percent=100'))).to.deep.equal(['ndvi-2024-06-14']);
  });

  it('cloud_cover_percent excludes cloudy scenes; values are those of the chosen scene', async () => {
    const b = await data(NW, 'cloud_cover_percent=10');
    expect(scenes(b)).to.deep.equal(['ndvi-2024-06-14']);
    const ref = await data(NW, '', 'scene-0614');
    expect(values(b)).to.deep.equal(values(ref));
    expect(values(b).some((v) => v !== null)).to.equal(true);
    expect(scenes(await data(NW, 'cloud_cover_percent=40'))).to.deep.equal(['ndvi-2024-06-14']);
    expect(scenes(await data(NW, 'cloud_cover_percent=60'))).to.deep.equal(['ndvi-2024-08-23']);
  });

  it('datetime filters the scenes', async () => {
    const may = await data(NW, 'datetime=2024-05-01/2024-05-31');
    expect(scenes(may)).to.deep.equal(['ndvi-2024-05-10']);
    expect(values(may)).to.not.deep.equal(values(await data(NW, 'cloud_cover_percent=10')));
    expect(scenes(await data(NW, 'datetime=../2024-06-30'))).to.deep.equal(['ndvi-2024-06-14']);
    expect(scenes(await data(NW, 'datetime=2024-06-14'))).to.deep.equal(['ndvi-2024-06-14']);
  });

  it('nothing in the window gives null values and no source link', async () => {
    const b = await data(NW, 'datetime=2023-01-01/2023-12-31');
    expect(scenes(b)).to.deep.equal([]);
    expect(values(b).every((v) => v === null)).to.equal(true);
  });

  it('mosaic accumulates scenes newest first until the zone is covered', async () => {
    const full = await data(SPLIT, `stac-search-strategy=mosaic&${SUMMER}`);
    expect(scenes(full)).to.deep.equal(['ndvi-2024-07-19', 'ndvi-2024-06-14']);
    expect(values(full).every((v) => v !== null)).to.equal(true);
    expect(scenes(await data(SPLIT, `stac-search-strategy=mosaic&intersection_percent=30&${SUMMER}`))).to.deep.equal(['ndvi-2024-07-19']);
    expect(scenes(await data(NW, `stac-search-strategy=mosaic&${SUMMER}`))).to.deep.equal(['ndvi-2024-08-23']);
    expect(scenes(await data(SPLIT, 'stac-search-strategy=mosaic&cloud_cover_percent=30&datetime=2024-05-01/2024-07-01'))).to.deep.equal(['ndvi-2024-06-14']);
  });

  it('mosaic without datetime is a 400 ApiError', async () => {
    const res = await s.get(`/collections/demo-ndvi/dggs/H3/zones/${SPLIT}/data?stac-search-strategy=mosaic`);
    expect(res.status).to.equal(400);
    const body = (await res.json()) as Problem;
    expect(JSON.stringify(body)).to.match(/datetime/);
  });

  for (const q of ['intersection_percent=101', 'intersection_percent=-1', 'intersection_percent=abc', 'cloud_cover_percent=150', 'cloud_cover_percent=-0.5', 'stac-search-strategy=newest']) {
    it(`rejects ${q} with 422`, async () => {
      const res = await s.get(`/collections/demo-ndvi/dggs/H3/zones/${NW}/data?${q}`);
      expect(res.status).to.equal(422);
      expect(res.headers.get('content-type')).to.match(/json/);
    });
  }
});
