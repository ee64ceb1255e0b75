import { expect } from 'chai';
import { featureSourceContract, type FeatureBackend } from '../contracts/feature-source.contract.js';
import { startMapServer, type MapServerHost } from '../support/remote/mapserver.js';
import { featureSource, ogcFeaturesCollection } from '../support/remote/backends.js';
import { remoteZoneDataSuite } from '../support/remote/remote-zone-data-suite.js';
import { AppError } from '../../src/ports/errors.js';
import { httpStatus } from '../support/http-status.js';

/**
 * MapServer 8 (Debian `cgi-mapserver`), a real OGC API Features server nobody here wrote, as a
 * backend of `ogc-features` collections: the FeatureSource contract, MapServer's own quirks,
 * and zone data over HTTP. An external program, so it runs in `npm run test:clients`, which
 * fails when `mapserv` is missing.
 */

// MapServer serving the fixture through its OGC API: Part 1 core only, no
// queryables (fields come from a sample), datetime ignored (evaluated here), no filtering.
let ms: MapServerHost;
featureSourceContract(
  'MapServer 8 OGC API',
  async () => {
    ms = await startMapServer();
    // One mapserv process per request: larger pages keep the suite quick.
    const source = featureSource([ms.origin], { pageSize: 100 });
    return {
      collection: (layer) => ogcFeaturesCollection(`ms-${layer}`, ms.api, layer),
      source,
      requests: () => ms.requests,
      filters: false,
      honoursDatetime: false,
      pageSize: 100,
    } satisfies FeatureBackend;
  },
  async () => ms?.close(),
);

describe('OGC API Features source: MapServer quirks', function () {
  this.timeout(60_000);
  let ms2: MapServerHost;
  before(async () => {
    ms2 = await startMapServer();
  });
  after(async () => ms2?.close());

  it('MapServer 8.0.0 ignoring offset on a GeoPackage layer: the repeated page is a 502, not an endless read', async () => {
    const source = featureSource([ms2.origin]);
    const err = await source.scan(ogcFeaturesCollection('gpkg', ms2.api, 'stations-gpkg'), {}, () => undefined).then(
      () => expect.fail('expected a failure'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(AppError);
    expect(httpStatus(err)).to.equal(502);
    expect((err as AppError).hint).to.match(/paging does not advance/);
  });
});

remoteZoneDataSuite(true);
