import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '../test-server.js';
import { startMapServer, type MapServerHost } from './mapserver.js';
import { startStacApi, type StacApiServer, type StacItemJson } from './stac-api-server.js';
import { FIXTURE_LAKE_COLLECTIONS, REMOTE_FIXTURES } from './backends.js';
import { stacItemJson } from '../../contracts/stac-catalog.contract.js';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';

/**
 * Zone data, zone info statistics and queryables of remote-backed collections over HTTP:
 * `own-stations` (our own items endpoint through `{self}`), `stac-api` (the STAC API fixture)
 * and, with `withMapServer` (an external program: run by `npm run test:clients`),
 * `ms-stations` (MapServer 8). Each is compared with a local collection over the same
 * data: the fixture lake `remote-stations`, and `cog-direct`, a raster-url collection on the
 * file the STAC items point at.
 */
const grid = GRID_FACTORIES.IVEA7H!();
const ZONE = 'E4-120-A';
/** A level-6 zone inside linear-4326.tif (lon 10..11, lat 45..46). */
const RZONE = grid.zoneFromPoint(10.5, 45.5, 6);
const FORMATS = [
  ['json', 'application/json'],
  ['dggs+json', 'application/vnd.ogc.dggs+json'],
  ['geo+json', 'application/geo+json'],
  ['html', 'text/html'],
  ['parquet', 'application/vnd.apache.parquet'],
  ['geoparquet', 'application/vnd.geo+parquet'],
] as const;

interface DggsJson {
  values: Record<string, { depth: number; data: (number | null)[] }[]>;
  zones: { depth: number; zoneIds: string[] }[];
  links: { rel: string; href: string }[];
}

const ITEMS: StacItemJson[] = [
  stacItemJson('linear-may', { bbox: [10, 45, 11, 46], datetime: '2024-05-01T10:00:00Z', cloud: 5, asset: '{origin}/assets/linear-4326.tif' }) as StacItemJson,
  stacItemJson('nodata-june', { bbox: [10, 45, 11, 46], datetime: '2024-06-01T10:00:00Z', cloud: 80, asset: '{origin}/assets/nodata-4326.tif' }) as StacItemJson,
];
const BAND = { value: { title: 'Value', type: 'number', svc_band_index: 1, svc_data_type: 'float32', svc_dggs_stat: 'mean' } };

export function remoteZoneDataSuite(withMapServer: boolean): void {
const FEATURE_IDS = withMapServer ? ['ms-stations', 'own-stations'] : ['own-stations'];
describe(`remote backends over HTTP: zone data, zone info statistics, queryables${withMapServer ? ' (with MapServer 8)' : ''}`, function () {
  this.timeout(120_000);
  let s: TestServer, ms: MapServerHost | undefined, stac: StacApiServer, dir: string, conn: DuckDBConnection;
  before(async () => {
    [ms, stac] = await Promise.all([withMapServer ? startMapServer() : undefined, startStacApi(ITEMS)]);
    s = await startTestServer({
      lake: { root: path.join(REMOTE_FIXTURES, 'lake') },
      remoteBackends: { allowedOrigins: ['{self}', ...(ms ? [ms.origin] : []), stac.origin] }, // pages of 1000: paging is the contract suite's concern
      collections: [
        ...FIXTURE_LAKE_COLLECTIONS,
        ...(ms ? [{ id: 'ms-stations', title: 'Stations via MapServer', backing: { kind: 'ogc-features', url: ms.api, collection: 'stations' } }] : []),
        { id: 'own-stations', title: 'Stations via our items', backing: { kind: 'ogc-features', url: '{self}', collection: 'remote-stations' } },
        { id: 'stac-api', title: 'Scenes via a STAC API', backing: { kind: 'stac', catalog: `${stac.origin}/api`, collections: ['scenes'], strategy: 'latest', asset: 'data', fields: BAND } },
        { id: 'cog-direct', title: 'The same raster, directly', backing: { kind: 'raster-url', url: path.join(REMOTE_FIXTURES, '../rasters/linear-4326.tif'), fields: BAND } },
      ],
    });
    dir = await mkdtemp(path.join(tmpdir(), 'remote-zd-'));
    conn = await (await DuckDBInstance.create(':memory:')).connect();
  });
  after(async () => {
    conn?.closeSync();
    await s?.close();
    await Promise.all([ms?.close(), stac?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function json(p: string): Promise<DggsJson> {
    const res = await s.get(p);
    expect(res.status, await res.clone().text()).to.equal(200);
    return (await res.json()) as DggsJson;
  }

  it('queryables: the backend\'s (MapServer: from a sample; ours: its queryables) and the STAC collection\'s configured bands', async () => {
    for (const id of FEATURE_IDS) {
      const body = (await (await s.get(`/collections/${id}/queryables`)).json()) as { properties: Record<string, { type: string; format?: string }> };
      expect(body.properties.temperature?.type, id).to.equal('number');
      expect(body.properties.elevation?.type, id).to.equal('integer');
      expect(body.properties.kind?.type, id).to.equal('string');
      expect(body.properties.observed?.format, id).to.equal('date-time');
      const html = await s.get(`/collections/${id}/queryables?f=html`);
      expect(html.status).to.equal(200);
      expect(await html.text()).to.include('temperature');
    }
    const stacBody = (await (await s.get('/collections/stac-api/queryables')).json()) as { properties: Record<string, unknown> };
    // The bands, and `geometry`: each zone's outline, the spatial queryable of zone-data and zone-list filters.
    const { geometry, ...bands } = stacBody.properties;
    expect(bands).to.deep.equal(BAND);
    expect(geometry).to.deep.include({ format: 'geometry-any' });
  });

  for (const id of FEATURE_IDS) {
    it(`${id}: zone data equals the fixture lake's (same features, aggregated by representative point)`, async () => {
      for (const q of [
        'zone-depth=1,2',
        'zone-depth=1&datetime=2024-01-10T00:00:00Z/2024-01-20T00:00:00Z',
        'zone-depth=1&cog-stat=count,mean,min,max&properties=temperature,elevation',
        // A zone-data filter tests each sub-zone's own values (OGC data-cql2-filter).
        `zone-depth=1&filter=${encodeURIComponent('elevation > 1500')}`,
      ]) {
        const [remote, lake] = await Promise.all([json(`/collections/${id}/dggs/IVEA7H/zones/${ZONE}/data?${q}`), json(`/collections/remote-stations/dggs/IVEA7H/zones/${ZONE}/data?${q}`)]);
        expect(remote.zones).to.deep.equal(lake.zones);
        expect(Object.keys(remote.values).sort()).to.deep.equal(Object.keys(lake.values).filter((k) => !k.startsWith('observed')).sort());
        for (const [field, depths] of Object.entries(remote.values)) {
          depths.forEach((d, i) => {
            const want = lake.values[field]![i]!.data;
            expect(d.data.filter((v) => v !== null).length, `${q} ${field}`).to.be.greaterThan(0);
            d.data.forEach((v, j) => (v === null ? expect(want[j]).to.equal(null) : expect(v, `${q} ${field}[${j}]`).to.be.closeTo(want[j]!, 1e-9)));
          });
        }
        expect(remote.links.some((l) => l.rel === 'source' && l.href.includes('/items'))).to.equal(true);
      }
      // The GET's filter keeps exactly the sub-zones whose own value passes, nulls the others.
      const plain = (await json(`/collections/${id}/dggs/IVEA7H/zones/${ZONE}/data?zone-depth=1&properties=elevation`)).values.elevation![0]!.data;
      const high = (await json(`/collections/${id}/dggs/IVEA7H/zones/${ZONE}/data?zone-depth=1&properties=elevation&filter=${encodeURIComponent('elevation > 1500')}`)).values.elevation![0]!.data;
      expect(high).to.deep.equal(plain.map((v) => (v !== null && v > 1500 ? v : null)));
      expect(high.filter((v) => v !== null).length).to.be.greaterThan(0).and.below(plain.filter((v) => v !== null).length);
      // A row filter (the cross-collection body) restricts the features: MapServer cannot evaluate it
      // (evaluated here), our items endpoint can (pushed). Fewer features count in the zone with it.
      const count = async (filter?: string) => {
        const res = await fetch(`${s.base}/dggs/IVEA7H/zones/${ZONE}/data?zone-depth=0`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ collections: [{ id, fields: ['elevation'], ...(filter ? { filter } : {}) }] }),
        });
        expect(res.status).to.equal(200);
        return ((await res.json()) as DggsJson).values[`${id}__elevation`]![0]!.data[0]!;
      };
      const mean = await count();
      const alpine = await count("kind = 'alpine' AND elevation > 1500");
      expect(alpine).to.be.greaterThan(1500);
      expect(alpine).to.not.equal(mean);
    });
  }

  it('stac-api: zone data equals the raster read directly (the STAC item\'s asset over HTTP ranges)', async () => {
    const q = `zone-depth=1,2&datetime=2024-04-01T00:00:00Z/2024-05-15T00:00:00Z`;
    const [viaStac, direct] = await Promise.all([json(`/collections/stac-api/dggs/IVEA7H/zones/${RZONE}/data?${q}`), json(`/collections/cog-direct/dggs/IVEA7H/zones/${RZONE}/data?zone-depth=1,2`)]);
    expect(viaStac.values.value).to.deep.equal(direct.values.value);
    expect(viaStac.links.filter((l) => l.rel === 'source').map((l) => l.href)).to.deep.equal([`${stac.origin}/assets/linear-4326.tif`]);
    const search = stac.requests.filter((r) => r.path === '/api/search');
    expect(search.at(-1)!.method).to.equal('POST');
    expect(search.at(-1)!.body).to.deep.include({ collections: ['scenes'] });
    // The zone polygon itself goes to the API (intersects), not only its box.
    expect((search.at(-1)!.body as { intersects?: { type: string } }).intersects?.type).to.match(/^(Multi)?Polygon$/);
    // cloud_cover_percent keeps the cloudy June scene out even when the window holds it.
    const june = await json(`/collections/stac-api/dggs/IVEA7H/zones/${RZONE}/data?zone-depth=1&datetime=2024-04-01T00:00:00Z/2024-07-01T00:00:00Z&cloud_cover_percent=50`);
    expect(june.links.filter((l) => l.rel === 'source').map((l) => l.href)).to.deep.equal([`${stac.origin}/assets/linear-4326.tif`]);
  });

  for (const [id, zone] of [...FEATURE_IDS.map((i) => [i, ZONE] as const), ['stac-api', RZONE] as const]) {
    it(`${id}: zone data in every encoding`, async () => {
      const base = `/collections/${id}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1${id === 'stac-api' ? '&datetime=2024-04-01T00:00:00Z/2024-05-15T00:00:00Z' : ''}`;
      const ref = await json(`${base}&f=dggs%2Bjson`);
      const field = Object.keys(ref.values)[0]!;
      const refValues = ref.values[field]![0]!.data;
      expect(refValues.some((v) => v !== null)).to.equal(true);
      for (const [f, type] of FORMATS) {
        const res = await s.get(`${base}&f=${encodeURIComponent(f)}`);
        expect(res.status, `${f}: ${await res.clone().text()}`).to.equal(200);
        expect(res.headers.get('content-type'), f).to.match(new RegExp(`^${type.replace(/[+.]/g, '\\$&')}`));
        if (f === 'json' || f === 'dggs+json') expect(((await res.json()) as DggsJson).values).to.deep.equal(ref.values);
        if (f === 'geo+json') {
          const fc = (await res.json()) as { features: { properties: Record<string, unknown> }[] };
          expect(fc.features.filter((x) => x.properties.depth === 1).map((x) => x.properties[field])).to.deep.equal(refValues);
        }
        if (f === 'html') expect(await res.text()).to.include(field);
        if (f === 'parquet' || f === 'geoparquet') {
          const file = path.join(dir, `${id}-${f}.parquet`);
          await writeFile(file, Buffer.from(await res.arrayBuffer()));
          const rows = (await conn.runAndReadAll(`SELECT "${field}" AS v FROM read_parquet('${file}') WHERE depth = 1`)).getRowObjects();
          expect(rows.map((r) => r.v)).to.deep.equal(refValues);
        }
      }
    });
  }

  for (const [id, zone, field] of [...FEATURE_IDS.map((i) => [i, ZONE, 'temperature'] as const), ['stac-api', RZONE, 'value'] as const]) {
    it(`${id}: zone info carries statistics equal to the zone's own data`, async () => {
      const info = (await (await s.get(`/collections/${id}/dggs/IVEA7H/zones/${zone}`)).json()) as { statistics?: Record<string, { average: number; minimum: number; maximum: number; stdDev: number | null }> };
      const st = info.statistics?.[field];
      expect(st, JSON.stringify(info.statistics)).to.be.an('object');
      const d0 = await json(`/collections/${id}/dggs/IVEA7H/zones/${zone}/data?zone-depth=0&cog-stat=mean,min,max,stdDev&properties=${field}`);
      expect(st!.average).to.be.closeTo(d0.values[`${field}_mean`]![0]!.data[0]!, 1e-9);
      expect(st!.minimum).to.equal(d0.values[`${field}_min`]![0]!.data[0]);
      expect(st!.maximum).to.equal(d0.values[`${field}_max`]![0]!.data[0]);
      expect(st!.minimum).to.be.below(st!.maximum);
    });
  }

  it('a backend refused by the fetch policy answers 502 with an ApiError naming it', async () => {
    const other = await startTestServer({
      lake: { root: path.join(REMOTE_FIXTURES, 'lake') },
      collections: [{ id: 'private', title: 'Not allowlisted', backing: { kind: 'ogc-features', url: `${stac.origin}/features`, collection: 'stations' } }],
    });
    try {
      const res = await other.get(`/collections/private/dggs/IVEA7H/zones/${ZONE}/data`);
      expect(res.status).to.equal(502);
      const body = (await res.json()) as { code: number; message: string; hint: string };
      expect(body.code).to.equal(502);
      expect(body.hint).to.include('collection "private"').and.include(stac.origin).and.include('remoteBackends.allowedOrigins');
      // Queryables of the same backend: the same refusal.
      expect((await other.get('/collections/private/queryables')).status).to.equal(502);
    } finally {
      await other.close();
    }
  });
});
}
