/**
 * DGGS-UBJSON-FG (geo+ubjson) read by py-ubjson (`python3 -m ubjson tojson file`, Debian
 * python3-ubjson): the document it gives back is the DGGS-JSON-FG answer of the same request, but
 * for its self and alternate links, which name each its own format. Fails when py-ubjson is missing.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requirePython, runPython } from './python.js';
import { startTestServer, type TestServer } from '../support/test-server.js';


type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('DGGS-UBJSON-FG through py-ubjson', function () {
  this.timeout(120_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'ubjsonfg-py-'));

  before(async () => {
    await requirePython('import ubjson', 'python3-ubjson');
    s = await startTestServer();
  });
  after(() => s?.close());

  const base = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-05T12:00:00Z';
  const withoutOwnLinks = (doc: Json) => ({ ...doc, links: doc.links.filter((l: Json) => l.rel !== 'self' && l.rel !== 'alternate') });

  for (const profile of ['jsonfg-dggs', 'jsonfg-dggs-plus', 'jsonfg-dggs-zoneids', 'jsonfg-dggs-zoneids-plus']) {
    it(`profile=${profile}: decodes to the DGGS-JSON-FG answer of the same request`, async () => {
      const res = await s.get(`${base}&profile=${profile}&f=geo%2Bubjson`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/geo+ubjson');
      const file = path.join(dir, `${profile}.ubj`);
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const { stdout } = await runPython(['-m', 'ubjson', 'tojson', file]);
      const fromPy = JSON.parse(stdout);
      const json = (await (await s.get(`${base}&profile=${profile}&f=geo%2Bjson`)).json()) as Json;
      expect(json.features).to.not.be.empty;
      expect(withoutOwnLinks(fromPy)).to.deep.equal(withoutOwnLinks(json));
      const self = fromPy.links.find((l: Json) => l.rel === 'self');
      expect(self.type).to.equal('application/geo+ubjson');
      expect(fromPy.links.find((l: Json) => l.rel === 'alternate').href).to.equal(json.links.find((l: Json) => l.rel === 'self').href);
    });
  }
});
