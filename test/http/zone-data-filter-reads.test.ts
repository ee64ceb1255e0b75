import { expect } from 'chai';
import path from 'node:path';
import { REPO_ROOT } from '../support/test-server.js';
import { loadConfig } from '../../src/app/config/load-config.js';
import { buildContainer } from '../../src/app/container.js';
import { TOKENS } from '../../src/app/tokens.js';
import { ZoneDataService, type ZoneDataQuery } from '../../src/app/zone-data/zone-data-service.js';
import { RasterUrlZoneDataSource } from '../../src/app/zone-data/raster-url-zone-data-source.js';
import type { ZoneDataSource } from '../../src/ports/zone-data-source.js';
import type { RasterReader } from '../../src/ports/raster-reader.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import type { CollectionCatalog } from '../../src/ports/collection-catalog.js';

/**
 * Zone data with `cog-stat` and a `filter`: the answer's statistics and the filter's own values
 * are two reads. They share one admission slot (and on a lake one limits.lakeQuerySeconds), so
 * they run one after the other, and a failed first read leaves the second unstarted.
 */
describe('zone data with cog-stat and a filter: its two reads run one after the other', function () {
  this.timeout(60_000);
  const log: string[] = [];
  let fail = false;

  function service(): ZoneDataService {
    const config = loadConfig({ DGGS_CONFIG: path.join(REPO_ROOT, 'config/default.json') }, { server: { logLevel: 'silent' } });
    const container = buildContainer(config);
    const raster = new RasterUrlZoneDataSource(container.get<RasterReader>(TOKENS.RasterReader));
    const recorded: ZoneDataSource = {
      fields: (c) => raster.fields(c),
      zoneData: async (c, r) => {
        log.push(`start ${r.fields.join(',')}${r.options.stats ? ` ${r.options.stats.join(',')}` : ''}`);
        try {
          if (fail) throw new Error('the backend failed');
          return await raster.zoneData(c, r);
        } finally {
          log.push('end');
        }
      },
    };
    return new ZoneDataService(container.get<GridRegistry>(TOKENS.GridRegistry), container.get<CollectionCatalog>(TOKENS.CollectionCatalog), { 'raster-url': recorded }, undefined, config.limits);
  }

  const query: ZoneDataQuery = { dggrsId: 'IVEA7H', zoneId: 'E4-120-A', zoneDepth: '1', options: { stats: ['max'] }, filter: 'elevation > 1500' };

  it('reads the statistics, then the filter values, and filters the statistics by each sub-zone own value', async () => {
    log.length = 0;
    fail = false;
    const zd = service();
    const data = await zd.collectionZoneData('demo-elevation', query);
    expect(log).to.deep.equal(['start elevation max', 'end', 'start elevation', 'end']);
    const own = (await zd.collectionZoneData('demo-elevation', { dggrsId: 'IVEA7H', zoneId: 'E4-120-A', zoneDepth: '1' })).depths[0]!.values.elevation!;
    const max = (await zd.collectionZoneData('demo-elevation', { ...query, filter: undefined } as ZoneDataQuery)).depths[0]!.values.elevation_max!;
    const filtered = data.depths[0]!.values.elevation_max!;
    expect(filtered).to.deep.equal(max.map((v, i) => (own[i] !== null && own[i]! > 1500 ? v : null)));
    expect(filtered.some((v) => v !== null) && filtered.some((v) => v === null), 'the filter keeps some sub-zones and drops others').to.equal(true);
  });

  it('a failed first read is the answer, and the second read is never started', async () => {
    log.length = 0;
    fail = true;
    let err: unknown;
    try {
      await service().collectionZoneData('demo-elevation', query);
    } catch (e) {
      err = e;
    }
    expect((err as Error)?.message).to.equal('the backend failed');
    expect(log).to.deep.equal(['start elevation max', 'end']);
  });
});
