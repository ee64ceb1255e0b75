/**
 * A `clickhouse-pyramid` collection served end to end by the real store: the demo lake's pyramid
 * (computed by test/support/demo-pyramid.ts) written into two ClickHouse shard servers, the service
 * bound to them from its config (no test seam), its zone data equal to the lake collection's on the
 * fly, and a shard killed mid-run answering 503 with Retry-After, then serving again once back.
 */
import { expect } from 'chai';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';
import { writeDemoPyramid } from '../support/demo-pyramid.js';
import { CLUSTER, startClickHouseShards, type ClickHouseShards } from '../support/clickhouse-shards.js';
import { ClickHouseZonePyramidStore } from '../../src/adapters/clickhouse/clickhouse-pyramid-store.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';

type Json = Record<string, any>;

const LAKE_ROOT = path.join(REPO_ROOT, 'data/demo/lake');
const DEMO = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: object[] };
const DATABASE = `dggs_serve_${process.pid}`;
const LEVELS = [2, 3, 4, 5];
const PYRAMID = { id: 'demo-pyramid', title: 'Demo stations pyramid', backing: { kind: 'clickhouse-pyramid', table: 'demo_stations', source: 'demo-stations', levels: LEVELS, coarseLevel: 3, period: 'day' } };
const grid = GRID_FACTORIES.IVEA7H!();

function close(a: number | null, b: number | null, what: string): void {
  if (a === null || b === null) return void expect(a, what).to.equal(b);
  expect(Math.abs(a - b), `${what}: ${a} vs ${b}`).to.be.at.most(1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));
}

describe('a clickhouse-pyramid collection on two ClickHouse shards', function () {
  this.timeout(300_000);
  let shards: ClickHouseShards;
  let s: TestServer;
  const clickhouse = () => ({ shards: shards.urls(), cluster: CLUSTER, database: DATABASE, username: shards.username, password: shards.password, timeoutMs: 10_000, maxConnections: 4, retryAfterSeconds: 7 });

  before(async () => {
    await ensureDemoLake(LAKE_ROOT);
    shards = await startClickHouseShards();
    const store = new ClickHouseZonePyramidStore(clickhouse());
    try {
      await writeDemoPyramid(store, LAKE_ROOT, { table: 'demo_stations', grid, levels: LEVELS, coarseLevel: 3, period: 'day' });
    } finally {
      await store.close();
    }
    s = await startTestServer({ clickhouse: clickhouse(), collections: [...DEMO.collections, PYRAMID] });
  });
  after(async () => {
    await s?.close();
    await shards?.stop();
  });

  async function compare(zone: string, depth: string, extra = ''): Promise<void> {
    const q = `zone-depth=${depth}&cog-stat=count,valid,min,max,mean,stdDev${extra}&f=json`;
    const get = async (c: string) => {
      const r = await s.get(`/collections/${c}/dggs/IVEA7H/zones/${zone}/data?${q}`);
      const body = (await r.json()) as Json;
      expect(r.status, `${c}: ${JSON.stringify(body).slice(0, 300)}`).to.equal(200);
      return body;
    };
    const [lake, pyramid] = [await get('demo-stations'), await get('demo-pyramid')];
    expect(pyramid.zones).to.deep.equal(lake.zones);
    let held = 0;
    for (const [column, depths] of Object.entries(lake.values as Record<string, { data: (number | null)[] }[]>)) {
      depths.forEach((d, k) => d.data.forEach((v, i) => close(pyramid.values[column][k].data[i], v, `${zone} ${column} #${i}`)));
      if (column === 'temperature_count') held += depths.flatMap((d) => d.data).filter((v) => (v ?? 0) > 0).length;
    }
    expect(held, zone).to.be.greaterThan(5);
  }

  it('gives the lake\'s values, for all time and for whole days', async () => {
    await compare(grid.zoneFromPoint(10, 50, 2), '0-3');
    await compare(grid.zoneFromPoint(5, 45, 3), '2');
    await compare(grid.zoneFromPoint(10, 50, 2), '3', `&datetime=${encodeURIComponent('2024-01-03/2024-01-09')}`);
    const extent = ((await (await s.get('/collections/demo-pyramid?f=json')).json()) as Json).extent;
    expect(extent.temporal.interval[0][0]).to.equal('2024-01-01T00:00:00.000Z');
  });

  it('answers 503 with Retry-After while a shard is down, and the lake\'s values once it is back', async () => {
    const zone = grid.zoneFromPoint(10, 50, 3);
    await shards.kill(1);
    try {
      const r = await s.get(`/collections/demo-pyramid/dggs/IVEA7H/zones/${zone}/data?zone-depth=1&f=json`);
      expect(r.status, await r.text()).to.equal(503);
      expect(r.headers.get('retry-after')).to.equal('7');
    } finally {
      await shards.restart(1);
    }
    await compare(zone, '1');
  });
});
