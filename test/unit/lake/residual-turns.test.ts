/**
 * The exact geometry test runs in JS for the rows SQL cannot settle; however heavy each test
 * is, other callbacks get their turn every few milliseconds.
 */
import { expect } from 'chai';
import path from 'node:path';
import { DuckDbLake } from '../../../src/adapters/lake/duckdb-lake.js';
import type { Collection } from '../../../src/domain/collection.js';
import { parseCql2Json } from '../../../src/domain/cql2/index.js';
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

describe('lake: the exact test in JS leaves the event loop turning', function () {
  this.timeout(60_000);
  let lake: DuckDbLake;
  before(async () => {
    await ensureDemoLake(LAKE);
    lake = new DuckDbLake(LAKE);
  });
  after(() => lake.close());

  it('a page whose every candidate needs a test through 1,800 rings keeps timer gaps short', async () => {
    const filter = parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'MultiPolygon', coordinates: frames(10, 47, 900) }] });
    await lake.describe(stations);
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 2);
    const start = performance.now();
    const page = await lake.page(stations, { offset: 0, limit: 5, columns: ['station_id'], filter }).finally(() => clearInterval(timer));
    const took = performance.now() - start;
    expect(page.numberMatched).to.be.greaterThan(300);
    // The work is long enough that a loop held per chunk of rows (2,048) would show.
    expect(took).to.be.greaterThan(400);
    expect(worst).to.be.lessThan(200);
  });
});
