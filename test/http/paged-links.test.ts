/**
 * Paged answers carry their page links in a `Link` header in every format, so a client of a
 * binary page (parquet, uint64) finds the next one; downloads are named `<what>.<extension>`.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { ensureDemoLake } from '../../scripts/demo/make-lake.js';

/** rel -> href of a Link header (RFC 8288, as the service writes it). */
function linkHeader(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of (res.headers.get('link') ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) out.set(m[2]!, m[1]!);
  return out;
}

/** The zone ids of a uint64 page: a count, then one little-endian 64-bit id per zone. */
function uint64Ids(bytes: Buffer): bigint[] {
  const n = Number(bytes.readBigUInt64LE(0));
  expect(bytes.length, 'count and ids').to.equal(8 * (n + 1));
  return Array.from({ length: n }, (_, i) => bytes.readBigUInt64LE(8 * (i + 1)));
}

async function parquetColumn(bytes: Buffer, column: string): Promise<string[]> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'dggs-page-')), 'page.parquet');
  writeFileSync(file, bytes);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(`SELECT "${column}" FROM read_parquet('${file}')`)).getRows().map((r) => String(r[0]));
  } finally {
    c.closeSync();
  }
}

describe('HTTP: Link headers on paged answers, and download names', function () {
  this.timeout(120_000);
  let s: TestServer;
  before(async () => {
    await ensureDemoLake(path.join(REPO_ROOT, 'data/demo/lake'));
    s = await startTestServer();
  });
  after(() => s?.close());

  /** Follows `next` from `first`, checking each page's `self` and `prev`; the pages' ids, in order. */
  async function follow<T>(first: string, read: (body: Buffer) => Promise<T[]> | T[]): Promise<{ ids: T[]; pages: number; total: number }> {
    const ids: T[] = [];
    let url: string | undefined = s.base + first;
    let pages = 0;
    let total = NaN;
    while (url) {
      const res = await fetch(url);
      expect(res.status, url).to.equal(200);
      const links = linkHeader(res);
      expect(links.get('self'), `${url}: self`).to.be.a('string');
      if (pages > 0) expect(links.get('prev'), `${url}: prev`).to.be.a('string');
      else expect(links.has('prev'), 'no prev on the first page').to.equal(false);
      total = Number(res.headers.get('ogc-zones-total') ?? NaN);
      ids.push(...(await read(Buffer.from(await res.arrayBuffer()))));
      url = links.get('next');
      expect(++pages, 'pages').to.be.below(50);
    }
    return { ids, pages, total };
  }

  it('uint64 zone pages: following next visits every zone of the list exactly once', async () => {
    const whole = uint64Ids(Buffer.from(await (await s.get('/dggs/IVEA7H/zones?zone-level=2&f=uint64')).arrayBuffer()));
    const { ids, pages, total } = await follow('/dggs/IVEA7H/zones?zone-level=2&limit=97&f=uint64', uint64Ids);
    expect(pages, 'several pages').to.be.above(3);
    expect(ids.length).to.equal(total);
    expect(new Set(ids).size, 'no zone twice').to.equal(ids.length);
    expect(ids).to.deep.equal(whole);
  });

  it('parquet and GeoParquet zone pages: following next visits every zone exactly once', async () => {
    const whole = ((await (await s.get('/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=5')).json()) as { zones: string[] }).zones;
    for (const f of ['parquet', 'geoparquet']) {
      const { ids, pages, total } = await follow(`/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=5&limit=40&f=${f}`, (b) => parquetColumn(b, 'zone_id'));
      expect(pages, f).to.be.above(2);
      expect(ids.length, f).to.equal(total);
      expect(new Set(ids).size, `${f}: no zone twice`).to.equal(ids.length);
      expect(ids, f).to.deep.equal(whole);
    }
  });

  it('JSON, GeoJSON and HTML zone pages carry the links of their body', async () => {
    for (const f of ['json', 'geo+json', 'html']) {
      const res = await s.get(`/dggs/IVEA7H/zones?zone-level=2&limit=100&offset=100&f=${encodeURIComponent(f)}`);
      const links = linkHeader(res);
      const text = await res.text();
      expect([...links.keys()].sort(), f).to.deep.equal(['next', 'prev', 'self']);
      if (f !== 'html') {
        const body = JSON.parse(text) as { links: { rel: string; href: string }[] };
        for (const [rel, href] of links) expect(body.links.find((l) => l.rel === rel)?.href, `${f} ${rel}`).to.equal(href);
      }
      expect(links.get('next'), f).to.contain('offset=200');
    }
  });

  it('items pages: Link in every format, parquet included, up to the last page', async () => {
    const p = '/collections/demo-stations/items?bbox=0,40,20,50&datetime=2024-01-05T00:00:00Z/2024-01-05T05:00:00Z';
    const matched = ((await (await s.get(`${p}&limit=1`)).json()) as { numberMatched: number }).numberMatched;
    expect(matched, 'rows in the test window').to.be.within(6, 3000);
    const limit = Math.ceil(matched / 3);
    let rows = 0;
    let url: string | undefined = `${s.base}${p}&limit=${limit}&f=parquet`;
    while (url) {
      const res = await fetch(url);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="demo-stations-items-\d+\.parquet"$/);
      rows += (await parquetColumn(Buffer.from(await res.arrayBuffer()), 'station_id')).length;
      url = linkHeader(res).get('next');
    }
    expect(rows, 'every matching row once').to.equal(matched);
    for (const f of ['json', 'geo+json', 'html']) {
      const res = await s.get(`${p}&limit=${limit}&offset=${limit}&f=${encodeURIComponent(f)}`);
      await res.arrayBuffer();
      expect([...linkHeader(res).keys()].sort(), f).to.deep.equal(['next', 'prev', 'self']);
    }
  });

  it('names downloads <what>.<extension>, one extension each', async () => {
    const named = async (p: string) => {
      const res = await s.get(p);
      await res.arrayBuffer();
      expect(res.status, p).to.equal(200);
      return /^attachment; filename="([^"]+)"$/.exec(res.headers.get('content-disposition') ?? '')?.[1];
    };
    expect(await named('/dggs/IVEA7H/zones?zone-level=1&f=parquet')).to.equal('IVEA7H-zones-0.parquet');
    expect(await named('/dggs/IVEA7H/zones?zone-level=1&f=geoparquet')).to.equal('IVEA7H-zones-0.parquet');
    expect(await named('/dggs/IVEA7H/zones?zone-level=2&limit=10&offset=20&f=uint64')).to.equal('IVEA7H-zones-20.bin');
    expect(await named('/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=3&f=parquet')).to.equal('demo-elevation-IVEA7H-zones-0.parquet');
    expect(await named('/collections/demo-elevation/dggs/ISEA3H/zones/D4-69-A/data?zone-depth=2&f=geoparquet')).to.equal('ISEA3H-D4-69-A-data.parquet');
    expect(await named('/collections/demo-stations/items?limit=2&offset=4&f=parquet')).to.equal('demo-stations-items-4.parquet');
    expect(await named('/collections/demo-stations/items/3?f=geoparquet')).to.equal('demo-stations-item-3.parquet');
  });
});
