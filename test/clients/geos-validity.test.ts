import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { outlineToGeoJson } from '../../src/domain/geometry/rfc7946.js';
import { singularPoints, specialZones } from '../support/special-zones.js';

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

/**
 * GEOS judges the outlines of the zones where lon/lat outlines are hardest, for every grid the service
 * knows at every level: the polar, antimeridian and singular zones of test/support/special-zones.ts, plain
 * and refined, drawn as the service's GeoJSON draws them (outlineToGeoJson of the zone's outline). GEOS
 * must find every outline valid and holding its centroid; a centroid on a pole (no longitude of its own there) is held when the
 * outline reaches that pole.
 */
describe('GEOS finds the polar, antimeridian and singular zone outlines of every grid valid', function () {
  this.timeout(600_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-geos-special-'));
  for (const [id, make] of Object.entries(GRID_FACTORIES)) {
    it(`${id}: levels 0 to max, plain and refined`, async () => {
      const grid = make();
      const singular = singularPoints(grid);
      const features: string[] = [];
      for (let level = 0; level <= grid.maxRefinementLevel; level++) {
        for (const zone of specialZones(grid, level, singular).zones) {
          const [clon, clat] = grid.describeZone(zone).centroid;
          for (const refined of [0, 1]) {
            const geometry = outlineToGeoJson(grid.zoneOutline(zone, refined === 1));
            features.push(JSON.stringify({ type: 'Feature', properties: { zone, refined, clon, clat }, geometry }));
          }
        }
      }
      const layer = `special-${id}`;
      const file = path.join(dir, `${layer}.geojson`);
      writeFileSync(file, `{"type":"FeatureCollection","features":[${features.join(',')}]}`);
      const pole = `ST_Intersects(geometry, MakeLine(MakePoint(-180, clat, 4326), MakePoint(180, clat, 4326)))`;
      const holds = `CASE WHEN ABS(clat) = 90 THEN ${pole} ELSE ST_Intersects(geometry, MakePoint(clon, clat, 4326)) END`;
      const sql = `SELECT zone, refined, ST_IsValid(geometry) AS valid, ${holds} AS holds, (SELECT COUNT(*) FROM "${layer}") AS total FROM "${layer}" WHERE NOT ST_IsValid(geometry) OR NOT (${holds}) OR rowid = 1`;
      const out = await run('ogrinfo', ['-q', '-ro', '-dialect', 'SQLite', '-sql', sql, file], { maxBuffer: 64 * 1024 * 1024 });
      const rows = out.stdout.split(/OGRFeature\([^)]*\):\d+/).slice(1).map((b) => ({
        zone: /zone \(String\) = (\S+)/.exec(b)?.[1],
        refined: Number(/refined \(Integer\) = (\d+)/.exec(b)?.[1]),
        valid: Number(/valid \(Integer\) = (\d+)/.exec(b)?.[1]),
        holds: Number(/holds \(Integer\) = (\d+)/.exec(b)?.[1]),
        total: Number(/total \(Integer\) = (\d+)/.exec(b)?.[1]),
      }));
      expect(rows[0]?.total, out.stdout.slice(0, 2000)).to.equal(features.length);
      const invalid = rows.filter((r) => r.valid !== 1).map((r) => `${r.zone} ${r.refined ? 'refined' : 'plain'}`);
      expect(invalid, 'invalid outlines').to.deep.equal([]);
      const outside = rows.filter((r) => r.valid === 1 && r.holds !== 1).map((r) => `${r.zone} ${r.refined ? 'refined' : 'plain'}`);
      expect(outside, 'valid outlines without their centroid').to.deep.equal([]);
    });
  }
});
