import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);

/**
 * GDAL's OAPIF driver (3.6 here) as the client: it must accept the API document, find the lake
 * collection's parameters in it and send `-where` to the server, rather than page through every
 * row and filter itself (18,604 requests for 93 rows before). Every request the server receives
 * is counted. ogrinfo/ogr2ogr missing fails the suite.
 */
describe('GDAL pushes -where to the server', function () {
  this.timeout(180_000);
  let s: TestServer;
  let seen: { url: string; accept: string; type: string; status: number }[] = [];
  let lake: string;
  let station: string;
  let total: number;

  before(async () => {
    s = await startTestServer();
    (s.app.http.server.server as Server).on('request', (req: IncomingMessage, res: ServerResponse) => {
      const entry = { url: req.url ?? '', accept: String(req.headers.accept ?? ''), type: '', status: 0 };
      seen.push(entry);
      res.on('finish', () => {
        entry.type = String(res.getHeader('content-type') ?? '');
        entry.status = res.statusCode;
      });
    });
    lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
    const first = (await (await s.get(`/collections/${lake}/items?limit=1`)).json()) as { numberMatched: number; features: { properties: { station_id: string } }[] };
    station = first.features[0]!.properties.station_id;
    total = first.numberMatched;
  });
  after(() => s.close());
  beforeEach(() => {
    seen = [];
  });

  const matched = async (query: string) => ((await (await s.get(`/collections/${lake}/items?limit=0&${query}`)).json()) as { numberMatched: number }).numberMatched;

  it('lists only the collections with items as layers (raster, STAC and remote-backed ones carry layerDataType Coverage)', async () => {
    const { stdout } = await run('ogrinfo', ['-ro', '-so', '-q', `OAPIF:${s.base}`], { timeout: 60_000 });
    const layers = [...stdout.matchAll(/^\d+: (\S+)/gm)].map((m) => m[1]);
    expect(layers).to.deep.equal(s.config.collections.filter((c) => c.backing.kind === 'parquet-lake').map((c) => c.id));
    expect(seen.filter((r) => /\/items/.test(r.url) && !r.url.startsWith(`/collections/${lake}/`))).to.deep.equal([]);
  });

  it('ogrinfo -where: the filter reaches the server and the requests are the filtered pages', async () => {
    const expected = await matched(`station_id=${station}`);
    seen = [];
    const { stdout } = await run('ogrinfo', ['-ro', '-al', '-q', `OAPIF:${s.base}`, lake, '-where', `station_id = '${station}'`], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    const features = stdout.split('OGRFeature(').slice(1);
    expect(features.length).to.equal(expected);
    expect(seen.map((r) => r.status).filter((st) => st >= 400)).to.deep.equal([]);
    for (const f of features) expect(f).to.contain(`station_id (String) = ${station}`);
    // The API document went out as plain JSON to GDAL's Accept, which refuses the 3.1 type.
    const doc = seen.find((r) => r.url.startsWith('/api'));
    expect(doc?.accept).to.contain('version=3.0');
    expect(doc?.type).to.match(/^application\/json/);
    const items = seen.filter((r) => r.url.includes('/items'));
    const filtered = items.filter((r) => /[?&](filter=|station_id=)/.test(r.url));
    // One unfiltered page while GDAL learns the layer's fields, then the filtered pages only.
    expect(items.length - filtered.length).to.be.at.most(1);
    expect(filtered.length).to.equal(Math.ceil(expected / 10));
    expect(seen.length).to.be.at.most(filtered.length + 5);
    const withoutPushdown = Math.ceil(total / 10);
    console.log(`      requests: ${seen.length} for ${expected} features (client-side filtering would page ${total} rows: ${withoutPushdown} item requests)`);
  });

  it('ogr2ogr -where with a comparison writes exactly the rows the server selects for the same CQL2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-gdal-'));
    const out = path.join(dir, 'out.geojson');
    const where = `station_id = '${station}' AND temperature > 5`;
    await run('ogr2ogr', ['-f', 'GeoJSON', out, `OAPIF:${s.base}`, lake, '-where', where], { timeout: 120_000 });
    const written = (JSON.parse(readFileSync(out, 'utf8')) as { features: { properties: { station_id: string; temperature: number } }[] }).features;
    const expected = await matched(`filter=${encodeURIComponent(`station_id = '${station}' AND temperature > 5`)}`);
    expect(written.length).to.equal(expected);
    expect(expected).to.be.greaterThan(0);
    for (const f of written) {
      expect(f.properties.station_id).to.equal(station);
      expect(f.properties.temperature).to.be.greaterThan(5);
    }
    const items = seen.filter((r) => r.url.includes('/items') && r.url.includes('filter='));
    // The filtered pages, and at most one of them again (ogr2ogr rewinds the layer once).
    expect(items.length).to.be.within(Math.ceil(expected / 10), Math.ceil(expected / 10) + 1);
    expect(decodeURIComponent(items[0]!.url)).to.contain('temperature > 5');
  });

  it('a datetime comparison (GDAL writes a quoted timestamp) is answered by the server too', async () => {
    const { stdout } = await run('ogrinfo', ['-ro', '-al', '-q', `OAPIF:${s.base}`, lake, '-where', `station_id = '${station}' AND datetime >= '2024/01/20 00:00:00'`], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    const expected = await matched(`filter=${encodeURIComponent(`station_id = '${station}' AND datetime >= TIMESTAMP('2024-01-20T00:00:00Z')`)}`);
    expect(stdout.split('OGRFeature(').length - 1).to.equal(expected);
    expect(expected).to.be.greaterThan(0);
    expect(seen.map((r) => r.status).filter((st) => st >= 400)).to.deep.equal([]);
    expect(seen.filter((r) => r.url.includes('/items') && r.url.includes('filter=')).length).to.be.within(Math.ceil(expected / 10), Math.ceil(expected / 10) + 1);
  });
});
