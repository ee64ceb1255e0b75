import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { getWithHost } from '../support/get-with-host.js';

const TOKEN = 'test-token-0123456789';

describe('HTTP: service endpoints', function () {
  this.timeout(30_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ auth: { tokenSha256: [sha256Hex(TOKEN)] } });
  });
  after(() => s.close());

  const json = async (path: string, headers: Record<string, string> = {}) => {
    const res = await s.get(path, headers);
    return { res, body: (await res.json()) as Record<string, any> };
  };

  describe('landing page', () => {
    it('links to /dggs, /conformance, /api and /collections', async () => {
      const { res, body } = await json('/');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const rels = Object.fromEntries(body.links.map((l: { rel: string; href: string }) => [l.rel, l.href]));
      expect(rels['service-desc']).to.equal(`${s.base}/api/openapi.json`);
      expect(rels.conformance).to.equal(`${s.base}/conformance`);
      expect(rels.data).to.equal(`${s.base}/collections`);
      expect(rels['https://www.opengis.net/def/rel/ogc/1.0/dggrs-list']).to.equal(`${s.base}/dggs`);
      expect(rels.self).to.equal(`${s.base}/?f=json`);
    });

    it('names the host each request gives in its links, though its answers are kept encoded', async () => {
      for (const round of [1, 2]) {
        for (const host of ['a.example', 'b.example:8443', '[::1]:9']) {
          const body = JSON.parse(await getWithHost(`${s.base}/`, host)) as { links: { rel: string; href: string }[] };
          expect(body.links.find((l) => l.rel === 'self')!.href, `round ${round}`).to.equal(`http://${host}/?f=json`);
          const html = await getWithHost(`${s.base}/?f=html`, host);
          expect(html, `round ${round}`).to.contain(`http://${host}/conformance`);
        }
      }
    });

    it('answers HTML by f=html and by Accept, JSON by f=json over Accept', async () => {
      const byF = await s.get('/?f=html');
      expect(byF.headers.get('content-type')).to.match(/^text\/html/);
      expect(await byF.text()).to.contain('<h1>Discrete Global Grid Data API</h1>');
      const byAccept = await s.get('/', { Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' });
      expect(byAccept.headers.get('content-type')).to.match(/^text\/html/);
      const fWins = await s.get('/?f=json', { Accept: 'text/html' });
      expect(fWins.headers.get('content-type')).to.match(/^application\/json/);
      const qValues = await s.get('/', { Accept: 'text/html;q=0.2, application/json;q=0.9' });
      expect(qValues.headers.get('content-type')).to.match(/^application\/json/);
    });

    it('refuses an unknown format with 406 ApiError', async () => {
      const { res, body } = await json('/?f=png');
      expect(res.status).to.equal(406);
      expect(body).to.include({ code: 406, message: 'Requested format is not supported' });
      expect(body.hint).to.contain('json');
    });
  });

  describe('conformance', () => {
    it('lists exact OGC URIs of implemented classes only', async () => {
      const { res, body } = await json('/conformance');
      expect(res.status).to.equal(200);
      expect(body.conformsTo).to.include('http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core');
      expect(body.conformsTo).to.include('http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections');
      for (const uri of body.conformsTo) expect(uri).to.match(/^https?:\/\/www\.opengis\.net\/spec\//);
      expect(new Set(body.conformsTo).size).to.equal(body.conformsTo.length);
      // Tiles of the collections' datasets as a whole are not served (docs/tiles.md), so not claimed.
      expect(body.conformsTo).to.not.include('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets');
      const html = await s.get('/conformance?f=html');
      expect(await html.text()).to.contain('ogcapi-common-1/1.0/conf/core');
      // Kept encoded: the same JSON for every host, the HTML page's links under each one's own.
      for (const host of ['a.example', 'b.example', 'a.example']) {
        expect(JSON.parse(await getWithHost(`${s.base}/conformance`, host))).to.deep.equal(body);
        expect(await getWithHost(`${s.base}/conformance?f=html`, host)).to.contain(`http://${host}/conformance?f=json`);
      }
    });
  });

  describe('API document', () => {
    it('is valid OpenAPI 3.1.0 with version 0.1.2 and a bearer scheme on /orders', async () => {
      const { res, body } = await json('/api/openapi.json');
      expect(res.status).to.equal(200);
      expect(body.openapi).to.equal('3.1.0');
      expect(body.info.version).to.equal('0.1.2');
      // The document exactly as served: the validator gets the parsed body untouched.
      const result = await new Validator().validate(body as Parameters<Validator['validate']>[0]);
      expect(result.errors ?? [], String(JSON.stringify(result.errors)).slice(0, 2000)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
      expect(body.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' });
      expect(body.paths['/orders'].get.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(body.paths['/collections'].get.responses['200']).to.be.an('object');
      expect(body.paths['/admin/initialize']).to.equal(undefined, 'admin routes are not part of the contract');
    });

    it('describes the `$id` and `$schema` members of a schema answer, which a served answer satisfies', async () => {
      const doc = (await json('/api/openapi.json')).body;
      const validate = new Ajv2020({ strict: false, validateFormats: false }).compile({ $ref: '#/components/schemas/SchemaResponse', components: doc.components });
      const raster = s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
      const answer = (await json(`/collections/${raster.id}/schema`)).body;
      expect(validate(answer), JSON.stringify(validate.errors)).to.equal(true);
      const { $id: _id, ...withoutId } = answer;
      expect(validate(withoutId), 'an answer without $id').to.equal(false);
      expect(validate({ ...answer, $schema: 2020 }), 'a $schema that is not a string').to.equal(false);
    });

    it('every path it lists answers (not 404/405/500) with its example parameters', async () => {
      const doc = (await json("/api/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
      const collection = s.config.collections[0]!.id;
      const failures: string[] = [];
      for (const [template, item] of Object.entries<Record<string, unknown>>(doc.paths as Record<string, Record<string, unknown>>)) {
        if (!('get' in item)) continue;
        const path = template
          .replace('{collection_id}', collection)
          .replace('{dggrs_id}', s.app.container.get<{ defaultGrid: { id: string } }>(Symbol.for('GridRegistry')).defaultGrid.id)
          .replace(/\{[^}]+\}/g, '0');
        const res = await s.get(path, { Authorization: `Bearer ${TOKEN}` });
        if (res.status === 405 || res.status >= 500 || (res.status === 404 && ((await res.clone().json()) as { message?: string }).message === "Not found")) failures.push(`${path} -> ${res.status}`);
      }
      expect(failures).to.deep.equal([]);
    });

    it('answers the document as 3.1 unless the client accepts plain JSON and not 3.1 (GDAL 3.6)', async () => {
      const oas31 = 'application/vnd.oai.openapi+json;version=3.1';
      const gdal = 'application/vnd.oai.openapi+json;version=3.0, application/openapi+json;version=3.0, application/json';
      const cases: [string | undefined, string][] = [
        [undefined, oas31],
        ['*/*', oas31],
        [oas31, oas31],
        ['application/vnd.oai.openapi+json', oas31],
        ['application/json', 'application/json'],
        [gdal, 'application/json'],
        [`application/json, ${oas31}`, oas31],
        [`${oas31};q=0.2, application/json`, 'application/json'],
        ['application/vnd.oai.openapi+json;version=3.0, */*;q=0.1', oas31],
        ['application/vnd.oai.openapi+json;version=3.0', oas31],
      ];
      for (const [accept, expected] of cases) {
        for (const path of ['/api/openapi.json', ...(accept && accept !== '*/*' ? ['/api'] : [])]) {
          const res = await s.get(path, accept ? { Accept: accept } : {});
          expect(res.status, `${path} ${accept}`).to.equal(200);
          expect(res.headers.get('content-type')!.replace(/; charset=utf-8$/, ''), `${path} ${accept}`).to.equal(expected);
          expect(res.headers.get('vary'), `${path} ${accept}`).to.match(/Accept/);
          expect(((await res.json()) as { openapi: string }).openapi).to.equal('3.1.0');
        }
      }
      // The landing page's service-desc link still names the 3.1 type.
      const landing = (await json('/')).body;
      expect(landing.links.find((l: { rel: string }) => l.rel === 'service-desc').type).to.equal(oas31);
    });

    it('marks public operations with security: [] and states the bounds of integer parameters', async () => {
      const doc = (await json('/api/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown[]; parameters?: { name: string; schema: Record<string, unknown> }[] }>> };
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          expect(op.security, `${method} ${path}`).to.be.an('array');
          if (path.startsWith('/orders')) expect(op.security, `${method} ${path}`).to.deep.equal([{ bearerAuth: [] }]);
          else expect(op.security, `${method} ${path}`).to.deep.equal([]);
        }
      }
      const limit = doc.paths['/collections/{collection_id}/items']!.get!.parameters!.find((p) => p.name === 'limit')!;
      expect(limit.schema).to.include({ type: 'integer', minimum: 0, maximum: s.config.limits.itemsMaxLimit });
      const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
      const over = await s.get(`/collections/${lake}/items?limit=${s.config.limits.itemsMaxLimit + 1}`);
      expect(over.status).to.equal(400);
      expect(((await over.json()) as { hint: string }).hint).to.contain(String(s.config.limits.itemsMaxLimit));
    });

    it('lists each lake collection\'s items at its own path with its properties as equality parameters, and they filter as documented', async () => {
      const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
      const doc = (await json('/api/openapi.json')).body as { paths: Record<string, { get: { operationId: string; parameters: { name: string; in: string; schema: { enum?: string[] } }[] } }> };
      const op = doc.paths[`/collections/${lake}/items`]!.get;
      expect(op.operationId).to.equal(`getItems.${lake}`);
      const names = op.parameters.map((p) => p.name);
      expect(names).to.not.include('collection_id');
      // GDAL 3.x sends CQL text as `cql-text`: it must find that value, and the properties by name.
      expect(op.parameters.find((p) => p.name === 'filter-lang')!.schema.enum).to.include.members(['cql2-text', 'cql2-json', 'cql-text']);
      const queryables = Object.keys((await json(`/collections/${lake}/queryables`)).body.properties);
      const expected = queryables.filter((q) => !['geometry', 'datetime', 'bbox', 'limit', 'offset', 'f', 'filter', 'properties'].includes(q));
      expect(names).to.include.members(expected);
      expect(expected.length).to.be.greaterThan(2);
      // Each documented property parameter gives the rows the equivalent CQL2 filter gives.
      const first = ((await json(`/collections/${lake}/items?limit=1`)).body.features[0]) as { properties: Record<string, string | number> };
      for (const name of expected) {
        const value = first.properties[name]!;
        const byParam = (await json(`/collections/${lake}/items?limit=3&${name}=${encodeURIComponent(String(value))}`)).body;
        const literal = typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
        const byFilter = (await json(`/collections/${lake}/items?limit=3&filter=${encodeURIComponent(`${name} = ${literal}`)}`)).body;
        expect(byParam.numberMatched, name).to.equal(byFilter.numberMatched);
        expect(byParam.numberMatched, name).to.be.greaterThan(0).and.lessThan((await json(`/collections/${lake}/items?limit=0`)).body.numberMatched);
        expect(byParam.features.map((f: { id: number }) => f.id), name).to.deep.equal(byFilter.features.map((f: { id: number }) => f.id));
        // Paging keeps the filter.
        const next = byParam.links.find((l: { rel: string }) => l.rel === 'next');
        if (next) expect(new URL(next.href).searchParams.get(name), name).to.equal(String(value));
      }
      const bad = await json(`/collections/${lake}/items?temperature=warm`);
      expect(bad.res.status).to.equal(400);
      expect(bad.body.hint).to.contain('temperature');
      const cqlText = (await json(`/collections/${lake}/items?limit=1&filter-lang=cql-text&filter=${encodeURIComponent(`station_id = '${first.properties.station_id}'`)}`)).body;
      expect(cqlText.numberMatched).to.equal((await json(`/collections/${lake}/items?limit=1&station_id=${first.properties.station_id}`)).body.numberMatched);
    });

    it('compares a datetime column with a quoted timestamp (as GDAL writes it) and refuses other type clashes with 400, never 500', async () => {
      const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
      const count = async (filter: string) => {
        const { res, body } = await json(`/collections/${lake}/items?limit=0&filter=${encodeURIComponent(filter)}`);
        return { status: res.status, n: body.numberMatched as number, hint: body.hint as string };
      };
      const quoted = await count("datetime >= '2024-01-20T00:00:00Z'");
      expect(quoted.status).to.equal(200);
      expect(quoted.n).to.equal((await count("datetime >= TIMESTAMP('2024-01-20T00:00:00Z')")).n);
      expect(quoted.n).to.be.greaterThan(0);
      for (const clash of ["temperature = 'warm'", 'station_id = 5', 'datetime > 5', "datetime > 'yesterday'", "station_id IN ('a', 5)"]) {
        const r = await count(clash);
        expect(r.status, clash).to.equal(400);
        expect(r.hint, clash).to.match(/cannot be compared/);
      }
    });

    it('names the operations as OGC API - DGGS /req/operation-ids and Common do, each id once', async () => {
      const doc = (await json('/api/openapi.json')).body as { paths: Record<string, Record<string, { operationId: string }>> };
      const expected: Record<string, string> = {
        '/': 'getLandingPage',
        '/conformance': 'getConformance',
        '/api': 'getAPI',
        '/collections': 'getCollectionsList',
        '/collections/{collection_id}': 'getCollection',
        '/dggs': '.dataset.getDGGRSList',
        '/dggs/{dggrs_id}': '.dataset.getDGGRS',
        '/dggs/{dggrs_id}/zones': '.dataset.getDGGRSZones',
        '/dggs/{dggrs_id}/zones/{zone_id}': '.dataset.getDGGRSZoneInfo',
        '/dggs/{dggrs_id}/zones/{zone_id}/data': '.dataset.getDGGRSZoneData',
        '/collections/{collection_id}/dggs': '.collection.getDGGRSList',
        '/collections/{collection_id}/dggs/{dggrs_id}': '.collection.getDGGRS',
        '/collections/{collection_id}/dggs/{dggrs_id}/zones': '.collection.getDGGRSZones',
        '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}': '.collection.getDGGRSZoneInfo',
        '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data': '.collection.getDGGRSZoneData',
      };
      for (const [path, id] of Object.entries(expected)) expect(doc.paths[path]?.get?.operationId, path).to.equal(id);
      const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
      expect(ids.filter((x, i) => ids.indexOf(x) !== i)).to.deep.equal([]);
      const { body } = await json('/conformance');
      expect(body.conformsTo).to.include('https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/operation-ids');
    });

    it('/api serves the offline HTML viewer by default and JSON when asked', async () => {
      const page = await s.get('/api');
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      const html = await page.text();
      expect(html).to.contain('swagger-ui-bundle.js');
      const asset = await s.get('/api/assets/swagger-ui-bundle.js');
      expect(asset.status).to.equal(200);
      expect((await asset.text()).length).to.be.greaterThan(100_000);
      const viaAccept = await json('/api', { Accept: 'application/json' });
      expect(viaAccept.body.openapi).to.equal('3.1.0');
      expect((await s.get('/api/assets/..%2Fpackage.json')).status).to.equal(404);
    });
  });

  describe('collections', () => {
    it('lists every configured collection with links', async () => {
      const { res, body } = await json('/collections?bbox=1,2,3,4&limit=1');
      expect(res.status).to.equal(200);
      expect(body.collections.map((c: { id: string }) => c.id)).to.deep.equal(s.config.collections.map((c) => c.id));
      const first = body.collections[0];
      expect(first.links.map((l: { rel: string }) => l.rel)).to.include.members(['self', 'http://www.opengis.net/def/rel/ogc/1.0/queryables']);
    });

    it('describes one collection in JSON and HTML', async () => {
      const id = s.config.collections[1]!.id;
      const { body } = await json(`/collections/${id}`);
      expect(body.id).to.equal(id);
      expect(body.title).to.equal(s.config.collections[1]!.title);
      const html = await (await s.get(`/collections/${id}`, { Accept: 'text/html' })).text();
      expect(html).to.contain(s.config.collections[1]!.title);
      const list = await (await s.get('/collections?f=html')).text();
      for (const c of s.config.collections) expect(list).to.contain(c.title);
    });

    it('tells OGC API clients which collections have items: itemType only with an items link, layerDataType Coverage otherwise', async () => {
      const { body } = await json('/collections');
      for (const c of body.collections as { id: string; item_type: string; itemType?: string; layerDataType?: string; links: { rel: string; href: string }[] }[]) {
        const kind = s.config.collections.find((x) => x.id === c.id)!.backing.kind;
        const items = c.links.find((l) => l.rel === 'items');
        expect(c.item_type, c.id).to.equal(kind === 'parquet-lake' || kind === 'ogc-features' ? 'feature' : 'coverage');
        if (kind === 'parquet-lake') {
          expect(c, c.id).to.include({ itemType: 'feature', layerDataType: 'Vector' });
          expect(items, c.id).to.not.equal(undefined);
          expect((await s.get(new URL(items!.href).pathname + '?limit=1')).status, c.id).to.equal(200);
        } else {
          expect(c, c.id).to.not.have.property('itemType');
          expect(c.layerDataType, c.id).to.equal('Coverage');
          expect(items, c.id).to.equal(undefined);
          expect((await s.get(`/collections/${c.id}/items?limit=1`)).status, c.id).to.equal(404);
        }
      }
    });

    it('serves queryables and schema with svc_* field metadata', async () => {
      const raster = s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
      for (const kind of ['queryables', 'schema']) {
        const { res, body } = await json(`/collections/${raster.id}/${kind}`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/schema\+json/);
        expect(body.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
        expect(body.$id).to.equal(`${s.base}/collections/${raster.id}/${kind}`);
        expect(body.additionalProperties).to.equal(false);
        const [name, field] = Object.entries<Record<string, unknown>>(body.properties)[0]!;
        expect(name).to.equal(Object.keys((raster.backing as { fields: object }).fields)[0]);
        expect(field.svc_band_index).to.equal(1);
        const html = await (await s.get(`/collections/${raster.id}/${kind}?f=html`)).text();
        expect(html).to.contain(name);
      }
    });

    it('answers 404 ApiError for an unknown collection on every collection route', async () => {
      for (const path of ['/collections/nope', '/collections/nope/queryables', '/collections/nope/schema']) {
        const { res, body } = await json(path);
        expect(res.status, path).to.equal(404);
        expect(body).to.include({ code: 404, message: 'Collection not found' });
        expect(body.hint).to.contain(s.config.collections[0]!.id);
      }
    });
  });

  describe('errors', () => {
    it('unknown routes are 404 ApiError, wrong methods 405 ApiError', async () => {
      const nf = await json('/no/such/route');
      expect(nf.res.status).to.equal(404);
      expect(nf.body).to.include({ code: 404, message: 'Not found' });
      const wrong = await fetch(`${s.base}/collections`, { method: 'DELETE' });
      expect(wrong.status).to.equal(405);
      expect(await wrong.json()).to.include({ code: 405, message: 'Method not allowed' });
    });

    it('oversized bodies are 413 ApiError and unparsable ones 400', async () => {
      const big = await fetch(`${s.base}/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ collection: 'x', zones: ['a'], title: 'x'.repeat(2_000_000) }),
      });
      expect(big.status).to.equal(413);
      expect((await big.json()).code).to.equal(413);
      const bad = await fetch(`${s.base}/orders`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` }, body: '{"collection":' });
      expect(bad.status).to.equal(400);
      expect((await bad.json()).code).to.equal(400);
    });
  });

  describe('concepts', () => {
    it('lists concepts and describes one, in JSON and HTML', async () => {
      const { res, body } = await json('/concepts');
      expect(res.status).to.equal(200);
      const first = body.concepts[0];
      expect(first).to.include.keys('id', 'name', 'ui_label', 'ui_description', 'category', 'collections', 'processing');
      const one = await json(`/concepts/${first.id}`);
      expect(one.body).to.deep.equal(first);
      expect(await (await s.get(`/concepts/${first.id}?f=html`)).text()).to.contain(first.ui_label);
      expect((await json('/concepts/99999')).res.status).to.equal(404);
      expect((await json('/concepts/abc')).res.status).to.equal(400);
    });
  });

  describe('orders', () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const post = (body: unknown, headers: Record<string, string> = auth) =>
      fetch(`${s.base}/orders`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

    it('refuses a missing, malformed or wrong bearer token with 401 on every route', async () => {
      const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong' }, { Authorization: `Basic ${TOKEN}` }, { Authorization: `Bearer ${TOKEN}x` }];
      for (const headers of attempts) {
        for (const path of ['/orders', '/orders/1', '/orders/1/jobs', '/orders/1/jobs/1']) {
          const res = await s.get(path, headers);
          expect(res.status, `${path} ${JSON.stringify(headers)}`).to.equal(401);
          expect(await res.json()).to.include({ code: 401 });
        }
        expect((await post({ collection: 'x', zones: ['a'] }, headers)).status).to.equal(401);
      }
    });

    it('creates an order that spawns one job per zone, then reads order, jobs and job', async () => {
      const grid = s.app.container.get<{ defaultGrid: { id: string; zoneFromPoint(lon: number, lat: number, l: number): string } }>(Symbol.for('GridRegistry')).defaultGrid;
      const zones = [grid.zoneFromPoint(10, 46, 5), grid.zoneFromPoint(-70, -30, 5)];
      const created = await post({ title: 'Alps', collection: s.config.collections[1]!.id, zones, zone_depth: 1 });
      expect(created.status).to.equal(201);
      const order = await created.json();
      expect(created.headers.get('location')).to.equal(`${s.base}/orders/${order.id}`);
      expect(order.jobs.map((j: { zone_id: string }) => j.zone_id)).to.deep.equal(zones);
      expect(order.jobs[0]).to.include({ status: 'accepted', dggrs: grid.id, zone_depth: 1 });
      const got = await (await s.get(`/orders/${order.id}`, auth)).json();
      expect(got.id).to.equal(order.id);
      const jobs = await (await s.get(`/orders/${order.id}/jobs`, auth)).json();
      expect(jobs.jobs).to.have.length(2);
      const job = await (await s.get(`/orders/${order.id}/jobs/${order.jobs[1].id}`, auth)).json();
      expect(job.zone_id).to.equal(zones[1]);
      const list = await (await s.get('/orders', auth)).json();
      expect(list.orders.map((o: { id: number }) => o.id)).to.include(order.id);
    });

    it('answers 404 for unknown orders and jobs, 422 for invalid ids and bodies', async () => {
      expect((await s.get('/orders/424242', auth)).status).to.equal(404);
      expect((await s.get('/orders/424242/jobs/1', auth)).status).to.equal(404);
      expect((await s.get('/orders/-1', auth)).status).to.equal(422);
      expect((await s.get('/orders/abc', auth)).status).to.equal(422);
      for (const body of [{}, { collection: 'nope', zones: ['x'] }, { collection: s.config.collections[0]!.id, zones: [] }, { collection: s.config.collections[0]!.id, zones: ['not-a-zone'] }, { collection: s.config.collections[0]!.id, zones: ['x'], extra: 1 }]) {
        const res = await post(body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(await res.json()).to.include({ code: 422 });
      }
    });
  });

  describe('admin', () => {
    it('is not served on the public listener', async () => {
      const { res, body } = await json('/admin/status');
      expect(res.status).to.equal(404);
      expect(body.code).to.equal(404);
    });
  });
});
