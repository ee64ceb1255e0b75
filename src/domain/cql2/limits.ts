/**
 * Bounds on one CQL2 filter. Parsing, translation and per-row evaluation all walk the tree,
 * so its size is refused up front: text length before the lexer runs, nesting while the
 * parsers descend (so a hostile filter cannot exhaust the stack), and the whole tree (depth,
 * nodes, list lengths, geometry vertices, LIKE patterns) right after parsing, by an iterative
 * walk. The same walk checks what every engine must agree on before any sees the filter:
 * LIKE patterns do not end in a lone escape.
 */
import { children, type Expr, type Geometry } from './ast.js';
import { Cql2SyntaxError } from './errors.js';
import { likeLiteral, likeWildcards, likePieces } from './like.js';

export const CQL2_LIMITS = {
  /** Characters of CQL2-Text or CQL2-JSON text. */
  maxLength: 65_536,
  /** Nested levels (groups, NOT, operators, function calls, arrays). */
  maxDepth: 64,
  /** Nodes of the syntax tree. */
  maxNodes: 10_000,
  /** Values in one IN list or array literal. */
  maxListItems: 1_000,
  /** Positions over all geometry literals. */
  maxVertices: 10_000,
  /** Characters of one LIKE pattern. */
  maxLikePattern: 256,
  /** `%` wildcards in one LIKE pattern. */
  maxLikeWildcards: 16,
} as const;

export function checkLength(text: string): void {
  if (text.length > CQL2_LIMITS.maxLength) {
    throw new Cql2SyntaxError(`the filter is ${text.length} characters long; at most ${CQL2_LIMITS.maxLength} are allowed (the bound)`, CQL2_LIMITS.maxLength);
  }
}

export function depthError(position: number | string): Cql2SyntaxError {
  return new Cql2SyntaxError(`the filter nests deeper than ${CQL2_LIMITS.maxDepth} levels (the bound); flatten it, e.g. a AND b AND c instead of nested groups`, position);
}

function vertices(g: Geometry): number {
  switch (g.type) {
    case 'Point':
      return 1;
    case 'LineString':
    case 'MultiPoint':
      return g.coordinates.length;
    case 'Polygon':
    case 'MultiLineString':
      return g.coordinates.reduce((n, r) => n + r.length, 0);
    case 'MultiPolygon':
      return g.coordinates.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0);
    case 'GeometryCollection':
      return g.geometries.reduce((n, x) => n + vertices(x), 0); // collections do not nest (both parsers refuse it)
  }
}

/** Checks a parsed tree against every bound without recursion; `position` is where errors point. */
export function checkTree(root: Expr, position: number | string): void {
  const stack: [Expr, number][] = [[root, 1]];
  let nodes = 0;
  let points = 0;
  while (stack.length > 0) {
    const [e, depth] = stack.pop()!;
    if (depth > CQL2_LIMITS.maxDepth) throw depthError(position);
    if (++nodes > CQL2_LIMITS.maxNodes) throw new Cql2SyntaxError(`the filter has more than ${CQL2_LIMITS.maxNodes} terms (the bound)`, position);
    if ((e.kind === 'in' && e.list.length > CQL2_LIMITS.maxListItems) || (e.kind === 'array' && e.items.length > CQL2_LIMITS.maxListItems)) {
      throw new Cql2SyntaxError(`a list holds more than ${CQL2_LIMITS.maxListItems} values (the bound); split the filter or narrow it otherwise`, position);
    }
    if (e.kind === 'geometry') points += vertices(e.geometry);
    if (points > CQL2_LIMITS.maxVertices) throw new Cql2SyntaxError(`the geometries hold more than ${CQL2_LIMITS.maxVertices} positions (the bound); simplify them`, position);
    if (e.kind === 'like') checkPattern(e.pattern, position);
    for (const c of children(e)) stack.push([c, depth + 1]);
  }
}

/** LIKE costs grow with the pattern: its length and its `%` wildcards are bounded; a lone trailing escape has no meaning. */
function checkPattern(pattern: Expr, position: number | string): void {
  const literal = likeLiteral(pattern);
  if (!literal) return; // both parsers accept only a string literal, possibly in CASEI/ACCENTI
  const { text } = literal;
  if (text.length > CQL2_LIMITS.maxLikePattern) {
    throw new Cql2SyntaxError(`a LIKE pattern is ${text.length} characters long; at most ${CQL2_LIMITS.maxLikePattern} are allowed (the bound)`, position);
  }
  const wildcards = likeWildcards(text);
  if (wildcards > CQL2_LIMITS.maxLikeWildcards) {
    throw new Cql2SyntaxError(`a LIKE pattern has ${wildcards} % wildcards; at most ${CQL2_LIMITS.maxLikeWildcards} are allowed (the bound)`, position);
  }
  if (!likePieces(text)) throw new Cql2SyntaxError('a LIKE pattern must not end with the escape character "\\" (write "\\\\" for a backslash)', position);
}
