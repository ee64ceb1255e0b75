/**
 * CQL2 filters for the fuzzer, from a collection's queryables and extent: comparisons, LIKE,
 * BETWEEN, IN, IS NULL, spatial and temporal predicates and their combinations, ordinary and
 * hostile. Hostile means what has held or crashed engines: LIKE patterns that make a backtracking
 * matcher exponential, regular-expression syntax inside a pattern, many-vertex polygons over the
 * extent, coordinates and numbers past int64 and double ranges, deep and long (but in-bound)
 * trees. Trees are the service's own CQL2 syntax tree, written out in both encodings by the
 * encoder it uses for remote backends, so the text and the JSON of one draw are the same filter.
 */
import fc from 'fast-check';
import { ARITHMETIC_OPS, COMPARISON_OPS, SPATIAL_OPS, TEMPORAL_OPS, type Expr, type Geometry, type Position } from '../../src/domain/cql2/ast.js';
import { toCql2Json, toCql2Text } from '../../src/domain/features/cql2-encode.js';
import type { Bbox, Queryable } from './seeds.js';

/** What a filter may name: the queryables of the collection it is sent to, its extent and a few of its rows. */
export interface FilterScope {
  queryables: Queryable[];
  bbox: Bbox;
  interval?: [string | null, string | null];
  samples: Record<string, unknown>[];
}

export interface Predicate {
  expr: Expr;
  /** What makes it interesting, for the report (`like backtracking 'a'x34 ~ %a x9 %b`). */
  label: string;
}

export interface Filter {
  lang: 'cql2-text' | 'cql2-json';
  /** The filter as sent: CQL2-Text, or CQL2-JSON as text. */
  text: string;
  /** The CQL2-JSON object (for request bodies, which take it unquoted). */
  json?: unknown;
  label: string;
}

const prop = (name: string): Expr => ({ kind: 'property', name });
const num = (value: number): Expr => ({ kind: 'number', value });
const str = (value: string): Expr => ({ kind: 'string', value });
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Numbers at and past the edges of the types an engine may turn a literal into: int64 (2^63 made
 * DuckDB answer 500), 2^53, the largest and smallest doubles, negative zero.
 */
export const EXTREME_NUMBERS = [2 ** 63, -(2 ** 63), 1e19, -1e19, 2 ** 64, 2 ** 53 + 2, 1e308, -1e308, Number.MAX_VALUE, 5e-324, -0, 1e300, 4294967296, Infinity, NaN];

const pick = (kinds: Queryable['kind'][], scope: FilterScope): Queryable[] => scope.queryables.filter((q) => kinds.includes(q.kind));

/** The geometry property of the scope (zone lists of rasters filter on the zone outline, `geometry`). */
const geometryName = (scope: FilterScope) => pick(['geometry'], scope)[0]?.name ?? 'geometry';

function plainNumber(): fc.Arbitrary<number> {
  return fc.oneof(fc.integer({ min: -50, max: 150 }), fc.double({ min: -100, max: 200, noNaN: true }).map((x) => round(x, 2)));
}

const numberLit = (): fc.Arbitrary<number> => fc.oneof({ weight: 4, arbitrary: plainNumber() }, { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) });

function stringLit(scope: FilterScope, name?: string): fc.Arbitrary<string> {
  const seen = scope.samples.flatMap((row) => (name && typeof row[name] === 'string' ? [row[name] as string] : []));
  return fc.oneof(
    { weight: seen.length ? 3 : 0, arbitrary: fc.constantFrom(...(seen.length ? seen : [''])) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('', "'", "''", '%', '_', '\\', 'é', '\u0000', 'a'.repeat(5000)) },
  );
}

/** An instant inside (or just outside) the collection's interval, or at the edges of the calendar. */
function instant(scope: FilterScope): fc.Arbitrary<string> {
  const [a, b] = scope.interval ?? [null, null];
  const lo = Date.parse(a ?? '2024-01-01T00:00:00Z');
  const hi = Date.parse(b ?? '2024-12-31T00:00:00Z');
  const span = Math.max(1, hi - lo);
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: -Math.floor(span / 10), max: span + Math.floor(span / 10) }).map((d) => new Date(lo + d).toISOString().replace('.000Z', 'Z')) },
    { weight: 1, arbitrary: fc.constantFrom('0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', '2024-02-29T23:59:59.999999999Z', '1677-09-21T00:12:43Z', '2262-04-11T23:47:16Z') },
  );
}

// ---- geometry literals ----

/**
 * A polygon over the box whose north and south edges zig-zag: `vertices` positions in thin spikes
 * (a predicate whose cost is not near-linear in the vertices shows here: a 700-vertex one once held the event loop for 38 s).
 */
export function zigzagPolygon([w, s, e, n]: Bbox, vertices: number): Geometry {
  const half = Math.max(2, Math.floor((vertices - 1) / 2));
  const mid = (s + n) / 2;
  const ring: Position[] = [];
  for (let i = 0; i < half; i++) ring.push([round(w + ((e - w) * i) / (half - 1)), round(i % 2 ? mid + (n - mid) / 4 : n)]);
  for (let i = 0; i < half; i++) ring.push([round(e - ((e - w) * i) / (half - 1)), round(i % 2 ? mid - (mid - s) / 4 : s)]);
  ring.push(ring[0]!);
  return { type: 'Polygon', coordinates: [ring] };
}

function zigzagLine([w, s, e, n]: Bbox, vertices: number): Geometry {
  const coordinates: Position[] = [];
  for (let i = 0; i < Math.max(2, vertices); i++) coordinates.push([round(w + ((e - w) * i) / Math.max(1, vertices - 1)), round(i % 2 ? s : n)]);
  return { type: 'LineString', coordinates };
}

/** A point of the box, at `fx`, `fy` of its width and height. */
const at = ([w, s, e, n]: Bbox, fx: number, fy: number): Position => [round(w + (e - w) * fx), round(s + (n - s) * fy)];

/** How many vertices: mostly few, often hundreds (a 700-vertex polygon held the event loop 38 s), sometimes past the bound. */
const vertexCount = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 4, max: 60 }) },
    { weight: 4, arbitrary: fc.integer({ min: 60, max: 400 }) },
    { weight: 2, arbitrary: fc.integer({ min: 400, max: 900 }) },
    { weight: 1, arbitrary: fc.integer({ min: 900, max: 12_000 }) },
  );

function geometryLit(scope: FilterScope): fc.Arbitrary<{ expr: Expr; label: string }> {
  const box = scope.bbox;
  const frac = fc.double({ min: 0, max: 1, noNaN: true });
  const geometry = (g: Geometry, label: string) => ({ expr: { kind: 'geometry', geometry: g } as Expr, label });
  const extreme = fc.constantFrom(...EXTREME_NUMBERS);
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(frac, frac).map(([x, y]) => geometry({ type: 'Point', coordinates: at(box, x, y) }, 'point')) },
    { weight: 3, arbitrary: fc.tuple(frac, frac, frac, frac).map(([a, b, c, d]) => ({ expr: { kind: 'bbox', bbox: [...at(box, Math.min(a, c), Math.min(b, d)), ...at(box, Math.max(a, c), Math.max(b, d))] } as Expr, label: 'bbox' })) },
    { weight: 2, arbitrary: fc.tuple(frac, frac).map(([x, y]) => geometry({ type: 'Polygon', coordinates: [[at(box, x / 2, y / 2), at(box, x / 2 + 0.5, y / 2), at(box, x / 2 + 0.25, y / 2 + 0.5), at(box, x / 2, y / 2)]] }, 'triangle')) },
    { weight: 5, arbitrary: vertexCount().map((v) => geometry(zigzagPolygon(box, v), `zig-zag polygon ${v} vertices`)) },
    { weight: 1, arbitrary: vertexCount().map((v) => geometry(zigzagLine(box, v), `zig-zag line ${v} vertices`)) },
    { weight: 1, arbitrary: fc.array(fc.tuple(frac, frac), { minLength: 1, maxLength: 300, size: 'max' }).map((ps) => geometry({ type: 'MultiPoint', coordinates: ps.map(([x, y]) => at(box, x, y)) }, `multipoint ${ps.length}`)) },
    // Coordinates past int64 and double ranges, off the CRS, not finite (1e19 once gave a 500).
    { weight: 3, arbitrary: fc.tuple(extreme, extreme).map(([a, b]) => [Math.abs(a) || a, Math.abs(b) || b]).map(([a, b]) => ({ expr: { kind: 'bbox', bbox: [0, 0, a!, b!] } as Expr, label: `bbox 0, 0 to ${a}, ${b}` })) },
    { weight: 2, arbitrary: fc.tuple(extreme, plainNumber()).map(([a, b]) => geometry({ type: 'Point', coordinates: [a, b] }, `point ${a} ${b}`)) },
    { weight: 1, arbitrary: extreme.map((a) => geometry({ type: 'Polygon', coordinates: [[[0, 0], [a, 0], [a, a], [0, 0]]] }, `polygon to ${a}`)) },
    { weight: 1, arbitrary: fc.constantFrom<[string, Geometry]>(
      ['point off the CRS', { type: 'Point', coordinates: [540, 100] }],
      ['bow-tie polygon', { type: 'Polygon', coordinates: [[[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]] }],
      ['unclosed polygon', { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10]]] }],
      ['zero-area polygon', { type: 'Polygon', coordinates: [[[5, 45], [5, 45], [5, 45], [5, 45]]] }],
      ['polygon across the antimeridian', { type: 'Polygon', coordinates: [[[170, -10], [-170, -10], [-170, 10], [170, 10], [170, -10]]] }],
      ['world polygon', { type: 'Polygon', coordinates: [[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]] }],
      ['3D point', { type: 'Point', coordinates: [10, 45, 1e19] }],
    ).map(([label, g]) => geometry(g, label)) },
  );
}

// ---- predicates ----

function comparison(scope: FilterScope): fc.Arbitrary<Predicate> {
  const ops = fc.constantFrom(...COMPARISON_OPS);
  const numeric = pick(['number'], scope);
  const strings = pick(['string'], scope);
  const times = pick(['datetime'], scope);
  return fc.oneof(
    { weight: numeric.length ? 4 : 0, arbitrary: fc.tuple(fc.constantFrom(...(numeric.length ? numeric : [{ name: 'x', kind: 'other' as const }])), ops, numberLit()).map(([q, op, v]) => ({ expr: { kind: 'comparison', op, left: prop(q.name), right: num(v) } as Expr, label: `${q.name} ${op} ${v}` })) },
    { weight: strings.length ? 2 : 0, arbitrary: fc.constantFrom(...(strings.length ? strings : [{ name: 'x', kind: 'other' as const }])).chain((q) => fc.tuple(ops, stringLit(scope, q.name)).map(([op, v]) => ({ expr: { kind: 'comparison', op, left: prop(q.name), right: str(v) } as Expr, label: `${q.name} ${op} '${v.slice(0, 12)}'` }))) },
    { weight: times.length ? 1 : 0, arbitrary: fc.tuple(fc.constantFrom(...(times.length ? times : [{ name: 'x', kind: 'other' as const }])), ops, instant(scope)).map(([q, op, t]) => ({ expr: { kind: 'comparison', op, left: prop(q.name), right: { kind: 'timestamp', value: t } } as Expr, label: `${q.name} ${op} ${t}` })) },
    // Arithmetic on a field with big literals (overflow, division by zero).
    { weight: numeric.length ? 1 : 0, arbitrary: fc.tuple(fc.constantFrom(...(numeric.length ? numeric : [{ name: 'x', kind: 'other' as const }])), fc.constantFrom(...ARITHMETIC_OPS), numberLit(), numberLit()).map(([q, op, a, b]) => ({ expr: { kind: 'comparison', op: '>', left: { kind: 'arithmetic', op, left: prop(q.name), right: num(a) }, right: num(b) } as Expr, label: `arithmetic ${q.name} ${op} ${a}` })) },
    { weight: 1, arbitrary: fc.tuple(ops, fc.constantFrom(...EXTREME_NUMBERS), fc.constantFrom(...EXTREME_NUMBERS)).map(([op, a, b]) => ({ expr: { kind: 'comparison', op, left: num(a), right: num(b) } as Expr, label: `${a} ${op} ${b}` })) },
  );
}

/**
 * LIKE, ordinary and pathological. `'aaa…' LIKE '%a%a…%b'` makes a backtracking matcher (a
 * regular expression from `%` -> `.*`) exponential in the number of `%a` (once 26.5 s
 * of blocked event loop from 68 characters, and 78 s in DuckDB); the pattern also carries
 * regular-expression syntax, escapes, runs of wildcards and long literals.
 */
function like(scope: FilterScope): fc.Arbitrary<Predicate> {
  const strings = pick(['string'], scope);
  const wildcards = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 3, max: 9 }) }, { weight: 3, arbitrary: fc.integer({ min: 10, max: 13 }) }, { weight: 1, arbitrary: fc.integer({ min: 14, max: 60 }) });
  // The subject: a long literal (one evaluation per zone or row: what held the raster zone list's event loop) or a string field (per row).
  const subject = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 12, max: 48 }).map((n) => ({ expr: str('a'.repeat(n)), label: `'a'x${n}` })) },
    { weight: strings.length ? 2 : 0, arbitrary: fc.constantFrom(...(strings.length ? strings : [{ name: 'x', kind: 'other' as const }])).map((q) => ({ expr: prop(q.name), label: q.name })) },
  );
  const pattern = fc.oneof(
    { weight: 5, arbitrary: wildcards.map((k) => ({ text: `${'%a'.repeat(k)}%b`, label: `%a x${k} %b` })) },
    { weight: 2, arbitrary: wildcards.map((k) => ({ text: `${'%_'.repeat(k)}b`, label: `%_ x${k} b` })) },
    { weight: 1, arbitrary: wildcards.map((k) => ({ text: `${'_'.repeat(k)}%${'a%'.repeat(k)}c`, label: `_ x${k} then a% x${k}` })) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 3000 }).map((m) => ({ text: `${'%'.repeat(m)}b`, label: `%x${m} b` })) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 8000 }).map((m) => ({ text: `${'a'.repeat(m)}%`, label: `literal of ${m}` })) },
    { weight: 2, arbitrary: fc.constantFrom('(a+)+b', '(a|a)*b', '(a|aa)+$', '.*.*.*.*.*.*.*.*.*.*b', '[a-', 'a{1,99999}b', '^(a*)*$', '\\', '\\%', '\\_', '%\\%%', '\\\\%', '%[%', '%$%', 'a\\', '%\u0000%').map((p) => ({ text: p, label: `regexp syntax ${JSON.stringify(p)}` })) },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('%', '_', 'a', 'b', '\\'), maxLength: 40 }).map((p) => ({ text: p, label: `pattern ${JSON.stringify(p)}` })) },
  );
  return fc.tuple(subject, pattern, fc.constantFrom('plain', 'plain', 'casei', 'accenti', 'not')).map(([s, p, wrap]) => {
    const value = wrap === 'casei' ? ({ kind: 'casei', arg: s.expr } as Expr) : wrap === 'accenti' ? ({ kind: 'accenti', arg: s.expr } as Expr) : s.expr;
    const pat = wrap === 'casei' ? ({ kind: 'casei', arg: str(p.text) } as Expr) : wrap === 'accenti' ? ({ kind: 'accenti', arg: str(p.text) } as Expr) : str(p.text);
    const expr: Expr = { kind: 'like', value, pattern: pat };
    return { expr: wrap === 'not' ? { kind: 'not', arg: expr } : expr, label: `like ${wrap} ${s.label} ~ ${p.label}` };
  });
}

function betweenInNull(scope: FilterScope): fc.Arbitrary<Predicate> {
  const fields = scope.queryables.filter((q) => q.kind !== 'geometry');
  const numeric = pick(['number'], scope);
  const field = fc.constantFrom(...(fields.length ? fields : [{ name: 'x', kind: 'number' as const }]));
  const numField = fc.constantFrom(...(numeric.length ? numeric : [{ name: 'x', kind: 'number' as const }]));
  return fc.oneof(
    { weight: 2, arbitrary: fc.tuple(numField, numberLit(), numberLit()).map(([q, a, b]) => ({ expr: { kind: 'between', value: prop(q.name), low: num(a), high: num(b) } as Expr, label: `${q.name} between ${a} and ${b}` })) },
    {
      weight: 2,
      arbitrary: fc.tuple(numField, fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 40 }) }, { weight: 1, arbitrary: fc.constantFrom(999, 1000, 1001) }), plainNumber()).map(([q, n, v]) => ({
        expr: { kind: 'in', value: prop(q.name), list: Array.from({ length: n }, (_, i) => num(round(v + i * 0.5, 2))) } as Expr,
        label: `${q.name} in ${n} values`,
      })),
    },
    { weight: 1, arbitrary: fc.tuple(field, fc.boolean()).map(([q, not]) => ({ expr: (not ? { kind: 'not', arg: { kind: 'isNull', value: prop(q.name) } } : { kind: 'isNull', value: prop(q.name) }) as Expr, label: `${q.name} is ${not ? 'not ' : ''}null` })) },
  );
}

function spatial(scope: FilterScope): fc.Arbitrary<Predicate> {
  return fc.tuple(fc.constantFrom(...SPATIAL_OPS), geometryLit(scope)).map(([op, g]) => ({ expr: { kind: 'spatial', op, left: prop(geometryName(scope)), right: g.expr } as Expr, label: `${op} ${g.label}` }));
}

function temporal(scope: FilterScope): fc.Arbitrary<Predicate> {
  const times = pick(['datetime'], scope);
  const name = times[0]?.name ?? 'datetime';
  const literal = fc.oneof(
    instant(scope).map((t) => ({ expr: { kind: 'timestamp', value: t } as Expr, label: t })),
    instant(scope).map((t) => ({ expr: { kind: 'date', value: t.slice(0, 10) } as Expr, label: t.slice(0, 10) })),
    fc.tuple(fc.option(instant(scope)), fc.option(instant(scope))).map(([a, b]) => ({
      expr: { kind: 'interval', start: a ? { kind: 'timestamp', value: a } : { kind: 'unbounded' }, end: b ? { kind: 'timestamp', value: b } : { kind: 'unbounded' } } as Expr,
      label: `interval ${a ?? '..'}/${b ?? '..'}`,
    })),
  );
  return fc.tuple(fc.constantFrom(...TEMPORAL_OPS), literal).map(([op, t]) => ({ expr: { kind: 'temporal', op, left: prop(name), right: t.expr } as Expr, label: `${op} ${t.label}` }));
}

/** One predicate of any family (no combinations). */
function simple(scope: FilterScope): fc.Arbitrary<Predicate> {
  const hasTime = pick(['datetime'], scope).length > 0;
  return fc.oneof(
    { weight: 3, arbitrary: comparison(scope) },
    { weight: 4, arbitrary: like(scope) },
    { weight: 2, arbitrary: betweenInNull(scope) },
    { weight: 4, arbitrary: spatial(scope) },
    { weight: hasTime ? 2 : 0, arbitrary: temporal(scope) },
  );
}

/**
 * Combinations: a few predicates under AND/OR/NOT, a deep nest (each level is two or three of
 * the parsers' 64, so most stay inside the bound) and a long flat chain (within the 10,000 terms).
 */
function combined(scope: FilterScope): fc.Arbitrary<Predicate> {
  const benign = fc.oneof(comparison(scope), betweenInNull(scope));
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom<'and' | 'or'>('and', 'or'), fc.array(simple(scope), { minLength: 2, maxLength: 4 })).map(([op, ps]) => ({ expr: { kind: op, args: ps.map((p) => p.expr) } as Expr, label: `${op}(${ps.map((p) => p.label).join('; ')})` })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 5, max: 35 }), benign, fc.constantFrom('not', 'and-or')).map(([depth, p, how]) => {
        let expr = p.expr;
        for (let i = 0; i < depth; i++) expr = how === 'not' ? { kind: 'not', arg: expr } : { kind: i % 2 ? 'and' : 'or', args: [expr, p.expr] };
        return { expr, label: `nested ${how} x${depth} of ${p.label}` };
      }),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom<'and' | 'or'>('and', 'or'), fc.array(benign, { minLength: 20, maxLength: 400, size: 'max' })).map(([op, ps]) => ({ expr: { kind: op, args: ps.map((p) => p.expr) } as Expr, label: `${op} of ${ps.length} terms` })) },
  );
}

export function predicateArb(scope: FilterScope): fc.Arbitrary<Predicate> {
  return fc.oneof({ weight: 4, arbitrary: simple(scope) }, { weight: 1, arbitrary: combined(scope) });
}

/** Simple predicates most rows or zones satisfy or not: filters meant to be answered 200. */
export function benignPredicateArb(scope: FilterScope): fc.Arbitrary<Predicate> {
  const numeric = pick(['number'], scope);
  if (!numeric.length) return betweenInNull(scope);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...numeric), fc.constantFrom<'<' | '>' | '<=' | '>='>('<', '>', '<=', '>='), plainNumber()).map(([q, op, v]) => ({ expr: { kind: 'comparison', op, left: prop(q.name), right: num(v) } as Expr, label: `${q.name} ${op} ${v}` })),
    fc.tuple(fc.constantFrom(...numeric), fc.boolean()).map(([q, not]) => ({ expr: (not ? { kind: 'not', arg: { kind: 'isNull', value: prop(q.name) } } : { kind: 'isNull', value: prop(q.name) }) as Expr, label: `${q.name} is ${not ? 'not ' : ''}null` })),
  );
}

/** A predicate in one of the two encodings (text three times in four). */
export function encode(p: Predicate, lang: Filter['lang']): Filter {
  if (lang === 'cql2-text') return { lang, text: toCql2Text(p.expr), label: p.label };
  const json = toCql2Json(p.expr);
  return { lang, text: JSON.stringify(json), json, label: p.label };
}

export function filterArb(scope: FilterScope, predicates: fc.Arbitrary<Predicate> = predicateArb(scope)): fc.Arbitrary<Filter> {
  return fc.tuple(predicates, fc.constantFrom<Filter['lang']>('cql2-text', 'cql2-text', 'cql2-text', 'cql2-json')).map(([p, lang]) => encode(p, lang));
}
