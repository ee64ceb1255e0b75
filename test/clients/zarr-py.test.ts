/**
 * Zipped Zarr 2 zone data read by the Python Zarr 2 library and xarray (Debian python3-zarr,
 * python3-xarray): `zarr.open(zarr.ZipStore(path))` opens the hierarchy, `xarray.open_zarr(...,
 * group='depth_<d>')` each depth's dataset; values equal the DGGS-JSON of the same request. Fails
 * when python3, zarr or xarray is missing.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requirePython, runPython } from './python.js';
import { startTestServer, type TestServer } from '../support/test-server.js';


/** Prints, as JSON, each depth's coordinate and field values as xarray reads them, and the root's attributes as zarr does. */
const READ = `
import json, math, sys, zarr, xarray
path, depths = sys.argv[1], [int(d) for d in sys.argv[2].split(',')]
root = zarr.open(zarr.ZipStore(path, mode='r'), mode='r')
out = {'attrs': dict(root.attrs), 'groups': sorted(root.group_keys()), 'depths': {}}
clean = lambda v: None if isinstance(v, float) and math.isnan(v) else v
for d in depths:
    ds = xarray.open_zarr(zarr.ZipStore(path, mode='r'), group='depth_%d' % d, consolidated=False)
    out['depths'][str(d)] = {
        'dims': list(ds.sizes),
        'zone': [z if isinstance(z, str) else int(z) for z in ds['zone'].values.tolist()],
        'zone_attrs': {k: v for k, v in ds['zone'].attrs.items()},
        'chunks': {name: [list(c) for c in ds[name].chunks] for name in ds.data_vars},
        'values': {name: [clean(v) for v in ds[name].values.tolist()] for name in ds.data_vars if name != 'zone_uint64'},
    }
print(json.dumps(out))
`;

describe('zipped Zarr 2 through Python zarr and xarray', function () {
  this.timeout(120_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'zarr-py-'));

  before(async () => {
    await requirePython('import zarr, xarray; assert zarr.__version__.startswith("2."), zarr.__version__', 'python3-zarr python3-xarray');
    s = await startTestServer();
  });
  after(() => s?.close());

  const cases = [
    '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1,2',
    '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1,2&datetime=2024-01-05T00:00:00Z/2024-01-06T00:00:00Z',
  ];
  for (const p of cases) {
    for (const profile of ['zarr2-dggs', 'zarr2-dggs-zoneids']) {
      it(`${profile}: reads ${p} as the DGGS-JSON of the same request`, async () => {
        const file = path.join(dir, `${Math.random().toString(36).slice(2)}.zarr.zip`);
        writeFileSync(file, Buffer.from(await (await s.get(`${p}&f=zarr&profile=${profile}`)).arrayBuffer()));
        const json = (await (await s.get(`${p}&f=json`)).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
        const { stdout } = await runPython(['-c', READ, file, json.depths.join(',')]);
        const read = JSON.parse(stdout);
        expect(read.attrs).to.include({ profile: `https://www.opengis.net/def/profile/ogc/0/${profile}`, zone_id: json.zoneId });
        expect(read.groups).to.deep.equal(json.depths.map((d: number) => `depth_${d}`));
        for (const [k, depth] of (json.depths as number[]).entries()) {
          const got = read.depths[String(depth)];
          const ids: string[] = json.zones[k].zoneIds;
          expect(got.dims).to.deep.equal(['zone']);
          expect(got.zone).to.deep.equal(profile === 'zarr2-dggs' ? ids.map((_, i) => i + 1) : ids);
          expect(got.zone_attrs).to.include({ grid_name: 'IVEA7H', indexing: profile === 'zarr2-dggs' ? 'local-subzone-order' : 'zone-id' });
          for (const chunks of Object.values(got.chunks)) expect(chunks).to.deep.equal([[ids.length]]);
          expect(Object.keys(got.values)).to.have.members(Object.keys(json.values));
          for (const field of Object.keys(json.values)) expect(got.values[field], `${depth} ${field}`).to.deep.equal(json.values[field][k].data);
        }
      });
    }
  }
});
