/**
 * CQL2-JSON (cql2.json schema) to the shared AST, validating structure as it goes. Errors
 * carry a JSON-pointer-like path (`/args/1/coordinates/0`) to the offending member.
 */
import { num, LOGICAL_AND_PREDICATE_WORDS, isArrayOperand, isBooleanValued, isCharacterExpression, isGeometryExpression, isNullOperand, isNumericExpression, isPattern, isScalarExpression, isTemporalExpression, ARITHMETIC_OPS, ARRAY_OPS, COMPARISON_OPS, SPATIAL_OPS, TEMPORAL_OPS, type ArithmeticOp, type ArrayOp, type ComparisonOp, type Expr, type Geometry, type IntervalBound, type Position, type SpatialOp, type TemporalOp } from './ast.js';
import { Cql2SyntaxError } from './errors.js';
import { checkLength, checkTree, CQL2_LIMITS, depthError } from './limits.js';
import { normalizeDate, normalizeTimestamp } from './temporal-literals.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const has = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

const KNOWN_OPS: readonly string[] = [
  ...LOGICAL_AND_PREDICATE_WORDS,
  'isNull',
  'casei',
  'accenti',
  ...COMPARISON_OPS,
  ...ARITHMETIC_OPS,
  ...SPATIAL_OPS,
  ...TEMPORAL_OPS,
  ...ARRAY_OPS,
];
const KNOWN_BY_LOWER = new Map(KNOWN_OPS.map((o) => [o.toLowerCase(), o]));

const isObject = (v: Json): v is { [k: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(message: string, path: string): never {
  throw new Cql2SyntaxError(message, path);
}

function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function checked(e: Expr, ok: (e: Expr) => boolean, what: string, path: string): Expr {
  if (!ok(e)) fail(`expected ${what}`, path);
  return e;
}

/** `depth` counts the expression levels above `v`; past the bound the walk stops before recursing further. */
function expr(v: Json, path: string, depth: number): Expr {
  if (depth > CQL2_LIMITS.maxDepth) throw depthError(path);
  if (v === null) return fail('null is not a CQL2 value', path);
  if (typeof v === 'boolean') return { kind: 'boolean', value: v };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) fail('expected a finite number', path);
    return num(v);
  }
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (Array.isArray(v)) {
    if (v.length > CQL2_LIMITS.maxListItems) fail(`an array holds more than ${CQL2_LIMITS.maxListItems} values (the bound)`, path);
    return { kind: 'array', items: v.map((item, i) => expr(item, `${path}/${i}`, depth + 1)) };
  }
  if ('op' in v) return operation(v, path, depth);
  if ('property' in v) {
    if (typeof v.property !== 'string' || v.property.length === 0) fail('expected a non-empty property name', `${path}/property`);
    return { kind: 'property', name: v.property };
  }
  if ('date' in v) {
    const value = typeof v.date === 'string' ? normalizeDate(v.date) : undefined;
    if (value === undefined) fail('expected a date YYYY-MM-DD', `${path}/date`);
    return { kind: 'date', value };
  }
  if ('timestamp' in v) {
    const value = typeof v.timestamp === 'string' ? normalizeTimestamp(v.timestamp) : undefined;
    if (value === undefined) fail('expected a timestamp YYYY-MM-DDTHH:MM:SS[.f]Z', `${path}/timestamp`);
    return { kind: 'timestamp', value };
  }
  if ('interval' in v) return interval(v.interval!, `${path}/interval`, depth);
  if ('type' in v) return { kind: 'geometry', geometry: geometry(v, path, true) };
  if ('bbox' in v) {
    const b = v.bbox!;
    if (!Array.isArray(b) || (b.length !== 4 && b.length !== 6)) fail('expected a bbox of 4 or 6 numbers', `${path}/bbox`);
    return { kind: 'bbox', bbox: b.map((n, i) => coordinate(n, `${path}/bbox/${i}`)) };
  }
  return fail('expected an operation ("op"), "property", "date", "timestamp", "interval", "bbox" or a geometry', path);
}

function operation(v: { [k: string]: Json }, path: string, depth: number): Expr {
  const op = v.op!;
  if (typeof op !== 'string' || op.length === 0) fail('expected "op" to be a non-empty string', `${path}/op`);
  if (!Array.isArray(v.args)) fail(`expected "args" to be an array for "${op}"`, `${path}/args`);
  const raw = v.args;
  const argPath = (i: number): string => `${path}/args/${i}`;
  const count = (min: number, max = min): void => {
    if (raw.length < min || raw.length > max) {
      const n = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      fail(`"${op}" takes ${n} argument${min === 1 && max === 1 ? '' : 's'}, not ${raw.length}`, `${path}/args`);
    }
  };
  const arg = (i: number, ok: (e: Expr) => boolean, what: string): Expr => checked(expr(raw[i]!, argPath(i), depth + 1), ok, what, argPath(i));

  const known = KNOWN_BY_LOWER.get(op.toLowerCase());
  if (known !== undefined && known !== op) fail(`unknown operator "${op}" (did you mean "${known}"?)`, `${path}/op`);

  if (op === 'and' || op === 'or') {
    count(2, Infinity);
    return { kind: op, args: raw.map((_, i) => arg(i, isBooleanValued, 'a predicate')) };
  }
  if (op === 'not') {
    count(1);
    return { kind: 'not', arg: arg(0, isBooleanValued, 'a predicate') };
  }
  if (has(COMPARISON_OPS, op)) {
    count(2);
    const left = arg(0, isScalarExpression, 'a scalar expression');
    const right = arg(1, isScalarExpression, 'a scalar expression');
    return { kind: 'comparison', op: op as ComparisonOp, left, right };
  }
  if (op === 'like') {
    count(2);
    const value = arg(0, isCharacterExpression, 'a character expression');
    const pattern = arg(1, isPattern, 'a pattern (a string, optionally in casei/accenti)');
    return { kind: 'like', value, pattern };
  }
  if (op === 'between') {
    count(3);
    const [value, low, high] = [0, 1, 2].map((i) => arg(i, isNumericExpression, 'a numeric expression')) as [Expr, Expr, Expr];
    return { kind: 'between', value, low, high };
  }
  if (op === 'in') {
    count(2);
    const value = arg(0, isScalarExpression, 'a scalar expression');
    const list = raw[1]!;
    if (!Array.isArray(list)) fail(`expected an array of values, not ${typeName(list)}`, argPath(1));
    if (list.length === 0) fail('expected at least one value in the list', argPath(1));
    if (list.length > CQL2_LIMITS.maxListItems) fail(`the list holds more than ${CQL2_LIMITS.maxListItems} values (the bound); split the filter or narrow it otherwise`, argPath(1));
    return {
      kind: 'in',
      value,
      list: list.map((item, i) => checked(expr(item, `${argPath(1)}/${i}`, depth + 1), isScalarExpression, 'a scalar expression', `${argPath(1)}/${i}`)),
    };
  }
  if (op === 'isNull') {
    count(1);
    return { kind: 'isNull', value: arg(0, isNullOperand, 'an operand for isNull') };
  }
  if (op === 'casei' || op === 'accenti') {
    count(1);
    return { kind: op, arg: arg(0, isCharacterExpression, 'a character expression') };
  }
  if (has(ARITHMETIC_OPS, op)) {
    count(2);
    const left = arg(0, isNumericExpression, 'a numeric expression');
    const right = arg(1, isNumericExpression, 'a numeric expression');
    return { kind: 'arithmetic', op: op as ArithmeticOp, left, right };
  }
  if (has(SPATIAL_OPS, op)) {
    count(2);
    const what = 'a geometry, bbox, property or function';
    return { kind: 'spatial', op: op as SpatialOp, left: arg(0, isGeometryExpression, what), right: arg(1, isGeometryExpression, what) };
  }
  if (has(TEMPORAL_OPS, op)) {
    count(2);
    const what = 'a date, timestamp, interval, property or function';
    return { kind: 'temporal', op: op as TemporalOp, left: arg(0, isTemporalExpression, what), right: arg(1, isTemporalExpression, what) };
  }
  if (has(ARRAY_OPS, op)) {
    count(2);
    const what = 'an array, property or function';
    return { kind: 'arrayPredicate', op: op as ArrayOp, left: arg(0, isArrayOperand, what), right: arg(1, isArrayOperand, what) };
  }
  return { kind: 'function', name: op, args: raw.map((a, i) => expr(a, argPath(i), depth + 1)) };
}

function interval(v: Json, path: string, depth: number): Expr {
  if (!Array.isArray(v) || v.length !== 2) fail('expected an interval of two bounds', path);
  const bound = (b: Json, p: string): IntervalBound => {
    if (typeof b === 'string') {
      if (b === '..') return { kind: 'unbounded' };
      const ts = normalizeTimestamp(b);
      if (ts !== undefined) return { kind: 'timestamp', value: ts };
      const d = normalizeDate(b);
      if (d !== undefined) return { kind: 'date', value: d };
      return fail(`invalid interval bound "${b}" (expected a date, a timestamp or "..")`, p);
    }
    const e = expr(b, p, depth + 1);
    if (e.kind !== 'property' && e.kind !== 'function') fail('expected a date, a timestamp, "..", a property or a function', p);
    return e;
  };
  return { kind: 'interval', start: bound(v[0]!, `${path}/0`), end: bound(v[1]!, `${path}/1`) };
}

function coordinate(v: Json, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`expected a number, not ${typeName(v)}`, path);
  return num(v).value;
}

function position(v: Json, path: string): Position {
  if (!Array.isArray(v) || v.length < 2 || v.length > 3) fail('expected a position of 2 or 3 numbers', path);
  return v.map((n, i) => coordinate(n, `${path}/${i}`));
}

function positions(v: Json, path: string, min: number, what: string): Position[] {
  if (!Array.isArray(v) || v.length < min) fail(`expected ${what} of at least ${min} positions`, path);
  return v.map((p, i) => position(p, `${path}/${i}`));
}

function ring(v: Json, path: string): Position[] {
  const r = positions(v, path, 4, 'a linear ring');
  const [a, b] = [r[0]!, r[r.length - 1]!];
  if (a[0] !== b[0] || a[1] !== b[1]) fail('a polygon ring must end where it starts', path);
  return r;
}

function arrayOf<T>(v: Json, path: string, what: string, item: (x: Json, p: string) => T): T[] {
  if (!Array.isArray(v)) fail(`expected ${what}`, path);
  return v.map((x, i) => item(x, `${path}/${i}`));
}

function geometry(v: Json, path: string, allowCollection: boolean): Geometry {
  if (!isObject(v)) return fail('expected a GeoJSON geometry object', path);
  const c = v.coordinates!;
  const cp = `${path}/coordinates`;
  switch (v.type) {
    case 'Point':
      return { type: 'Point', coordinates: position(c, cp) };
    case 'LineString':
      return { type: 'LineString', coordinates: positions(c, cp, 2, 'a line string') };
    case 'Polygon':
      return { type: 'Polygon', coordinates: arrayOf(c, cp, 'an array of rings', ring) };
    case 'MultiPoint':
      return { type: 'MultiPoint', coordinates: arrayOf(c, cp, 'an array of positions', position) };
    case 'MultiLineString':
      return {
        type: 'MultiLineString',
        coordinates: arrayOf(c, cp, 'an array of line strings', (x, p) => positions(x, p, 2, 'a line string')),
      };
    case 'MultiPolygon':
      return {
        type: 'MultiPolygon',
        coordinates: arrayOf(c, cp, 'an array of polygons', (x, p) => arrayOf(x, p, 'an array of rings', ring)),
      };
    case 'GeometryCollection': {
      if (!allowCollection) fail('nested GeometryCollection is not allowed', `${path}/type`);
      const g = v.geometries!;
      return {
        type: 'GeometryCollection',
        geometries: arrayOf(g, `${path}/geometries`, 'an array of geometries', (x, p) => geometry(x, p, false)),
      };
    }
    default:
      return fail(`unknown geometry type ${JSON.stringify(v.type)}`, `${path}/type`);
  }
}

/**
 * Parses CQL2-JSON, given as JSON text or as an already parsed value. Throws
 * `Cql2SyntaxError` whose `position` is a path such as `/args/0` (or, for malformed JSON
 * text, the character offset JSON.parse reports), also when it passes a bound of `CQL2_LIMITS`.
 */
export function parseCql2Json(input: string | unknown): Expr {
  let value: Json;
  if (typeof input === 'string') {
    checkLength(input);
    try {
      value = JSON.parse(input) as Json;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const at = /position (\d+)/.exec(message);
      // Without an offset in the message the parser ran out of input.
      throw new Cql2SyntaxError(`malformed JSON: ${message.replace(/ in JSON at position \d+.*$/s, '')}`, at ? Number(at[1]) : input.length);
    }
  } else {
    value = input as Json;
  }
  const e = expr(value, '', 1);
  if (!isBooleanValued(e)) fail('expected a predicate (the filter is not a boolean expression)', '');
  checkTree(e, '');
  return e;
}
