/**
 * A ~1 GB lake on the loopback object store: a page of items reads a few MB (counted as the
 * bytes the S3 server sends), never the files. The lake is written once by DuckDB straight into
 * the server's object directory (seeding its disk, not sent over the wire), six GeoParquet files
 * of one million rows each (uncompressed), row groups compact in x.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { S3ParquetLake } from '../../src/adapters/lake-s3/s3-parquet-lake.js';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';

const FILES = 6;
const QUARTER = 250_000;
const ROWS_PER_FILE = 1_000_000;
const MB = 1024 * 1024;
const big: Collection = { id: 'big', title: 'big', backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } };

describe('S3ParquetLake on a ~1 GB lake: pages read a few MB', function () {
  this.timeout(180_000);
  let s3: LoopbackS3;
  let lake: S3ParquetLake;
  let lakeBytes = 0;

  before(async () => {
    s3 = await startLoopbackS3();
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const geo = JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } } });
    try {
      // A quarter of a file's rows computed once (hash-derived, so that they compress poorly),
      // each file four copies of it with ids and times moved on: fast to make, every row distinct
      // in id, and row groups still compact in x.
      await c.run(`CREATE TEMP TABLE base AS
        SELECT i, x, y, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS payload, hash(i) % 1000000 AS reading,
          st_aswkb(CAST('POINT (' || x || ' ' || y || ')' AS GEOMETRY)) AS geometry, {'xmin': x, 'ymin': y, 'xmax': x, 'ymax': y} AS bbox
        FROM (SELECT i, -180 + 360 * i / ${QUARTER} AS x, -90 + (hash(i * 31) % 180000000) / 1e6 AS y FROM range(0, ${QUARTER}) t(i))`);
      for (let f = 0; f < FILES; f++) {
        const key = `scale/big/data/part-${String(f).padStart(2, '0')}.parquet`;
        const file = s3.objectPath(key);
        mkdirSync(path.dirname(file), { recursive: true });
        const id = `(i + ${QUARTER} * k + ${f * ROWS_PER_FILE})`;
        await c.run(`COPY (
            SELECT ${id} AS id, x, y, payload, reading, TIMESTAMP '2024-01-01' + to_seconds(${id}) AS datetime, geometry, bbox
            FROM range(4) r(k), base ORDER BY k, i)
          TO '${file}' (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 16384, KV_METADATA {geo: '${geo}'})`);
        const size = statSync(file).size;
        lakeBytes += size;
        // The server's ETag, written here so that it does not hash a gigabyte on the first listing.
        writeFileSync(`${file}.md5`, createHash('md5').update(`${key}:${size}`).digest('hex'));
      }
    } finally {
      c.closeSync();
    }
    lake = new S3ParquetLake(`s3://${s3.bucket}/scale`, s3.options);
  });
  after(async () => {
    await lake?.close();
    await s3?.close();
  });

  it('the lake weighs about 1 GB', () => {
    expect(lakeBytes).to.be.greaterThan(900 * MB);
  });

  it('a page in the middle of the lake, all columns, reads under 5 MB; the next page, footers cached, under 3 MB', async () => {
    let before = s3.bytesSent();
    const page = await lake.page(big, { offset: 3_432_100, limit: 100, columns: ['id', 'payload', 'reading', 'datetime', 'geometry'] });
    const first = s3.bytesSent() - before;
    expect(page.numberMatched).to.equal(FILES * ROWS_PER_FILE);
    expect(page.rows.map((r) => r.values.id)).to.have.length(100);
    expect(page.rows).to.have.length(100);
    expect(page.rows[0]!.index).to.equal(3_432_100);
    expect(page.rows[0]!.values.id).to.equal(3_432_100);
    before = s3.bytesSent();
    await lake.page(big, { offset: 5_900_000, limit: 100, columns: ['id', 'payload', 'reading', 'datetime', 'geometry'] });
    const second = s3.bytesSent() - before;
    console.log(`      lake ${(lakeBytes / MB).toFixed(0)} MB; first page ${(first / MB).toFixed(2)} MB sent (footers included), next page ${(second / MB).toFixed(2)} MB`);
    expect(first).to.be.lessThan(5 * MB);
    expect(second).to.be.lessThan(3 * MB);
  });

  it('a bbox page counts its matches over the whole lake reading only the row groups the covering statistics leave', async () => {
    const before = s3.bytesSent();
    const page = await lake.page(big, { offset: 0, limit: 50, columns: ['id', 'geometry'], bbox: [10, -10, 10.5, 10], filter: parseCql2Text('reading < 500000') });
    const sent = s3.bytesSent() - before;
    console.log(`      bbox + filter page: ${page.numberMatched} matches, ${(sent / MB).toFixed(2)} MB sent`);
    expect(page.numberMatched).to.be.greaterThan(0);
    expect(page.rows.length).to.equal(Math.min(50, page.numberMatched));
    // Row groups span ~24 degrees of x here: one per copy in each file is left, of 366 in all.
    expect(sent).to.be.lessThan(lakeBytes / 25);
  });
});
