/**
 * The LakeReader contract on the object-store lake (S3ParquetLake against s3rver on loopback),
 * the same bounds as the DuckDB lake, and the object store's own rules: listing under the
 * prefix, footers read once and bounded, ranged reads only.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectStopsOnAbort, lakeReaderContract, writeContractLake } from './lake-reader.contract.js';
import { S3ParquetLake } from '../../src/adapters/lake-s3/s3-parquet-lake.js';
import { ByteBudget, S3Objects } from '../../src/adapters/lake-s3/s3-objects.js';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { LakeQueryError } from '../../src/ports/lake-reader.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server.js';

const lakeCollection = (id: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } });

let s3: LoopbackS3;
let uploads = 0;
before(async function () {
  this.timeout(30_000);
  s3 = await startLoopbackS3();
});
after(async () => {
  await s3?.close();
});

/** A copy of the local lake under its own prefix, and a reader on it. */
async function s3Lake(root: string, limits: ConstructorParameters<typeof S3ParquetLake>[2] = {}): Promise<S3ParquetLake> {
  const prefix = `contract-${++uploads}/lake`;
  await s3.upload(root, prefix);
  return new S3ParquetLake(`s3://${s3.bucket}/${prefix}`, s3.options, limits);
}

lakeReaderContract('S3ParquetLake (s3rver on loopback)', (root) => s3Lake(root));

describe('S3ParquetLake: bounds and object-store reads', function () {
  this.timeout(30_000);
  const c1 = lakeCollection('c1');
  const c2 = lakeCollection('c2');
  let root: string;
  before(async () => {
    root = await writeContractLake();
  });

  it('refuses, naming the bound, when more rows than the bound need the exact geometry test', async () => {
    const lake = await s3Lake(root, { maxExactGeometryTests: 3 });
    try {
      const filter = parseCql2Text('S_INTERSECTS(geometry, POLYGON((0 0, 2 0, 0 2, 0 0)))');
      const err = await lake.page(c2, { offset: 0, limit: 10, columns: ['v'], filter }).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(LakeQueryError);
      expect((err as LakeQueryError).hint).to.contain('at most 3 per request');
      const scanErr = await lake.scan(c2, { columns: ['v'], filter }, () => undefined).then(() => undefined, (e: unknown) => e);
      expect(scanErr).to.be.instanceOf(LakeQueryError);
      // Points against boxes are not exact tests: the bound does not apply to them.
      const p = await lake.page(c2, { offset: 0, limit: 10, columns: ['v'], bbox: [-180, -90, 180, 90], filter: parseCql2Text('v <> 5 AND v <> 6 AND v <> 7 AND v <> 8 AND v <> 9') });
      expect(p.rows.map((r) => r.values.v)).to.deep.equal([0, 1, 2, 10, 11, 12, 13, 14, 15, 16]);
    } finally {
      await lake.close();
    }
  });

  it('refuses a request over its byte budget before reading row data, naming the bound', async () => {
    const lake = await s3Lake(root, { maxRequestBytes: 4096 });
    try {
      const err = await lake.page(c1, { offset: 0, limit: 60, columns: ['v', 'label', 'datetime', 'geometry'] }).then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(LakeQueryError);
      expect((err as LakeQueryError).hint).to.contain('lake.s3.maxRequestBytes');
    } finally {
      await lake.close();
    }
  });

  it('refuses a filtered page that would test more rows than lake.s3.maxFilterRows', async () => {
    const lake = await s3Lake(root, { maxFilterRows: 59 });
    try {
      const err = await lake.page(c1, { offset: 0, limit: 1, columns: ['v'], filter: parseCql2Text('v >= 0') }).then(() => undefined, (e: unknown) => e);
      expect((err as LakeQueryError).hint).to.contain('at most 59').and.to.contain('lake.s3.maxFilterRows');
      // A filter the statistics settle for most row groups tests fewer rows: c1's three files, one row group each.
      expect((await lake.page(c1, { offset: 0, limit: 5, columns: ['v'], filter: parseCql2Text('v >= 30') })).numberMatched).to.equal(30);
    } finally {
      await lake.close();
    }
  });

  it('a read in flight stops when its signal aborts: the store that never answers sees its connection closed', async () => {
    const server = http.createServer(() => undefined); // takes the request, never answers
    const closed = new Promise<void>((resolve) => server.on('connection', (socket) => socket.once('close', () => resolve())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const store = new S3Objects(s3.bucket, { ...s3.options, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    try {
      await expectStopsOnAbort((signal) => store.range('c1/data/p=1.parquet', 0, 100, new ByteBudget(1000), signal), 200);
      await closed;
    } finally {
      store.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('reads each footer once (then from the bounded cache) and never a whole object', async () => {
    const lake = await s3Lake(root, { listCacheMs: 60_000 });
    try {
      const before = s3.bytesSent();
      await lake.describe(c1);
      const first = s3.bytesSent() - before;
      const cached = lake.footerCacheBytes;
      expect(cached).to.be.greaterThan(0);
      const again = s3.bytesSent();
      await lake.describe(c1);
      expect(s3.bytesSent() - again, 'a second describe reads nothing').to.equal(0);
      expect(lake.footerCacheBytes).to.equal(cached);
      expect(first).to.be.greaterThan(0);
    } finally {
      await lake.close();
    }
    const tiny = await s3Lake(root, { footerCacheBytes: 10 });
    try {
      await tiny.describe(c1);
      expect(tiny.footerCacheBytes, 'footers larger than the cache are not kept').to.equal(0);
    } finally {
      await tiny.close();
    }
  });
});
