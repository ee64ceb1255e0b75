/**
 * PNG and JPEG-XL zone data (OGC 21-038r1 /req/data-png/content, /req/data-jpegxl/content): the
 * image read back with the Values-Scale/Values-Offset headers equals the DGGS-JSON of the same
 * request at the pixels of every sub-zone, and is 0 outside the zone, for a zone of each grid family.
 */
import { expect } from 'chai';
import { decode } from 'fast-png';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import { checkZoneImage } from '../support/zone-image-check.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const ALPS: [number, number] = [9.5, 46.5];
/** A zone over the Alps (the elevation raster) of each grid family, and a depth of 50-100 sub-zones. */
const FAMILIES: [grid: string, level: number, depth: number][] = [
  ['IVEA7H', 4, 2],
  ['ISEA3H', 7, 4],
  ['ISEA9R', 3, 2],
  ['HEALPix', 5, 3],
  ['GNOSISGlobalGrid', 6, 3],
  ['H3', 4, 2],
  ['A5', 5, 3],
];

describe('PNG and JPEG-XL zone data', function () {
  this.timeout(120_000);
  let s: TestServer;
  let grids: GridRegistry;
  before(async () => {
    s = await startTestServer();
    grids = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
  });
  after(() => s?.close());

  async function fetchOk(url: string): Promise<Response> {
    const r = await s.get(url);
    if (r.status !== 200) expect.fail(`${url}: ${r.status} ${await r.text()}`);
    return r;
  }
  async function png(url: string) {
    const r = await fetchOk(url);
    expect(r.headers.get('content-type')).to.equal('image/png');
    const scale = Number(r.headers.get('values-scale'));
    const offset = Number(r.headers.get('values-offset'));
    expect(Number.isFinite(scale) && scale !== 0, 'Values-Scale').to.equal(true);
    expect(Number.isFinite(offset), 'Values-Offset').to.equal(true);
    return { image: decode(new Uint8Array(await r.arrayBuffer())), scale, offset };
  }
  async function dggsJson(url: string): Promise<Json> {
    return (await fetchOk(url)).json();
  }
  /** The DGGS-JSON values of each field at the one depth. */
  const fieldValues = (doc: Json): (number | null)[][] => Object.values(doc.values as Record<string, Json[]>).map((d) => d[0].data);

  for (const [gridId, level, depth] of FAMILIES) {
    it(`${gridId}: every sub-zone reads back its DGGS-JSON value, 0 outside the zone`, async () => {
      const grid = grids.get(gridId)!;
      const zone = grid.zoneFromPoint(...ALPS, level);
      const path = `/collections/demo-elevation/dggs/${gridId}/zones/${encodeURIComponent(zone)}/data?zone-depth=${depth}`;
      const { image, scale, offset } = await png(`${path}&f=png`);
      expect(image.depth).to.equal(16);
      expect(image.channels).to.equal(1);
      expect(image.text['Values-Scale']).to.equal(String(scale));
      expect(image.text['Values-Offset']).to.equal(String(offset));
      const values = fieldValues(await dggsJson(`${path}&f=dggs+json`));
      expect(values[0]!.some((v) => v !== null)).to.equal(true);
      checkZoneImage(grid, zone, depth, image, scale, offset, values);
      // Fitted to the data: the least value is 1, the greatest 65535.
      const valid = values[0]!.filter((v): v is number => v !== null);
      expect(Math.round(Math.min(...valid) * scale + offset)).to.equal(1);
      expect(Math.round(Math.max(...valid) * scale + offset)).to.equal(65535);
    });
  }

  const E4 = '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data';

  it('honours values-scale and values-offset, and fits the offset to a scale given alone', async () => {
    const grid = grids.get('IVEA7H')!;
    const values = fieldValues(await dggsJson(`${E4}?f=dggs+json`));
    const both = await png(`${E4}?f=png&values-scale=10&values-offset=-1000`);
    expect([both.scale, both.offset]).to.deep.equal([10, -1000]);
    checkZoneImage(grid, 'E4-120-A', 2, both.image, 10, -1000, values);
    const alone = await png(`${E4}?f=png&values-scale=4`);
    expect(alone.scale).to.equal(4);
    const min = Math.min(...values[0]!.filter((v): v is number => v !== null));
    expect(Math.round(min * 4 + alone.offset)).to.equal(1);
    checkZoneImage(grid, 'E4-120-A', 2, alone.image, 4, alone.offset, values);
  });

  it('answers 422 naming the value a values-scale puts outside 16 bits, and refuses values-scale=0', async () => {
    const r = await s.get(`${E4}?f=png&values-scale=1000`);
    expect(r.status).to.equal(422);
    const body = await r.json();
    expect(body.hint).to.match(/outside 1\.\.65535/).and.match(/values-scale/);
    expect((await s.get(`${E4}?f=png&values-scale=0`)).status).to.equal(422);
  });

  it('writes two or three fields as red, green and blue; more is a 400 naming properties', async () => {
    const grid = grids.get('IVEA7H')!;
    const path = `${E4}?cog-stat=min,max`;
    const { image, scale, offset } = await png(`${path}&f=png`);
    expect(image.channels).to.equal(3);
    const values = fieldValues(await dggsJson(`${path}&f=dggs+json`));
    expect(values).to.have.length(2);
    checkZoneImage(grid, 'E4-120-A', 2, image, scale, offset, values);
    for (let p = 0; p < image.width * image.height; p++) expect(image.data[p * 3 + 2]).to.equal(0);
    for (const f of ['png', 'jxl']) {
      const r = await s.get(`${E4}?cog-stat=min,max,mean,count&f=${f}`);
      expect(r.status).to.equal(400);
      expect((await r.json()).hint).to.match(/properties/);
    }
  });

  it('refuses several depths with a 4xx naming the rule, for PNG and JPEG-XL', async () => {
    for (const f of ['png', 'jxl']) {
      const r = await s.get(`${E4}?f=${f}&zone-depth=1,2`);
      expect(r.status).to.equal(400);
      expect((await r.json()).message).to.match(/one image: ask one zone-depth/);
    }
  });

  it('honours properties and datetime on a temporal lake', async () => {
    const grid = grids.get('IVEA7H')!;
    const path = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-06T00:00:00Z';
    const doc = await dggsJson(`${path}&f=dggs+json`);
    const field = Object.keys(doc.values)[0]!;
    const one = `${path}&properties=${field}`;
    const { image, scale, offset } = await png(`${one}&f=png`);
    expect(image.text.Fields).to.equal(field);
    const values = fieldValues(await dggsJson(`${one}&f=dggs+json`));
    expect(values).to.have.length(1);
    expect(values[0]!.some((v) => v !== null), 'the lake has values there').to.equal(true);
    checkZoneImage(grid, 'E2-2A-A', 2, image, scale, offset, values);
    // Another interval gives other values: datetime reaches the image.
    const other = await dggsJson(`${path.replace('2024-01-05T00:00:00Z/2024-01-06T00:00:00Z', '2024-01-20T00:00:00Z/2024-01-21T00:00:00Z')}&properties=${field}&f=dggs+json`);
    expect(fieldValues(other)[0]).to.not.deep.equal(values[0]);
  });

  it('answers JPEG-XL with the same scale and offset headers, as a JPEG-XL file', async () => {
    const r = await fetchOk(`${E4}?f=jxl`);
    expect(r.headers.get('content-type')).to.equal('image/jxl');
    expect(Number(r.headers.get('values-scale'))).to.be.greaterThan(0);
    expect(r.headers.get('values-offset')).to.match(/^-?[\d.e+-]+$/);
    const bytes = new Uint8Array(await r.arrayBuffer());
    // A bare codestream (FF 0A) or the ISO BMFF container (box "JXL ").
    const codestream = bytes[0] === 0xff && bytes[1] === 0x0a;
    const container = Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'JXL ';
    expect(codestream || container).to.equal(true);
  });

  it('answers 422 naming limits.maxRasterCells for an image above it', async () => {
    const small = await startTestServer({ limits: { maxRasterCells: 2000 } });
    try {
      const r = await small.get(`${E4}?f=png&zone-depth=3`);
      expect(r.status).to.equal(422);
      expect((await r.json()).hint).to.match(/limits\.maxRasterCells/);
    } finally {
      await small.close();
    }
  });
});
