/**
 * Bounds on one CQL2 filter. Parsing, translation and per-row evaluation all walk the tree,
 * so its size is refused up front: text length before the lexer runs, nesting while the
 * parsers descend (so a hostile filter cannot exhaust the stack), and the whole tree (depth,
 * nodes, list lengths, geometry vertices, LIKE patterns) right after parsing, by an iterative
 * walk. The same walk checks what every engine must agree on before any sees the filter:
 * spatial literals are CRS84 places, LIKE patterns do not end in a lone escape.
 */
import { children, type Expr, type Geometry, type Position } from './ast.js';
import { Cql2SyntaxError } from './errors.js';
import { likeLiteral, likeWildcards, likePieces } from './like.js';
import { CRS84_BOX_RULE, CRS84_RULE, crs84BoxProblem, crs84PositionProblem } from '../geometry/crs84.js';

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

function* positions(g: Geometry): Generator<Position> {
  switch (g.type) {
    case 'Point':
      yield g.coordinates;
      return;
    case 'LineString':
    case 'MultiPoint':
      yield* g.coordinates;
      return;
    case 'Polygon':
    case 'MultiLineString':
      for (const r of g.coordinates) yield* r;
      return;
    case 'MultiPolygon':
      for (const p of g.coordinates) for (const r of p) yield* r;
      return;
    case 'GeometryCollection':
      for (const x of g.geometries) yield* positions(x); // collections do not nest (both parsers refuse it)
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
    if (e.kind === 'geometry') {
      for (const p of positions(e.geometry)) {
        const problem = crs84PositionProblem(p);
        if (problem) throw new Cql2SyntaxError(`${problem}; ${CRS84_RULE}`, position);
        points++;
      }
    }
    if (e.kind === 'bbox') {
      const problem = crs84BoxProblem(e.bbox);
      if (problem) throw new Cql2SyntaxError(`BBOX: ${problem}; ${CRS84_BOX_RULE}`, position);
    }
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
