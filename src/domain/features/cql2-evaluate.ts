/**
 * Evaluates a CQL2 filter on one GeoJSON feature, for filters a remote backend cannot evaluate
 * itself. SQL-like three-valued logic: a comparison with a null or missing property is unknown,
 * NOT unknown stays unknown, and only true keeps the feature.
 *
 * Properties hold what GeoJSON can: numbers, strings, booleans, arrays, null. A string compared
 * with a date or timestamp is read as an RFC 3339 instant. The geometry is the property named
 * in `geometryNames` (when the feature's properties have no such key).
 */
import { properties, scalarValue, type Expr, type IntervalBound, type Like } from '../cql2/ast.js';
import { likeMatcher, literalLikeMatcher, type LikeFolds } from '../cql2/like.js';
import type { Geometry } from '../geometry/geojson.js';
import { bboxToGeometry } from '../geometry/geojson.js';
import { spatialRelation } from '../geometry/relate.js';
import { SPATIAL_RELATION } from '../cql2/spatial-relation.js';

export interface EvaluableFeature {
  properties: Record<string, unknown>;
  geometry: Geometry | null;
}

/** A filter construct this evaluator does not implement (custom functions). */
export class UnsupportedFilterError extends Error {
  override readonly name = 'UnsupportedFilterError';
}

type Value = null | boolean | number | string | Instant | { geometry: Geometry } | Value[];
interface Instant {
  start: number;
  end: number;
}

const isInstant = (v: Value): v is Instant => typeof v === 'object' && v !== null && !Array.isArray(v) && 'start' in v;
const isGeometry = (v: Value): v is { geometry: Geometry } => typeof v === 'object' && v !== null && !Array.isArray(v) && 'geometry' in v;

/** Throws UnsupportedFilterError when `e` holds something `evaluate` cannot do; call before fetching anything. */
export function assertEvaluable(e: Expr): void {
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; name?: string };
    if (node.kind === 'function') throw new UnsupportedFilterError(`function ${node.name}() cannot be evaluated by this service`);
    if (node.kind === 'geometry') return;
    Object.values(x).forEach(walk);
  };
  walk(e);
}

export function matchesFilter(e: Expr, feature: EvaluableFeature, geometryNames: ReadonlySet<string>): boolean {
  return test(e, feature, geometryNames) === true;
}

function test(e: Expr, f: EvaluableFeature, g: ReadonlySet<string>): boolean | null {
  switch (e.kind) {
    case 'and':
    case 'or': {
      // Three-valued logic: one decisive operand (false for AND, true for OR) settles it; else any unknown leaves it unknown.
      const decisive = e.kind === 'or';
      let unknown = false;
      for (const a of e.args) {
        const r = test(a, f, g);
        if (r === decisive) return decisive;
        if (r === null) unknown = true;
      }
      return unknown ? null : !decisive;
    }
    case 'not': {
      const r = test(e.arg, f, g);
      return r === null ? null : !r;
    }
    case 'comparison': {
      const c = compare(value(e.left, f, g), value(e.right, f, g));
      if (c === null) return null;
      if (Number.isNaN(c)) return e.op === '<>' ? true : e.op === '=' ? false : null;
      return { '=': c === 0, '<>': c !== 0, '<': c < 0, '>': c > 0, '<=': c <= 0, '>=': c >= 0 }[e.op];
    }
    case 'like':
      return likeTest(e)(f, g);
    case 'between': {
      const v = value(e.value, f, g);
      const lo = compare(v, value(e.low, f, g)), hi = compare(v, value(e.high, f, g));
      if (lo === null || hi === null || Number.isNaN(lo) || Number.isNaN(hi)) return null;
      return lo >= 0 && hi <= 0;
    }
    case 'in': {
      const v = value(e.value, f, g);
      if (v === null) return null;
      let unknown = false;
      for (const item of e.list) {
        const c = compare(v, value(item, f, g));
        if (c === 0) return true;
        if (c === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'isNull':
      return value(e.value, f, g) === null;
    case 'boolean':
      return e.value;
    case 'property': {
      const v = value(e, f, g);
      return typeof v === 'boolean' ? v : null;
    }
    case 'spatial': {
      const a = value(e.left, f, g), b = value(e.right, f, g);
      if (!isGeometry(a) || !isGeometry(b)) return null;
      return spatialRelation(SPATIAL_RELATION[e.op], a.geometry, b.geometry);
    }
    case 'temporal': {
      const a = value(e.left, f, g), b = value(e.right, f, g);
      const ia = asInstant(a), ib = asInstant(b);
      if (!ia || !ib) return null;
      return temporal(e.op, ia, ib);
    }
    case 'arrayPredicate': {
      const a = value(e.left, f, g), b = value(e.right, f, g);
      if (!Array.isArray(a) || !Array.isArray(b)) return null;
      const has = (list: Value[], v: Value) => list.some((x) => compare(x, v) === 0);
      switch (e.op) {
        case 'a_equals':
          return a.length === b.length && a.every((v, i) => compare(v, b[i]!) === 0);
        case 'a_contains':
          return b.every((v) => has(a, v));
        case 'a_containedBy':
          return a.every((v) => has(b, v));
        case 'a_overlaps':
          return a.some((v) => has(b, v));
      }
      return null;
    }
    default:
      throw new UnsupportedFilterError(`${e.kind} is not a predicate`);
  }
}

function value(e: Expr, f: EvaluableFeature, g: ReadonlySet<string>): Value {
  switch (e.kind) {
    case 'property': {
      if (!(e.name in f.properties) && g.has(e.name)) return f.geometry ? { geometry: f.geometry } : null;
      return fromJson(f.properties[e.name]);
    }
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return scalarValue(e);
    case 'timestamp': {
      const t = Date.parse(e.value);
      return { start: t, end: t };
    }
    case 'date': {
      const t = Date.parse(`${e.value}T00:00:00Z`);
      return { start: t, end: t + 86_400_000 - 1 };
    }
    case 'interval': {
      const s = bound(e.start, f, g, -Infinity, 'start'), en = bound(e.end, f, g, Infinity, 'end');
      return s === null || en === null ? null : { start: s, end: en };
    }
    case 'geometry':
      return { geometry: e.geometry };
    case 'bbox':
      return { geometry: bboxToGeometry(e.bbox) };
    case 'array':
      return e.items.map((i) => value(i, f, g));
    case 'casei':
    case 'accenti': {
      const v = value(e.arg, f, g);
      return typeof v === 'string' ? FOLDS[e.kind](v) : v;
    }
    case 'arithmetic': {
      const a = value(e.left, f, g), b = value(e.right, f, g);
      if (typeof a !== 'number' || typeof b !== 'number') return null;
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return b === 0 ? null : a / b;
        case '%':
          return b === 0 ? null : a % b;
        case 'div':
          return b === 0 ? null : Math.trunc(a / b);
        case '^':
          return a ** b;
      }
      return null;
    }
    case 'unbounded':
      return null;
    default: {
      const r = test(e, f, g);
      return r;
    }
  }
}

function bound(b: IntervalBound, f: EvaluableFeature, g: ReadonlySet<string>, open: number, side: 'start' | 'end'): number | null {
  if (b.kind === 'unbounded') return open;
  const v = asInstant(value(b, f, g));
  return v ? v[side] : null;
}

function fromJson(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(fromJson);
  return null; // nested objects take part in no comparison
}

function asInstant(v: Value): Instant | undefined {
  if (isInstant(v)) return v;
  if (typeof v === 'string') {
    const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Date.parse(v);
    if (Number.isFinite(t)) return { start: t, end: /^\d{4}-\d{2}-\d{2}$/.test(v) ? t + 86_400_000 - 1 : t };
  }
  return undefined;
}

/** Sign of a - b; null when either is null or they cannot be compared; NaN for unequal values of no order (booleans, geometries). */
function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (isInstant(a) || isInstant(b)) {
    const x = asInstant(a), y = asInstant(b);
    if (!x || !y) return null;
    return x.start === y.start && x.end === y.end ? 0 : x.start < y.start || (x.start === y.start && x.end < y.end) ? -1 : 1;
  }
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : NaN;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => compare(v, b[i]!) === 0) ? 0 : NaN;
  return null;
}

const FOLDS: LikeFolds = {
  casei: (s: string) => s.toLowerCase(),
  accenti: (s: string) => s.normalize('NFD').replace(/\p{M}/gu, ''),
};

type Test = (f: EvaluableFeature, g: ReadonlySet<string>) => boolean | null;
const NO_FEATURE: EvaluableFeature = { properties: {}, geometry: null };

/** Each LIKE node's test, built on its first evaluation: the pattern compiled once, a LIKE on a literal string decided once. */
const likeTests = new WeakMap<Like, Test>();

function likeTest(e: Like): Test {
  let t = likeTests.get(e);
  if (!t) likeTests.set(e, (t = compileLike(e)));
  return t;
}

function compileLike(e: Like): Test {
  const match = literalLikeMatcher(e.pattern, FOLDS);
  const t: Test = (f, g) => {
    const v = value(e.value, f, g);
    if (typeof v !== 'string') return null;
    if (match) return match(v);
    const p = value(e.pattern, f, g);
    return typeof p === 'string' ? likeMatcher(p)(v) : null;
  };
  if (!match || properties(e.value).length > 0) return t;
  const decided = t(NO_FEATURE, new Set());
  return () => decided;
}

function temporal(op: string, a: Instant, b: Instant): boolean {
  switch (op) {
    case 't_after':
      return a.start > b.end;
    case 't_before':
      return a.end < b.start;
    case 't_contains':
      return a.start < b.start && a.end > b.end;
    case 't_disjoint':
      return a.end < b.start || a.start > b.end;
    case 't_during':
      return a.start > b.start && a.end < b.end;
    case 't_equals':
      return a.start === b.start && a.end === b.end;
    case 't_finishedBy':
      return a.start < b.start && a.end === b.end;
    case 't_finishes':
      return a.start > b.start && a.end === b.end;
    case 't_intersects':
      return a.start <= b.end && a.end >= b.start;
    case 't_meets':
      return a.end === b.start;
    case 't_metBy':
      return a.start === b.end;
    case 't_overlappedBy':
      return a.start > b.start && a.start < b.end && a.end > b.end;
    case 't_overlaps':
      return a.start < b.start && a.end > b.start && a.end < b.end;
    case 't_startedBy':
      return a.start === b.start && a.end > b.end;
    case 't_starts':
      return a.start === b.start && a.end < b.end;
  }
  return false;
}
