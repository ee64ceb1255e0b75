/**
 * `npm run ingest`: a collection's files rewritten with one BIGINT zone-key column per level
 * (the key of the zone holding each row's representative point, as computed here from the WKB),
 * the GeoParquet bbox covering added, and every original row, value and order kept.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { writeZoneColumns, ZoneColumnsError } from '../../src/adapters/lake/zone-columns-writer.js';
import { ZONE_COLUMNS_KEY, zoneKeyColumnName } from '../../src/adapters/lake/zone-key-columns.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { decodeWkb } from '../../src/domain/geometry/wkb.js';
import { representativePoint } from '../../src/domain/geometry/representative-point.js';
import { REPO_ROOT } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

const run = promisify(execFile);

async function writeLake(c: DuckDBConnection, dir: string, withBbox = false): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const wkt = `CASE WHEN i % 13 = 0 THEN 'POLYGON ((' || x || ' ' || y || ', ' || (x + 0.2) || ' ' || y || ', ' || (x + 0.1) || ' ' || (y + 0.3) || ', ' || x || ' ' || y || '))'
    WHEN i % 11 = 0 THEN 'LINESTRING (' || x || ' ' || y || ', ' || (x + 0.3) || ' ' || (y + 0.05) || ')'
    WHEN i % 17 = 0 THEN 'POINT EMPTY'
    ELSE 'POINT (' || x || ' ' || y || ')' END`;
  for (const [name, from, to] of [['p1.parquet', 0, 700], ['p2.parquet', 700, 1500]] as const) {
    await c.run(`COPY (SELECT i AS id, 'r' || i AS label, (i * 37 % 101)::DOUBLE AS v,
        CASE WHEN i % 19 = 0 THEN NULL ELSE st_aswkb(CAST(${wkt} AS GEOMETRY)) END AS geometry${withBbox ? ", 'not a covering' AS bbox" : ''}
      FROM (SELECT i, -20 + ((i * 7919) % 1000) / 25.0 AS x, 30 + ((i * 104729) % 1000) / 40.0 AS y FROM range(${from}, ${to}) t(i))
      ORDER BY (i * 31) % 1500) TO '${path.join(dir, name)}' (FORMAT parquet, ROW_GROUP_SIZE 200)`);
  }
}

describe('npm run ingest: stored zone-key columns', function () {
  this.timeout(120_000);
  let c: DuckDBConnection;
  const root = mkdtempSync(path.join(tmpdir(), 'lake-ingest-'));
  const grid = GRID_FACTORIES.IVEA7H!();

  before(async () => {
    const db = await DuckDBInstance.create(':memory:');
    c = await db.connect();
    await c.run('SET enable_geoparquet_conversion = false');
    await writeLake(c, path.join(root, 'obs', 'data'));
    cpSync(path.join(root, 'obs'), path.join(root, 'original'), { recursive: true });
  });
  after(() => c?.closeSync());

  const read = async (id: string, file: string, columns: string) =>
    (await c.runAndReadAll(`SELECT ${columns} FROM read_parquet('${path.join(root, id, 'data', file)}', file_row_number = true) ORDER BY file_row_number`)).getRowsJS();

  it('adds one BIGINT key column per level and the bbox covering, keeping every row, value and order', async () => {
    const done = await writeZoneColumns({ root, collectionId: 'obs', geometryColumn: 'geometry', grid, levels: [3, 5] });
    expect(done).to.deep.equal({ files: 2, rows: 1500 });
    for (const file of ['p1.parquet', 'p2.parquet']) {
      // Every original column, row by row, in file order.
      expect(await read('obs', file, 'id, label, v, geometry')).to.deep.equal(await read('original', file, 'id, label, v, geometry'));
      const rows = await read('obs', file, `geometry, bbox, ${zoneKeyColumnName('IVEA7H', 3)} AS k3, ${zoneKeyColumnName('IVEA7H', 5)} AS k5`);
      let placed = 0;
      for (const [g, bbox, k3, k5] of rows as [Uint8Array | null, Record<string, number> | null, bigint | null, bigint | null][]) {
        const p = g ? representativePoint(decodeWkb(g)) : undefined;
        if (!p) {
          expect([k3, k5], 'a row without a place has no zone').to.deep.equal([null, null]);
          continue;
        }
        placed++;
        expect([Number(k3), Number(k5)]).to.deep.equal([grid.zoneKeyFromPoint!(p[0], p[1], 3), grid.zoneKeyFromPoint!(p[0], p[1], 5)]);
        expect(grid.zoneIdFromKey!(Number(k5), 5)).to.equal(grid.zoneFromPoint(p[0], p[1], 5));
        // The covering holds the geometry: the point itself for points.
        expect(bbox!.xmin).to.be.at.most(p[0]);
        expect(bbox!.xmax).to.be.at.least(p[0]);
        if (decodeWkb(g!).type === 'Point') expect(bbox).to.deep.equal({ xmin: p[0], ymin: p[1], xmax: p[0], ymax: p[1] });
      }
      expect(placed).to.be.greaterThan(500);
      const types = (await c.runAndReadAll(`SELECT name, type FROM parquet_schema('${path.join(root, 'obs', 'data', file)}') WHERE name LIKE 'zone_%'`)).getRowsJS();
      expect(types).to.deep.equal([[zoneKeyColumnName('IVEA7H', 3), 'INT64'], [zoneKeyColumnName('IVEA7H', 5), 'INT64']]);
      const kv = Object.fromEntries((await c.runAndReadAll(`SELECT decode(key), decode(value) FROM parquet_kv_metadata('${path.join(root, 'obs', 'data', file)}')`)).getRowsJS() as [string, string][]);
      const geo = JSON.parse(kv.geo!);
      expect(geo.columns.geometry.covering.bbox).to.deep.equal({ xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] });
      expect(geo.columns.geometry.geometry_types).to.deep.equal(['LineString', 'Point', 'Polygon']);
      expect(JSON.parse(kv[ZONE_COLUMNS_KEY]!).columns.map((z: { level: number }) => z.level)).to.deep.equal([3, 5]);
    }
    expect(readdirSync(path.join(root, 'obs', 'data')).sort(), 'no scratch files left').to.deep.equal(['p1.parquet', 'p2.parquet']);
  });

  it('ingesting again keeps other levels and the covering, replacing only the levels asked', async () => {
    await writeZoneColumns({ root, collectionId: 'obs', geometryColumn: 'geometry', grid, levels: [5, 7] });
    const cols = (await c.runAndReadAll(`SELECT * FROM read_parquet('${path.join(root, 'obs', 'data', 'p1.parquet')}') LIMIT 0`)).columnNames();
    expect(cols).to.deep.equal(['id', 'label', 'v', 'geometry', 'bbox', 'zone_ivea7h_l3', 'zone_ivea7h_l5', 'zone_ivea7h_l7']);
    const kv = (await c.runAndReadAll(`SELECT decode(value) FROM parquet_kv_metadata('${path.join(root, 'obs', 'data', 'p1.parquet')}') WHERE decode(key) = '${ZONE_COLUMNS_KEY}'`)).getRowsJS();
    expect(JSON.parse(String(kv[0]![0])).columns.map((z: { level: number }) => z.level)).to.deep.equal([3, 5, 7]);
    expect(await read('obs', 'p2.parquet', 'id, label, v, geometry')).to.deep.equal(await read('original', 'p2.parquet', 'id, label, v, geometry'));
  });

  it('refuses, leaving the files as they were: grids without numeric keys, levels beyond them, a column named like the covering', async () => {
    const refused = (job: Parameters<typeof writeZoneColumns>[0]) => writeZoneColumns(job).then(() => undefined, (e: unknown) => e as Error);
    const a5 = await refused({ root, collectionId: 'obs', geometryColumn: 'geometry', grid: GRID_FACTORIES.A5!(), levels: [3] });
    expect(a5).to.be.instanceOf(ZoneColumnsError);
    expect(a5!.message).to.contain('no numeric zone keys');
    const deep = await refused({ root, collectionId: 'obs', geometryColumn: 'geometry', grid, levels: [18] });
    expect(deep!.message).to.contain('levels 0-17');
    await writeLake(c, path.join(root, 'clash', 'data'), true);
    const clash = await refused({ root, collectionId: 'clash', geometryColumn: 'geometry', grid, levels: [3] });
    expect(clash!.message).to.contain('"bbox"');
    expect((await read('clash', 'p1.parquet', '*')).length).to.equal(700);
    expect((await c.runAndReadAll(`SELECT * FROM read_parquet('${path.join(root, 'clash', 'data', 'p1.parquet')}') LIMIT 0`)).columnNames()).not.to.include('zone_ivea7h_l3');
  });

  it('npm run ingest reads the lake root and the collection from the config, and explains its errors', async () => {
    const cliRoot = mkdtempSync(path.join(tmpdir(), 'lake-ingest-cli-'));
    cpSync(path.join(root, 'original'), path.join(cliRoot, 'demo-stations'), { recursive: true });
    const env = { ...process.env, DGGS__lake__root: cliRoot };
    const ingest = (...args: string[]) =>
      run('sh', ['scripts/node.sh', '--import', 'tsx', 'scripts/ingest.ts', ...args], { cwd: REPO_ROOT, env }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
      );
    const ok = await ingest('demo-stations', '--grid', 'IVEA7H', '--levels', '2-4');
    expect(ok.code, ok.err).to.equal(0);
    expect(ok.out).to.contain('1,500 rows').and.to.contain('levels 2,3,4');
    const cols = (await c.runAndReadAll(`SELECT * FROM read_parquet('${path.join(cliRoot, 'demo-stations', 'data', 'p1.parquet')}') LIMIT 0`)).columnNames();
    expect(cols.filter((n) => n.startsWith('zone_'))).to.deep.equal(['zone_ivea7h_l2', 'zone_ivea7h_l3', 'zone_ivea7h_l4']);
    const usage = await ingest('demo-stations', '--grid', 'IVEA7H');
    expect(usage.code).to.equal(2);
    expect(usage.err).to.contain('--levels is required').and.to.contain('usage: npm run ingest');
    const notLake = await ingest('demo-elevation', '--grid', 'IVEA7H', '--levels', '3');
    expect(notLake.code).to.equal(2);
    expect(notLake.err).to.contain('only parquet-lake collections');
    const a5 = await ingest('demo-stations', '--grid', 'A5', '--levels', '3');
    expect(a5.code).to.equal(1);
    expect(a5.err).to.contain('A5 has no numeric zone keys');
    const badLevels = await ingest('demo-stations', '--grid', 'IVEA7H', '--levels', '5-2');
    expect(badLevels.code).to.equal(2);
    expect(badLevels.err).to.contain('upwards');
    // The pyramid ingest's options, refused before any work.
    const store = await ingest('demo-stations', '--pyramid', 'duckdb');
    expect([store.code, store.err]).to.deep.equal([2, 'ingest: --pyramid duckdb: the pyramid store is clickhouse\n']);
    const workers = await ingest('demo-stations', '--pyramid', 'clickhouse', '--workers', 'many');
    expect(workers.code).to.equal(2);
    expect(workers.err).to.contain('--workers "many"');
    const alone = await ingest('demo-stations', '--grid', 'IVEA7H', '--levels', '3', '--workers', '2');
    expect(alone.code).to.equal(2);
    expect(alone.err).to.contain('--workers goes with --pyramid');
  });

  it('npm run demo-data restores the demo lake an ingest rewrote, byte for byte; npm start keeps the ingest', async () => {
    const lake = mkdtempSync(path.join(tmpdir(), 'lake-ingest-demo-'));
    cpSync(path.join(REPO_ROOT, 'data/demo/lake'), lake, { recursive: true });
    const files = readdirSync(path.join(lake, 'demo-stations', 'data'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.parquet'));
    expect(files).to.have.length(5);
    const committed = (f: string) => readFileSync(path.join(REPO_ROOT, 'data/demo/lake/demo-stations/data', f));
    const here = (f: string) => readFileSync(path.join(lake, 'demo-stations', 'data', f));
    const env = { ...process.env, DGGS__lake__root: lake };
    await run('sh', ['scripts/node.sh', '--import', 'tsx', 'scripts/ingest.ts', 'demo-stations', '--grid', 'IVEA7H', '--levels', '0-2'], { cwd: REPO_ROOT, env });
    for (const f of files) expect(here(f).equals(committed(f)), `${f} rewritten by the ingest`).to.equal(false);

    expect(await ensureDemoLake(lake), 'as npm start (--if-missing) does').to.equal(false);
    const cols = (await c.runAndReadAll(`SELECT * FROM read_parquet('${path.join(lake, 'demo-stations', 'data', files[0]!)}') LIMIT 0`)).columnNames();
    expect(cols).to.include('zone_ivea7h_l2');

    expect(await ensureDemoLake(lake, { remake: true }), 'as npm run demo-data does').to.equal(true);
    for (const f of files) expect(here(f).equals(committed(f)), `${f} as committed (if the repository's copy was ingested too, npm run demo-data restores it)`).to.equal(true);
    expect(readdirSync(lake)).to.deep.equal(['demo-stations']);
  });
});
