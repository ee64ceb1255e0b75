/**
 * JPEG-XL zone data read by libjxl's own decoder (`djxl`, Debian libjxl-tools): the image decodes,
 * and is lossless: its samples are the codes of the PNG answer to the same request quantized with
 * the JPEG-XL answer's Values-Scale and Values-Offset.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decode } from 'fast-png';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('JPEG-XL zone data decoded by djxl', function () {
  this.timeout(120_000);
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(path.join(tmpdir(), 'jxl-djxl-'));
  });
  after(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, query, fields] of [
    ['one field (grey)', 'zone-depth=2', 1],
    ['two fields (red, green)', 'zone-depth=2&cog-stat=min,max', 2],
    ['A5, depth 3', '', 1],
  ] as const) {
    it(`${name}: djxl decodes the codes of the PNG answer, losslessly`, async () => {
      const base = name.startsWith('A5') ? '/collections/demo-elevation/dggs/A5/zones/516a000000000000/data?zone-depth=3' : `/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?${query}`;
      const jxl = await s.get(`${base}&f=jxl`);
      expect(jxl.status).to.equal(200);
      const scale = jxl.headers.get('values-scale')!, offset = jxl.headers.get('values-offset')!;
      writeFileSync(path.join(dir, 'z.jxl'), Buffer.from(await jxl.arrayBuffer()));
      execFileSync('djxl', [path.join(dir, 'z.jxl'), path.join(dir, 'z.png')], { stdio: 'pipe' });
      const decoded = decode(readFileSync(path.join(dir, 'z.png')));
      expect(decoded.depth).to.equal(8);

      const pngAnswer = await s.get(`${base}&f=png&values-scale=${encodeURIComponent(scale)}&values-offset=${encodeURIComponent(offset)}`);
      expect(pngAnswer.status).to.equal(200);
      const reference = decode(new Uint8Array(await pngAnswer.arrayBuffer()));
      expect([decoded.width, decoded.height]).to.deep.equal([reference.width, reference.height]);
      let nonZero = 0;
      for (let p = 0; p < reference.width * reference.height; p++) {
        for (let f = 0; f < fields; f++) {
          const code = reference.data[p * reference.channels + f]!;
          expect(decoded.data[p * decoded.channels + f], `pixel ${p} field ${f}`).to.equal(code);
          if (code !== 0) nonZero++;
        }
      }
      expect(nonZero).to.be.greaterThan(0);
    });
  }
});
