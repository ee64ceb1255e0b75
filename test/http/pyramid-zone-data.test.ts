/**
 * A `clickhouse-pyramid` collection served over HTTP from an in-memory pyramid store holding the
 * demo lake's pyramid (test/support/demo-pyramid.ts computes it from the rows, independently of the
 * ingest): zone data equal to the lake collection's on-the-fly answers (count, valid, min, max,
 * mean, stdDev) at several zones and depths, `datetime` on whole days equal to the lake's, zone
 * lists with `filter` and vector tiles equal to the lake's, and the refusals (medians, levels not
 * in the pyramid, periods cut, row filters, items) and a store down (503 with Retry-After).
 */
import { expect } from 'chai';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';
import { MemoryPyramidStore } from '../support/memory-pyramid-store.js';
import { writeDemoPyramid } from '../support/demo-pyramid.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { TOKENS } from '../../src/app/tokens.js';
import { UnavailableError } from '../../src/ports/errors.js';
import { levelForZoom } from '../../src/domain/tiles/zoom-level-rule.js';
import type { PyramidLayout } from '../../src/ports/zone-pyramid-store.js';

type Json = Record<string, any>;

const LAKE_ROOT = path.join(REPO_ROOT, 'data/demo/lake');
const DEMO = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: object[] };
const LEVELS = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const PYRAMID = { id: 'demo-pyramid', title: 'Demo stations pyramid', backing: { kind: 'clickhouse-pyramid', table: 'demo_stations', source: 'demo-stations', levels: LEVELS, coarseLevel: 3, period: 'day' } };
const ALL_TIME_ONLY = { id: 'demo-pyramid-all', title: 'Without periods', backing: { kind: 'clickhouse-pyramid', table: 'demo_stations_all', source: 'demo-stations', levels: [3, 4] } };
const UNPUBLISHED = { id: 'demo-pyramid-none', title: 'Never ingested', backing: { kind: 'clickhouse-pyramid', table: 'never_written', source: 'demo-stations', levels: [3, 4] } };
const STATS = 'count,valid,min,max,mean,stdDev';
const grid = GRID_FACTORIES.IVEA7H!();

/** Equal up to rounding: 1e-9 relative (absolute near zero, as a standard deviation of equal values). */
function close(a: number | null, b: number | null, what: string): void {
  if (a === null || b === null) return void expect(a, what).to.equal(b);
  expect(Math.abs(a - b), `${what}: ${a} vs ${b}`).to.be.at.most(1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));
}

describe('zone data from a zone pyramid (clickhouse-pyramid on an in-memory store)', function () {
  this.timeout(300_000);
  let s: TestServer;
  const store = new MemoryPyramidStore();
  let layout: PyramidLayout;

  before(async () => {
    await ensureDemoLake(LAKE_ROOT);
    layout = await writeDemoPyramid(store, LAKE_ROOT, { table: 'demo_stations', grid, levels: LEVELS, coarseLevel: 3, period: 'day' });
    await writeDemoPyramid(store, LAKE_ROOT, { table: 'demo_stations_all', grid, levels: [3, 4], coarseLevel: 3 });
    s = await startTestServer({ collections: [...DEMO.collections, PYRAMID, ALL_TIME_ONLY, UNPUBLISHED] }, pino({ level: 'silent' }), {
      rebind: (c) => {
        if (c.isBound(TOKENS.ZonePyramidStore)) c.unbind(TOKENS.ZonePyramidStore);
        c.bind(TOKENS.ZonePyramidStore).toConstantValue(store);
      },
    });
  });
  after(async () => s?.close());
  afterEach(() => {
    delete store.failReads;
  });

  const data = async (collection: string, zone: string, query: string): Promise<{ status: number; body: Json; headers: Headers }> => {
    const r = await s.get(`/collections/${collection}/dggs/IVEA7H/zones/${zone}/data?${query}&f=json`);
    return { status: r.status, body: (await r.json()) as Json, headers: r.headers };
  };

  /** The pyramid's answer beside the lake's on-the-fly one, column by column; gives the sub-zones holding rows. */
  async function compare(zone: string, depth: string, extra = ''): Promise<number> {
    const q = `zone-depth=${depth}&cog-stat=${STATS}${extra}`;
    const [lake, pyramid] = [await data('demo-stations', zone, q), await data('demo-pyramid', zone, q)];
    expect(lake.status, JSON.stringify(lake.body).slice(0, 300)).to.equal(200);
    expect(pyramid.status, JSON.stringify(pyramid.body).slice(0, 300)).to.equal(200);
    expect(pyramid.body.zones).to.deep.equal(lake.body.zones);
    expect(Object.keys(pyramid.body.values).sort()).to.deep.equal(Object.keys(lake.body.values).sort());
    let held = 0;
    for (const [column, depths] of Object.entries(lake.body.values as Record<string, { depth: number; data: (number | null)[] }[]>)) {
      depths.forEach((d, k) => {
        const got = pyramid.body.values[column][k];
        expect(got.depth).to.equal(d.depth);
        d.data.forEach((v, i) => close(got.data[i], v, `${zone} depth ${d.depth} ${column} #${i}`));
        if (column === 'temperature_count') held += d.data.filter((v) => (v ?? 0) > 0).length;
      });
    }
    return held;
  }

  it('gives the lake\'s count, valid, min, max, mean and stdDev at several zones, levels and depths', async () => {
    expect(await compare(grid.zoneFromPoint(10, 50, 2), '3'), 'level-2 zone, depth 3').to.be.greaterThan(20);
    expect(await compare(grid.zoneFromPoint(5, 45, 3), '0-3'), 'level-3 zone, depths 0 to 3').to.be.greaterThan(20);
    expect(await compare(grid.zoneFromPoint(12, 48, 4), '4'), 'level-4 zone, depth 4').to.be.greaterThan(5);
    expect(await compare(grid.zoneFromPoint(10, 50, 0), '2'), 'level-0 zone, depth 2').to.be.greaterThan(3);
    // A field alone is its mean, as on the lake.
    const zone = grid.zoneFromPoint(10, 50, 3);
    const [lake, pyramid] = [await data('demo-stations', zone, 'zone-depth=2&properties=humidity,wind_speed'), await data('demo-pyramid', zone, 'zone-depth=2&properties=humidity,wind_speed')];
    expect(Object.keys(pyramid.body.values)).to.deep.equal(['humidity', 'wind_speed']);
    for (const f of ['humidity', 'wind_speed']) lake.body.values[f][0].data.forEach((v: number | null, i: number) => close(pyramid.body.values[f][0].data[i], v, `${f} #${i}`));
  });

  it('answers datetime on whole days from the per-day cells, equal to the lake\'s answer for the same interval', async () => {
    const zone = grid.zoneFromPoint(10, 50, 2);
    for (const when of ['2024-01-03/2024-01-09', '2024-01-15T00:00:00Z/..', '../2024-01-10T23:59:59.999Z', '2024-01-20']) {
      expect(await compare(zone, '3', `&datetime=${encodeURIComponent(when)}`), when).to.be.greaterThan(10);
    }
    // Fully open is no restriction: the all-time cells.
    const all = await data('demo-pyramid', zone, 'zone-depth=1&cog-stat=count');
    const open = await data('demo-pyramid', zone, 'zone-depth=1&cog-stat=count&datetime=../..');
    expect(open.body.values).to.deep.equal(all.body.values);
    const week = await data('demo-pyramid', zone, 'zone-depth=1&cog-stat=count&datetime=2024-01-01/2024-01-07');
    const total = (b: Json) => (b.values.temperature_count[0].data as number[]).reduce((a, v) => a + v, 0);
    expect(total(week.body)).to.be.greaterThan(0).and.below(total(all.body));
  });

  it('refuses datetime that cuts a day, naming the period, and a pyramid without periods', async () => {
    const zone = grid.zoneFromPoint(10, 50, 2);
    for (const when of ['2024-01-03T05:00:00Z/..', '../2024-01-10T12:00:00Z', '2024-01-03T00:00:00Z']) {
      const r = await data('demo-pyramid', zone, `zone-depth=1&datetime=${encodeURIComponent(when)}`);
      expect(r.status, when).to.equal(400);
      expect(r.body.hint, when).to.contain('day').and.to.contain('UTC');
    }
    const zone3 = grid.zoneFromPoint(10, 50, 3);
    const none = await data('demo-pyramid-all', zone3, 'zone-depth=1&datetime=2024-01-05');
    expect(none.status).to.equal(400);
    expect(none.body.hint).to.contain('without periods');
    expect((await data('demo-pyramid-all', zone3, 'zone-depth=1&datetime=../..')).status).to.equal(200);
    const unpublished = await data('demo-pyramid-none', zone3, 'zone-depth=1');
    expect(unpublished.status).to.equal(404);
    expect(unpublished.body.hint).to.contain('npm run ingest');
  });

  it('refuses medians (pointing at the lake collection), levels the pyramid lacks (naming its levels) and row filters', async () => {
    const zone = grid.zoneFromPoint(10, 50, 4);
    const median = await data('demo-pyramid', zone, 'zone-depth=1&cog-stat=mean,median');
    expect(median.status).to.equal(400);
    expect(median.body.hint).to.contain('median').and.to.contain('"demo-stations"');
    const deep = await data('demo-pyramid', zone, 'zone-depth=5');
    expect(deep.status).to.equal(400);
    expect(deep.body.hint).to.contain('level 9').and.to.contain(LEVELS.join(', '));
    const body = { collections: [{ id: 'demo-pyramid', fields: ['temperature'], filter: 'temperature > 3' }] };
    const cross = await fetch(`${s.base}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1&f=json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(cross.status).to.equal(400);
    expect(((await cross.json()) as Json).hint).to.contain('no rows');
    // Without a row filter the cross-collection POST joins the pyramid like any collection.
    const join = await fetch(`${s.base}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1&f=json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ collections: [{ id: 'demo-pyramid', fields: ['temperature'] }, { id: 'demo-stations', fields: ['temperature'] }] }) });
    expect(join.status).to.equal(200);
    const joined = (await join.json()) as Json;
    const keys = Object.keys(joined.values);
    expect(keys).to.have.length(2);
    joined.values[keys[1]!][0].data.forEach((v: number | null, i: number) => close(joined.values[keys[0]!][0].data[i], v, `joined #${i}`));
  });

  it('lists the zones whose values pass a filter, and the zones with rows in a datetime, as the lake collection does (parent zone and bbox)', async () => {
    const parent = grid.zoneFromPoint(10, 50, 2);
    for (const q of [`parent-zone=${parent}&zone-level=5&filter=${encodeURIComponent('temperature > 3')}`, `bbox=5,44,15,52&zone-level=4&filter=${encodeURIComponent('humidity < 70 AND temperature >= 0')}`, `parent-zone=${parent}&zone-level=4&datetime=2024-01-05&filter=${encodeURIComponent('temperature < 2')}`, `parent-zone=${parent}&zone-level=5&datetime=2024-01-05`, `bbox=-20,30,0,45&zone-level=4&datetime=2024-01-03/2024-01-04`]) {
      const [lake, pyramid] = [await s.get(`/collections/demo-stations/dggs/IVEA7H/zones?${q}&f=json&limit=1000`), await s.get(`/collections/demo-pyramid/dggs/IVEA7H/zones?${q}&f=json&limit=1000`)];
      const [lb, pb] = [(await lake.json()) as Json, (await pyramid.json()) as Json];
      expect(lake.status, JSON.stringify(lb).slice(0, 300)).to.equal(200);
      expect(pyramid.status, JSON.stringify(pb).slice(0, 300)).to.equal(200);
      expect(pb.zones, q).to.deep.equal(lb.zones);
      expect(pb.zones.length, q).to.be.greaterThan(0);
      // Each keeps only some of the zones listed without it.
      const unfiltered = (await (await s.get(`/collections/demo-pyramid/dggs/IVEA7H/zones?${q.replace(/&(filter|datetime)=[^&]*/g, '')}&f=json&limit=1000`)).json()) as Json;
      expect(pb.zones.length, q).to.be.below(unfiltered.zones.length);
    }
  });

  it('draws the lake\'s values in a vector tile', async () => {
    const z = 6;
    const level = levelForZoom(grid, z, { zonePixels: 16, levelOffset: 0 });
    expect(LEVELS, 'the tile\'s level is in the pyramid').to.include(level);
    const tile = async (c: string) => {
      const r = await s.get(`/collections/${c}/dggs/IVEA7H/tiles/WebMercatorQuad/${z}/22/34?properties=temperature`);
      expect(r.status, c).to.equal(200);
      const layer = new VectorTile(new PbfReader(new Uint8Array(await r.arrayBuffer()))).layers.zones!;
      return new Map(Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties).map((p) => [String(p.zoneId), p.temperature as number | undefined]));
    };
    const [lake, pyramid] = [await tile('demo-stations'), await tile('demo-pyramid')];
    expect([...pyramid.keys()]).to.deep.equal([...lake.keys()]);
    let valued = 0;
    for (const [zone, v] of lake) {
      close(pyramid.get(zone) ?? null, v ?? null, zone);
      if (v !== undefined) valued++;
    }
    expect(valued, 'zones with a value').to.be.greaterThan(5);
  });

  it('offers the layout\'s fields as queryables and its extent; has no items', async () => {
    const q = (await (await s.get('/collections/demo-pyramid/queryables?f=json')).json()) as Json;
    expect(Object.keys(q.properties)).to.include.members(['temperature', 'humidity', 'wind_speed']);
    const c = (await (await s.get('/collections/demo-pyramid?f=json')).json()) as Json;
    expect(c.extent.spatial.bbox[0]).to.deep.equal(layout.bbox);
    expect(c.extent.temporal.interval[0]).to.deep.equal(layout.timeExtent!.map((t) => new Date(t).toISOString()));
    const items = await s.get('/collections/demo-pyramid/items?f=json');
    expect(items.status).to.equal(404);
    const page = await s.get('/collections/demo-pyramid?f=html');
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('zone pyramid (ClickHouse)');
  });

  it('gives zone info the lake\'s statistics of each field', async () => {
    const zone = grid.zoneFromPoint(10, 50, 4);
    const info = async (c: string) => {
      const r = await s.get(`/collections/${c}/dggs/IVEA7H/zones/${zone}?f=json`);
      expect(r.status, c).to.equal(200);
      return ((await r.json()) as Json).statistics as Record<string, Record<string, number | null>>;
    };
    const [lake, pyramid] = [await info('demo-stations'), await info('demo-pyramid')];
    expect(Object.keys(pyramid).sort()).to.deep.equal(Object.keys(lake).sort());
    for (const [field, stats] of Object.entries(lake)) for (const [k, v] of Object.entries(stats)) close(pyramid[field]![k]!, v, `${field} ${k}`);
    expect(lake.temperature!.average).to.be.a('number');
  });

  it('answers 503 with Retry-After while the store cannot read, and serves again after', async () => {
    const zone = grid.zoneFromPoint(10, 50, 3);
    store.failReads = new UnavailableError('Pyramid store unavailable', 'A shard of the ClickHouse cluster does not answer.', 7);
    const down = await data('demo-pyramid', zone, 'zone-depth=1');
    expect(down.status).to.equal(503);
    expect(down.headers.get('retry-after')).to.equal('7');
    delete store.failReads;
    expect((await data('demo-pyramid', zone, 'zone-depth=1')).status).to.equal(200);
  });

  it('changes its entity tag when an ingest publishes a new pyramid', async () => {
    const p = `/collections/demo-pyramid-all/dggs/IVEA7H/zones/${grid.zoneFromPoint(10, 50, 3)}/data?zone-depth=1&f=json`;
    const before = await s.get(p);
    expect(before.status).to.equal(200);
    const tag = before.headers.get('etag');
    expect(tag).to.be.a('string');
    await before.arrayBuffer();
    await writeDemoPyramid(store, LAKE_ROOT, { table: 'demo_stations_all', grid, levels: [3, 4], coarseLevel: 3 });
    const deadline = Date.now() + 30_000;
    let after = await s.get(p);
    while (after.headers.get('etag') === tag && Date.now() < deadline) {
      await after.arrayBuffer();
      await new Promise((r) => setTimeout(r, 250));
      after = await s.get(p);
    }
    expect(after.headers.get('etag')).to.not.equal(tag);
  });
});
