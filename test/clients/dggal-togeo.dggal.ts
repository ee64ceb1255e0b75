/**
 * DGGS-UBJSON to GeoJSON through DGGAL: the UBJSON is turned back into DGGS-JSON by py-ubjson (the
 * converter OGC 21-038r1 names) and DGGAL's `dgg togeo` draws it; every feature it writes is the zone
 * and value our own GeoJSON has. (The DGGAL build this was written against reads DGGS-JSON text only:
 * its JSON parser has no UBJSON reader, so UBJSON given to it directly is refused.)
 *
 * DGGAL cannot be installed from a package registry: this spec is run by hand where it was built,
 * `DGGAL_DGG=/path/to/dgg npm run test:clients -- test/clients/dggal-togeo.dggal.ts`, and fails
 * when DGGAL_DGG does not name it.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYTHON } from './python.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DGG = process.env.DGGAL_DGG ?? '';
const run = promisify(execFile);

describe('DGGS-UBJSON through DGGAL dgg togeo', function () {
  this.timeout(120_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'dggal-togeo-'));

  before(async () => {
    if (!DGG || !existsSync(DGG)) throw new Error(`DGGAL_DGG must name DGGAL's dgg program (it is "${DGG}")`);
    s = await startTestServer();
  });
  after(() => s?.close());

  for (const [grid, level] of [['IVEA7H', 4], ['ISEA3H', 8], ['IVEA7H_Z7', 4], ['ISEA7H', 4]] as const) {
    it(`${grid}: dgg togeo draws each sub-zone of an Alpine zone of level ${level} with our value`, async () => {
      const zone = s.app.container.get<GridRegistry>(TOKENS.GridRegistry).get(grid)!.zoneFromPoint(9.5, 46.5, level);
      const p = `/collections/demo-elevation/dggs/${grid}/zones/${zone}/data?zone-depth=2`;
      const r = await s.get(`${p}&f=ubjson`);
      expect(r.status, await r.clone().text()).to.equal(200);
      const ubj = path.join(dir, `${grid}.dggs.ubj`);
      writeFileSync(ubj, Buffer.from(await r.arrayBuffer()));
      const json = path.join(dir, `${grid}.dggs.json`);
      writeFileSync(json, (await run(PYTHON, ['-m', 'ubjson', 'tojson', ubj], { maxBuffer: 64 << 20 })).stdout);
      // dgg togeo exits with 1 even when it converted (its exit code is never set): its output decides.
      const stdout = await run(DGG, ['togeo', json], { maxBuffer: 64 << 20 }).then((r) => r.stdout, (e: { stdout?: string }) => e.stdout ?? '');
      const fc = JSON.parse(stdout.slice(stdout.indexOf('{')));
      const ours = await (await s.get(`${p}&f=geo%2Bjson`)).json();
      const want = new Map<string, number | null>(ours.features.map((f: Json) => [f.properties.zone_id, f.properties.elevation]));
      expect(fc.features.length).to.equal(want.size);
      expect([...want.values()].filter((v) => v !== null).length, 'values on the raster').to.be.greaterThan(10);
      for (const f of fc.features) {
        const id = f.properties.zoneID;
        expect(want.has(id), id).to.equal(true);
        const v = want.get(id);
        if (v === null) expect(f.properties.elevation ?? null).to.equal(null);
        else expect(f.properties.elevation).to.be.closeTo(v!, Math.abs(v!) * 1e-12);
      }
    });
  }
});
