/**
 * A static STAC catalog on disk is versioned by its root document; once the root changes, the
 * next search reads the tree again. Over HTTP a catalog has no cheap version.
 */
import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StaticStacCatalog } from '../../../src/adapters/stac/static-stac-catalog.js';
import { REPO_ROOT } from '../../support/test-server.js';

const EVERYWHERE = { bbox: [-180, -90, 180, 90] as [number, number, number, number] };

describe('StaticStacCatalog version', () => {
  it('is the root document\'s stamp, and an edited root is read again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dggs-stac-version-'));
    cpSync(path.join(REPO_ROOT, 'data/demo/stac'), dir, { recursive: true });
    const root = path.join(dir, 'catalog.json');
    const catalog = new StaticStacCatalog(root);
    const before = await catalog.version();
    expect(before?.id).to.be.a('string');
    expect(before?.modifiedMs).to.be.a('number');
    const all = await catalog.search(EVERYWHERE);
    expect(all.length).to.be.above(1);
    expect(await catalog.version(), 'unchanged').to.deep.equal(before);

    const doc = JSON.parse(readFileSync(root, 'utf8')) as { links: { rel: string }[] };
    const firstItem = doc.links.findIndex((l) => l.rel === 'item');
    doc.links.splice(firstItem, 1);
    writeFileSync(root, JSON.stringify(doc, null, 2));
    const after = await catalog.version();
    expect(after?.id).to.not.equal(before?.id);
    expect(await catalog.search(EVERYWHERE), 'the tree read again').to.have.length(all.length - 1);
  });

  it('has none over HTTP (knowing would cost reading the catalog)', async () => {
    const docs = { resolve: (h: string) => h, read: async () => ({}), asset: (h: string) => h, maxDocuments: 10, concurrency: 1 };
    expect(await new StaticStacCatalog('https://stac.example.org/catalog.json', docs).version()).to.equal(undefined);
  });
});
