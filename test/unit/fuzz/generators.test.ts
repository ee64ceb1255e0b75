import { expect } from 'chai';
import fc from 'fast-check';
import { parseCql2Json, parseCql2Text } from '../../../src/domain/cql2/index.js';
import { encode, filterArb, predicateArb, zigzagPolygon, type FilterScope } from '../../../scripts/fuzz/cql2.js';
import { crossBodyArb, crossMutations } from '../../../scripts/fuzz/cross-collection.js';
import type { FuzzRequest } from '../../../scripts/fuzz/http-client.js';
import { traitsOf } from '../../../scripts/fuzz/request-traits.js';
import type { CollectionSeed, Seeds } from '../../../scripts/fuzz/seeds.js';

/** The fuzzer's generators: CQL2 filters, cross-collection bodies, and what the summary counts. */
const stations: FilterScope = {
  queryables: [
    { name: 'station_id', kind: 'string' },
    { name: 'temperature', kind: 'number' },
    { name: 'datetime', kind: 'datetime' },
    { name: 'geometry', kind: 'geometry' },
  ],
  bbox: [-10, 35, 30, 60],
  interval: ['2024-01-01T00:00:00Z', '2024-01-31T23:00:00Z'],
  samples: [{ station_id: 'ST0042' }],
};

const collection = (id: string, zoneDataFields: string[], rowFilter: boolean): CollectionSeed => ({
  id, grids: ['IVEA7H'], zones: {}, fields: zoneDataFields, queryables: zoneDataFields.map((name) => ({ name, kind: 'number' })),
  zoneDataFields, rowFilter, bbox: [5, 44, 16, 48], samples: [], hasItems: rowFilter, sourceFiles: [],
});
const seeds: Seeds = {
  token: 't', grids: [], concepts: [], orders: [], crossZones: [],
  collections: [collection('lake', ['temperature', 'humidity'], true), collection('raster', ['elevation'], false), collection('empty', [], false)],
};

describe('fuzz generators: CQL2 filters', () => {
  const drawn = fc.sample(filterArb(stations), { seed: 20, numRuns: 1500 });

  it('are the same filter in both encodings, and mostly well-formed', () => {
    const tryParse = (parse: (t: string) => unknown, text: string) => {
      try {
        return parse(text);
      } catch {
        return undefined;
      }
    };
    let both = 0;
    const predicates = fc.sample(predicateArb(stations), { seed: 21, numRuns: 600 });
    for (const p of predicates) {
      const text = tryParse(parseCql2Text, encode(p, 'cql2-text').text);
      const json = tryParse(parseCql2Json, encode(p, 'cql2-json').text);
      if (text && json) {
        both++;
        expect(json, p.label).to.deep.equal(text);
      }
    }
    // Hostile literals are meant to be refused: NaN, Infinity, lists, nesting and LIKE patterns past
    // the bounds, coordinates outside CRS84 (1e19 once gave a 500), and a text string ending in a backslash (\' is an
    // escaped quote in cql2.bnf). About a fifth of this seed's filters are such; most are not.
    expect(both / predicates.length, 'share of filters both parsers take').to.be.greaterThan(0.75);
  });

  it('reach every hostile filter shape: backtracking LIKE, zig-zag polygons, coordinates past 2^63', () => {
    const labels = drawn.map((f) => f.label);
    const has = (what: string, test: (l: string) => boolean) => expect(labels.some(test), what).to.equal(true);
    has("backtracking LIKE: 'a'xN LIKE '%a' x10+ '%b'", (l) => /like \w+ 'a'x\d+ ~ %a x(1\d|[2-9]\d) %b/.test(l));
    has('zig-zag polygon of 600+ vertices', (l) => /zig-zag polygon ([6-9]\d\d|\d{4,}) vertices/.test(l));
    has('coordinate at or past 2^63', (l) => /(bbox 0, 0 to|point) (9223372036854776000|10000000000000000000|18446744073709552000)/.test(l));
    has('temporal predicate', (l) => /^t_/.test(l));
    has('deep nesting', (l) => /^nested (not|and-or) x[2-3]\d/.test(l));
    has('long chain', (l) => /^(and|or) of \d{3} terms/.test(l));
    has('regular-expression syntax in a pattern', (l) => l.includes('regexp syntax'));
  });

  it('are deterministic for a seed', () => {
    expect(fc.sample(filterArb(stations), { seed: 20, numRuns: 50 })).to.deep.equal(drawn.slice(0, 50));
  });

  it('zig-zag polygons: the vertices asked, a closed ring inside the box', () => {
    const g = zigzagPolygon([5, 44, 16, 48], 701);
    expect(g.type).to.equal('Polygon');
    const ring = (g as { coordinates: number[][][] }).coordinates[0]!;
    expect(ring.length).to.equal(701);
    expect(ring[0]).to.deep.equal(ring.at(-1));
    for (const [x, y] of ring) expect(x! >= 5 && x! <= 16 && y! >= 44 && y! <= 48, `${x} ${y}`).to.equal(true);
  });
});

describe('fuzz generators: cross-collection bodies', () => {
  it('valid bodies name collections with zone-data fields, their fields, distinct prefixes, filters only where rows are', () => {
    for (const { body } of fc.sample(crossBodyArb(seeds), { seed: 3, numRuns: 300 })) {
      expect(body.collections.length).to.be.within(1, 4);
      const prefixes = body.collections.map((s) => s.alias ?? s.id);
      expect(new Set(prefixes).size, JSON.stringify(body)).to.equal(prefixes.length);
      for (const s of body.collections) {
        const c = seeds.collections.find((x) => x.id === s.id)!;
        expect(c.zoneDataFields).to.include.members(s.fields);
        expect(s.fields.length).to.be.greaterThan(0);
        if (s.filter !== undefined) expect(c.rowFilter, `filter on ${s.id}`).to.equal(true);
      }
    }
  });

  it('with a hostile filter, the first selection is a filtered row-based collection', () => {
    const hostile = () => fc.constant({ lang: 'cql2-text' as const, text: "'aaa' LIKE '%a%b'", label: 'x' });
    for (const { body } of fc.sample(crossBodyArb(seeds, hostile), { seed: 4, numRuns: 50 })) {
      expect(body.collections[0]).to.include({ id: 'lake', filter: "'aaa' LIKE '%a%b'" });
    }
  });

  it('every mistake changes the body', () => {
    const [{ body }] = fc.sample(crossBodyArb(seeds), { seed: 5, numRuns: 1 });
    for (const m of crossMutations(seeds)) expect(JSON.stringify(m.apply(body!)), m.note).to.not.equal(JSON.stringify(body));
  });
});

describe('fuzz summary: what a request carries', () => {
  const post = (body: unknown, path = '/dggs/IVEA7H/zones/D4-6-F/data'): FuzzRequest => ({ method: 'POST', path, headers: [], body: Buffer.from(JSON.stringify(body)) });

  it('a filter parameter, a filtered selection, a cross-collection body', () => {
    expect(traitsOf({ method: 'GET', path: '/collections/x/items?limit=1&filter=a%20%3E%201', headers: [] })).to.deep.equal({ filtered: true, crossCollection: false });
    expect(traitsOf({ method: 'GET', path: '/collections/x/items?filter=', headers: [] })).to.deep.equal({ filtered: false, crossCollection: false });
    expect(traitsOf(post({ collections: [{ id: 'a', fields: ['b'] }] }))).to.deep.equal({ filtered: false, crossCollection: true });
    expect(traitsOf(post({ collections: [{ id: 'a', fields: ['b'], filter: null }, { id: 'c', fields: ['d'], filter: { op: '>', args: [] } }] }))).to.deep.equal({ filtered: true, crossCollection: true });
    expect(traitsOf(post({ collections: [{ id: 'a' }] }, '/orders'))).to.deep.equal({ filtered: false, crossCollection: false });
    expect(traitsOf({ ...post({}), body: Buffer.from('{not json') })).to.deep.equal({ filtered: false, crossCollection: false });
  });
});
