/**
 * The profile of an answer negotiated through the Accept header's `profile` media-type parameter
 * (OGC 21-038r1: DGGS-JSON-FG "negotiating an application/geo+json media type"): a profile URI of the
 * standard or its bare name, by quality; the `profile` query parameter wins. Unit cases for
 * formats.ts, HTTP cases on a lake collection.
 */
import { expect } from 'chai';
import { negotiateWithProfiles } from '../../src/http/formats.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const URI = 'https://www.opengis.net/def/profile/ogc/0/';
const DATA = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-05T06:00:00Z';

describe('profile negotiation through Accept', function () {
  this.timeout(60_000);

  describe('negotiateWithProfiles', () => {
    const formats = ['dggs-json', 'geojson', 'zarr'] as const;
    const n = (accept: string, f?: string) => negotiateWithProfiles(f, accept, formats, 'dggs-json');
    it('reads a quoted URI, a bare name and several space-separated profiles', () => {
      expect(n(`application/geo+json; profile="${URI}jsonfg-dggs-plus"`)).to.deep.equal({ format: 'geojson', profiles: ['jsonfg-dggs-plus'] });
      expect(n('application/geo+json;profile=jsonfg-dggs')).to.deep.equal({ format: 'geojson', profiles: ['jsonfg-dggs'] });
      expect(n(`application/geo+json; profile="${URI}jsonfg-dggs-zoneids http://example.com/p"`).profiles).to.deep.equal(['jsonfg-dggs-zoneids', 'http://example.com/p']);
    });
    it('follows quality: the best range naming the format, then the next until one without a profile', () => {
      expect(n('application/geo+json;profile=jsonfg-dggs;q=0.5, application/geo+json;profile=jsonfg-dggs-plus')).to.deep.equal({ format: 'geojson', profiles: ['jsonfg-dggs-plus', 'jsonfg-dggs'] });
      expect(n('application/geo+json, application/geo+json;profile=jsonfg-dggs;q=0.5').profiles).to.deep.equal([]);
      expect(n('application/geo+json;profile=jsonfg-dggs;q=0.4, application/vnd.ogc.dggs+json;q=0.9')).to.deep.equal({ format: 'dggs-json', profiles: [] });
      expect(n('application/geo+json;profile=jsonfg-dggs;q=0')).to.deep.equal({ format: 'dggs-json', profiles: [] });
    });
    it('reads a quoted profile list holding a comma as one range (the comma is inside the quotes)', () => {
      expect(n(`application/geo+json; profile="${URI}jsonfg-dggs http://example.com/a,b", application/vnd.ogc.dggs+json;q=0.1`)).to.deep.equal({
        format: 'geojson',
        profiles: ['jsonfg-dggs', 'http://example.com/a,b'],
      });
    });
    it('keeps the profile Accept asks of the format f chose', () => {
      expect(n('application/zarr+zip;profile=zarr2-dggs-zoneids', 'zarr')).to.deep.equal({ format: 'zarr', profiles: ['zarr2-dggs-zoneids'] });
      expect(n('application/geo+json;profile=jsonfg-dggs', 'zarr')).to.deep.equal({ format: 'zarr', profiles: [] });
    });
  });

  describe('over HTTP', () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer();
    });
    after(() => s?.close());

    const get = async (url: string, accept: string) => {
      const res = await s.get(url, { accept });
      expect(res.status, `${url} ${accept}`).to.equal(200);
      return { res, body: (await res.json()) as Json };
    };

    it('answers DGGS-JSON-FG for geo+json with a profile URI or a bare name, as the profile parameter does', async () => {
      const byParam = await get(`${DATA}&profile=jsonfg-dggs-zoneids`, 'application/geo+json');
      for (const named of [`"${URI}jsonfg-dggs-zoneids"`, 'jsonfg-dggs-zoneids']) {
        const { res, body } = await get(DATA, `application/geo+json; profile=${named}`);
        expect(res.headers.get('link')).to.equal(`<${URI}jsonfg-dggs-zoneids>; rel="profile"`);
        expect(res.headers.get('vary')).to.match(/\bAccept\b/);
        expect(body).to.deep.equal(byParam.body);
        expect(body.features[0].dggsPlace.coordinates).to.be.a('string');
      }
      // Without a profile, geo+json stays plain GeoJSON: one feature per sub-zone.
      const plain = await get(DATA, 'application/geo+json');
      expect(plain.res.headers.get('link')).to.equal(null);
      expect(plain.body.depth).to.equal(undefined);
    });

    it('takes the profile of the best range by quality', async () => {
      const { res } = await get(DATA, `application/geo+json;profile="${URI}jsonfg-dggs";q=0.3, application/geo+json;profile="${URI}jsonfg-dggs-plus";q=0.8, text/html;q=0.1`);
      expect(res.headers.get('link')).to.equal(`<${URI}jsonfg-dggs-plus>; rel="profile"`);
      // A range of another format preferred: no DGGS-JSON-FG.
      const other = await get(DATA, 'application/geo+json;profile=jsonfg-dggs;q=0.5, application/vnd.ogc.dggs+json');
      expect(other.res.headers.get('content-type')).to.match(/^application\/vnd\.ogc\.dggs\+json/);
      expect(other.body.values).to.be.an('object');
    });

    it('lets the profile query parameter win over Accept, and ignores an Accept profile the format lacks', async () => {
      const winner = await get(`${DATA}&profile=jsonfg-dggs`, `application/geo+json; profile="${URI}jsonfg-dggs-zoneids"`);
      expect(winner.res.headers.get('link')).to.equal(`<${URI}jsonfg-dggs>; rel="profile"`);
      const rfc = await get(`${DATA}&profile=rfc7946`, 'application/geo+json; profile=jsonfg-dggs');
      expect(rfc.res.headers.get('link')).to.equal(null);
      expect(rfc.body.depth).to.equal(undefined);
      const unknown = await get(DATA, 'application/geo+json; profile="https://example.com/unknown"');
      expect(unknown.res.headers.get('link')).to.equal(null);
    });

    it('gives answers differing by Accept profile different entity tags', async () => {
      const a = await s.get(DATA, { accept: 'application/geo+json; profile=jsonfg-dggs' });
      const b = await s.get(DATA, { accept: 'application/geo+json' });
      expect(a.headers.get('etag')).to.be.a('string');
      expect(a.headers.get('etag')).to.not.equal(b.headers.get('etag'));
      const again = await s.get(DATA, { accept: 'application/geo+json', 'if-none-match': a.headers.get('etag')! });
      expect(again.status).to.equal(200);
    });

    it('lists geo+ubjson exactly where it is served: collection zone data of lake collections', async () => {
      const api = (await (await s.get('/api/openapi.json')).json()) as Json;
      const types = (p: string, method = 'get') => Object.keys(api.paths[p][method].responses['200'].content);
      expect(types('/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data')).to.include('application/geo+ubjson');
      expect(types('/dggs/{dggrs_id}/zones/{zone_id}/data')).to.not.include('application/geo+ubjson');
      const conformance = (await (await s.get('/conformance', { accept: 'application/json' })).json()) as Json;
      expect(conformance.conformsTo).to.include('https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-dggs-ubjsonfg');
      const lake = (await (await s.get(`${DATA}&f=json`)).json()) as Json;
      expect(lake.links.some((l: Json) => l.rel === 'alternate' && l.type === 'application/geo+ubjson')).to.equal(true);
      const html = await (await s.get(`${DATA}&f=html`)).text();
      expect(html).to.include('f=geo%2Bubjson');
      const raster = (await (await s.get('/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?f=json')).json()) as Json;
      expect(raster.links.some((l: Json) => l.type === 'application/geo+ubjson')).to.equal(false);
      expect((await s.get('/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?f=geo%2Bubjson')).status).to.equal(406);
    });
  });
});
