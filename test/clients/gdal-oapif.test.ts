import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);

/**
 * GDAL as a real OGC API Features client of the items endpoint. GDAL is a test tool here, never
 * a runtime dependency; .ci/run installs it. Without ogrinfo this suite fails, it does not skip.
 */
describe('GDAL reads items as an OGC API Features source', function () {
  this.timeout(120_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it('ogrinfo OAPIF lists the collection layer, its schema, count and features', async () => {
    const layer = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
    const summary = await run('ogrinfo', ['-ro', '-so', `OAPIF:${s.base}/collections/${layer}`, layer], { timeout: 60_000 });
    expect(summary.stdout).to.contain(`Layer name: ${layer}`);
    expect(summary.stdout).to.match(/Geometry: Point/);
    expect(summary.stdout).to.match(/Feature Count: \d+/);
    expect(summary.stdout).to.match(/temperature: Real/);
    const features = await run('ogrinfo', ['-ro', '-q', `OAPIF:${s.base}/collections/${layer}`, layer, '-spat', '10.18', '44.82', '10.19', '44.83'], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    // The box holds one demo station: GDAL pages through its observations with `next` links.
    const blocks = features.stdout.split('OGRFeature(').slice(1);
    expect(blocks.length).to.be.greaterThan(10);
    for (const block of blocks) {
      expect(block).to.contain('station_id (String) = ST0001');
      expect(block).to.match(/POINT \(-?\d+(\.\d+)? -?\d+(\.\d+)?\)/);
    }
  });
});
