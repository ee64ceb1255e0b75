import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stacCatalogContract, stacItemJson, CONTRACT_ITEMS, type StacItemJson } from './stac-catalog.contract.js';
import { StaticStacCatalog } from '../../src/adapters/stac/static-stac-catalog.js';
import { InMemoryStacCatalog } from '../../src/adapters/stac/in-memory-stac-catalog.js';
import { parseStacItem } from '../../src/adapters/stac/stac-json.js';
import { StacCatalogError } from '../../src/ports/stac-catalog.js';
import { REPO_ROOT } from '../support/test-server.js';

const WORLD = [-180, -90, 180, 90] as [number, number, number, number];

function write(file: string, doc: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(doc));
}

/** A nested static catalog: root -> child catalog -> items in their own folders (relative hrefs throughout), plus a link loop. */
function staticTree(items: StacItemJson[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'stac-contract-'));
  const half = Math.ceil(items.length / 2);
  write(path.join(dir, 'catalog.json'), {
    type: 'Catalog', id: 'root', stac_version: '1.0.0', description: 'contract',
    links: [
      { rel: 'self', href: './catalog.json' },
      { rel: 'child', href: './sub/catalog.json' },
      ...items.slice(0, half).map((i) => ({ rel: 'item', href: `./items/${i.id}/${i.id}.json` })),
    ],
  });
  write(path.join(dir, 'sub/catalog.json'), {
    type: 'Catalog', id: 'sub', stac_version: '1.0.0', description: 'child',
    links: [{ rel: 'parent', href: '../catalog.json' }, { rel: 'child', href: '../catalog.json' }, ...items.slice(half).map((i) => ({ rel: 'item', href: `../items/${i.id}/${i.id}.json` }))],
  });
  for (const i of items) write(path.join(dir, 'items', String(i.id), `${String(i.id)}.json`), i);
  return path.join(dir, 'catalog.json');
}

stacCatalogContract('StaticStacCatalog', async (items) => new StaticStacCatalog(staticTree(items)));
stacCatalogContract('InMemoryStacCatalog', async (items) => new InMemoryStacCatalog(items.map((i) => parseStacItem(i, (h) => h))));

describe('StaticStacCatalog', () => {
  it('resolves relative asset hrefs against the item file, keeps absolute and URL hrefs', async () => {
    const file = staticTree([
      stacItemJson('rel', { asset: '../../scenes/rel.tif' }),
      stacItemJson('abs', { asset: '/srv/abs.tif' }),
      stacItemJson('web', { asset: 'https://example.com/web.tif' }),
    ]);
    const byId = Object.fromEntries((await new StaticStacCatalog(file).search({ bbox: WORLD })).map((i) => [i.id, i.assets.data!.href]));
    expect(byId.rel).to.equal(path.join(path.dirname(file), 'scenes/rel.tif'));
    expect(byId.abs).to.equal('/srv/abs.tif');
    expect(byId.web).to.equal('https://example.com/web.tif');
  });

  it('keeps paths relative to the working directory when the catalog path is relative (no absolute paths in links)', async () => {
    const items = await new StaticStacCatalog('data/demo/stac/catalog.json').search({ bbox: WORLD });
    expect(items.map((i) => i.id).sort()).to.deep.equal(['ndvi-2024-05-10', 'ndvi-2024-06-14', 'ndvi-2024-07-19', 'ndvi-2024-08-23']);
    for (const i of items) {
      expect(i.assets.data!.href).to.equal(`data/demo/stac/scenes/${i.id}.tif`);
      expect(existsSync(path.join(REPO_ROOT, i.assets.data!.href))).to.equal(true);
      expect(i.cloudCover).to.be.a('number');
    }
  });

  it('accepts a file: URL for the catalog', async () => {
    const file = staticTree(CONTRACT_ITEMS);
    expect(await new StaticStacCatalog(pathToFileURL(file).href).search({ bbox: WORLD })).to.have.length(CONTRACT_ITEMS.length);
  });

  it('refuses http(s) catalogs and reports unreadable or invalid files as StacCatalogError', async () => {
    for (const href of ['https://example.com/catalog.json', path.join(tmpdir(), 'no-such-dir', 'catalog.json')]) {
      let err: unknown;
      await new StaticStacCatalog(href).search({ bbox: WORLD }).catch((e: unknown) => (err = e));
      expect(err, href).to.be.instanceOf(StacCatalogError);
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'stac-bad-'));
    write(path.join(dir, 'catalog.json'), { type: 'Catalog', links: [{ rel: 'item', href: './x.json' }] });
    write(path.join(dir, 'x.json'), { type: 'Feature', id: 'x', properties: {}, bbox: [0, 0, 1, 1] });
    let err: unknown;
    await new StaticStacCatalog(path.join(dir, 'catalog.json')).search({ bbox: WORLD }).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(StacCatalogError);
    expect((err as Error).message).to.match(/neither datetime/);
  });
});
