/**
 * The one CQL2 syntax tree both encodings (CQL2-Text and CQL2-JSON) parse into.
 *
 * Design choices that make the two encodings produce deep-equal trees:
 * - negated forms (`NOT LIKE`, `NOT BETWEEN`, `NOT IN`, `IS NOT NULL`) are a `not` node around
 *   the positive predicate, as CQL2-JSON has no negated operators;
 * - `a AND b AND c` is one `and` node with three args (CQL2-JSON's n-ary `and`/`or`);
 * - unary minus on a non-literal is `-1 * x`, unary minus on a number is a negative number;
 * - timestamps are normalised (trailing zero fraction digits dropped, e.g. `...:00.000000Z`
 *   and `...:00Z` are the same instant);
 * - `-0` is normalised to `0`;
 * - no source positions live in the tree (they would make equal filters unequal); parsers
 *   keep positions on the side for their error messages.
 */

import type { Geometry } from '../geometry/geojson.js';

export type { Geometry, Position } from '../geometry/geojson.js';

/** The logical operators and the predicates named by one word in both encodings (CQL2-JSON `op`, CQL2-Text keyword). */
export const LOGICAL_AND_PREDICATE_WORDS = ['and', 'or', 'not', 'like', 'between', 'in'] as const;

export const COMPARISON_OPS = ['=', '<>', '<', '>', '<=', '>='] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export const ARITHMETIC_OPS = ['+', '-', '*', '/', '%', 'div', '^'] as const;
export type ArithmeticOp = (typeof ARITHMETIC_OPS)[number];

export const SPATIAL_OPS = ['s_intersects', 's_equals', 's_disjoint', 's_touches', 's_within', 's_overlaps', 's_crosses', 's_contains'] as const;
export type SpatialOp = (typeof SPATIAL_OPS)[number];

/** Spelled as in CQL2-JSON (camel case); CQL2-Text keywords map onto these case-insensitively. */
export const TEMPORAL_OPS = ['t_after', 't_before', 't_contains', 't_disjoint', 't_during', 't_equals', 't_finishedBy', 't_finishes', 't_intersects', 't_meets', 't_metBy', 't_overlappedBy', 't_overlaps', 't_startedBy', 't_starts'] as const;
export type TemporalOp = (typeof TEMPORAL_OPS)[number];

export const ARRAY_OPS = ['a_equals', 'a_contains', 'a_containedBy', 'a_overlaps'] as const;
export type ArrayOp = (typeof ARRAY_OPS)[number];

export interface AndOr {
  kind: 'and' | 'or';
  args: Expr[];
}
export interface Not {
  kind: 'not';
  arg: Expr;
}
export interface Comparison {
  kind: 'comparison';
  op: ComparisonOp;
  left: Expr;
  right: Expr;
}
export interface Like {
  kind: 'like';
  value: Expr;
  pattern: Expr;
}
export interface Between {
  kind: 'between';
  value: Expr;
  low: Expr;
  high: Expr;
}
export interface In {
  kind: 'in';
  value: Expr;
  list: Expr[];
}
export interface IsNull {
  kind: 'isNull';
  value: Expr;
}
export interface Arithmetic {
  kind: 'arithmetic';
  op: ArithmeticOp;
  left: Expr;
  right: Expr;
}
export interface PropertyRef {
  kind: 'property';
  name: string;
}
export interface StringLit {
  kind: 'string';
  value: string;
}
export interface NumberLit {
  kind: 'number';
  value: number;
}
export interface BooleanLit {
  kind: 'boolean';
  value: boolean;
}
/** Not produced by either standard encoding; available to code that builds trees. */
export interface NullLit {
  kind: 'null';
}
/** `value` is `YYYY-MM-DDTHH:MM:SS[.f+]Z`, fraction without trailing zeros. */
/** The JSON value of a scalar literal. */
export function scalarValue(e: StringLit | NumberLit | BooleanLit | NullLit): string | number | boolean | null {
  return e.kind === 'null' ? null : e.value;
}

export interface TimestampLit {
  kind: 'timestamp';
  value: string;
}
/** `value` is `YYYY-MM-DD`. */
export interface DateLit {
  kind: 'date';
  value: string;
}
/** The `'..'` end of a half-bounded interval. */
export interface Unbounded {
  kind: 'unbounded';
}
export type IntervalBound = TimestampLit | DateLit | Unbounded | PropertyRef | FunctionCall;
export interface IntervalLit {
  kind: 'interval';
  start: IntervalBound;
  end: IntervalBound;
}
export interface GeometryLit {
  kind: 'geometry';
  geometry: Geometry;
}
/** [minx, miny, maxx, maxy] or [minx, miny, minz, maxx, maxy, maxz], as in the encodings. */
export interface BboxLit {
  kind: 'bbox';
  bbox: number[];
}
export interface CaseI {
  kind: 'casei';
  arg: Expr;
}
export interface AccentI {
  kind: 'accenti';
  arg: Expr;
}
export interface FunctionCall {
  kind: 'function';
  name: string;
  args: Expr[];
}
export interface SpatialPredicate {
  kind: 'spatial';
  op: SpatialOp;
  left: Expr;
  right: Expr;
}
export interface TemporalPredicate {
  kind: 'temporal';
  op: TemporalOp;
  left: Expr;
  right: Expr;
}
export interface ArrayPredicate {
  kind: 'arrayPredicate';
  op: ArrayOp;
  left: Expr;
  right: Expr;
}
export interface ArrayLit {
  kind: 'array';
  items: Expr[];
}

export type Expr =
  | AndOr
  | Not
  | Comparison
  | Like
  | Between
  | In
  | IsNull
  | Arithmetic
  | PropertyRef
  | StringLit
  | NumberLit
  | BooleanLit
  | NullLit
  | TimestampLit
  | DateLit
  | Unbounded
  | IntervalLit
  | GeometryLit
  | BboxLit
  | CaseI
  | AccentI
  | FunctionCall
  | SpatialPredicate
  | TemporalPredicate
  | ArrayPredicate
  | ArrayLit;

// ---- categories of the grammar, shared by both parsers for their checks ----

const PREDICATE_KINDS = new Set<Expr['kind']>([
  'and',
  'or',
  'not',
  'comparison',
  'like',
  'between',
  'in',
  'isNull',
  'spatial',
  'temporal',
  'arrayPredicate',
]);

/** May stand where a filter (a boolean) is expected: predicates, functions, TRUE/FALSE. */
export function isBooleanValued(e: Expr): boolean {
  return PREDICATE_KINDS.has(e.kind) || e.kind === 'function' || e.kind === 'boolean';
}

/** A test of an expression's kind against a fixed list of kinds. */
function ofKind(...kinds: Expr['kind'][]): (e: Expr) => boolean {
  const set = new Set(kinds);
  return (e) => set.has(e.kind);
}

export const isCharacterExpression = ofKind('string', 'casei', 'accenti', 'property', 'function');

/** A pattern is a string literal, possibly wrapped in CASEI/ACCENTI. */
export function isPattern(e: Expr): boolean {
  if (e.kind === 'casei' || e.kind === 'accenti') return isPattern(e.arg);
  return e.kind === 'string';
}

export const isNumericExpression = ofKind('number', 'arithmetic', 'property', 'function');

export const isScalarExpression = ofKind('string', 'casei', 'accenti', 'number', 'arithmetic', 'property', 'function', 'boolean', 'timestamp', 'date');

export const isGeometryExpression = ofKind('geometry', 'bbox', 'property', 'function');

export const isTemporalExpression = ofKind('timestamp', 'date', 'interval', 'property', 'function');

export const isArrayOperand = ofKind('array', 'property', 'function');

/** Operand of IS NULL: anything but the bare parts of other constructs. */
export function isNullOperand(e: Expr): boolean {
  return e.kind !== 'unbounded' && e.kind !== 'array';
}

/** Direct children, in source order. */
export function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'and':
    case 'or':
    case 'function':
      return e.args;
    case 'not':
    case 'casei':
    case 'accenti':
      return [e.arg];
    case 'comparison':
    case 'arithmetic':
    case 'spatial':
    case 'temporal':
    case 'arrayPredicate':
      return [e.left, e.right];
    case 'like':
      return [e.value, e.pattern];
    case 'between':
      return [e.value, e.low, e.high];
    case 'in':
      return [e.value, ...e.list];
    case 'isNull':
      return [e.value];
    case 'interval':
      return [e.start, e.end];
    case 'array':
      return e.items;
    default:
      return [];
  }
}

/** Names of all properties the filter refers to, each once, in order of first use. */
export function properties(e: Expr): string[] {
  const seen = new Set<string>();
  const walk = (n: Expr): void => {
    if (n.kind === 'property') seen.add(n.name);
    for (const c of children(n)) walk(c);
  };
  walk(e);
  return [...seen];
}

/** Normalises `-0` so that `-0.0` in one encoding equals `0` in the other. */
export function num(value: number): NumberLit {
  return { kind: 'number', value: value === 0 ? 0 : value };
}
