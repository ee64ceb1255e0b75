import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);

/**
 * GEOS (through GDAL's SQLite dialect) judges the zone geometry the service emits: every zone of
 * the world zone lists at low levels, plain and refined, must be valid OGC simple features.
 * The unit suite checks the same with turf; this is the second, independent opinion.
 */
describe('GEOS finds every emitted zone geometry valid', function () {
  this.timeout(300_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-geos-'));
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const cases: Array<[string, number]> = [
    ['IVEA7H', 0], ['IVEA7H', 1], ['IVEA7H', 2], ['IVEA7H', 3],
    ['ISEA7H', 0], ['ISEA7H', 1], ['ISEA7H', 2], ['ISEA7H', 3],
    ['H3', 0], ['H3', 1], ['H3', 2],
  ];
  for (const [grid, level] of cases) {
    for (const refined of [false, true]) {
      it(`${grid} level ${level} (refined-geometry=${refined})`, async () => {
        const features: unknown[] = [];
        let url: string | undefined = `${s.base}/dggs/${grid}/zones?zone-level=${level}&f=geo%2Bjson&limit=10000&refined-geometry=${refined}`;
        while (url) {
          const res = await fetch(url);
          expect(res.status, url).to.equal(200);
          const page = (await res.json()) as { features: unknown[]; links?: Array<{ rel: string; href: string }> };
          features.push(...page.features);
          url = page.links?.find((l) => l.rel === 'next')?.href;
        }
        expect(features.length).to.be.greaterThan(10);
        const file = path.join(dir, `${grid}-${level}-${refined}.geojson`);
        writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
        const layer = path.basename(file, '.geojson');
        const sql = `SELECT COUNT(*) AS n, SUM(ST_IsValid(geometry)) AS valid, MIN(CASE WHEN ST_IsValid(geometry) THEN NULL ELSE ST_IsValidReason(geometry) END) AS reason FROM "${layer}"`;
        const out = await run('ogrinfo', ['-q', '-ro', '-dialect', 'SQLite', '-sql', sql, file], { maxBuffer: 16 * 1024 * 1024 });
        const n = Number(/n \(Integer\) = (\d+)/.exec(out.stdout)?.[1]);
        const valid = Number(/valid \(Integer\) = (\d+)/.exec(out.stdout)?.[1]);
        expect(n, out.stdout).to.equal(features.length);
        expect(valid, out.stdout).to.equal(n);
      });
    }
  }
});
