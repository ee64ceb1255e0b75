import { expect } from 'chai';
import { createClient } from '@clickhouse/client';
import { ClickHouseZonePyramidStore, type ClickHouseOptions } from '../../src/adapters/clickhouse/clickhouse-pyramid-store.js';
import { ShardClient, ShardStatementError } from '../../src/adapters/clickhouse/shard-client.js';
import { sqlString } from '../../src/adapters/clickhouse/sql-literal.js';
import { UnavailableError, UpstreamError, UpstreamTimeoutError } from '../../src/ports/errors.js';
import { ALL_TIME } from '../../src/ports/zone-pyramid-store.js';
import { CLUSTER, startClickHouseShards, type ClickHouseShards } from '../support/clickhouse-shards.js';
import { freshRef, ingest, sampleCells, sampleLayout, sorted, zonePyramidStoreContract } from '../contracts/zone-pyramid-store.contract.js';

const DATABASE = `dggs_test_${process.pid}`;

let shards: ClickHouseShards | undefined;
/** One pair of shard servers for the whole file (they start in about a second). */
async function theShards(): Promise<ClickHouseShards> {
  return (shards ??= await startClickHouseShards());
}
after(async () => shards?.stop());

function options(s: ClickHouseShards, over: Partial<ClickHouseOptions> = {}): ClickHouseOptions {
  return { shards: s.urls(), cluster: CLUSTER, database: DATABASE, username: s.username, password: s.password, timeoutMs: 10_000, maxConnections: 4, retryAfterSeconds: 7, ...over };
}

async function sql(url: string, s: ClickHouseShards, query: string): Promise<string> {
  const client = createClient({ url, username: s.username, password: s.password });
  try {
    const result = await client.exec({ query });
    let text = '';
    for await (const chunk of result.stream as AsyncIterable<Buffer>) text += chunk.toString();
    return text;
  } finally {
    await client.close();
  }
}

zonePyramidStoreContract('ClickHouse, two shards', async () => {
  const s = await theShards();
  const store = new ClickHouseZonePyramidStore(options(s));
  return {
    store,
    cleanup: async () => {
      await store.close();
      for (const url of s.urls()) await sql(url, s, `DROP DATABASE IF EXISTS ${DATABASE}`);
    },
  };
});

describe('ClickHouse zone pyramid store on two shards', function () {
  this.timeout(120_000);
  let s: ClickHouseShards;
  let store: ClickHouseZonePyramidStore;
  before(async () => {
    s = await theShards();
    store = new ClickHouseZonePyramidStore(options(s));
  });
  after(async () => {
    await store?.close();
    if (s) for (const url of s.urls()) await sql(url, s, `DROP DATABASE IF EXISTS ${DATABASE}`).catch(() => {});
  });

  it('spreads the coarse zones over both shards, each shard holding whole coarse zones, and drops the replaced generation\'s tables on every shard', async () => {
    const ref = freshRef();
    const cells = sampleCells(16, 4, 31);
    const gen1 = await ingest(store, ref, cells);
    const perShard = await Promise.all(s.urls().map((url) => sql(url, s, `SELECT DISTINCT coarse FROM ${DATABASE}.${ref.table}_${gen1}_local ORDER BY coarse FORMAT TabSeparated`)));
    const held = perShard.map((t) => t.trim().split('\n').filter(Boolean).map(Number));
    expect(held[0]!.length, 'coarse zones on shard 0').to.be.greaterThan(0);
    expect(held[1]!.length, 'coarse zones on shard 1').to.be.greaterThan(0);
    expect([...held[0]!, ...held[1]!].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 16 }, (_, i) => 1000 + i));
    const gen2 = await ingest(store, ref, sampleCells(16, 4, 32));
    for (const url of s.urls()) {
      const tables = (await sql(url, s, `SELECT name FROM system.tables WHERE database = ${sqlString(DATABASE)} AND name LIKE ${sqlString(`${ref.table}_%`)} ORDER BY name FORMAT TabSeparated`)).trim().split('\n');
      expect(tables).to.deep.equal([`${ref.table}_${gen2}`, `${ref.table}_${gen2}_local`]);
    }
  });

  it('writes a part in many inserts when it is large, and a retry still replaces all of them', async () => {
    const small = new ClickHouseZonePyramidStore(options(s), 20_000);
    try {
      const ref = freshRef();
      const cells = sampleCells(3, 40, 51);
      const layout = { ...sampleLayout(cells) };
      const generation = await small.prepare(ref, layout);
      async function* oneByOne() {
        for (const c of cells) yield [c];
      }
      await small.writePart(ref, generation, 'all', oneByOne());
      await small.writePart(ref, generation, 'all', oneByOne());
      await small.publish(ref, generation, layout);
      const rows = await sql(s.urls()[0]!, s, `SELECT count() FROM ${DATABASE}.${ref.table}_${generation} FORMAT TabSeparated`);
      expect(Number(rows)).to.equal(cells.length);
      const want = cells.filter((c) => c.level === 4 && c.period === ALL_TIME);
      expect(sorted(await small.read(ref, { level: 4, keys: want.map((c) => c.key), coarse: [1000, 1001, 1002], fields: layout.fields }))).to.deep.equal(sorted(want));
    } finally {
      await small.close();
    }
  });

  it('round-trips every character 0-255 and multi-byte UTF-8 through a string literal, byte for byte', async () => {
    const every = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
    const text = `${every}é中文😀\\'\\\\'`;
    const hex = await sql(s.urls()[0]!, s, `SELECT hex(${sqlString(text)}) FORMAT TabSeparated`);
    expect(hex.trim()).to.equal(Buffer.from(text, 'utf8').toString('hex').toUpperCase());
    for (let b = 0; b < 256; b++) {
      const one = String.fromCharCode(b);
      expect((await sql(s.urls()[1]!, s, `SELECT hex(${sqlString(`a${one}z`)})`)).trim(), `character ${b}`).to.equal(Buffer.from(`a${one}z`, 'utf8').toString('hex').toUpperCase());
    }
  });

  it('detects an error the server appends to a stream after rows were sent, and never returns it as a row', async () => {
    const shard = new ShardClient({ url: s.urls()[0]!, cluster: CLUSTER, username: s.username, password: s.password, timeoutMs: 30_000, maxConnections: 1, retryAfterSeconds: 7 });
    try {
      // Without wait_end_of_query the server streams rows as they come, so the error of row 3,000,000 arrives after
      // megabytes of rows, as text in place of the next row. The reader's check of each line is what catches it.
      const query = 'SELECT number, throwIf(number = 3000000) FROM system.numbers LIMIT 4000000 FORMAT TabSeparated';
      let caught: unknown;
      await shard.rows(query, (line) => (/^\d+\t0$/.test(line) ? line : undefined), { settings: { wait_end_of_query: 0, max_block_size: '1000' } }).catch((err: unknown) => (caught = err));
      expect(caught).to.be.instanceOf(ShardStatementError);
      const mapped = (caught as ShardStatementError).mapped;
      expect(mapped).to.be.instanceOf(UpstreamError);
      expect((mapped as UpstreamError).hint).to.match(/Code: 395/);
      // With the adapter's setting the same failure is the answer's status: still an error, never rows.
      caught = undefined;
      await shard.rows(query, (line) => line, {}).catch((err: unknown) => (caught = err));
      expect((caught as ShardStatementError).mapped).to.be.instanceOf(UpstreamError);
    } finally {
      await shard.close();
    }
  });

  it('answers UpstreamTimeoutError past timeoutMs', async () => {
    const shard = new ShardClient({ url: s.urls()[0]!, cluster: CLUSTER, username: s.username, password: s.password, timeoutMs: 1000, maxConnections: 1, retryAfterSeconds: 7 });
    try {
      let caught: unknown;
      await shard.rows('SELECT sleep(3) FORMAT TabSeparated', (line) => line).catch((err: unknown) => (caught = err));
      expect(caught).to.be.instanceOf(UpstreamTimeoutError);
    } finally {
      await shard.close();
    }
  });

  it('stops a read in progress when its signal aborts, and the server stops its query', async () => {
    // A bound far beyond the test's: if the query were left running, the check below would never see it end.
    const shard = new ShardClient({ url: s.urls()[1]!, cluster: CLUSTER, username: s.username, password: s.password, timeoutMs: 600_000, maxConnections: 1, retryAfterSeconds: 7 });
    try {
      const controller = new AbortController();
      const reason = new Error('client left');
      const marker = `abort_${Date.now()}`;
      const read = shard.rows(`SELECT count() FROM system.numbers WHERE number < 100000000000 AND '${marker}' != '' FORMAT TabSeparated`, (line) => line, { signal: controller.signal });
      const running = async () => Number(await sql(s.urls()[1]!, s, `SELECT count() FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%' FORMAT TabSeparated`));
      while ((await running()) === 0) await new Promise((r) => setTimeout(r, 50));
      controller.abort(reason);
      let caught: unknown;
      await read.catch((err: unknown) => (caught = err));
      expect(caught).to.equal(reason);
      while ((await running()) > 0) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await shard.close();
    }
  });

  it('with one shard down answers UnavailableError with Retry-After, whichever shard coordinates, without hanging; reads again once it is back', async () => {
    const ref = freshRef();
    const cells = sampleCells(6, 5, 41);
    await ingest(store, ref, cells);
    const want = sorted(cells.filter((c) => c.level === 3 && c.period === ALL_TIME));
    const query = { level: 3, keys: want.map((c) => c.key), coarse: [...new Set(want.map((c) => c.coarse))], fields: ['temperature'] };
    expect(await store.read(ref, query)).to.have.length(want.length);
    await s.kill(1);
    try {
      // Twice: once coordinated by the live shard (code 279 from the cluster), once sent to the dead one (refused).
      for (let i = 0; i < 2; i++) {
        let caught: unknown;
        await store.read(ref, query).catch((err: unknown) => (caught = err));
        expect(caught, `read ${i}`).to.be.instanceOf(UnavailableError);
        expect((caught as UnavailableError).retryAfterSeconds).to.equal(7);
        expect((caught as UnavailableError).hint).to.contain(`cluster "${CLUSTER}"`);
      }
      // The layout is on every shard: the live one answers it.
      expect((await store.layout(ref))?.rows).to.equal(cells.length);
    } finally {
      await s.restart(1);
    }
    for (let i = 0; i < 2; i++) expect(sorted(await store.read(ref, query)).map((c) => c.key)).to.deep.equal(want.map((c) => c.key));
  });

  it('answers UnavailableError, promptly, when a shard dies while a distributed query runs', async () => {
    const shard = new ShardClient({ url: s.urls()[0]!, cluster: CLUSTER, username: s.username, password: s.password, timeoutMs: 60_000, maxConnections: 1, retryAfterSeconds: 7 });
    try {
      // A query over both shards that would run for minutes; shard 1 is killed once it started.
      const read = shard.rows('SELECT count() FROM cluster(dggs, system.numbers) WHERE number < 100000000000 FORMAT TabSeparated', (line) => line);
      let caught: unknown;
      const settled = read.catch((err: unknown) => (caught = err));
      await new Promise((r) => setTimeout(r, 500));
      await s.kill(1);
      await settled;
      expect(caught).to.be.instanceOf(ShardStatementError);
      expect((caught as ShardStatementError).mapped).to.be.instanceOf(UnavailableError);
      expect(((caught as ShardStatementError).mapped as UnavailableError).retryAfterSeconds).to.equal(7);
      // No hang either: a read left waiting would have ended at timeoutMs as UpstreamTimeoutError.
    } finally {
      await s.restart(1);
      await shard.close();
    }
  });

  it('answers a clear UnavailableError when the config names no shards', async () => {
    const empty = new ClickHouseZonePyramidStore(options(s, { shards: [] }));
    let caught: unknown;
    await empty.read(freshRef(), { level: 1, keys: [1], coarse: [1], fields: ['x'] }).catch((err: unknown) => (caught = err));
    expect(caught).to.be.instanceOf(UnavailableError);
    expect((caught as UnavailableError).hint).to.contain('clickhouse.shards');
    await empty.close();
  });
});
