import { expect } from 'chai';
import * as sql from '../../../src/adapters/clickhouse/statements.js';
import { ALL_TIME } from '../../../src/ports/zone-pyramid-store.js';

describe('ClickHouse pyramid statements (statements.ts)', () => {
  const t = sql.generationTables('dggs', 'rain', 'gabc123456789');

  it('names a generation\'s tables from the config\'s table and a checked generation id', () => {
    expect(t).to.deep.equal({ database: 'dggs', distributed: 'rain_gabc123456789', local: 'rain_gabc123456789_local' });
    for (const bad of ['', 'g1', "g1234567890'", 'G1234567890', 'g1234567890_local', 'x1234567890']) expect(() => sql.generationTables('dggs', 'rain', bad), bad).to.throw(/generation/);
  });

  it('creates per shard a MergeTree partitioned by part and ordered by (coarse, level, key, period), and a Distributed table sharded by the coarse key', () => {
    const local = sql.createLocalCells(t, 2);
    expect(local).to.contain('CREATE TABLE IF NOT EXISTS `dggs`.`rain_gabc123456789_local` (part String, coarse Int64, level UInt8, key Int64, period Int64, count UInt64, `f0_valid` UInt64');
    expect(local).to.contain('`f1_max` Float64)');
    expect(local).to.match(/ENGINE = MergeTree PARTITION BY part ORDER BY \(coarse, level, key, period\)$/);
    expect(sql.createDistributedCells(t, 'dggs')).to.equal('CREATE TABLE IF NOT EXISTS `dggs`.`rain_gabc123456789` AS `dggs`.`rain_gabc123456789_local` ENGINE = Distributed(`dggs`, `dggs`, `rain_gabc123456789_local`, intHash64(coarse))');
  });

  it('drops a retried part by its partition, the part name a literal', () => {
    expect(sql.dropPart(t, "p'1")).to.equal("ALTER TABLE `dggs`.`rain_gabc123456789_local` DROP PARTITION 'p\\'1'");
  });

  it('inserts RowBinary columns in the order the encoder writes them', () => {
    expect(sql.insertCells(t, 1)).to.equal('INSERT INTO `dggs`.`rain_gabc123456789` (`part`, `coarse`, `level`, `key`, `period`, `count`, `f0_valid`, `f0_sum`, `f0_m2`, `f0_min`, `f0_max`) FORMAT RowBinary');
  });

  it('selects the wanted fields\' columns in request order, all-time cells by default, per-period cells in [from, to) never the all-time ones', () => {
    const allTime = sql.selectCells(t, { level: 5, keys: [11, 12], coarse: [1], fieldIndexes: [2, 0] });
    expect(allTime).to.equal(
      'SELECT `coarse`, `level`, `key`, `period`, `count`, `f2_valid`, `f2_sum`, `f2_m2`, `f2_min`, `f2_max`, `f0_valid`, `f0_sum`, `f0_m2`, `f0_min`, `f0_max` FROM `dggs`.`rain_gabc123456789` ' +
        `WHERE coarse IN (1) AND level = 5 AND key IN (SELECT toInt64(arrayJoin([11, 12]))) AND period = ${ALL_TIME} FORMAT TabSeparated`,
    );
    expect(sql.selectCells(t, { level: 5, keys: [11], coarse: [1], fieldIndexes: [0], periods: { from: 100, to: 200 } })).to.contain(`AND period >= 100 AND period < 200 AND period != ${ALL_TIME} FORMAT`);
    expect(sql.cellColumnCount(2)).to.equal(15);
    expect(sql.selectCells(t, { level: 5, keys: [11], coarse: [], fieldIndexes: [0] })).to.contain('WHERE level = 5 AND key IN');
  });

  it('refuses identifiers outside the allow-list and values that are not finite numbers', () => {
    expect(() => sql.createDatabase('db; DROP')).to.throw(/identifier/);
    expect(() => sql.createDistributedCells(t, 'my-cluster')).to.throw(/identifier/);
    expect(() => sql.selectCells(t, { level: NaN, keys: [1], coarse: [1], fieldIndexes: [0] })).to.throw(/finite/);
    expect(() => sql.selectCells(t, { level: 1, keys: [], coarse: [1], fieldIndexes: [0] })).to.throw(/empty/);
  });

  it('records generations through the SQL parser\'s literals, whatever the layout text holds', () => {
    const stmt = sql.recordGeneration('dggs', 'rain', 'gabc123456789', 'published', 17, "{\"source\":\"a'b\\\\\u0000\"}");
    expect(stmt).to.equal("INSERT INTO `dggs`.`dggs_pyramid_generations` (pyramid, generation, state, at, layout) SELECT 'rain', 'gabc123456789', 'published', 17, '{\"source\":\"a\\'b\\\\\\\\\\x00\"}'");
    expect(sql.selectPublished('dggs', "r'")).to.contain("WHERE pyramid = 'r\\'' AND state = 'published'");
  });
});
