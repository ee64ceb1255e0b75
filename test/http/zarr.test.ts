/**
 * Zipped Zarr 2 zone data (f=zarr, application/zarr+zip): the zip is opened with fflate and every
 * array read back from its one chunk; the values are those of the DGGS-JSON of the same request.
 */
import { expect } from 'chai';
import { strFromU8, unzipSync, type Unzipped } from 'fflate';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const PROFILE = 'https://www.opengis.net/def/profile/ogc/0/';
const REQUESTS = [
  '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1,2',
  '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1,2&datetime=2024-01-05T00:00:00Z/2024-01-06T00:00:00Z',
];

/** One array of a Zarr 2 store, read as its .zarray says (one chunk, no compressor). */
function readArray(files: Unzipped, path: string): { meta: Json; attrs: Json; values: (number | string | bigint | null)[] } {
  const meta = JSON.parse(strFromU8(files[`${path}/.zarray`]!));
  const attrs = JSON.parse(strFromU8(files[`${path}/.zattrs`]!));
  expect(meta).to.include({ zarr_format: 2, order: 'C', compressor: null, filters: null });
  expect(meta.chunks, `${path}: one chunk`).to.deep.equal(meta.shape);
  const chunks = Object.keys(files).filter((k) => k.startsWith(`${path}/`) && !k.slice(path.length + 1).startsWith('.'));
  expect(chunks).to.deep.equal([`${path}/0`]);
  const bytes = files[`${path}/0`]!.slice();
  const n = meta.shape[0] as number;
  let values: (number | string | bigint | null)[];
  if (meta.dtype === '<f8') values = [...new Float64Array(bytes.buffer)].map((v) => (Number.isNaN(v) ? null : v));
  else if (meta.dtype === '<u4') values = [...new Uint32Array(bytes.buffer)];
  else if (meta.dtype === '<u8') values = [...new BigUint64Array(bytes.buffer)];
  else {
    const width = Number(/^<U(\d+)$/.exec(meta.dtype)![1]);
    const points = new Uint32Array(bytes.buffer);
    values = Array.from({ length: n }, (_, i) => String.fromCodePoint(...points.subarray(i * width, (i + 1) * width)).replace(/\0+$/, ''));
  }
  expect(values).to.have.length(n);
  return { meta, attrs, values };
}

describe('zone data as zipped Zarr 2', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  async function zarr(url: string, accept?: string): Promise<{ res: Response; files: Unzipped }> {
    const res = await s.get(url, accept ? { accept } : {});
    expect(res.status, url).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/zarr+zip');
    return { res, files: unzipSync(new Uint8Array(await res.arrayBuffer())) };
  }

  for (const url of REQUESTS) {
    for (const profile of ['zarr2-dggs', 'zarr2-dggs-zoneids']) {
      it(`${profile}: ${url} holds, per depth, the DGGS-JSON values of the same request`, async () => {
        const json = (await (await s.get(`${url}&f=json`)).json()) as Json;
        const { res, files } = await zarr(`${url}&f=zarr&profile=${profile}`);
        expect(res.headers.get('link')).to.equal(`<${PROFILE}${profile}>; rel="profile"`);
        expect(res.headers.get('content-disposition')).to.match(/attachment; filename=".+\.zarr\.zip"/);
        const root = JSON.parse(strFromU8(files['.zattrs']!));
        const grid = (await (await s.get('/dggs/IVEA7H')).json()) as Json;
        expect(root).to.include({ profile: `${PROFILE}${profile}`, dggrs: grid.uri, dggrs_curie: '[ogc-dggrs:IVEA7H]', zone_id: json.zoneId });
        expect(root.depths).to.deep.equal([1, 2]);
        expect(JSON.parse(strFromU8(files['.zgroup']!))).to.deep.equal({ zarr_format: 2 });
        const fields = Object.keys(json.values);
        expect(fields).to.not.be.empty;
        for (const [k, depth] of json.depths.entries()) {
          const group = `depth_${depth}`;
          const ids: string[] = json.zones[k].zoneIds;
          expect(JSON.parse(strFromU8(files[`${group}/.zattrs`]!))).to.include({ depth, zone_level: root.zone_level + depth });
          const coordinate = readArray(files, `${group}/zone`);
          expect(coordinate.attrs).to.include({ grid_name: 'IVEA7H', level: root.zone_level + depth });
          expect(coordinate.attrs._ARRAY_DIMENSIONS).to.deep.equal(['zone']);
          if (profile === 'zarr2-dggs') {
            expect(coordinate.attrs.indexing).to.equal('local-subzone-order');
            expect(coordinate.values).to.deep.equal(ids.map((_, i) => i + 1));
            expect(files[`${group}/zone_uint64/.zarray`]).to.equal(undefined);
          } else {
            expect(coordinate.attrs.indexing).to.equal('zone-id');
            expect(coordinate.values).to.deep.equal(ids);
            // IVEA7H has 64-bit ids: the same zones, as DGGAL's integers (the uint64 zone list's).
            const wide = readArray(files, `${group}/zone_uint64`);
            expect(wide.meta.dtype).to.equal('<u8');
            const zoneList = await s.get(`/dggs/IVEA7H/zones?parent-zone=${json.zoneId}&zone-level=${depth}&f=uint64&limit=1000`);
            const listed = Buffer.from(await zoneList.arrayBuffer());
            const fromList = Array.from({ length: Number(listed.readBigUInt64LE(0)) }, (_, i) => listed.readBigUInt64LE(8 + 8 * i));
            expect([...wide.values].sort()).to.deep.equal([...fromList].sort());
          }
          for (const field of fields) {
            const a = readArray(files, `${group}/${field}`);
            expect(a.meta).to.include({ dtype: '<f8', fill_value: 'NaN' });
            expect(a.attrs._ARRAY_DIMENSIONS).to.deep.equal(['zone']);
            expect(a.attrs.long_name).to.be.a('string');
            expect(a.values, `${group}/${field}`).to.deep.equal(json.values[field][k].data);
          }
        }
      });
    }
  }

  it('is chosen by Accept, with its profile by the profile parameter of the media type; the query parameter wins', async () => {
    const url = REQUESTS[0]!;
    const byAccept = await zarr(url, `application/zarr+zip; profile="${PROFILE}zarr2-dggs-zoneids"`);
    expect(byAccept.res.headers.get('link')).to.equal(`<${PROFILE}zarr2-dggs-zoneids>; rel="profile"`);
    expect(readArray(byAccept.files, 'depth_1/zone').attrs.indexing).to.equal('zone-id');
    const byParam = await zarr(`${url}&profile=zarr2-dggs`, 'application/zarr+zip; profile=zarr2-dggs-zoneids');
    expect(byParam.res.headers.get('link')).to.equal(`<${PROFILE}zarr2-dggs>; rel="profile"`);
    // A profile Accept asks that the format lacks is a preference not met: the default.
    const unknown = await zarr(url, 'application/zarr+zip; profile=zarr2');
    expect(unknown.res.headers.get('link')).to.equal(`<${PROFILE}zarr2-dggs>; rel="profile"`);
    // The profile parameter naming another format's profile is a 400.
    expect((await s.get(`${url}&f=zarr&profile=jsonfg-dggs`)).status).to.equal(400);
  });

  it('is offered in the API document, on /conformance and in the format links', async () => {
    const api = (await (await s.get('/api/openapi.json')).json()) as Json;
    const op = api.paths['/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data'].get;
    expect(Object.keys(op.responses['200'].content)).to.include('application/zarr+zip');
    const conformance = (await (await s.get('/conformance', { accept: 'application/json' })).json()) as Json;
    expect(conformance.conformsTo).to.include('https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-zarr');
    const doc = (await (await s.get(`${REQUESTS[0]}&f=json`)).json()) as Json;
    expect(doc.links.find((l: Json) => l.rel === 'alternate' && l.type === 'application/zarr+zip').href).to.include('f=zarr');
  });
});
