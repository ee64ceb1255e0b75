import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { getWithHost } from '../support/get-with-host.js';

/**
 * Zone info of a grid is kept encoded (server.zoneInfoCacheBytes): a kept answer is the very answer
 * computed afresh, for every format, refined or not, under every host name it is asked by.
 */
describe('HTTP: zone info answers kept', function () {
  this.timeout(60_000);
  let kept: TestServer, fresh: TestServer;
  before(async () => {
    kept = await startTestServer();
    fresh = await startTestServer({ server: { host: '127.0.0.1', port: 0, logLevel: 'silent', zoneInfoCacheBytes: 0 } });
    expect(kept.config.server.zoneInfoCacheBytes).to.be.above(0);
  });
  after(async () => {
    await kept?.close();
    await fresh?.close();
  });

  const relative = (text: string, base: string) => text.replaceAll(base, 'BASE');

  it('a kept answer is the answer computed afresh, byte for byte', async () => {
    for (const grid of ['IVEA7H', 'ISEA3H', 'H3']) {
      const zones = ((await (await kept.get(`/dggs/${grid}/zones?zone-level=3&bbox=5,40,15,50&limit=3`)).json()) as { zones: string[] }).zones;
      for (const zone of zones) {
        for (const query of ['', '?refined-geometry=false', '?f=geojson', '?f=html', '?f=geojson&refined-geometry=false']) {
          const path = `/dggs/${grid}/zones/${encodeURIComponent(zone)}${query}`;
          const want = await fresh.get(path);
          for (let i = 0; i < 2; i++) {
            const got = await kept.get(path);
            expect(got.status, path).to.equal(want.status);
            expect(got.headers.get('content-type'), path).to.equal(want.headers.get('content-type'));
            expect(relative(await got.text(), kept.base), `${path} (${i === 0 ? 'computed' : 'kept'})`).to.equal(relative(await want.clone().text(), fresh.base));
          }
        }
      }
    }
  });

  it('the host a client names is in the links of the answer it gets, kept or not', async () => {
    const path = `/dggs/IVEA7H/zones/${(await (await kept.get('/dggs/IVEA7H/zones?zone-level=2&limit=1')).json() as { zones: string[] }).zones[0]}`;
    for (const host of ['a.example:8080', 'b.example:8080', 'a.example:8080']) {
      const body = JSON.parse(await getWithHost(kept.base + path, host)) as { links: { href: string; rel: string }[] };
      const own = body.links.filter((l) => !l.href.includes('opengis.net'));
      expect(own.length).to.be.above(5);
      for (const l of own) expect(l.href, host).to.match(new RegExp(`^http://${host}/`));
    }
  });

  it('an unknown zone is still a 404, every time', async () => {
    for (let i = 0; i < 2; i++) expect((await kept.get('/dggs/IVEA7H/zones/Z9-9-Z')).status).to.equal(404);
  });
});
