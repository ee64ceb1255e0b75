import { expect } from 'chai';
import path from 'node:path';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';
import { byteRange } from '../../src/http/byte-range.js';

/**
 * Source links: a collection's local raster or STAC files are served read-only at
 * /collections/{id}/source/{name} (byte ranges for COG readers), and nothing else on disk is.
 */
describe('HTTP: collection source files', function () {
  this.timeout(60_000);

  describe('byteRange', () => {
    it('reads one range, a suffix or an open end; ignores what it does not take; refuses what lies past the end', () => {
      expect(byteRange('bytes=0-15', 100)).to.deep.equal({ start: 0, end: 15 });
      expect(byteRange('bytes=90-', 100)).to.deep.equal({ start: 90, end: 99 });
      expect(byteRange('bytes=95-200', 100)).to.deep.equal({ start: 95, end: 99 });
      expect(byteRange('bytes=-10', 100)).to.deep.equal({ start: 90, end: 99 });
      expect(byteRange('bytes=-500', 100)).to.deep.equal({ start: 0, end: 99 });
      expect(byteRange('bytes=100-', 100)).to.equal('unsatisfiable');
      expect(byteRange('bytes=-0', 100)).to.equal('unsatisfiable');
      for (const ignored of [undefined, '', 'bytes=0-1,5-6', 'items=0-5', 'bytes=5-2', 'bytes=-', 'bytes=a-b']) expect(byteRange(ignored, 100), String(ignored)).to.equal(undefined);
    });
  });

  describe('the demo raster', () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer();
    });
    after(() => s.close());

    const raster = () => s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
    const fileOf = () => path.resolve(REPO_ROOT, (raster().backing as { url: string }).url);

    it('links the raster from the collection page, and serves exactly its bytes, whole and by range', async () => {
      const html = await (await s.get(`/collections/${raster().id}?f=html`)).text();
      const href = /<th>Source<\/th><td><a href="([^"]+)"/.exec(html)?.[1];
      expect(href, 'source link on the collection page').to.equal(`${s.base}/collections/${raster().id}/source/${path.basename(fileOf())}`);
      const bytes = readFileSync(fileOf());
      const whole = await fetch(href!);
      expect(whole.status).to.equal(200);
      expect(whole.headers.get('accept-ranges')).to.equal('bytes');
      expect(whole.headers.get('content-type')).to.match(/^image\/tiff/);
      expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).to.equal(true);
      const part = await fetch(href!, { headers: { Range: 'bytes=100-1123' } });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 100-1123/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1124))).to.equal(true);
      const tail = await fetch(href!, { headers: { Range: 'bytes=-7' } });
      expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 7))).to.equal(true);
      const past = await fetch(href!, { headers: { Range: `bytes=${bytes.length}-` } });
      expect(past.status).to.equal(416);
      expect(past.headers.get('content-range')).to.equal(`bytes */${bytes.length}`);
      expect(await past.json()).to.include({ code: 416 });
      const head = await fetch(href!, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal(String(bytes.length));
      const again = await fetch(href!, { headers: { 'If-None-Match': whole.headers.get('etag')! } });
      expect(again.status).to.equal(304);
      // A stale validator in If-Range gets the whole current file, not a range of another one.
      const stale = await fetch(href!, { headers: { Range: 'bytes=0-9', 'If-Range': '"old"' } });
      expect(stale.status).to.equal(200);
      await stale.arrayBuffer();
    });

    it('serves nothing but the configured file: other names and escapes are 404', async () => {
      const id = raster().id;
      for (const name of ['..%2F..%2Fpackage.json', '%2Fetc%2Fpasswd', 'package.json', '%2E', '%2E%2E%2Fpackage.json', 'elevation.tif%00', 'ELEVATION.TIF', encodeURIComponent(fileOf())]) {
        const res = await s.get(`/collections/${id}/source/${name}`);
        expect(res.status, name).to.equal(404);
        expect(await res.json()).to.include({ code: 404 });
      }
      const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!.id;
      expect((await s.get(`/collections/${lake}/source/${path.basename(fileOf())}`)).status).to.equal(404);
      expect((await s.get(`/collections/nope/source/x.tif`)).status).to.equal(404);
    });
  });

  describe('a static STAC catalog on disk', () => {
    let s: TestServer;
    let dir: string;
    const item = (id: string, href: string) => ({
      type: 'Feature',
      stac_version: '1.0.0',
      id,
      bbox: [5, 44, 6, 45],
      geometry: { type: 'Polygon', coordinates: [[[5, 44], [6, 44], [6, 45], [5, 45], [5, 44]]] },
      properties: { datetime: '2024-05-10T10:30:00Z' },
      assets: { data: { href, type: 'image/tiff; application=geotiff' }, thumb: { href: '../secret.txt' } },
      links: [],
    });
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'dggs-stac-src-'));
      const root = path.join(dir, 'cat');
      mkdirSync(path.join(root, 'items'), { recursive: true });
      mkdirSync(path.join(root, 'scenes'));
      writeFileSync(path.join(root, 'scenes', 'a.tif'), 'inside');
      writeFileSync(path.join(root, 'secret.txt'), 'not linked');
      writeFileSync(path.join(dir, 'outside.tif'), 'outside');
      symlinkSync(path.join(dir, 'outside.tif'), path.join(root, 'scenes', 'link.tif'));
      writeFileSync(path.join(root, 'items', 'a.json'), JSON.stringify(item('a', '../scenes/a.tif')));
      writeFileSync(path.join(root, 'items', 'b.json'), JSON.stringify(item('b', '../../outside.tif')));
      writeFileSync(path.join(root, 'items', 'c.json'), JSON.stringify(item('c', '../scenes/link.tif')));
      writeFileSync(
        path.join(root, 'catalog.json'),
        JSON.stringify({ type: 'Catalog', stac_version: '1.0.0', id: 'tmp', description: 'tmp', links: ['a', 'b', 'c'].map((i) => ({ rel: 'item', href: `./items/${i}.json` })) }),
      );
      s = await startTestServer({
        collections: [
          {
            id: 'tmp-stac',
            title: 'Temporary STAC',
            extent: { spatial: { bbox: [[5, 44, 6, 45]] } },
            backing: { kind: 'stac', catalog: path.join(root, 'catalog.json'), strategy: 'single', asset: 'data', fields: { v: { title: 'V', type: 'number', svc_band_index: 1 } } },
          },
        ],
      });
    });
    after(() => s?.close());

    it('serves the catalog, its items and their configured assets inside its directory, and nothing else', async () => {
      const get = async (name: string) => {
        const res = await s.get(`/collections/tmp-stac/source/${encodeURIComponent(name)}`);
        return { status: res.status, text: await res.text() };
      };
      expect((await get('catalog.json')).status).to.equal(200);
      expect(JSON.parse((await get('items/a.json')).text).id).to.equal('a');
      expect(await get('scenes/a.tif')).to.deep.equal({ status: 200, text: 'inside' });
      for (const name of ['secret.txt', 'scenes/link.tif', '../outside.tif', 'items', 'scenes']) expect((await get(name)).status, name).to.equal(404);
      const html = await (await s.get('/collections/tmp-stac?f=html')).text();
      expect(html).to.contain(`href="${s.base}/collections/tmp-stac/source/catalog.json"`);
    });
  });
});
