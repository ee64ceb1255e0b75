/**
 * The HTTP grid tests' harness: a test server with the grids asked for, a DuckDB connection to read
 * Parquet answers, and the demo stations (points, counted per position) to check point zone data.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { REPO_ROOT, startTestServer, type TestServer } from './test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export interface GridHttp {
  /** Set by the harness's `before`. */
  s: TestServer;
  registry: GridRegistry;
  stations: { x: number; y: number; n: number }[];
  /** The JSON body of a GET, its status asserted. */
  getJson(p: string, status?: number): Promise<Json>;
  /** The rows of a Parquet answer, its status and content type asserted. */
  parquetRows(url: string, contentType: string): Promise<Json[]>;
}

/** Registers the suite's before/after hooks; `overrides` are the server's config overrides. */
export function useGridHttp(overrides: () => Record<string, unknown>): GridHttp {
  const dir = mkdtempSync(path.join(tmpdir(), 'grid-http-'));
  let conn: DuckDBConnection;
  const h: GridHttp = {
    s: undefined as unknown as TestServer,
    registry: undefined as unknown as GridRegistry,
    stations: [],
    async getJson(p, status = 200) {
      const r = await h.s.get(p);
      const body = await r.text();
      expect(r.status, `${p}: ${body.slice(0, 300)}`).to.equal(status);
      return JSON.parse(body);
    },
    async parquetRows(url, contentType) {
      const r = await h.s.get(url);
      expect(r.status, url).to.equal(200);
      expect(r.headers.get('content-type')).to.equal(contentType);
      const file = path.join(dir, `${Math.random().toString(36).slice(2)}.parquet`);
      writeFileSync(file, Buffer.from(await r.arrayBuffer()));
      return (await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJS() as Json[];
    },
  };
  before(async () => {
    h.s = await startTestServer(overrides());
    h.registry = h.s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
    conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run('SET enable_geoparquet_conversion = false');
    // Stations are points: the bbox covering holds their coordinates.
    const rows = await conn.runAndReadAll(`SELECT bbox.xmin AS x, bbox.ymin AS y, count(*) AS n
      FROM read_parquet('${path.join(REPO_ROOT, 'data/demo/lake/demo-stations/data/**/*.parquet')}') GROUP BY ALL`);
    h.stations = rows.getRowObjectsJS().map((r) => ({ x: Number(r.x), y: Number(r.y), n: Number(r.n) }));
  });
  after(async () => {
    conn?.closeSync();
    await h.s?.close();
  });
  return h;
}
