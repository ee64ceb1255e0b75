/**
 * SourceVersions: each kind's version from its port, several collections as one, at most one look
 * per collection a second, and no request held back by a look once a version is known.
 */
import { expect } from 'chai';
import { SourceVersions } from '../../src/app/collections/source-versions.js';
import type { Collection, CollectionCatalog } from '../../src/ports/collection-catalog.js';
import type { LakeReader } from '../../src/ports/lake-reader.js';
import type { RasterReader } from '../../src/ports/raster-reader.js';
import type { StacCatalogFactory } from '../../src/ports/stac-catalog.js';
import type { SourceVersion } from '../../src/ports/source-version.js';

const COLLECTIONS: Collection[] = [
  { id: 'lake', title: 'L', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } },
  { id: 'raster', title: 'R', backing: { kind: 'raster-url', url: 'r.tif' } },
  { id: 'stac', title: 'S', backing: { kind: 'stac', catalog: 'c.json', strategy: 'single', asset: 'data' } },
  { id: 'features', title: 'F', backing: { kind: 'ogc-features', url: 'https://f.example.org', collection: 'x' } },
];
const catalog: CollectionCatalog = { list: () => COLLECTIONS, get: (id) => COLLECTIONS.find((c) => c.id === id) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fixture() {
  const looks = { lake: 0, raster: 0, stac: 0 };
  let lakeVersion: SourceVersion = { id: 'l1', modifiedMs: 1000 };
  let gate: Promise<void> = Promise.resolve();
  const lake = { version: async () => (looks.lake++, await gate, lakeVersion) } as unknown as LakeReader;
  const rasters: RasterReader = { open: async () => { throw new Error('not opened'); }, version: async (href) => (looks.raster++, { id: `r:${href}`, modifiedMs: 3000 }) };
  const stac: StacCatalogFactory = () => ({ search: async () => [], version: async () => (looks.stac++, { id: 's1' }) });
  const versions = new SourceVersions(catalog, lake, rasters, stac);
  return { versions, looks, setLake: (v: SourceVersion) => (lakeVersion = v), hold: (p: Promise<void>) => (gate = p) };
}

describe('SourceVersions', () => {
  it('asks each kind\'s port; OGC API Features and unknown collections have none', async () => {
    const { versions } = fixture();
    expect(await versions.of(['lake'])).to.deep.equal({ id: 'l1', modifiedMs: 1000 });
    expect(await versions.of(['raster'])).to.deep.equal({ id: 'r:r.tif', modifiedMs: 3000 });
    expect(await versions.of(['stac'])).to.deep.equal({ id: 's1' });
    expect(await versions.of(['features'])).to.equal(undefined);
    expect(await versions.of(['nowhere'])).to.equal(undefined);
    expect(await versions.of([])).to.equal(undefined);
  });

  it('combines several collections: one id that changes with any, the latest time when all have one', async () => {
    const { versions, setLake } = fixture();
    const both = (await versions.of(['lake', 'raster']))!;
    expect(both.modifiedMs).to.equal(3000);
    expect(both.id).to.not.equal((await versions.of(['raster', 'lake']))!.id, 'in order of the answer');
    expect((await versions.of(['lake', 'stac']))!.modifiedMs, 'the catalog has no time').to.equal(undefined);
    expect(await versions.of(['lake', 'features']), 'one without a version').to.equal(undefined);
    setLake({ id: 'l2', modifiedMs: 2000 });
    await sleep(1100);
    await versions.of(['lake']);
    await sleep(5);
    expect((await versions.of(['lake', 'raster']))!.id, 'after the lake changed').to.not.equal(both.id);
  });

  it('looks once a second at most, in the background once a version is known', async () => {
    const { versions, looks, setLake, hold } = fixture();
    await Promise.all(Array.from({ length: 20 }, () => versions.of(['lake'])));
    expect(looks.lake).to.equal(1);
    setLake({ id: 'l2' });
    let release!: () => void;
    hold(new Promise((r) => (release = r)));
    await sleep(1100);
    // The look is held: requests get the version known before, without waiting.
    expect(await versions.of(['lake'])).to.deep.equal({ id: 'l1', modifiedMs: 1000 });
    expect(await versions.of(['lake'])).to.deep.equal({ id: 'l1', modifiedMs: 1000 });
    expect(looks.lake, 'one look running').to.equal(2);
    release();
    await sleep(5);
    expect(await versions.of(['lake'])).to.deep.equal({ id: 'l2' });
  });
});
