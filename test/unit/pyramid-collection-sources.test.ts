/**
 * A pyramid collection at start and in entity tags: its extent comes from the published layout
 * when the config gives none; a store that fails (or has no pyramid yet) stops nothing; its source
 * version changes when an ingest publishes.
 */
import { expect } from 'chai';
import { checkCollectionSources, CollectionAvailability, type SourcePorts } from '../../src/app/collections/collection-sources.js';
import { SourceVersions } from '../../src/app/collections/source-versions.js';
import type { CollectionConfig } from '../../src/app/config/config-schema.js';
import type { Collection, CollectionCatalog } from '../../src/ports/collection-catalog.js';
import type { LakeReader } from '../../src/ports/lake-reader.js';
import type { RasterReader } from '../../src/ports/raster-reader.js';
import type { StacCatalogFactory } from '../../src/ports/stac-catalog.js';
import type { PyramidLayout, ZonePyramidStore } from '../../src/ports/zone-pyramid-store.js';
import { UnavailableError } from '../../src/ports/errors.js';
import { MemoryPyramidStore } from '../support/memory-pyramid-store.js';

const pyramid = (id: string, table: string, extent?: CollectionConfig['extent']): CollectionConfig =>
  ({ id, title: id, ...(extent ? { extent } : {}), backing: { kind: 'clickhouse-pyramid', table, source: 'lake', grid: 'IVEA7H', levels: [3] } }) as CollectionConfig;

const LAYOUT: PyramidLayout = { dggrsId: 'IVEA7H', levels: [3], coarseLevel: 3, fields: ['a'], period: 'day', timeExtent: [Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 31, 23)], bbox: [-10, 35, 30, 60], rows: 10, source: 'lake', ingestedAt: '2026-01-01T00:00:00.000Z' };

function ports(pyramids: ZonePyramidStore, warnings: string[]): SourcePorts {
  return {
    lake: {} as LakeReader,
    rasters: {} as RasterReader,
    stac: (() => ({})) as unknown as StacCatalogFactory,
    lakeRoot: 'nowhere',
    availability: new CollectionAvailability(),
    logger: { warn: (_: unknown, m: string) => void warnings.push(m), info: () => undefined } as unknown as SourcePorts['logger'],
    pyramids,
  };
}

describe('pyramid collections at start and in source versions', () => {
  it('takes the extent from the published layout unless the config gives one; an unpublished pyramid has none', async () => {
    const store = new MemoryPyramidStore();
    await store.publish({ table: 't' }, 'g', LAYOUT);
    const warnings: string[] = [];
    const extents = await checkCollectionSources([pyramid('p', 't'), pyramid('given', 't', { spatial: { bbox: [[0, 0, 1, 1]] } }), pyramid('none', 'unpublished')], ports(store, warnings));
    expect(extents.get('p')).to.deep.equal({ spatial: { bbox: [[-10, 35, 30, 60]] }, temporal: { interval: [['2024-01-01T00:00:00.000Z', '2024-01-31T23:00:00.000Z']] } });
    expect(extents.has('given')).to.equal(false);
    expect(extents.has('none')).to.equal(false);
    expect(warnings).to.deep.equal([]);
  });

  it('starts when the store cannot answer, with a warning and no extent', async () => {
    const down: ZonePyramidStore = Object.assign(new MemoryPyramidStore(), { layout: async () => Promise.reject(new UnavailableError('down')) });
    const warnings: string[] = [];
    const extents = await checkCollectionSources([pyramid('p', 't')], ports(down, warnings));
    expect(extents.size).to.equal(0);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('layout');
  });

  it('versions a pyramid by its published layout: a new ingest, a new version', async () => {
    const store = new MemoryPyramidStore();
    const collections: Collection[] = [{ id: 'p', title: 'p', backing: { kind: 'clickhouse-pyramid', table: 't', source: 'lake', grid: 'IVEA7H', levels: [3] } }];
    const catalog: CollectionCatalog = { list: () => collections, get: (id) => collections.find((c) => c.id === id) };
    const versions = () => new SourceVersions(catalog, {} as LakeReader, {} as RasterReader, (() => ({})) as unknown as StacCatalogFactory, store);
    expect(await versions().of(['p']), 'nothing published').to.equal(undefined);
    await store.publish({ table: 't' }, 'g1', LAYOUT);
    const first = (await versions().of(['p']))!;
    expect(first.modifiedMs).to.equal(Date.parse(LAYOUT.ingestedAt));
    expect((await versions().of(['p']))!.id, 'the same layout, the same version').to.equal(first.id);
    await store.publish({ table: 't' }, 'g2', { ...LAYOUT, ingestedAt: '2026-01-02T00:00:00.000Z' });
    expect((await versions().of(['p']))!.id).to.not.equal(first.id);
    // Without a store bound, a pyramid has no version (no validators), never an error.
    expect(await new SourceVersions(catalog, {} as LakeReader, {} as RasterReader, (() => ({})) as unknown as StacCatalogFactory).of(['p'])).to.equal(undefined);
  });
});
