import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stacCatalogContract, stacItemJson, CONTRACT_ITEMS } from './stac-catalog.contract.js';
import { startStacApi, type StacApiServer, type StacItemJson } from '../support/remote/stac-api-server.js';
import { remoteHttp } from '../support/remote/backends.js';
import { stacCatalogFactory } from '../../src/adapters/stac/stac-catalog-factory.js';
import { policyUrlGuard } from '../../src/adapters/features/policy-url-guard.js';
import { checkUrl } from '../../src/adapters/rasters/url-guard.js';
import { configSchema } from '../../src/app/config/config-schema.js';
import { AppError } from '../../src/ports/errors.js';
import type { StacCatalog, StacCatalogOptions } from '../../src/ports/stac-catalog.js';
import { remoteReads } from '../../src/domain/remote-reads.js';
import { httpStatus } from '../support/http-status.js';

const WORLD = [-180, -90, 180, 90] as [number, number, number, number];

/** The factory as the composition root builds it, with `allowed` origins allowlisted. */
function factory(allowed: string[], limits: { pageSize?: number; maxPages?: number; maxItems?: number } = {}, timeoutMs?: number) {
  const guard = policyUrlGuard((u, p) => checkUrl(u, p), configSchema.parse({}).rasterFetch, () => allowed);
  return stacCatalogFactory({ http: remoteHttp(allowed, timeoutMs ? { timeoutMs } : {}), assetGuard: guard, limits: { pageSize: 2, maxPages: 50, maxItems: 1000, ...limits } });
}

const servers: StacApiServer[] = [];
async function served(items: StacItemJson[], flavour: string, options?: StacCatalogOptions): Promise<StacCatalog> {
  const s = await startStacApi(items as StacItemJson[]);
  servers.push(s);
  const href = flavour === 'static' ? `${s.origin}/static/catalog.json` : `${s.origin}/${flavour}`;
  return factory([s.origin])(href, options);
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

// The same contract as the catalogs on disk, over HTTP: a static catalog served as files, and
// the STAC API fixture in its flavours (POST with Filter, GET with Query, GET with neither).
stacCatalogContract('static catalog over HTTP', (items) => served(items as StacItemJson[], 'static'));
stacCatalogContract('STAC API (POST, Filter extension)', (items) => served(items as StacItemJson[], 'api'));
stacCatalogContract('STAC API (GET only, Query extension)', (items) => served(items as StacItemJson[], 'get-only'));
stacCatalogContract('STAC API (GET only, no extension)', (items) => served(items as StacItemJson[], 'bare'));

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a failure');
}

describe('STAC API adapter', function () {
  this.timeout(30_000);
  let s: StacApiServer;
  const items: StacItemJson[] = [
    ...(CONTRACT_ITEMS as StacItemJson[]),
    { ...stacItemJson('other', { bbox: [5, 44, 16, 48], datetime: '2024-07-01T00:00:00Z', cloud: 1 }), collection: 'elsewhere' } as unknown as StacItemJson,
  ];
  before(async () => {
    s = await startStacApi(items);
  });
  after(async () => s?.close());
  const searches = () => s.requests.filter((r) => r.path.endsWith('/search'));

  it('POSTs intersects, datetime, collections and a CQL2-JSON cloud filter; follows POST next links (body, merge)', async () => {
    const before = searches().length;
    const intersects = { type: 'Polygon' as const, coordinates: [[[9, 44.5], [9.5, 44.5], [9.5, 45], [9, 44.5]]] };
    const found = await factory([s.origin])(`${s.origin}/api`, { collections: ['scenes'] }).search({ bbox: [9, 44.5, 9.5, 45], intersects, datetime: { start: Date.parse('2024-01-01T00:00:00Z'), end: null }, maxCloudCover: 50 });
    expect(found.map((i) => i.id).sort()).to.deep.equal(['alps']);
    const sent = searches().slice(before);
    expect(sent[0]!.method).to.equal('POST');
    expect(sent[0]!.body).to.deep.include({ limit: 2, collections: ['scenes'], intersects, datetime: '2024-01-01T00:00:00.000Z/..', 'filter-lang': 'cql2-json' });
    expect(sent[0]!.body!.filter).to.deep.equal({ op: '<=', args: [{ property: 'eo:cloud_cover' }, 50] });
    expect(sent[0]!.body).to.not.have.property('bbox');

    const all = await factory([s.origin])(`${s.origin}/api`, { collections: ['scenes'] }).search({ bbox: WORLD });
    expect(all.map((i) => i.id).sort()).to.deep.equal(['alps', 'east', 'fiji', 'season']);
    const paged = searches().slice(before + sent.length);
    expect(paged.map((r) => r.body?.token ?? null)).to.deep.equal([null, 'next:2']);
    expect(paged[1]!.body).to.deep.include({ collections: ['scenes'], limit: 2 }); // merged into the previous body
  });

  it('searches by the zone polygon exactly where the API takes intersects', async () => {
    // The triangle's bbox meets "season" (5..10°E) but the triangle does not.
    const intersects = { type: 'Polygon' as const, coordinates: [[[10.5, 44.2], [15, 44.2], [15, 47.8], [10.5, 44.2]]] };
    const viaPost = await factory([s.origin])(`${s.origin}/api`, { collections: ['scenes'] }).search({ bbox: [9.5, 44.2, 15, 47.8], intersects });
    expect(viaPost.map((i) => i.id).sort()).to.deep.equal(['alps', 'east']);
  });

  it('GETs with bbox and the Query extension; follows GET next links; applies what the API cannot', async () => {
    const before = searches().length;
    const found = await factory([s.origin])(`${s.origin}/get-only`).search({ bbox: WORLD, maxCloudCover: 40 });
    expect(found.map((i) => i.id).sort()).to.deep.equal(['alps', 'east', 'other']);
    const sent = searches().slice(before);
    expect(sent.every((r) => r.method === 'GET')).to.equal(true);
    expect(JSON.parse(sent[0]!.query.get('query')!)).to.deep.equal({ 'eo:cloud_cover': { lte: 40 } });
    expect(sent[0]!.query.get('bbox')).to.equal('-180,-90,180,90');
    expect(sent.map((r) => r.query.get('token'))).to.deep.equal([null, 'next:2']);

    const bare = searches().length;
    expect((await factory([s.origin])(`${s.origin}/bare`).search({ bbox: WORLD, maxCloudCover: 40 })).map((i) => i.id).sort()).to.deep.equal(['alps', 'east', 'other']);
    expect(searches().slice(bare).every((r) => !r.query.has('query') && !r.query.has('filter'))).to.equal(true);
  });

  it('makes asset hrefs absolute and keeps only those the fetch policy allows', async () => {
    const local = await startStacApi([
      stacItemJson('rel', { asset: '../assets/rel.tif' }) as StacItemJson,
      stacItemJson('elsewhere', { asset: 'http://127.0.0.2:9/x.tif' }) as StacItemJson,
      stacItemJson('disk', { asset: 'file:///etc/passwd' }) as StacItemJson,
    ]);
    try {
      const byId = Object.fromEntries((await factory([local.origin])(`${local.origin}/api`).search({ bbox: WORLD })).map((i) => [i.id, i.assets]));
      expect(byId.rel!.data!.href).to.equal(`${local.origin}/assets/rel.tif`);
      expect(byId.elsewhere).to.deep.equal({});
      expect(byId.disk).to.deep.equal({});
    } finally {
      await local.close();
    }
  });

  it('bounds the pages (422 naming maxPages) and the items (422 naming maxFeatures, before paging on)', async () => {
    const pages = await failure(factory([s.origin], { pageSize: 1, maxPages: 3 })(`${s.origin}/api`).search({ bbox: WORLD }));
    expect(httpStatus(pages)).to.equal(422);
    expect(pages.hint).to.include('remoteBackends.maxPages');
    const before = searches().length;
    const many = await failure(factory([s.origin], { pageSize: 1, maxItems: 2 })(`${s.origin}/api`).search({ bbox: WORLD }));
    expect(httpStatus(many)).to.equal(422);
    expect(many.hint).to.include('remoteBackends.maxFeatures');
    expect(searches().length - before).to.equal(1);
  });

  it('counts pages and items over every search of one request (the reads they share)', async () => {
    const count = (await factory([s.origin], { pageSize: 1 })(`${s.origin}/api`).search({ bbox: WORLD })).length;
    expect(count, 'items in the catalog').to.be.greaterThan(2);
    // Each search alone fits in the bounds; the request's second one does not.
    const pagesOnce = factory([s.origin], { pageSize: 1, maxPages: count + 1 })(`${s.origin}/api`);
    const reads = remoteReads();
    expect(await pagesOnce.search({ bbox: WORLD, reads })).to.have.length(count);
    const pages = await failure(pagesOnce.search({ bbox: WORLD, reads }));
    expect(httpStatus(pages)).to.equal(422);
    expect(pages.hint).to.include('remoteBackends.maxPages').and.include('all its searches');
    const itemsOnce = factory([s.origin], { pageSize: 100, maxItems: count + 1 })(`${s.origin}/api`);
    const shared = remoteReads();
    await itemsOnce.search({ bbox: WORLD, reads: shared });
    const items = await failure(itemsOnce.search({ bbox: WORLD, reads: shared }));
    expect(httpStatus(items)).to.equal(422);
    expect(items.hint).to.include('remoteBackends.maxFeatures');
    // Without shared reads every search has its own count.
    await pagesOnce.search({ bbox: WORLD });
    await pagesOnce.search({ bbox: WORLD });
  });

  it('maps faults to 502/504 naming the catalog; refuses non-allowlisted catalogs and POSTs to other origins', async () => {
    const broken = await failure(factory([s.origin])(`${s.origin}/broken`).search({ bbox: WORLD }));
    expect([httpStatus(broken), broken.hint]).to.satisfy(([st, h]: [number, string]) => st === 502 && h.includes(`STAC catalog at ${s.origin}`));
    const slow = await failure(factory([s.origin], {}, 300)(`${s.origin}/slow`).search({ bbox: WORLD }));
    expect(httpStatus(slow)).to.equal(504);
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const gone = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((r) => probe.close(() => r()));
    expect(httpStatus(await failure(factory([gone])(`${gone}/api`).search({ bbox: WORLD })))).to.equal(502);
    const before = s.requests.length;
    const refused = await failure(factory([])(`${s.origin}/api`).search({ bbox: WORLD }));
    expect(httpStatus(refused)).to.equal(502);
    expect(refused.message).to.match(/refused by the fetch policy/);
    expect(s.requests.length).to.equal(before);
    const evil = await failure(factory([s.origin, 'http://127.0.0.2:1'])(`${s.origin}/evil`).search({ bbox: WORLD }));
    expect(httpStatus(evil)).to.equal(502);
    expect(evil.hint).to.match(/POST "next" link to another origin/);
  });
});
