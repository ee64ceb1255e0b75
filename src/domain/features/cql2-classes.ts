/**
 * Which CQL2 conformance classes a filter needs, so a client can tell whether a server that
 * declares some of them can evaluate it. Names are the last path segment of the class URIs
 * (`http://www.opengis.net/spec/cql2/1.0/conf/<name>`).
 */
import { children, type Expr } from '../cql2/ast.js';

export type Cql2Class =
  | 'basic-cql2'
  | 'advanced-comparison-operators'
  | 'case-insensitive-comparison'
  | 'accent-insensitive-comparison'
  | 'basic-spatial-functions'
  | 'basic-spatial-functions-plus'
  | 'spatial-functions'
  | 'temporal-functions'
  | 'array-functions'
  | 'property-property'
  | 'functions'
  | 'arithmetic';

const LITERAL = new Set<Expr['kind']>(['string', 'number', 'boolean', 'null', 'timestamp', 'date', 'interval', 'geometry', 'bbox', 'array']);

function isLiteral(e: Expr): boolean {
  if (e.kind === 'casei' || e.kind === 'accenti') return isLiteral(e.arg);
  return LITERAL.has(e.kind);
}

/** The class an expression of each kind needs by itself (comparisons and spatial predicates depend on their operands). */
const CLASS_OF_KIND: Partial<Record<Expr['kind'], Cql2Class>> = {
  like: 'advanced-comparison-operators',
  between: 'advanced-comparison-operators',
  in: 'advanced-comparison-operators',
  arithmetic: 'arithmetic',
  casei: 'case-insensitive-comparison',
  accenti: 'accent-insensitive-comparison',
  function: 'functions',
  temporal: 'temporal-functions',
  arrayPredicate: 'array-functions',
};

/** The classes a server must declare to evaluate `e` (basic-cql2 always). */
export function requiredClasses(e: Expr): Set<Cql2Class> {
  const out = new Set<Cql2Class>(['basic-cql2']);
  const walk = (x: Expr): void => {
    const own = CLASS_OF_KIND[x.kind];
    if (own) out.add(own);
    if (x.kind === 'comparison') {
      // Basic CQL2 compares a property with a literal; anything else is property-property.
      if (!((x.left.kind === 'property' && isLiteral(x.right)) || (x.right.kind === 'property' && isLiteral(x.left)))) out.add('property-property');
    } else if (x.kind === 'spatial') {
      const literal = [x.left, x.right].find((a) => a.kind === 'geometry' || a.kind === 'bbox');
      const property = [x.left, x.right].some((a) => a.kind === 'property');
      if (x.op !== 's_intersects' || !literal || !property) out.add('spatial-functions');
      else if (literal.kind === 'geometry' && literal.geometry.type !== 'Point') out.add('basic-spatial-functions-plus');
      else out.add('basic-spatial-functions');
    }
    // An interval's ends are instants; they need no class of their own.
    if (x.kind !== 'interval') children(x).forEach(walk);
  };
  walk(e);
  // A server with the wider class has the narrower ones.
  if (out.has('spatial-functions')) out.delete('basic-spatial-functions-plus');
  if (out.has('basic-spatial-functions-plus') || out.has('spatial-functions')) out.delete('basic-spatial-functions');
  return out;
}

/** Whether a server declaring `declared` classes can evaluate `e`. */
export function supportedBy(e: Expr, declared: ReadonlySet<string>): boolean {
  const has = (c: Cql2Class): boolean =>
    declared.has(c) ||
    (c === 'basic-spatial-functions' && (declared.has('basic-spatial-functions-plus') || declared.has('spatial-functions'))) ||
    (c === 'basic-spatial-functions-plus' && declared.has('spatial-functions'));
  return [...requiredClasses(e)].every(has);
}

/** The top-level AND terms of a filter (the filter itself when it is no AND). */
export function conjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(conjuncts) : [e];
}

/** Property names a filter reads. */
export function filterProperties(e: Expr): Set<string> {
  const out = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; name?: string };
    if (node.kind === 'property' && typeof node.name === 'string') out.add(node.name);
    if (node.kind === 'geometry') return; // coordinates hold no properties
    Object.values(x).forEach(walk);
  };
  walk(e);
  return out;
}

/** AND of the terms (undefined when there are none). */
export function andOf(terms: Expr[]): Expr | undefined {
  if (terms.length === 0) return undefined;
  return terms.length === 1 ? terms[0] : { kind: 'and', args: terms };
}
