/**
 * Cross-collection zone-data bodies (`{collections: [{id, fields, alias?, filter?}]}`) from the
 * live collections: valid ones (each selection names a collection with zone data and some of its
 * zone-data fields, a collection chosen twice gets distinct aliases, filters only on row-based
 * collections), and the ways one can be wrong, applied to a valid one.
 */
import fc from 'fast-check';
import { benignPredicateArb, encode, type Filter, type FilterScope } from './cql2.js';
import type { CollectionSeed, Seeds } from './seeds.js';

export interface Selection {
  id: string;
  fields: string[];
  alias?: string | null;
  filter?: unknown;
}

export interface CrossBody {
  collections: Selection[];
}

export const scopeOf = (c: CollectionSeed): FilterScope => ({ queryables: c.queryables, bbox: c.bbox, interval: c.interval, samples: c.samples });

/** Collections a selection can name: those whose zone data has fields. */
export const joinable = (seeds: Seeds) => seeds.collections.filter((c) => c.zoneDataFields.length > 0);

/** A filter as a body carries it: CQL2-Text as a string, CQL2-JSON as an object. */
export const bodyFilter = (f: Filter): unknown => (f.lang === 'cql2-json' ? f.json : f.text);

function selectionArb(c: CollectionSeed, filter: fc.Arbitrary<Filter | undefined>): fc.Arbitrary<{ sel: Selection; label: string }> {
  return fc.tuple(fc.subarray(c.zoneDataFields, { minLength: 1 }), c.rowFilter ? filter : fc.constant(undefined)).map(([fields, f]) => ({
    sel: { id: c.id, fields, ...(f ? { filter: bodyFilter(f) } : {}) },
    label: `${c.id}[${fields.join(',')}]${f ? ` filter ${f.lang} ${f.label}` : ''}`,
  }));
}

/** Distinct aliases wherever a collection is selected more than once (else the prefixes collide: 422); sometimes on all. */
function withAliases(sels: Selection[], all: boolean): Selection[] {
  const counts = new Map<string, number>();
  for (const s of sels) counts.set(s.id, (counts.get(s.id) ?? 0) + 1);
  return sels.map((s, i) => (all || counts.get(s.id)! > 1 ? { ...s, alias: `s${i}` } : s));
}

/**
 * A valid body: 1-4 selections, row-based ones with an ordinary filter now and then. With
 * `hostile`, the first selection is a row-based collection filtered by a filter drawn from it.
 */
export function crossBodyArb(seeds: Seeds, hostile?: (scope: FilterScope) => fc.Arbitrary<Filter>): fc.Arbitrary<{ body: CrossBody; label: string }> {
  const cs = joinable(seeds);
  if (!cs.length) return fc.constant({ body: { collections: [{ id: 'none', fields: ['x'] }] }, label: 'no collection with zone-data fields' });
  const benign = (c: CollectionSeed) =>
    fc.option(
      fc.tuple(benignPredicateArb(scopeOf(c)), fc.constantFrom<Filter['lang']>('cql2-text', 'cql2-json')).map(([p, lang]) => encode(p, lang)),
      { freq: 2, nil: undefined },
    );
  const rest = fc.array(fc.constantFrom(...cs).chain((c) => selectionArb(c, benign(c))), { minLength: hostile ? 0 : 1, maxLength: hostile ? 2 : 4 });
  const rowBased = cs.filter((c) => c.rowFilter);
  const first = hostile && rowBased.length ? fc.constantFrom(...rowBased).chain((c) => selectionArb(c, hostile(scopeOf(c)))).map((s) => [s]) : fc.constant([]);
  return fc.tuple(first, rest, fc.boolean()).map(([a, b, aliasAll]) => {
    const picked = [...a, ...b];
    return { body: { collections: withAliases(picked.map((p) => p.sel), aliasAll) }, label: picked.map((p) => p.label).join(' + ') };
  });
}

const withFirst = (b: CrossBody, f: (s: Selection) => unknown) => ({ ...b, collections: [f(b.collections[0]!), ...b.collections.slice(1)] });

/** Ways a body can be wrong (or right at a bound), each applied to a valid body. */
export function crossMutations(seeds: Seeds): { note: string; apply: (b: CrossBody) => unknown }[] {
  const cs = joinable(seeds);
  const raster = cs.find((c) => !c.rowFilter);
  const rowBased = cs.find((c) => c.rowFilter);
  const valid = (c: CollectionSeed, i: number): Selection => ({ id: c.id, fields: c.zoneDataFields.slice(0, 1), alias: `a${i}` });
  const many = (n: number) => ({ collections: Array.from({ length: n }, (_, i) => valid(cs[i % cs.length]!, i)) });
  return [
    { note: 'the same collection twice without aliases', apply: (b) => ({ collections: [{ ...b.collections[0]!, alias: undefined }, { ...b.collections[0]!, alias: undefined }] }) },
    { note: 'an alias equal to another selection id', apply: (b) => ({ collections: [{ ...b.collections[0]!, alias: undefined }, { ...valid(cs[0]!, 1), alias: b.collections[0]!.id }] }) },
    { note: 'unknown field', apply: (b) => withFirst(b, (s) => ({ ...s, fields: [...s.fields, 'no_such_field'] })) },
    { note: 'a field twice', apply: (b) => withFirst(b, (s) => ({ ...s, fields: [s.fields[0], s.fields[0]] })) },
    { note: 'no fields', apply: (b) => withFirst(b, (s) => ({ ...s, fields: [] })) },
    { note: '65 fields', apply: (b) => withFirst(b, (s) => ({ ...s, fields: Array.from({ length: 65 }, (_, i) => `${s.fields[0]}${i}`) })) },
    { note: 'fields a string', apply: (b) => withFirst(b, (s) => ({ ...s, fields: s.fields[0] })) },
    { note: 'field an empty string', apply: (b) => withFirst(b, (s) => ({ ...s, fields: [''] })) },
    { note: '16 selections (the bound)', apply: () => many(16) },
    { note: '17 selections', apply: () => many(17) },
    { note: 'no selections', apply: () => ({ collections: [] }) },
    { note: 'collections an object', apply: (b) => ({ collections: b.collections[0] }) },
    { note: 'a null selection', apply: (b) => ({ collections: [null, ...b.collections] }) },
    { note: 'unknown collection', apply: (b) => withFirst(b, (s) => ({ ...s, id: 'no-such-collection' })) },
    { note: 'collection id against its pattern', apply: (b) => withFirst(b, (s) => ({ ...s, id: `../${s.id}` })) },
    { note: 'collection id of 129 characters', apply: (b) => withFirst(b, (s) => ({ ...s, id: 'a'.repeat(129) })) },
    { note: 'alias against its pattern', apply: (b) => withFirst(b, (s) => ({ ...s, alias: '-x' })) },
    { note: 'alias with a double underscore', apply: (b) => withFirst(b, (s) => ({ ...s, alias: 'a__b' })) },
    { note: 'alias of 65 characters', apply: (b) => withFirst(b, (s) => ({ ...s, alias: 'a'.repeat(65) })) },
    { note: 'alias null', apply: (b) => withFirst(b, (s) => ({ ...s, alias: null })) },
    { note: 'filter null', apply: (b) => withFirst(b, (s) => ({ ...s, filter: null })) },
    { note: 'filter a number', apply: (b) => withFirst(b, (s) => ({ ...s, filter: 1 })) },
    { note: 'filter an empty string', apply: (b) => withFirst(b, (s) => ({ ...s, filter: '' })) },
    { note: 'filter not CQL2', apply: (b) => withFirst(b, (s) => ({ ...s, filter: 'javascript:alert(1)' })) },
    { note: 'filter JSON with an unknown op', apply: (b) => withFirst(b, (s) => ({ ...s, filter: { op: 'nope', args: [] } })) },
    { note: 'filter JSON without args', apply: (b) => withFirst(b, (s) => ({ ...s, filter: { op: 'and' } })) },
    { note: 'filter over 16,384 characters', apply: (b) => withFirst(b, (s) => ({ ...s, filter: `${`${s.fields[0]} > 0 AND `.repeat(1200)}${s.fields[0]} > 0` })) },
    { note: 'filter on a field of another collection', apply: (b) => withFirst(b, (s) => ({ ...s, filter: 'no_such_field > 0' })) },
    ...(raster ? [{ note: `filter on ${raster.id} (no rows)`, apply: (b: CrossBody) => ({ collections: [...b.collections, { ...valid(raster, 99), filter: `${raster.zoneDataFields[0]} > 0` }] }) }] : []),
    ...(rowBased ? [{ note: `spatial filter past int64 on ${rowBased.id}`, apply: (b: CrossBody) => ({ collections: [...b.collections, { ...valid(rowBased, 98), filter: 'S_INTERSECTS(geometry,BBOX(0,0,1e19,1e19))' }] }) }] : []),
    { note: 'extra member in a selection', apply: (b) => withFirst(b, (s) => ({ ...s, extra: 1 })) },
    { note: 'extra top-level member', apply: (b) => ({ ...b, zones: ['x'] }) },
    { note: '__proto__ in a selection', apply: (b) => JSON.parse(JSON.stringify(b).replace('{"id"', '{"__proto__":{"polluted":true},"id"')) as unknown },
  ];
}
