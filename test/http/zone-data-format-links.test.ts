import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/test-server.js';

const DATA = '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data';
type Link = { href: string; rel: string; type: string };

/** The format links of a zone-data answer name only what the service writes for that request. */
describe('zone-data format links', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => (s = await startTestServer()));
  after(() => s?.close());

  const linksOf = async (q: string): Promise<Link[]> => {
    const r = await s.get(`${DATA}?${q}`);
    expect(r.status).to.equal(200);
    return ((await r.json()) as { links: Link[] }).links.filter((l) => l.rel === 'self' || l.rel === 'alternate');
  };

  it('leave out the one-image formats beside several depths, and every alternate is served', async () => {
    const two = await linksOf('zone-depth=1,2&f=json');
    const one = await linksOf('zone-depth=2&f=json');
    const types = two.map((l) => l.type);
    expect(types).to.not.include('image/png');
    expect(types).to.not.include('image/jxl');
    expect(types).to.include('image/tiff');
    expect(one.map((l) => l.type)).to.include('image/png').and.include('image/jxl');
    for (const l of [...two, ...one]) {
      const r = await fetch(l.href);
      expect(r.status, l.href).to.equal(200);
      expect(r.headers.get('content-type'), l.href).to.match(new RegExp(`^${l.type.replace(/[+.]/g, '\\$&')}`));
      await r.arrayBuffer();
    }
  });

  it('carry a profile only to the formats that write it', async () => {
    const links = await linksOf('zone-depth=1&f=covjson&profile=covjson-dggs-zoneids');
    const self = links.find((l) => l.rel === 'self')!;
    expect(new URL(self.href).searchParams.get('profile')).to.equal('covjson-dggs-zoneids');
    for (const l of links.filter((x) => x.rel === 'alternate')) expect(new URL(l.href).searchParams.get('profile'), l.href).to.equal(null);
  });

  it('show each format by its short name in the HTML page', async () => {
    const html = await (await s.get(`${DATA}?zone-depth=2&f=html`)).text();
    const bar = html.slice(html.indexOf('<span class="formats"'), html.indexOf('</span>', html.indexOf('<span class="formats"')));
    const labels = [...bar.matchAll(/type="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(labels)).to.include({ 'image/tiff': 'GeoTIFF', 'application/netcdf': 'netCDF', 'application/zarr+zip': 'Zarr', 'image/png': 'PNG', 'image/jxl': 'JPEG-XL', 'application/prs.coverage+json': 'CoverageJSON', 'application/vnd.ogc.dggs+json': 'DGGS-JSON' });
    for (const [type, label] of labels) expect(label, type).to.not.contain('/');
  });
});
