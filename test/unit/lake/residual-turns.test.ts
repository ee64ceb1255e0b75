/**
 * The exact geometry test runs in JS for the rows SQL cannot settle; however heavy each test
 * is, other callbacks get their turn every few milliseconds.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLake } from '../../../src/adapters/lake/duckdb-lake.js';
import { S3ParquetLake } from '../../../src/adapters/lake-s3/s3-parquet-lake.js';
import type { LakeReader } from '../../../src/ports/lake-reader.js';
import { startLoopbackS3, type LoopbackS3 } from '../../support/s3-server.js';
import { HOLD_RERUNS, loopHolds } from '../../support/loop-holds.js';
import type { Collection } from '../../../src/domain/collection.js';
import { parseCql2Json, parseCql2Text } from '../../../src/domain/cql2/index.js';
import { ensureDemoLake } from '../../../scripts/demo/make-lake.js';
import { REPO_ROOT } from '../../support/test-server.js';

const LAKE = path.join(REPO_ROOT, 'data/demo/lake');
const stations: Collection = { id: 'demo-stations', title: 'stations', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } };

/** A ring of `n` vertices around (lon, lat). */
function circle(lon: number, lat: number, r: number, n: number): number[][] {
  const ring = Array.from({ length: n }, (_, i) => [lon + r * Math.cos((2 * Math.PI * i) / n), lat + r * Math.sin((2 * Math.PI * i) / n)]);
  return [...ring, ring[0]!];
}

const square = (lon: number, lat: number, h: number): number[][] => [[lon - h, lat - h], [lon + h, lat - h], [lon + h, lat + h], [lon - h, lat + h], [lon - h, lat - h]];

/**
 * Nested square frames around (lon, lat), each with a hole holding every row near the centre,
 * then a disc: a row is tested against every frame (each ring's envelope holds it) before the
 * disc, so each exact test takes thousands of steps however it is indexed.
 */
function frames(lon: number, lat: number, n: number): number[][][][] {
  const parts = Array.from({ length: n }, (_, i) => [square(lon, lat, 2.4 - 0.001 * i), square(lon, lat, 2.4 - 0.001 * i - 0.0005)]);
  return [...parts, [circle(lon, lat, 1.5, 64)]];
}

const heavyFilter = () => parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'MultiPolygon', coordinates: frames(10, 47, 900) }] });

describe('lake: the exact test in JS leaves the event loop turning', function () {
  this.timeout(120_000);
  let s3: LoopbackS3;
  const lakes: [string, () => Promise<LakeReader>][] = [
    ['directory lake (DuckDB)', async () => new DuckDbLake(LAKE)],
    [
      'object-store lake',
      async () => {
        s3 = await startLoopbackS3();
        await s3.upload(LAKE, 'turns/lake');
        return new S3ParquetLake(`s3://${s3.bucket}/turns/lake`, s3.options);
      },
    ],
  ];
  before(() => ensureDemoLake(LAKE));
  after(async () => {
    await s3?.close();
  });

  for (const [name, make] of lakes) {
    it(`${name}: a page whose every candidate needs a test through 1,800 rings keeps timer gaps short`, async function () {
      this.retries(HOLD_RERUNS);
      const lake = await make();
      try {
        await lake.describe(stations);
        const { result: page, tookMs, longestMs } = await loopHolds(() => lake.page(stations, { offset: 0, limit: 5, columns: ['station_id'], filter: heavyFilter() }));
        expect(page.numberMatched).to.be.greaterThan(300);
        // The work is long enough that a loop held per chunk of rows would show.
        expect(tookMs).to.be.greaterThan(400);
        expect(longestMs).to.be.lessThan(200);
      } finally {
        await lake.close();
      }
    });
  }
});

/** A line of `n` vertices zig-zagging over 5-15E between 45.5N and 46.5N; two of opposite `phase` cross at every edge. */
const zigzag = (n: number, phase: number): string => Array.from({ length: n }, (_, i) => `${5 + (i / n) * 10} ${(i + phase) % 2 ? 46.5 : 45.5}`).join(', ');

describe('object-store lake: rows each costly to relate to the literal leave the event loop turning', function () {
  this.timeout(120_000);
  const lines: Collection = { id: 'lines', title: 'lines', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } };
  let s3: LoopbackS3;
  let lake: S3ParquetLake;
  before(async () => {
    // 300 rows in one row group, each a 400-vertex zig-zag: fewer rows than a check every 1,024 would reach.
    const root = mkdtempSync(path.join(tmpdir(), 'lake-lines-'));
    mkdirSync(path.join(root, 'lines', 'data'), { recursive: true });
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`COPY (SELECT i AS v, st_aswkb(CAST('LINESTRING (${zigzag(400, 1)})' AS GEOMETRY)) AS geometry FROM range(300) t(i)) TO '${path.join(root, 'lines', 'data', 'a.parquet')}' (FORMAT parquet)`);
    c.closeSync();
    s3 = await startLoopbackS3();
    await s3.upload(root, 'lines/lake');
    lake = new S3ParquetLake(`s3://${s3.bucket}/lines/lake`, s3.options);
    await lake.describe(lines);
  });
  after(async () => {
    await lake?.close();
    await s3?.close();
  });

  it('a page of 300 lines, each crossing the literal at every edge, keeps timer gaps short', async function () {
    this.retries(HOLD_RERUNS);
    const filter = parseCql2Text(`S_CROSSES(geometry, LINESTRING(${zigzag(400, 0)}))`);
    const { result: page, tookMs, longestMs } = await loopHolds(() => lake.page(lines, { offset: 0, limit: 5, columns: ['v'], filter }));
    expect(page.numberMatched).to.equal(300);
    expect(tookMs, 'the work is long enough to show a held loop').to.be.greaterThan(400);
    expect(longestMs).to.be.lessThan(200);
  });
});
