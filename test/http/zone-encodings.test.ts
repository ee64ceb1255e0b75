/**
 * The encodings other DGGS servers and clients use, each decoded back: 64-bit zone lists against
 * DGGAL's own 64-bit ids (its `dgg` answers in test/fixtures/shared/oracle), DGGS-UBJSON through an independent
 * decoder against the DGGS-JSON of the same request, DGGS-JSON-FG against the lake's rows and the
 * DGGS-JSON counts per sub-zone; and the API document offering each.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode as decodeUbjson } from '@shelacek/ubjson';
import { SHARED, startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const ORACLE = path.join(SHARED, 'oracle/dggal');
const ORACLES: Record<string, string> = {
  IVEA7H: 'ivea7h_points.jsonl',
  ISEA7H: 'isea7h_points.jsonl',
  IVEA3H: 'ivea3h_points.jsonl',
  ISEA3H: 'isea3h_points.jsonl',
  IVEA7H_Z7: 'more/ivea7h_z7_points.jsonl',
  ISEA7H_Z7: 'more/isea7h_z7_points.jsonl',
};

const ubjson = (bytes: Buffer): Json => decodeUbjson(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);

describe('zone encodings of other DGGS servers and clients', function () {
  this.timeout(120_000);
  let s: TestServer;
  let grids: GridRegistry;

  before(async () => {
    s = await startTestServer();
    grids = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
  });
  after(() => s?.close());

  async function get(p: string, accept?: string): Promise<{ status: number; type: string; bytes: Buffer; headers: Headers }> {
    const r = await s.get(p, accept ? { accept } : {});
    return { status: r.status, type: r.headers.get('content-type') ?? '', bytes: Buffer.from(await r.arrayBuffer()), headers: r.headers };
  }
  const ids64 = (bytes: Buffer): bigint[] => {
    const n = Number(bytes.readBigUInt64LE(0));
    expect(bytes.length).to.equal(8 * (n + 1));
    return Array.from({ length: n }, (_, i) => bytes.readBigUInt64LE(8 * (i + 1)));
  };

  describe('application/x-binary zone lists (64-bit ids, little-endian)', () => {
    for (const [id, file] of Object.entries(ORACLES)) {
      it(`${id}: the ids are DGGAL's 64-bit ids of the listed zones`, async () => {
        const records = readFileSync(path.join(ORACLE, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json).filter((r) => r.parents.length > 0);
        const sample = records.filter((_, i) => i % 25 === 0);
        expect(sample.length).to.be.greaterThan(20);
        for (const r of sample) {
          const q = `/dggs/${id}/zones?parent-zone=${encodeURIComponent(r.parents[0])}&zone-level=1&limit=1000`;
          const zones: string[] = JSON.parse((await get(q, 'application/json')).bytes.toString()).zones;
          const bin = await get(`${q}&f=uint64`);
          expect(bin.status).to.equal(200);
          expect(bin.type).to.equal('application/x-binary');
          const ids = ids64(bin.bytes);
          expect(ids).to.have.length(zones.length);
          expect(ids[zones.indexOf(r.zone)], `${id} ${r.zone}`).to.equal(BigInt(r.zone_int64_hex));
        }
      });
    }

    it('H3: the ids are the H3 indexes; pages carry their own count and a Link to the next page', async () => {
      const q = '/dggs/H3/zones?zone-level=3&bbox=5,44,16,48&limit=7';
      let url: string | undefined = `${q}&f=uint64`;
      const all: bigint[] = [];
      const want: string[] = [];
      for (let offset = 0; url; offset += 7) {
        const r = await get(url);
        expect(r.status).to.equal(200);
        const page = ids64(r.bytes);
        expect(page.length).to.be.at.most(7);
        all.push(...page);
        want.push(...JSON.parse((await get(`${q}&offset=${offset}`, 'application/json')).bytes.toString()).zones);
        const next = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '');
        url = next ? next[1]!.replace(s.base, '') : undefined;
      }
      expect(all.length).to.be.greaterThan(7);
      expect(all.map((v) => v.toString(16).padStart(15, '0'))).to.deep.equal(want);
      expect(String(all.length)).to.equal((await get(`${q}&f=uint64`)).headers.get('ogc-zones-total'));
    });
  });

  describe('DGGS-UBJSON', () => {
    it('decodes (independent decoder) to the DGGS-JSON of the same request, over many values and every field', async () => {
      const zone = grids.get('IVEA7H')!.zoneFromPoint(9.5, 46.5, 3);
      for (const p of [`/collections/demo-elevation/dggs/IVEA7H/zones/${zone}/data?zone-depth=0-4`, '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=0,3&cog-stat=count,mean,max']) {
        const json = JSON.parse((await get(`${p}&f=dggs+json`)).bytes.toString());
        const r = await get(`${p}&f=dggs+ubjson`);
        expect(r.status).to.equal(200);
        expect(r.type).to.equal('application/vnd.ogc.dggs+ubjson');
        const doc = ubjson(r.bytes);
        // The same document but for the self/alternate roles of its format links.
        const { links: l1, ...a } = doc;
        const { links: l2, ...b } = json;
        expect(a).to.deep.equal(b);
        expect(l1.map((l: Json) => l.href).sort()).to.deep.equal(l2.map((l: Json) => l.href).sort());
        expect(l1.find((l: Json) => l.rel === 'self').type).to.equal('application/vnd.ogc.dggs+ubjson');
        expect(r.bytes.length).to.be.below(Buffer.byteLength(JSON.stringify(json)));
      }
    });

    it('is offered in the API document and in the format links', async () => {
      const api = JSON.parse((await get('/api/openapi.json')).bytes.toString());
      const data = api.paths['/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data'].get.responses['200'].content;
      expect(data).to.include.keys('application/vnd.ogc.dggs+ubjson', 'application/ubjson');
      expect(data['application/ubjson'].schema).to.deep.include({ type: 'string', format: 'binary' });
      const zones = api.paths['/dggs/{dggrs_id}/zones'].get;
      expect(zones.responses['200'].content).to.include.keys('application/x-binary');
      expect(zones.parameters.map((x: Json) => x.name)).to.include.members(['bbox-crs', 'subset', 'subset-crs', 'datetime']);
      expect(api.paths['/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}/data'].get.parameters.map((x: Json) => x.name)).to.include.members(['profile', 'subset']);
    });
  });

  describe('DGGS-JSON-FG', () => {
    const zone = 'E2-2A-A';
    const when = 'datetime=2024-01-05T00:00:00Z/2024-01-06T00:00:00Z';

    it('places every row of the zone in the sub-zone whose DGGS-JSON count it adds to', async () => {
      const depth = 2;
      const fc = JSON.parse((await get(`/collections/demo-stations/dggs/IVEA7H/zones/${zone}/data?zone-depth=${depth}&${when}&profile=jsonfg-dggs&f=geo+json`)).bytes.toString());
      const counts = JSON.parse((await get(`/collections/demo-stations/dggs/IVEA7H/zones/${zone}/data?zone-depth=${depth}&${when}&properties=temperature&cog-stat=count`)).bytes.toString()).values.temperature_count[0].data as (number | null)[];
      const placed = new Array<number>(counts.length).fill(0);
      for (const f of fc.features) placed[f.dggsPlace.coordinates - 1]! += 1;
      expect(fc.features.length).to.be.greaterThan(10);
      expect(placed).to.deep.equal(counts.map((c) => c ?? 0));
    });

    it('names sub-zones by id with -zoneids, carries the CRS84 geometry with -plus, selects properties, filters', async () => {
      const base = `/collections/demo-stations/dggs/IVEA7H/zones/${zone}/data?zone-depth=3&${when}`;
      const ids = JSON.parse((await get(`${base}&profile=jsonfg-dggs-zoneids-plus&properties=temperature&filter=${encodeURIComponent('temperature < 0')}`, 'application/geo+json')).bytes.toString());
      const grid = grids.get('IVEA7H')!;
      expect(ids.features).to.not.be.empty;
      for (const f of ids.features) {
        expect(Object.keys(f.properties)).to.deep.equal(['temperature']);
        expect(f.properties.temperature).to.be.below(0);
        expect(f.dggsPlace.coordinates).to.equal(grid.zoneFromPoint(f.geometry.coordinates[0], f.geometry.coordinates[1], grid.zoneLevel(zone) + 3));
      }
    });

    it('refuses what it cannot give: rasters (406), several depths (400), another format (400), too deep (422)', async () => {
      const r = await get('/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?profile=jsonfg-dggs');
      expect(r.status).to.equal(406);
      expect(JSON.parse(r.bytes.toString()).hint).to.contain('parquet-lake');
      const base = `/collections/demo-stations/dggs/IVEA7H/zones/${zone}/data`;
      expect((await get(`${base}?profile=jsonfg-dggs&zone-depth=1,2`)).status).to.equal(400);
      expect((await get(`${base}?profile=jsonfg-dggs&f=parquet`)).status).to.equal(400);
      expect((await get(`${base}?profile=jsonfg-dggs&zone-depth=9`)).status).to.equal(422);
      expect((await get(`${base}?profile=nope`)).status).to.equal(422);
    });
  });
});
