/**
 * What one evaluation of a filter's spatial predicates costs at worst, in literal vertices: a
 * predicate comparing a feature's geometry with a literal visits at most about the literal's
 * vertices (the indexed relation in relate.ts visits only those near the feature, but all of them
 * when the literal crowds around it), one comparing two literals the product of theirs. A caller
 * testing N features bounds N times this before it starts.
 */
import { children, type Expr } from '../cql2/ast.js';
import { parts } from '../geometry/planar-parts.js';

export function spatialVertices(e: Expr): number {
  let total = 0;
  const stack = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'spatial') total += size(x.left) * size(x.right);
    stack.push(...children(x));
  }
  return total;
}

/** Vertices of a literal operand (a BBOX is a ring of five); a property counts one. */
const size = (e: Expr): number => (e.kind === 'geometry' ? Math.max(1, parts(e.geometry).vertices) : e.kind === 'bbox' ? 5 : 1);
