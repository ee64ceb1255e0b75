import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Collection } from '../../src/domain/collection.js';
import type { FeatureQuery, FeatureScanReport, FeatureSource, RemoteFeature } from '../../src/ports/feature-source.js';
import { FeaturesZoneDataSource } from '../../src/app/zone-data/features-zone-data-source.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import { parseDatetime } from '../../src/domain/time-interval.js';
import { remoteReads } from '../../src/domain/remote-reads.js';
import type { BBox } from '../../src/domain/dggrs/dggrs.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/remote');

export interface TruthFeature {
  geometry: { type: 'Point'; coordinates: [number, number] } | { type: 'Polygon'; coordinates: [number, number][][] };
  properties: Record<string, string | number | null>;
}

/** The fixture as written by test/fixtures/remote/make-fixture.ts: what every backend serves. */
export const TRUTH: Record<'stations' | 'parcels', TruthFeature[]> = {
  stations: (JSON.parse(readFileSync(path.join(FIXTURES, 'stations.geojson'), 'utf8')) as { features: TruthFeature[] }).features,
  parcels: (JSON.parse(readFileSync(path.join(FIXTURES, 'parcels.geojson'), 'utf8')) as { features: TruthFeature[] }).features,
};

export interface FeatureBackend {
  /** The collection config of a fixture layer on this backend. */
  collection(layer: 'stations' | 'parcels'): Collection;
  source: FeatureSource;
  /** Requests the backend received (path and query), to see what was pushed. */
  requests(): string[];
  /** The backend evaluates CQL2 itself (declares Part 3 filtering with the classes used below). */
  filters: boolean;
  /** The backend evaluates `datetime` itself (MapServer 8.0 ignores it). */
  honoursDatetime: boolean;
  /** Features per page the source asks for (the suite expects several pages). */
  pageSize: number;
}

const grid = GRID_FACTORIES.IVEA7H!();
/** A level-4 zone over most of the fixture (about 250 stations, 35 parcels). */
export const ZONE = 'E4-120-A';

async function scan(b: FeatureBackend, layer: 'stations' | 'parcels', q: FeatureQuery): Promise<{ features: RemoteFeature[]; report: FeatureScanReport }> {
  const features: RemoteFeature[] = [];
  const report = await b.source.scan(b.collection(layer), q, (page) => {
    features.push(...page);
  });
  return { features, report };
}

const key = (layer: 'stations' | 'parcels') => (layer === 'stations' ? 'station' : 'parcel');
const keys = (layer: 'stations' | 'parcels', fs: { properties: Record<string, unknown> }[]) => fs.map((f) => String(f.properties[key(layer)])).sort();
const inBox = ([x, y]: number[], [w, s, e, n]: number[]) => x! >= w! && x! <= e! && y! >= s! && y! <= n!;
const at = (s: string) => Date.parse(s);

/** Planar centroid of a polygon's outer ring (shoelace), written here independently of the service's code. */
function centroid(f: TruthFeature): [number, number] {
  if (f.geometry.type === 'Point') return f.geometry.coordinates;
  const r = f.geometry.coordinates[0]!;
  let a = 0, cx = 0, cy = 0;
  for (let i = 0; i + 1 < r.length; i++) {
    const [x0, y0] = r[i]!, [x1, y1] = r[i + 1]!;
    const cross = x0 * y1 - x1 * y0;
    a += cross;
    cx += (x0 + x1) * cross;
    cy += (y0 + y1) * cross;
  }
  return [cx / (3 * a), cy / (3 * a)];
}

/** count/valid/mean/min/max of `field` per sub-zone at `depth`, from the truth features. */
function expected(layer: 'stations' | 'parcels', field: string, depth: number, keep: (f: TruthFeature) => boolean = () => true) {
  const zones = grid.subZones(ZONE, depth);
  const level = grid.zoneLevel(ZONE) + depth;
  const values = new Map<string, (number | null)[]>(zones.map((z) => [z, []]));
  for (const f of TRUTH[layer].filter(keep)) {
    const [x, y] = centroid(f);
    values.get(grid.zoneFromPoint(x, y, level))?.push(f.properties[field] as number | null);
  }
  const stats = zones.map((z) => {
    const all = values.get(z)!;
    const valid = all.filter((v): v is number => typeof v === 'number');
    const mean = valid.length ? valid.reduce((s, v) => s + v, 0) / valid.length : null;
    return { count: all.length, valid: valid.length, mean, min: valid.length ? Math.min(...valid) : null, max: valid.length ? Math.max(...valid) : null };
  });
  return { zones, stats };
}

/**
 * What every FeatureSource must do against a real OGC API Features server serving the fixture
 * (test/fixtures/remote): answers equal to the fixture itself, whatever the server evaluates.
 */
export function featureSourceContract(name: string, make: () => Promise<FeatureBackend>, teardown: () => Promise<void>): void {
  describe(`FeatureSource contract: ${name}`, function () {
    this.timeout(120_000);
    let b: FeatureBackend;
    before(async () => {
      b = await make();
    });
    after(teardown);

    it('reads the queryables: numbers, integers, text, the temporal property, and config overrides on top', async () => {
      const fields = await b.source.fields(b.collection('stations'));
      expect(fields.temperature?.type).to.equal('number');
      expect(fields.elevation?.type).to.equal('integer');
      expect(fields.kind?.type).to.equal('string');
      expect(fields.observed?.format).to.equal('date-time');
      const overridden = b.collection('stations');
      if (overridden.backing.kind !== 'ogc-features') throw new Error('not ogc-features');
      overridden.backing.fields = { temperature: { title: 'Air temperature', type: 'number', svc_unit: 'degC' } };
      const withConfig = await b.source.fields(overridden);
      expect(withConfig.temperature).to.deep.equal({ title: 'Air temperature', type: 'number', svc_unit: 'degC' });
      expect(withConfig.elevation?.type).to.equal('integer');
    });

    it('reads every feature in a bbox through several pages, each once, exactly the fixture\'s', async () => {
      const bbox: [number, number, number, number] = [9.5, 44.5, 11.5, 46.5];
      const before = b.requests().length;
      const { features, report } = await scan(b, 'stations', { bbox });
      const truth = TRUTH.stations.filter((f) => inBox(f.geometry.coordinates as number[], bbox));
      expect(truth.length).to.be.greaterThan(2 * b.pageSize);
      expect(keys('stations', features)).to.deep.equal(keys('stations', truth));
      expect(report.pages).to.equal(Math.ceil(truth.length / b.pageSize));
      expect(report.pushed).to.include.members(['bbox', 'limit']);
      const sent = b.requests().slice(before).filter((r) => r.includes('/items'));
      expect(sent).to.have.length(report.pages);
      expect(sent.every((r) => new URL(r, 'http://x').searchParams.get('bbox') === bbox.join(','))).to.equal(true);
    });

    it('selects by datetime, whether the server evaluates it or not', async () => {
      const datetime = parseDatetime('2024-01-10T00:00:00Z/2024-01-15T00:00:00Z');
      const { features, report } = await scan(b, 'stations', { bbox: [9, 44, 12, 47], datetime });
      const truth = TRUTH.stations.filter((f) => at(f.properties.observed as string) >= datetime.start! && at(f.properties.observed as string) <= datetime.end!);
      expect(truth.length).to.be.within(50, 200);
      expect(keys('stations', features)).to.deep.equal(keys('stations', truth));
      expect(report.pushed).to.include('datetime');
      if (!b.honoursDatetime) expect(report.local).to.include('datetime');
    });

    it('filters with CQL2: pushed when the server can, evaluated here otherwise, same answer', async () => {
      const filter = parseCql2Text("temperature > 5 AND kind IN ('alpine', 'urban') AND NOT (elevation BETWEEN 1000 AND 1500)");
      const before = b.requests().length;
      const { features, report } = await scan(b, 'stations', { bbox: [9, 44, 12, 47], filter });
      const truth = TRUTH.stations.filter((f) => {
        const p = f.properties as { temperature: number | null; kind: string; elevation: number };
        return p.temperature !== null && p.temperature > 5 && ['alpine', 'urban'].includes(p.kind) && !(p.elevation >= 1000 && p.elevation <= 1500);
      });
      expect(truth.length).to.be.within(20, 300);
      expect(keys('stations', features)).to.deep.equal(keys('stations', truth));
      const sent = b.requests().slice(before).filter((r) => r.includes('/items'));
      if (b.filters) {
        expect(report.pushed).to.include('filter');
        expect(report.local).to.not.include('filter');
        expect(sent.every((r) => new URL(r, 'http://x').searchParams.has('filter'))).to.equal(true);
        // The server did the filtering: it sent no more than the matches.
        expect(report.received).to.equal(truth.length);
      } else {
        expect(report.pushed).to.not.include('filter');
        expect(report.local).to.include('filter');
        expect(sent.some((r) => new URL(r, 'http://x').searchParams.has('filter'))).to.equal(false);
        expect(report.received).to.be.greaterThan(truth.length);
      }
    });

    it('evaluates spatial and LIKE/CASEI terms locally or remotely with the same answer', async () => {
      const filter = parseCql2Text("S_INTERSECTS(geometry, POLYGON((10 45, 11.5 45, 11.5 46.5, 10 45))) AND CASEI(kind) LIKE CASEI('ALP%')");
      const { features } = await scan(b, 'stations', { bbox: [9, 44, 12, 47], filter });
      // Inside the triangle (10 45, 11.5 45, 11.5 46.5): y - 45 <= x - 10, x <= 11.5, y >= 45.
      const truth = TRUTH.stations.filter((f) => {
        const [x, y] = f.geometry.coordinates as number[];
        return f.properties.kind === 'alpine' && y! >= 45 && x! <= 11.5 && y! - 45 <= x! - 10 + 1e-12;
      });
      expect(truth.length).to.be.greaterThan(10);
      expect(keys('stations', features)).to.deep.equal(keys('stations', truth));
    });

    it('aggregates numeric properties per sub-zone by representative point, equal to an independent computation', async () => {
      const zd = new FeaturesZoneDataSource(b.source, () => 'source');
      for (const layer of ['stations', 'parcels'] as const) {
        const field = layer === 'stations' ? 'temperature' : 'yield';
        const data = await zd.zoneData(b.collection(layer), { grid, zoneId: ZONE, depths: [1, 2], fields: [field], options: { stats: ['count', 'valid', 'mean', 'min', 'max'] } });
        for (const d of data.depths) {
          const want = expected(layer, field, d.depth);
          expect(d.zones).to.deep.equal(want.zones);
          const total = want.stats.reduce((s, x) => s + x.count, 0);
          expect(total, `${layer} features in the zone`).to.be.greaterThan(layer === 'stations' ? 100 : 10);
          for (const stat of ['count', 'valid', 'mean', 'min', 'max'] as const) {
            const got = d.values[`${field}_${stat}`]!;
            want.stats.forEach((w, i) => {
              const v = w[stat];
              if (v === null) expect(got[i], `${layer} ${stat} ${d.zones[i]}`).to.equal(null);
              else expect(got[i], `${layer} ${stat} ${d.zones[i]}`).to.be.closeTo(v, 1e-9);
            });
          }
        }
      }
    });

    it('counts the pages and features of all the scans of one request in its reads', async () => {
      const reads = remoteReads();
      const first = await scan(b, 'stations', { bbox: [9.5, 44.5, 11.5, 46.5], reads });
      const second = await scan(b, 'stations', { bbox: [9, 44, 12, 47], filter: parseCql2Text('temperature > 5'), reads });
      expect(first.report.pages, 'several pages (else this shows little)').to.be.greaterThan(1);
      expect(reads).to.deep.equal({ pages: first.report.pages + second.report.pages, features: first.report.received + second.report.received });
    });

    it('stops reading when its signal aborts: the scan rejects with the reason, no further page is asked', async () => {
      const ctl = new AbortController();
      const before = b.requests().length;
      const reason = new Error('the client left');
      let pages = 0;
      const scanning = b.source.scan(b.collection('stations'), { bbox: [9, 44, 12, 47], signal: ctl.signal }, () => {
        if (++pages === 1) ctl.abort(reason);
      });
      const err = await scanning.then(() => undefined, (e: unknown) => e);
      expect(err).to.equal(reason);
      expect(pages).to.equal(1);
      expect(b.requests().slice(before).filter((r) => r.includes('/items'))).to.have.length(1);
    });

    describe('the zones holding a matching feature (zone query), as the fixture places them', () => {
      const filter = parseCql2Text("temperature > 5 AND kind IN ('alpine', 'urban')");
      const matches = (f: TruthFeature) => typeof f.properties.temperature === 'number' && f.properties.temperature > 5 && ['alpine', 'urban'].includes(f.properties.kind as string);
      const truthZones = (level: number) => new Set(TRUTH.stations.filter(matches).map((f) => grid.zoneFromPoint(...centroid(f), level)));
      /** Item requests since `before`, and the boxes they asked. */
      const itemBoxes = (before: number) => new Set(b.requests().slice(before).filter((r) => r.includes('/items')).map((r) => new URL(r, 'http://x').searchParams.get('bbox')));

      it('the sub-zones of a parent: one scan of their box', async () => {
        const zd = new FeaturesZoneDataSource(b.source, () => 'source');
        const level = grid.zoneLevel(ZONE) + 2;
        const before = b.requests().length;
        const found = await zd.zonesWithRows(b.collection('stations'), { grid, level, parent: { zoneId: ZONE, depth: 2 }, boxes: [], filter });
        const listed = grid.subZones(ZONE, 2);
        const want = listed.filter((z) => truthZones(level).has(z));
        expect(want.length, 'zones with a match (else this shows little)').to.be.within(5, listed.length - 1);
        expect(listed.filter((z) => found.has(z))).to.deep.equal(want);
        expect(itemBoxes(before).size, 'boxes scanned').to.equal(1);
      });

      it('the zones meeting a box', async () => {
        const zd = new FeaturesZoneDataSource(b.source, () => 'source');
        const level = grid.zoneLevel(ZONE) + 1;
        const box: BBox = [9.5, 44.5, 11.5, 46.5];
        const found = await zd.zonesWithRows(b.collection('stations'), { grid, level, boxes: [box], filter });
        const listed = grid.zonesInBBox(level, box);
        const want = listed.filter((z) => truthZones(level).has(z));
        expect(want.length, 'zones with a match (else this shows little)').to.be.within(3, listed.length - 1);
        expect(listed.filter((z) => found.has(z)).sort()).to.deep.equal(want.sort());
      });
    });

    it('aggregates only the features of a datetime window', async () => {
      const zd = new FeaturesZoneDataSource(b.source, () => 'source');
      const datetime = parseDatetime('2024-01-20T00:00:00Z/..');
      const data = await zd.zoneData(b.collection('stations'), { grid, zoneId: ZONE, depths: [1], fields: ['elevation'], datetime, options: {} });
      const want = expected('stations', 'elevation', 1, (f) => at(f.properties.observed as string) >= datetime.start!);
      want.stats.forEach((w, i) => {
        if (w.mean === null) expect(data.depths[0]!.values.elevation![i]).to.equal(null);
        else expect(data.depths[0]!.values.elevation![i]).to.be.closeTo(w.mean, 1e-9);
      });
      expect(Object.keys(await zd.fields(b.collection('stations')))).to.include.members(['temperature', 'elevation']).and.not.include('kind');
    });
  });
}
