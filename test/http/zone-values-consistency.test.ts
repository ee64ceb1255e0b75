/**
 * Raster zone values (once, a zone's values depended on what else was asked): a sub-zone's value
 * does not depend on the other depths of the request, is never null where the zone has data, and
 * is within the documented tolerance of the exact statistic over the pixels whose centres the
 * grid puts in it. The exact statistics are computed here, independently of the service: every
 * pixel of the demo COG read with geotiff directly (and of a PMTiles pyramid from the field it was
 * written from), each pixel centre assigned with the grid's zoneFromPoint.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HOLD_RERUNS, loopHolds } from '../support/loop-holds.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';
import {
  answerBox, cogPixels, exactByLevel, expectWithinTolerance, pmtilesPixels, startElevationServer, statsOf, writeElevationPmtiles, zoneData, ZONE_CASES, type ExactStats, type Pixels,
} from './zone-values-exact.js';

describe('raster zone values: independent of the other depths, never null where there is data, within tolerance of the exact statistic', function () {
  this.timeout(180_000);
  let s: TestServer;
  let cog: Pixels;
  let pm: Pixels;

  before(async () => {
    s = await startElevationServer(writeElevationPmtiles(mkdtempSync(path.join(tmpdir(), 'zone-values-'))));
    cog = await cogPixels();
    pm = pmtilesPixels();
  });
  after(async () => s?.close());

  const grid = (id: string): Dggrs => s.app.container.get<GridRegistry>(TOKENS.GridRegistry).get(id)!;

  it("gives C4-6-A and E4-120-A, whose values once changed with the other depths asked, the same values whatever other depths are asked", async () => {
    const c4 = await Promise.all(['0', '0,1', '0,2', '0-3'].map(async (d) => (await zoneData(s, 'demo-elevation', 'IVEA7H', 'C4-6-A', `zone-depth=${d}`))[0]!.values.elevation));
    expect(c4[0]![0], 'C4-6-A overlaps the raster: a value, not null').to.be.a('number');
    for (const v of c4.slice(1)) expect(v).to.deep.equal(c4[0]);
    const [alone] = await zoneData(s, 'demo-elevation', 'IVEA7H', 'E4-120-A', 'zone-depth=1');
    const [withThree] = await zoneData(s, 'demo-elevation', 'IVEA7H', 'E4-120-A', 'zone-depth=1,3');
    expect(withThree!.values.elevation).to.deep.equal(alone!.values.elevation);
  });

  for (const c of ZONE_CASES) {
    it(`${c.collection}, ${c.dggrs}, ${c.name}: depths ${c.depths.join(',')}`, async () => {
      const g = grid(c.dggrs);
      const zone = c.zone(g);
      const all = await zoneData(s, c.collection, c.dggrs, zone, `zone-depth=${c.depths[0]}-${c.depths.at(-1)}&cog-stat=mean,valid,count`);
      // The same values when each depth is asked alone.
      for (const d of c.depths) {
        const [alone] = await zoneData(s, c.collection, c.dggrs, zone, `zone-depth=${d}&cog-stat=mean,valid,count`);
        expect(alone!.values, `depth ${d} alone`).to.deep.equal(all.find((a) => a.depth === d)!.values);
      }
      const level = g.zoneLevel(zone);
      const exact = exactByLevel(g, c.collection === 'demo-elevation' ? cog : pm, answerBox(g, all), all.map((a) => level + a.depth));
      const slack = c.collection === 'demo-elevation' ? 0 : 1 / 256; // terrarium steps
      let withData = 0;
      for (const a of all) {
        expectWithinTolerance(`${zone} depth ${a.depth}`, a.zones, a.values.elevation_mean!, (z) => exact(level + a.depth, z), slack);
        withData += a.values.elevation_valid!.filter((v) => v! > 0).length;
      }
      expect(withData, 'the case has sub-zones with data').to.be.above(0);
    });
  }

  it('keeps the event loop turning while a heavy aggregation runs (every pixel centre of a large zone, five depths)', async function () {
    this.retries(HOLD_RERUNS);
    // Without the decoded-tile cache, so the request decodes its tiles too, however warm the other tests left them.
    const cold = await startTestServer({ rasters: { tileCacheBytes: 0 } });
    const cpuMs = () => {
      const u = process.threadCpuUsage();
      return (u.user + u.system) / 1000;
    };
    const t0 = cpuMs();
    let worst: number;
    try {
      // The main thread's time between two turns of the loop is what a synchronous stretch of work costs.
      const { result: answer, longestMs } = await loopHolds(() => zoneData(cold, 'demo-elevation', 'IVEA7H', 'C4-6-A', 'zone-depth=0-4&cog-sampling-factor=4096'), 5);
      expect(answer[0]!.values.elevation![0]).to.be.a('number');
      worst = longestMs;
    } finally {
      await cold.close();
    }
    const total = cpuMs() - t0;
    expect(total, 'the request is heavy enough to matter').to.be.above(300);
    expect(worst, `longest turn of the loop, of ${total.toFixed(0)} ms CPU`).to.be.below(100);
  });

  it('is the exact statistic (every statistic, count included) when cog-sampling-factor reaches the pixels per sub-zone', async () => {
    const stats = ['mean', 'valid', 'count', 'min', 'max', 'stdDev', 'median'] as const;
    const g = grid('IVEA7H');
    for (const [collection, px, zone] of [
      ['demo-elevation', cog, g.zoneFromPoint(9.0, 45.3, 5)],
      ['elevation-pmtiles', pm, g.zoneFromPoint(10.55, 45.55, 7)],
    ] as const) {
      const answer = await zoneData(s, collection, 'IVEA7H', zone, `zone-depth=0-2&cog-stat=${stats.join(',')}&cog-sampling-factor=4096`);
      const level = g.zoneLevel(zone);
      const exact = exactByLevel(g, px, answerBox(g, answer), answer.map((a) => level + a.depth));
      let mixed = 0;
      for (const a of answer) {
        a.zones.forEach((z, i) => {
          const e = exact(level + a.depth, z) ?? statsOf(0, []);
          expect(e.count, `${z} holds fewer pixels than the factor`).to.be.below(4096);
          for (const st of stats) {
            const got = a.values[`elevation_${st}`]![i]!;
            const want = (e[st] as ExactStats[typeof st]);
            if (Number.isNaN(want) || got === null) expect(got, `${collection} ${z} ${st}`).to.equal(Number.isNaN(want) ? null : want);
            else expect(got, `${collection} ${z} ${st}`).to.be.closeTo(want, 1e-6 * Math.max(1, Math.abs(want)));
          }
          if (e.valid > 0 && e.valid < e.count) mixed++;
        });
      }
      expect(mixed, `${collection}: some sub-zones hold both data and nodata`).to.be.above(0);
    }
  });
});
