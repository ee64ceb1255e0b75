/**
 * netCDF-3 zone data opened by xarray and netCDF4-python, and CoverageJSON zone data validated by
 * python jsonschema against the CoverageJSON schema (test/fixtures/covjson): the variables, global
 * attributes and values they see are the DGGS-JSON of the same request. Needs /usr/bin/python3 with
 * netCDF4, xarray and jsonschema (Debian: python3-netcdf4 python3-xarray python3-jsonschema); fails
 * when one is missing.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requirePython, runPython } from './python.js';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';

const SCHEMA = path.join(REPO_ROOT, 'test/fixtures/covjson/schema.json');

/** Prints what xarray and netCDF4 read of a file, as JSON (NaN as null). */
const READ_NETCDF = `
import json, sys, math
import xarray, netCDF4
path = sys.argv[1]
ds = xarray.open_dataset(path)
def num(v):
    v = float(v)
    return None if math.isnan(v) else v
out = {
    "attrs": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in ds.attrs.items()},
    "dims": {k: int(v) for k, v in ds.sizes.items()},
    "coords": {k: [x.item() if hasattr(x, "item") else x for x in ds[k].values] for k in ds.coords},
    "vars": {k: {"dims": list(ds[k].dims), "values": [num(x) for x in ds[k].values], "attrs": {a: str(b) for a, b in ds[k].attrs.items()}} for k in ds.data_vars},
}
nc = netCDF4.Dataset(path)
out["format"] = nc.data_model
out["netcdf4_profile"] = nc.getncattr("profile")
print(json.dumps(out))
`;

const VALIDATE_COVJSON = `
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]
print(json.dumps(errors[:5]))
`;

interface DggsJson {
  zoneId: string;
  depths: number[];
  values: Record<string, { depth: number; data: (number | null)[] }[]>;
  zones: { depth: number; zoneIds: string[] }[];
}

const CASES = [
  '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1,2',
  '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1,2&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z',
];

describe('netCDF-3 through xarray and netCDF4, CoverageJSON through jsonschema', function () {
  this.timeout(120_000);
  let s: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'netcdf-covjson-py-'));

  before(async () => {
    await requirePython('import netCDF4, xarray, jsonschema', 'python3-netcdf4 python3-xarray python3-jsonschema');
    expect(existsSync(SCHEMA), SCHEMA).to.equal(true);
    s = await startTestServer();
  });
  after(() => s?.close());

  async function download(p: string): Promise<string> {
    const res = await s.get(p);
    expect(res.status).to.equal(200);
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.${p.includes('f=netcdf') ? 'nc' : 'covjson'}`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  for (const p of CASES) {
    for (const profile of ['netcdf3-dggs', 'netcdf3-dggs-zoneids']) {
      it(`xarray.open_dataset reads ${profile} ${p} as the DGGS-JSON of the same request`, async () => {
        const ref = (await (await s.get(`${p}&f=json`)).json()) as DggsJson;
        const file = await download(`${p}&f=netcdf&profile=${profile}`);
        const { stdout } = await runPython(['-c', READ_NETCDF, file]);
        const ds = JSON.parse(stdout);
        expect(ds.format).to.equal('NETCDF3_CLASSIC');
        expect(ds.netcdf4_profile).to.equal(`https://www.opengis.net/def/profile/ogc/0/${profile}`);
        expect(ds.attrs).to.include({ profile: `https://www.opengis.net/def/profile/ogc/0/${profile}`, dggrs: 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA7H', zone_id: ref.zoneId });
        expect([ds.attrs.zone_depths].flat()).to.deep.equal(ref.depths);
        const fields = Object.keys(ref.values);
        expect(Object.keys(ds.vars).sort()).to.deep.equal(ref.depths.flatMap((d) => fields.map((f) => `${f}_d${d}`)).sort());
        for (const [k, depth] of ref.depths.entries()) {
          const ids = ref.zones[k]!.zoneIds;
          // xarray decodes the char array of the ids (with _Encoding utf-8) into strings: the index of the dimension.
          expect(ds.coords[`zone_d${depth}`]).to.deep.equal(profile === 'netcdf3-dggs' ? ids.map((_, i) => i + 1) : ids);
          expect(ds.dims[`zone_d${depth}`]).to.equal(ids.length);
          for (const f of fields) {
            const v = ds.vars[`${f}_d${depth}`];
            expect(v.dims).to.deep.equal([`zone_d${depth}`]);
            // _FillValue NaN is masked: xarray gives NaN, printed null, where DGGS-JSON has null.
            expect(v.values).to.deep.equal(ref.values[f]![k]!.data);
          }
        }
      });
    }
    for (const profile of ['covjson-dggs', 'covjson-dggs-zoneids']) {
      it(`jsonschema validates ${profile} ${p} against the CoverageJSON schema`, async () => {
        const file = await download(`${p}&f=covjson&profile=${profile}`);
        const { stdout } = await runPython(['-c', VALIDATE_COVJSON, SCHEMA, file]);
        expect(JSON.parse(stdout)).to.deep.equal([]);
      });
    }
  }
});
