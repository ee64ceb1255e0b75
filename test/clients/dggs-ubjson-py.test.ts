/**
 * DGGS-UBJSON read by py-ubjson, the converter OGC 21-038r1 names for it (`ubjson tojson`): the
 * document it gives back is the DGGS-JSON of the same request. Needs python3 with py-ubjson
 * (Debian: apt-get install -y python3-ubjson); fails when it is missing.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requirePython, runPython } from './python.js';
import { startTestServer, type TestServer } from '../support/test-server.js';


describe('DGGS-UBJSON through py-ubjson', function () {
  this.timeout(120_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'dggs-ubjson-py-'));

  before(async () => {
    await requirePython('import ubjson', 'python3-ubjson');
    s = await startTestServer();
  });
  after(() => s?.close());

  for (const p of ['/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=0-3', '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&cog-stat=count,mean']) {
    it(`reads ${p} as the DGGS-JSON of the same request`, async () => {
      const file = path.join(dir, `${Math.random().toString(36).slice(2)}.dggs.ubj`);
      writeFileSync(file, Buffer.from(await (await s.get(`${p}&f=ubjson`)).arrayBuffer()));
      // The command-line converter of the standard's tip, run as a module.
      const { stdout } = await runPython(['-m', 'ubjson', 'tojson', file]);
      const fromPy = JSON.parse(stdout);
      const json = await (await s.get(`${p}&f=json`)).json();
      const { links: _a, ...a } = fromPy;
      const { links: _b, ...b } = json;
      expect(a).to.deep.equal(b);
    });
  }
});
