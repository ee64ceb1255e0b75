/**
 * Zone data as netCDF-3 and CoverageJSON (OGC 21-038r1 data-netcdf, data-coveragejson): the netCDF
 * file is read back with netcdfjs, the CoverageJSON document is validated by the CoverageJSON JSON
 * Schema and checked against the rules of CoverageJSON 1.0 (OGC 21-069r2) a schema cannot state; in both the values are those of the
 * DGGS-JSON of the same request, and the sub-zone axis is the DGGS-JSON's zone order (local indices
 * or the zone ids, by profile).
 */
import { expect } from 'chai';
import { NetCDFReader } from 'netcdfjs';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { coverageJsonValidator } from '../support/coveragejson-schema.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface DggsJson {
  zoneId: string;
  depths: number[];
  values: Record<string, { depth: number; data: (number | null)[] }[]>;
  zones: { depth: number; zoneIds: string[] }[];
}

const PROFILE = 'https://www.opengis.net/def/profile/ogc/0';
const IVEA7H_URI = 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA7H';
/** The requests compared: a raster over two depths, a lake with a time selection, and field selections. */
const CASES = [
  '/collections/demo-elevation/dggs/IVEA7H/zones/E4-120-A/data?zone-depth=1,2',
  '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1,2&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z',
  '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z&properties=temperature,humidity',
  '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1&exclude-properties=temperature',
];

/** NaN (netCDF's fill) as the null DGGS-JSON writes. */
const nulled = (values: number[]): (number | null)[] => values.map((v) => (Number.isNaN(v) ? null : v));

describe('zone data as netCDF-3 and CoverageJSON', function () {
  this.timeout(60_000);
  let s: TestServer;
  const validateCoverageJson = coverageJsonValidator();
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  async function dggsJson(p: string): Promise<DggsJson> {
    const r = await s.get(`${p}&f=json`);
    expect(r.status).to.equal(200);
    return (await r.json()) as DggsJson;
  }

  async function netcdf(p: string, profile?: string): Promise<{ nc: NetCDFReader; res: Response }> {
    const res = await s.get(`${p}&f=netcdf${profile ? `&profile=${profile}` : ''}`);
    expect(res.status, await res.clone().text().then((t) => t.slice(0, 300))).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/netcdf');
    return { nc: new NetCDFReader(Buffer.from(await res.arrayBuffer())), res };
  }

  const attr = (list: { name: string; value: unknown }[], name: string): unknown => list.find((a) => a.name === name)?.value;
  const variable = (nc: NetCDFReader, name: string) => {
    const v = nc.variables.find((x) => x.name === name);
    expect(v, `variable ${name}`).to.not.equal(undefined);
    return v!;
  };

  for (const p of CASES) {
    for (const profile of ['netcdf3-dggs', 'netcdf3-dggs-zoneids'] as const) {
      it(`netCDF ${profile}: ${p} holds the DGGS-JSON's values`, async () => {
        const ref = await dggsJson(p);
        const { nc, res } = await netcdf(p, profile === 'netcdf3-dggs' ? undefined : profile);
        expect(res.headers.get('link')).to.equal(`<${PROFILE}/${profile}>; rel="profile"`);
        expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="IVEA7H-${ref.zoneId}-data.nc"`);
        expect(nc.version).to.equal('classic format');
        const g = nc.globalAttributes;
        expect(attr(g, 'profile')).to.equal(`${PROFILE}/${profile}`);
        expect(attr(g, 'dggrs')).to.equal(IVEA7H_URI);
        expect(attr(g, 'zone_id')).to.equal(ref.zoneId);
        expect(attr(g, 'Conventions')).to.match(/^CF-1\.\d+$/);
        expect(String(attr(g, 'dggrs_link'))).to.match(/\/dggs\/IVEA7H$/);
        expect([attr(g, 'zone_depths')].flat()).to.deep.equal(ref.depths);
        if (p.includes('datetime')) expect(attr(g, 'time_coverage_start')).to.equal('2024-01-05T00:00:00Z');
        else expect(attr(g, 'time_coverage_start')).to.equal(undefined);

        const fields = Object.keys(ref.values);
        // One sub-zone dimension (and a string length one for the ids) per depth, nothing spatial or temporal.
        expect(nc.dimensions.map((d) => d.name)).to.deep.equal(ref.depths.flatMap((d) => (profile === 'netcdf3-dggs' ? [`zone_d${d}`] : [`zone_d${d}`, `zone_d${d}_strlen`])));
        expect(nc.variables.map((v) => v.name)).to.deep.equal(ref.depths.flatMap((d) => [`zone_d${d}`, ...fields.map((f) => `${f}_d${d}`)]));
        for (const [k, depth] of ref.depths.entries()) {
          const ids = ref.zones[k]!.zoneIds;
          const dim = nc.dimensions.findIndex((d) => d.name === `zone_d${depth}`);
          expect(nc.dimensions[dim]!.size).to.equal(ids.length);
          const coordinate = variable(nc, `zone_d${depth}`);
          expect(attr(coordinate.attributes, 'depth')).to.equal(depth);
          if (profile === 'netcdf3-dggs') {
            expect(coordinate.type).to.equal('int');
            expect(nc.getDataVariable(coordinate)).to.deep.equal(ids.map((_, i) => i + 1));
          } else {
            expect(coordinate.type).to.equal('char');
            const width = nc.dimensions[dim + 1]!.size;
            const chars = nc.getDataVariable(coordinate) as string[];
            const strings = ids.map((_, i) => chars.slice(i * width, (i + 1) * width).join(''));
            expect(strings).to.deep.equal(ids);
            expect(attr(coordinate.attributes, '_Encoding')).to.equal('utf-8');
          }
          for (const f of fields) {
            const v = variable(nc, `${f}_d${depth}`);
            expect(v.type).to.equal('double');
            expect(v.dimensions).to.deep.equal([dim]);
            expect(Number.isNaN(attr(v.attributes, '_FillValue'))).to.equal(true);
            expect(attr(v.attributes, 'coordinates')).to.equal(`zone_d${depth}`);
            expect(attr(v.attributes, 'long_name')).to.be.a('string').and.not.equal('');
            expect(attr(v.attributes, 'depth')).to.equal(depth);
            expect(nulled(nc.getDataVariable(v) as number[])).to.deep.equal(ref.values[f]![k]!.data);
          }
        }
        if (p.includes('demo-elevation')) expect(attr(variable(nc, `elevation_d${ref.depths[0]}`).attributes, 'units')).to.equal('m');
      });
    }
  }

  it('netCDF: the field selections change the variables', async () => {
    const { nc } = await netcdf(CASES[2]!);
    expect(nc.variables.map((v) => v.name)).to.deep.equal(['zone_d2', 'temperature_d2', 'humidity_d2']);
    const { nc: excluded } = await netcdf(CASES[3]!);
    expect(excluded.variables.map((v) => v.name)).to.not.include('temperature_d1');
    expect(excluded.variables.length).to.be.greaterThan(1);
  });

  it('netCDF: a value the source lacks is the NaN fill, a null in DGGS-JSON', async () => {
    const p = '/collections/demo-stations/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=3&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z';
    const ref = await dggsJson(p);
    expect(ref.values.temperature![0]!.data).to.include(null);
    const { nc } = await netcdf(p);
    expect(nulled(nc.getDataVariable('temperature_d3') as number[])).to.deep.equal(ref.values.temperature![0]!.data);
  });

  // A profile of another format is a 400 (formatPlan); a profile no encoding here writes is outside the
  // parameter's enum, an invalid value, which the service answers 422 as every invalid parameter value.
  for (const [f, bad] of [
    ['netcdf', 'covjson-dggs'],
    ['netcdf', 'jsonfg-dggs'],
    ['covjson', 'netcdf3-dggs'],
    ['covjson', 'netcdf3-dggs-zoneids'],
    ['json', 'netcdf3-dggs'],
  ] as const) {
    it(`f=${f}&profile=${bad} is a 400 naming the profiles offered`, async () => {
      const r = await s.get(`${CASES[0]}&f=${f}&profile=${bad}`);
      expect(r.status).to.equal(400);
      expect(JSON.stringify(await r.json())).to.include(`profile=${bad}`);
    });
  }

  for (const [f, bad] of [
    ['netcdf', 'netcdf4-dggs'],
    ['netcdf', 'netcdf3'],
    ['covjson', 'covjson'],
    ['netcdf', 'netcdf5'],
  ] as const) {
    it(`f=${f}&profile=${bad} (not offered: /per/data-*/supported-profiles) is refused as an invalid value`, async () => {
      const r = await s.get(`${CASES[0]}&f=${f}&profile=${bad}`);
      expect(r.status).to.equal(422);
      expect(JSON.stringify(await r.json())).to.include('profile');
    });
  }

  it('/conformance declares data-netcdf and data-coveragejson', async () => {
    const conformsTo = (await (await s.get('/conformance', { accept: 'application/json' })).json()).conformsTo as string[];
    expect(conformsTo).to.include.members(['https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-netcdf', 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-coveragejson']);
  });

  it('netCDF and CoverageJSON are negotiated by media type', async () => {
    for (const [accept, type] of [
      ['application/netcdf', 'application/netcdf'],
      ['application/x-netcdf', 'application/netcdf'],
      ['application/prs.coverage+json', 'application/prs.coverage+json'],
    ]) {
      const r = await s.get(CASES[0]!, { accept: accept! });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(new RegExp(`^${type!.replace(/[.+]/g, '\\$&')}`));
      await r.arrayBuffer();
    }
  });

  // --- CoverageJSON -------------------------------------------------------------------------------

  it('the CoverageJSON schema refuses a broken document (the validator is not a yes-sayer)', async () => {
    const doc = await (await s.get(`${CASES[1]}&f=covjson`)).json();
    expect(validateCoverageJson(doc)).to.equal(true);
    delete doc.coverages[0].domain.axes;
    expect(validateCoverageJson(doc)).to.equal(false);
  });

  /** The rules of CoverageJSON 1.0 (OGC 21-069r2) a Coverage of this encoding must meet, beyond its schema. */
  function checkCoverage(c: Json, parameters: Json, referencingRequired: boolean): void {
    expect(c.type).to.equal('Coverage');
    const domain = c.domain;
    expect(domain.type).to.equal('Domain');
    expect(Object.keys(domain.axes)).to.not.be.empty;
    if (referencingRequired) expect(domain.referencing).to.be.an('array').and.not.be.empty;
    for (const axis of Object.values<Json>(domain.axes)) {
      expect(axis.values).to.be.an('array').and.not.be.empty;
      expect(new Set(axis.values).size).to.equal(axis.values.length);
      if (axis.bounds) expect(axis.bounds).to.have.length(2 * axis.values.length);
    }
    // Every axis's coordinate is referenced once.
    const referenced = domain.referencing.flatMap((r: Json) => r.coordinates);
    expect([...referenced].sort()).to.deep.equal(Object.keys(domain.axes).sort());
    for (const r of domain.referencing) {
      expect(r.system.type).to.be.a('string');
      if (r.system.type === 'IdentifierRS') {
        expect(r.system.targetConcept.label).to.be.an('object');
        for (const coordinate of r.coordinates) for (const v of domain.axes[coordinate].values) expect(v).to.be.a('string');
      }
      if (r.system.type === 'TemporalRS') expect(r.system.calendar).to.equal('Gregorian');
    }
    for (const [name, p] of Object.entries<Json>(parameters)) {
      expect(p.type).to.equal('Parameter');
      expect(p.observedProperty.label.en).to.be.a('string');
      const range = c.ranges[name];
      expect(range, `range ${name}`).to.be.an('object');
      expect(range).to.include({ type: 'NdArray', dataType: 'float' });
      // Shape and axis names follow the domain's axes, single-valued ones (t) left out.
      expect(range.axisNames).to.deep.equal(['zone']);
      expect(range.shape).to.deep.equal([domain.axes.zone.values.length]);
      expect(range.values).to.have.length(range.shape[0]);
      for (const v of range.values) expect(v === null || typeof v === 'number').to.equal(true);
    }
    expect(Object.keys(c.ranges).sort()).to.deep.equal(Object.keys(parameters).sort());
  }

  for (const p of CASES) {
    for (const profile of ['covjson-dggs', 'covjson-dggs-zoneids'] as const) {
      it(`CoverageJSON ${profile}: ${p} holds the DGGS-JSON's values`, async () => {
        const ref = await dggsJson(p);
        const res = await s.get(`${p}&f=covjson${profile === 'covjson-dggs' ? '' : `&profile=${profile}`}`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/prs\.coverage\+json/);
        expect(res.headers.get('link')).to.equal(`<${PROFILE}/${profile}>; rel="profile"`);
        const doc = await res.json();
        expect(validateCoverageJson(doc), JSON.stringify(validateCoverageJson.errors?.slice(0, 3))).to.equal(true);
        // The metadata the requirement asks for: profile, parent zone, DGGRS (members and links).
        expect(doc).to.include({ profile: `${PROFILE}/${profile}`, dggrs: IVEA7H_URI, zoneId: ref.zoneId });
        expect(doc.depths).to.deep.equal(ref.depths);
        expect(doc.links.find((l: Json) => l.rel === 'profile').href).to.equal(`${PROFILE}/${profile}`);
        expect(doc.links.find((l: Json) => l.rel === 'https://www.opengis.net/def/rel/ogc/1.0/dggrs').href).to.match(/\/dggs\/IVEA7H$/);
        expect(Object.keys(doc.parameters)).to.deep.equal(Object.keys(ref.values));
        const coverages = ref.depths.length === 1 ? [doc] : doc.coverages;
        expect(doc.type).to.equal(ref.depths.length === 1 ? 'Coverage' : 'CoverageCollection');
        if (doc.type === 'CoverageCollection') expect(doc.domainType).to.equal(`${PROFILE}/${profile}`);
        expect(coverages).to.have.length(ref.depths.length);
        for (const [k, c] of coverages.entries()) {
          checkCoverage(c, doc.parameters, true);
          const ids = ref.zones[k]!.zoneIds;
          const axes = c.domain.axes;
          // One axis of sub-zones; time only as a single value.
          expect(Object.keys(axes)).to.deep.equal(p.includes('datetime') ? ['zone', 't'] : ['zone']);
          if (axes.t) expect(axes.t).to.deep.equal({ values: ['2024-01-05T00:00:00Z'], bounds: ['2024-01-05T00:00:00Z', '2024-01-05T03:00:00Z'] });
          const zoneRs = c.domain.referencing.find((r: Json) => r.coordinates.includes('zone')).system;
          expect(zoneRs.id).to.equal(IVEA7H_URI);
          if (profile === 'covjson-dggs') {
            expect(axes.zone.values).to.deep.equal(ids.map((_, i) => i + 1));
            expect(zoneRs).to.include({ type: `${PROFILE}/covjson-dggs`, zoneId: ref.zoneId, depth: ref.depths[k] });
          } else {
            expect(axes.zone.values).to.deep.equal(ids);
            expect(zoneRs.type).to.equal('IdentifierRS');
          }
          for (const f of Object.keys(ref.values)) expect(c.ranges[f].values).to.deep.equal(ref.values[f]![k]!.data);
        }
        if (p.includes('demo-elevation')) expect(doc.parameters.elevation.unit).to.deep.equal({ symbol: 'm' });
      });
    }
  }
});
