import { expect } from 'chai';
import { copyFileSync, mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { latLngToCell } from 'h3-js';
import { fromFile } from 'geotiff';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig, ConfigError } from '../../src/app/config/load-config.js';
import type { Config } from '../../src/app/config/config-schema.js';
import { createApp, type App } from '../../src/app/container.js';
import { REPO_ROOT } from '../support/test-server.js';

type Json = Record<string, any>;

const RASTER = path.join(REPO_ROOT, 'test/fixtures/rasters/linear-4326.tif');
const dir = mkdtempSync(path.join(tmpdir(), 'dggs-sources-'));

/** A config of the given collections and lake root, loaded the way the service loads its file. */
function configOf(collections: unknown[], lakeRoot = path.join(dir, 'lake')): Config {
  const run = mkdtempSync(path.join(dir, 'run-'));
  const file = path.join(run, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      server: { host: '127.0.0.1', port: 0, logLevel: 'silent' },
      datastore: { kind: 'sqlite', file: path.join(run, 'db.sqlite'), autoInitialize: true },
      orders: { resultsRoot: path.join(run, 'results') },
      lake: { root: lakeRoot, aggregationThreads: 0 },
      grids: { enabled: ['H3'], default: 'H3' },
      collections,
    }),
  );
  return loadConfig({ DGGS_CONFIG: file });
}

/** A started service, with the warnings it logged. */
async function start(config: Config): Promise<{ app: App; base: string; warnings: Json[] }> {
  const warnings: Json[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (warnings.push(JSON.parse(String(chunk))), done()) });
  const app = await createApp(config, pino({ level: 'warn' }, sink));
  const port = await app.listen();
  return { app, base: `http://127.0.0.1:${port}`, warnings };
}

async function refusal(config: Config): Promise<string> {
  try {
    const { app } = await start(config);
    await app.close();
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the service started');
}

const raster = (id: string, url: string, extra: Json = {}) => ({ id, title: id, backing: { kind: 'raster-url', url, fields: { v: { title: 'v', type: 'number', svc_band_index: 1 } }, ...extra } });
const lake = (id: string, extra: Json = {}) => ({ id, title: id, backing: { kind: 'parquet-lake', datetimeColumn: 't', ...extra } });
const stac = (id: string, catalog: string, extra: Json = {}) => ({ id, title: id, backing: { kind: 'stac', catalog, fields: { v: { title: 'v', type: 'number', svc_band_index: 1 } }, ...extra } });

/** A static catalog of two items: one dated, one spanning a period. */
function makeCatalog(where: string, asset: string): string {
  mkdirSync(where, { recursive: true });
  const item = (id: string, bbox: number[], props: Json) => ({
    type: 'Feature', stac_version: '1.0.0', id, bbox,
    geometry: { type: 'Polygon', coordinates: [[[bbox[0], bbox[1]], [bbox[2], bbox[1]], [bbox[2], bbox[3]], [bbox[0], bbox[3]], [bbox[0], bbox[1]]]] },
    properties: props, assets: { data: { href: asset } }, links: [],
  });
  writeFileSync(path.join(where, 'a.json'), JSON.stringify(item('a', [10, 45, 10.5, 45.5], { datetime: '2023-01-02T00:00:00Z' })));
  writeFileSync(path.join(where, 'b.json'), JSON.stringify(item('b', [10.2, 45.2, 11, 46], { datetime: null, start_datetime: '2023-02-01T00:00:00Z', end_datetime: '2023-03-01T12:00:00Z' })));
  const catalog = path.join(where, 'catalog.json');
  writeFileSync(catalog, JSON.stringify({ type: 'Catalog', stac_version: '1.0.0', id: 'c', description: 'd', links: [{ rel: 'item', href: './a.json' }, { rel: 'item', href: './b.json' }] }));
  return catalog;
}

const ZONE = latLngToCell(45.5, 10.5, 5);

describe('config: local sources checked at start', function () {
  this.timeout(60_000);
  const lakeRoot = path.join(dir, 'lake');

  before(async () => {
    // pts: three dated points whose GeoParquet bbox DuckDB writes; empty: a folder with no files yet.
    mkdirSync(path.join(lakeRoot, 'pts', 'data'), { recursive: true });
    mkdirSync(path.join(lakeRoot, 'empty'), { recursive: true });
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`COPY (SELECT * FROM (VALUES (1.5, TIMESTAMP '2024-03-04 05:06:07', 'POINT(3 4)'::GEOMETRY), (2.5, TIMESTAMP '2024-05-06 00:00:00', 'POINT(7.5 -2)'::GEOMETRY), (3.5, TIMESTAMP '2024-04-01 00:00:00', 'POINT(5 1)'::GEOMETRY)) v(x, t, geometry))
      TO '${path.join(lakeRoot, 'pts', 'data', 'a.parquet')}' (FORMAT parquet)`);
    c.closeSync();
    db.closeSync();
  });

  describe('a missing source stops the start, naming the collection and its config key', () => {
    it('a raster file', async () => {
      const msg = await refusal(configOf([raster('ok', RASTER), raster('elev', 'data/no-such-raster.tif')]));
      expect(msg).to.match(/^collection "elev" \(collections\[1\]\.backing\.url\): the raster "data\/no-such-raster\.tif" could not be opened: The collection's raster file was not found/);
      expect(msg).to.contain('"optional": true');
    });

    it('a lake collection folder, and the lake root', async () => {
      expect(await refusal(configOf([lake('pts'), lake('nowhere')]))).to.match(/^collection "nowhere" \(collections\[1\]\.id\): the lake has no folder "nowhere" \(its parquet files go under <lake\.root>\/nowhere\/data\/\)/);
      const root = path.join(dir, 'no-such-lake');
      expect(await refusal(configOf([lake('pts')], root))).to.match(new RegExp(`^collection "pts" \\(lake\\.root\\): the lake root "${root}" does not exist`));
    });

    it('a static STAC catalog', async () => {
      const msg = await refusal(configOf([stac('scenes', 'data/no-such-catalog/catalog.json')]));
      expect(msg).to.match(/^collection "scenes" \(collections\[0\]\.backing\.catalog\): the static STAC catalog "data\/no-such-catalog\/catalog\.json" could not be read: .*ENOENT/);
    });

    it('every missing source at once', async () => {
      const msg = await refusal(configOf([raster('r', 'nope.tif'), lake('l'), stac('s', 'nope.json')]));
      expect(msg.split('\n').slice(0, 3).map((line) => line.slice(0, line.indexOf(':')))).to.deep.equal(['collection "r" (collections[0].backing.url)', 'collection "l" (collections[1].id)', 'collection "s" (collections[2].backing.catalog)']);
    });

    it('remote sources are not fetched at start', async () => {
      const s = await start(configOf([raster('remote', 'http://127.0.0.1:9/none.tif'), stac('remote-stac', 'http://127.0.0.1:9/catalog.json')]));
      await s.app.close();
    });
  });

  it('an optional missing source is a warning at start, and its data routes answer 503', async () => {
    const s = await start(configOf([raster('elev', 'data/no-such.tif', { optional: true }), lake('later', { optional: true }), stac('scenes', 'nope/catalog.json', { optional: true }), raster('ok', RASTER)]));
    try {
      const skipped = s.warnings.filter((w) => w.collection !== undefined);
      expect(skipped.map((w) => [w.collection, w.key])).to.deep.equal([['elev', 'collections[0].backing.url'], ['later', 'collections[1].id'], ['scenes', 'collections[2].backing.catalog']]);
      expect(skipped[0]!.msg).to.match(/^collection "elev" \(collections\[0\]\.backing\.url\): the raster "data\/no-such\.tif" could not be opened: .*; it is optional: its data routes answer 503/);
      for (const id of ['elev', 'later', 'scenes']) {
        const r = await fetch(`${s.base}/collections/${id}/dggs/H3/zones/${ZONE}/data?f=json`);
        const body = (await r.json()) as Json;
        expect([r.status, body.message], id).to.deep.equal([503, 'Collection data unavailable']);
        expect(body.hint).to.match(new RegExp(`^The data source of collection "${id}" \\(config key collections\\[\\d\\]\\.(backing\\.url|id|backing\\.catalog)\\) was missing when the service started`));
      }
      const items = await fetch(`${s.base}/collections/later/items?f=json`);
      expect(items.status).to.equal(503);
      // The collections are listed, and the one whose source is there serves.
      const list = (await (await fetch(`${s.base}/collections?f=json`)).json()) as Json;
      expect(list.collections.map((c: Json) => c.id)).to.deep.equal(['elev', 'later', 'scenes', 'ok']);
      expect((await fetch(`${s.base}/collections/ok/dggs/H3/zones/${ZONE}/data?f=json`)).status).to.equal(200);
    } finally {
      await s.app.close();
    }
  });

  it('a lake collection without files yet says so on zone data', async () => {
    const s = await start(configOf([lake('empty')]));
    try {
      const r = await fetch(`${s.base}/collections/empty/dggs/H3/zones/${ZONE}/data?f=json`);
      const body = (await r.json()) as Json;
      expect([r.status, body.message, body.hint]).to.deep.equal([404, 'Collection has no lake data', 'Collection "empty" has no data files yet: no parquet files were found in its lake folder.']);
    } finally {
      await s.app.close();
    }
  });

  describe('a collection without extent takes it from its data', () => {
    let s: Awaited<ReturnType<typeof start>>;
    before(async () => {
      const catalog = makeCatalog(path.join(dir, 'stac'), RASTER);
      s = await start(configOf([lake('pts'), raster('elev', RASTER), stac('scenes', catalog), { ...raster('configured', RASTER), extent: { spatial: { bbox: [[0, 0, 1, 1]] } } }]));
    });
    after(() => s.app.close());
    const described = async (id: string) => ((await (await fetch(`${s.base}/collections/${id}?f=json`)).json()) as Json).extent;

    it('a lake: the GeoParquet bbox and the datetime column\'s first and last instants', async () => {
      expect(await described('pts')).to.deep.equal({ spatial: { bbox: [[3, -2, 7.5, 4]] }, temporal: { interval: [['2024-03-04T05:06:07Z', '2024-05-06T00:00:00Z']] } });
    });

    it('a raster: its bounds', async () => {
      const truth = (await (await fromFile(RASTER)).getImage()).getBoundingBox();
      const got = (await described('elev')).spatial.bbox[0] as number[];
      got.forEach((v, i) => expect(v).to.be.closeTo(truth[i]!, 1e-9));
      expect(truth.map((v) => Math.round(v * 1e6) / 1e6)).to.deep.equal([10, 45, 11, 46]);
    });

    it('a static STAC catalog: the union of its items\' bboxes and times', async () => {
      expect(await described('scenes')).to.deep.equal({ spatial: { bbox: [[10, 45, 11, 46]] }, temporal: { interval: [['2023-01-02T00:00:00Z', '2023-03-01T12:00:00Z']] } });
    });

    it('a configured extent wins', async () => {
      expect(await described('configured')).to.deep.equal({ spatial: { bbox: [[0, 0, 1, 1]] } });
    });

    it('zone lists keep to the extent from the data instead of the whole world', async () => {
      const zones = ((await (await fetch(`${s.base}/collections/elev/dggs/H3/zones?zone-level=2&f=json`)).json()) as Json).zones as string[];
      const world = ((await (await fetch(`${s.base}/dggs/H3/zones?zone-level=2&f=json`)).json()) as Json).zones as string[];
      expect(zones).to.include(latLngToCell(45.5, 10.5, 2));
      expect(zones).to.not.include(latLngToCell(0, -100, 2));
      expect(zones.length).to.be.lessThan(20);
      expect(world.length).to.be.greaterThan(1000);
    });
  });

  describe('no server path in an answer', () => {
    it('a configured raster that fails after start: 503 with a hint without path or system error, the detail in the log', async () => {
      const copy = path.join(dir, 'broken', 'r.tif');
      mkdirSync(path.dirname(copy), { recursive: true });
      copyFileSync(RASTER, copy);
      const scenes = makeCatalog(path.join(dir, 'stac-missing-scene'), path.join(dir, 'no-such-scene.tif'));
      const s = await start(configOf([raster('r', copy), stac('scenes', scenes)]));
      try {
        // The header was read at start; the pixels are gone.
        truncateSync(copy, 4096);
        for (const id of ['r', 'scenes']) {
          const r = await fetch(`${s.base}/collections/${id}/dggs/H3/zones/${ZONE}/data?f=json&zone-depth=2`);
          const text = await r.text();
          expect(r.status, text).to.equal(503);
          const body = JSON.parse(text) as Json;
          expect(body.message).to.equal('Raster could not be read');
          expect(body.hint).to.match(/^The collection's raster file (was not found|is not a readable GeoTIFF); the failure is in the service's log\.$/);
          expect(text).to.not.contain(dir);
          expect(text).to.not.contain('ENOENT');
        }
        const logged = s.warnings.filter((w) => w.msg === 'a configured raster could not be read');
        expect(logged.map((w) => w.href)).to.include.members([copy, path.join(dir, 'no-such-scene.tif')]);
        expect(logged.some((w) => /ENOENT/.test(JSON.stringify(w.err)))).to.equal(true);
      } finally {
        await s.app.close();
      }
    });
  });
});
