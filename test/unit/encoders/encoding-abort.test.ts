/**
 * Work stops when its client leaves: the rasterized encodings given an aborted signal (before they
 * start, or while they work) reject with the signal's reason instead of writing the image, and an
 * image job whose signal aborts before the encoder thread takes it is dropped while the others are encoded.
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import type { ZoneData } from '../../../src/domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from '../../../src/formats/zone-data/encoding.js';
import { geotiff } from '../../../src/formats/zone-data/geotiff.js';
import { png } from '../../../src/formats/zone-data/png.js';
import { encodeImage } from '../../../src/formats/zone-data/image-encode-thread.js';
import { bytesOf } from '../../../src/formats/paced-pieces.js';

const grid = GRID_FACTORIES.IVEA7H!();
const zoneId = grid.zoneFromPoint(10, 46, 2);

/** A large answer: the 16,807 sub-zones of a level-2 zone at depth 5 (a raster of about 150,000 pixels). */
function largeData(): ZoneData {
  const zones = grid.subZones(zoneId, 5);
  return { dggrsId: 'IVEA7H', zoneId, fields: { v: { title: 'v', type: 'number' } }, depths: [{ depth: 5, zones, values: { v: zones.map((_, i) => i) } }], sources: [] };
}

const context = (signal?: AbortSignal): ZoneDataContext => ({ grid, links: [], refined: false, signal });

describe('zone-data encodings stop when their signal aborts', function () {
  this.timeout(60_000);
  const data = largeData();

  for (const encoding of [geotiff, png] as ZoneDataEncoding[]) {
    it(`${encoding.format}: an already aborted signal rejects with its reason`, async () => {
      const reason = new Error('client left');
      const err = await bytesOf(encoding.encode(data, context(AbortSignal.abort(reason)))).then(() => null, (e: unknown) => e);
      expect(err).to.equal(reason);
    });

    it(`${encoding.format}: a signal aborting while it works rejects with its reason; without one it writes the image`, async () => {
      const whole = await bytesOf(encoding.encode(data, context()));
      expect(whole.length).to.be.greaterThan(1000);
      const ac = new AbortController();
      const reason = new Error('client left');
      // Aborts at the first turn the encoding gives the event loop.
      setImmediate(() => ac.abort(reason));
      const err = await bytesOf(encoding.encode(data, context(ac.signal))).then(() => null, (e: unknown) => e);
      expect(err).to.equal(reason);
    });
  }

  it('drops an image job whose signal aborts while it waits for the encoder thread', async () => {
    const image = (value: number) => ({ kind: 'png' as const, width: 300, height: 300, depth: 8 as const, channels: 1, samples: new Uint8Array(300 * 300).fill(value), text: {} });
    const ac = new AbortController();
    const reason = new Error('client left');
    const first = encodeImage(image(1));
    const dropped = encodeImage(image(2), ac.signal);
    const third = encodeImage(image(3));
    ac.abort(reason);
    expect(await dropped.then(() => null, (e: unknown) => e)).to.equal(reason);
    const [a, c] = await Promise.all([first, third]);
    // Both PNGs (signature 89 50 4E 47) are written.
    expect([...a.subarray(0, 4), ...c.subarray(0, 4)]).to.deep.equal([0x89, 0x50, 0x4e, 0x47, 0x89, 0x50, 0x4e, 0x47]);
  });
});
