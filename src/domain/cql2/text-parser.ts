/**
 * Recursive-descent parser for CQL2-Text following cql2.bnf, producing the shared AST.
 *
 * The grammar's alternatives overlap (a parenthesis opens a boolean group, an arithmetic group
 * or an array), so the parser reads the general form first and checks afterwards that each
 * operand belongs to the category its position requires, reporting the operand's start.
 */
import { num, LOGICAL_AND_PREDICATE_WORDS, isArrayOperand, isBooleanValued, isCharacterExpression, isGeometryExpression, isNullOperand, isNumericExpression, isPattern, isScalarExpression, isTemporalExpression, ARRAY_OPS, SPATIAL_OPS, TEMPORAL_OPS, type ArithmeticOp, type ArrayOp, type ComparisonOp, type Expr, type Geometry, type IntervalBound, type Position, type SpatialOp, type TemporalOp } from './ast.js';
import { Cql2SyntaxError } from './errors.js';
import { checkLength, checkTree, CQL2_LIMITS, depthError } from './limits.js';
import { normalizeDate, normalizeTimestamp } from './temporal-literals.js';
import { tokenize, type Token } from './text-lexer.js';

const lowerMap = <T extends string>(ops: readonly T[]): Map<string, T> => new Map(ops.map((o) => [o.toLowerCase(), o]));
const SPATIAL = lowerMap<SpatialOp>(SPATIAL_OPS);
const TEMPORAL = lowerMap<TemporalOp>(TEMPORAL_OPS);
const ARRAY = lowerMap<ArrayOp>(ARRAY_OPS);

const GEOMETRY_WORDS = new Set([
  'point',
  'linestring',
  'polygon',
  'multipoint',
  'multilinestring',
  'multipolygon',
  'geometrycollection',
]);
/** Words that are always keywords; a property with such a name must be double-quoted. */
const RESERVED = new Set([
  ...LOGICAL_AND_PREDICATE_WORDS,
  'is',
  'null',
  'div',
  'true',
  'false',
  'casei',
  'accenti',
  'date',
  'timestamp',
  'interval',
  'bbox',
  ...GEOMETRY_WORDS,
  ...SPATIAL.keys(),
  ...TEMPORAL.keys(),
  ...ARRAY.keys(),
]);

const COMPARISON = new Set<string>(['=', '<>', '<', '>', '<=', '>=']);

function describe(t: Token): string {
  switch (t.type) {
    case 'eof':
      return 'end of input';
    case 'string':
      return `string '${t.value}'`;
    case 'qident':
      return `"${t.value}"`;
    default:
      return `'${t.value}'`;
  }
}

class TextParser {
  private readonly tokens: Token[];
  private i = 0;
  /** Start offsets of nodes, kept off the tree so equal filters stay deep-equal. */
  private readonly starts = new WeakMap<object, number>();
  /** Current nesting of the recursive productions, bounded so the stack never runs out. */
  private depth = 0;

  constructor(src: string) {
    this.tokens = tokenize(src);
  }

  parse(): Expr {
    const e = this.booleanExpression();
    if (this.peek().type !== 'eof') this.fail(`expected end of input but found ${describe(this.peek())}`);
    return e;
  }

  wkt(): Geometry {
    const g = this.geometry();
    if (this.peek().type !== 'eof') this.fail(`expected end of input but found ${describe(this.peek())}`);
    return g;
  }

  // ---- token helpers ----

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.i++;
    return t;
  }
  private isWord(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.type === 'ident' && t.value.toLowerCase() === word;
  }
  private isPunct(p: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.type === 'punct' && t.value === p;
  }
  private expectPunct(p: string): Token {
    if (!this.isPunct(p)) this.fail(`expected '${p}' but found ${describe(this.peek())}`);
    return this.next();
  }
  private expectWord(word: string): void {
    if (!this.isWord(word)) this.fail(`expected ${word.toUpperCase()} but found ${describe(this.peek())}`);
    this.next();
  }
  private fail(message: string, pos = this.peek().pos): never {
    throw new Cql2SyntaxError(message, pos);
  }
  private at<T extends Expr>(e: T, pos: number): T {
    if (!this.starts.has(e)) this.starts.set(e, pos);
    return e;
  }
  private posOf(e: Expr): number {
    return this.starts.get(e) ?? 0;
  }
  /** Runs a recursive production one level deeper, refusing to go past the bound. */
  private nested<T>(read: () => T): T {
    if (++this.depth > CQL2_LIMITS.maxDepth) throw depthError(this.peek().pos);
    try {
      return read();
    } finally {
      this.depth--;
    }
  }
  private check(e: Expr, ok: (e: Expr) => boolean, what: string): Expr {
    if (!ok(e)) this.fail(`expected ${what}`, this.posOf(e));
    return e;
  }

  // ---- boolean structure ----

  private booleanExpression(): Expr {
    return this.chain('or', () => this.booleanTerm());
  }

  private booleanTerm(): Expr {
    return this.chain('and', () => this.booleanFactor());
  }

  /** `operand (word operand)*` as one n-ary node; a lone operand stands as itself. */
  private chain(word: 'and' | 'or', operand: () => Expr): Expr {
    const pos = this.peek().pos;
    const first = operand();
    if (!this.isWord(word)) return first;
    const args = [this.check(first, isBooleanValued, 'a predicate')];
    while (this.isWord(word)) {
      this.next();
      args.push(this.check(operand(), isBooleanValued, 'a predicate'));
    }
    return this.at({ kind: word, args }, pos);
  }

  private booleanFactor(): Expr {
    if (this.isWord('not')) {
      const pos = this.next().pos;
      const arg = this.check(this.nested(() => this.booleanFactor()), isBooleanValued, 'a predicate after NOT');
      return this.at({ kind: 'not', arg }, pos);
    }
    return this.predicate();
  }

  /** A scalar or boolean primary, optionally followed by a comparison-style operator. */
  private predicate(): Expr {
    const left = this.arithmetic();
    const pos = this.posOf(left);
    const t = this.peek();
    if (t.type === 'punct' && COMPARISON.has(t.value)) {
      this.next();
      const right = this.arithmetic();
      this.check(left, isScalarExpression, 'a scalar expression before the comparison operator');
      this.check(right, isScalarExpression, 'a scalar expression after the comparison operator');
      return this.at({ kind: 'comparison', op: t.value as ComparisonOp, left, right }, pos);
    }
    let negated = false;
    if (this.isWord('not') && (this.isWord('like', 1) || this.isWord('between', 1) || this.isWord('in', 1))) {
      this.next();
      negated = true;
    }
    let result: Expr;
    if (this.isWord('like')) {
      this.next();
      this.check(left, isCharacterExpression, 'a character expression before LIKE');
      const pattern = this.check(this.arithmetic(), isPattern, 'a pattern (a string, optionally in CASEI/ACCENTI)');
      result = this.at({ kind: 'like', value: left, pattern }, pos);
    } else if (this.isWord('between')) {
      this.next();
      this.check(left, isNumericExpression, 'a numeric expression before BETWEEN');
      const low = this.check(this.arithmetic(), isNumericExpression, 'a numeric expression');
      this.expectWord('and');
      const high = this.check(this.arithmetic(), isNumericExpression, 'a numeric expression');
      result = this.at({ kind: 'between', value: left, low, high }, pos);
    } else if (this.isWord('in')) {
      this.next();
      this.check(left, isScalarExpression, 'a scalar expression before IN');
      this.expectPunct('(');
      const list = [this.check(this.arithmetic(), isScalarExpression, 'a scalar expression')];
      while (this.isPunct(',')) {
        this.next();
        list.push(this.check(this.arithmetic(), isScalarExpression, 'a scalar expression'));
      }
      this.expectPunct(')');
      result = this.at({ kind: 'in', value: left, list }, pos);
    } else if (this.isWord('is')) {
      this.next();
      if (this.isWord('not')) {
        this.next();
        negated = true;
      }
      this.expectWord('null');
      this.check(left, isNullOperand, 'an operand for IS NULL');
      result = this.at({ kind: 'isNull', value: left }, pos);
    } else {
      return left;
    }
    return negated ? this.at({ kind: 'not', arg: result }, pos) : result;
  }

  // ---- arithmetic ----

  private arithmetic(): Expr {
    let left = this.term();
    while (this.isPunct('+') || this.isPunct('-')) {
      const op = this.next().value as ArithmeticOp;
      left = this.binary(op, left, this.term());
    }
    return left;
  }

  private term(): Expr {
    let left = this.power();
    for (;;) {
      let op: ArithmeticOp;
      if (this.isPunct('*') || this.isPunct('/') || this.isPunct('%')) op = this.peek().value as ArithmeticOp;
      else if (this.isWord('div')) op = 'div';
      else return left;
      this.next();
      left = this.binary(op, left, this.power());
    }
  }

  private power(): Expr {
    const base = this.unary();
    if (!this.isPunct('^')) return base;
    this.next();
    return this.binary('^', base, this.nested(() => this.power()));
  }

  private unary(): Expr {
    if (this.isPunct('-') || this.isPunct('+')) {
      const sign = this.next();
      if (this.peek().type === 'number') {
        const n = this.number();
        return this.at(num(sign.value === '-' ? -n.value : n.value), sign.pos);
      }
      const operand = this.nested(() => this.unary());
      if (sign.value === '+') return operand;
      return this.binary('*', this.at(num(-1), sign.pos), operand);
    }
    return this.primary();
  }

  private binary(op: ArithmeticOp, left: Expr, right: Expr): Expr {
    const what = `a numeric operand for '${op}'`;
    this.check(left, isNumericExpression, what);
    this.check(right, isNumericExpression, what);
    return this.at({ kind: 'arithmetic', op, left, right }, this.posOf(left));
  }

  private number(): Expr & { kind: 'number' } {
    const t = this.next();
    if (t.type !== 'number') this.fail(`expected a number but found ${describe(t)}`, t.pos);
    return this.at(num(Number(t.value)), t.pos);
  }

  // ---- primaries ----

  /** Every nesting of groups, calls, operators and literals passes through here. */
  private primary(): Expr {
    return this.nested(() => this.primaryAt());
  }

  private primaryAt(): Expr {
    const t = this.peek();
    switch (t.type) {
      case 'number':
        return this.number();
      case 'string':
        this.next();
        return this.at({ kind: 'string', value: t.value }, t.pos);
      case 'qident':
        this.next();
        return this.at({ kind: 'property', name: t.value }, t.pos);
      case 'punct':
        if (t.value === '(') return this.parenthesized();
        return this.fail(`expected an expression but found ${describe(t)}`);
      case 'eof':
        return this.fail('expected an expression but found end of input');
      case 'ident':
        return this.word(t);
    }
  }

  /** `(expr)` groups; `()` and `(a, b, ...)` are arrays. */
  private parenthesized(): Expr {
    const open = this.expectPunct('(');
    if (this.isPunct(')')) {
      this.next();
      return this.at({ kind: 'array', items: [] }, open.pos);
    }
    const first = this.booleanExpression();
    if (this.isPunct(')')) {
      this.next();
      return first;
    }
    if (!this.isPunct(',')) this.fail(`expected ')' but found ${describe(this.peek())}`);
    const items = [this.arrayElementCheck(first)];
    while (this.isPunct(',')) {
      this.next();
      items.push(this.arrayElementCheck(this.arrayElement()));
    }
    this.expectPunct(')');
    return this.at({ kind: 'array', items }, open.pos);
  }

  private arrayElement(): Expr {
    return this.isPunct('(') ? this.arrayLiteral() : this.booleanExpression();
  }
  private arrayElementCheck(e: Expr): Expr {
    return this.check(e, (x) => x.kind !== 'unbounded', 'an array element');
  }

  /** An array in a position where `(x)` cannot mean a group (operands of A_* predicates). */
  private arrayLiteral(): Expr {
    return this.nested(() => this.arrayLiteralAt());
  }

  private arrayLiteralAt(): Expr {
    const open = this.expectPunct('(');
    const items: Expr[] = [];
    if (!this.isPunct(')')) {
      items.push(this.arrayElementCheck(this.arrayElement()));
      while (this.isPunct(',')) {
        this.next();
        items.push(this.arrayElementCheck(this.arrayElement()));
      }
    }
    this.expectPunct(')');
    return this.at({ kind: 'array', items }, open.pos);
  }

  private word(t: Token): Expr {
    const w = t.value.toLowerCase();
    const call = this.isPunct('(', 1);
    if (w === 'true' || w === 'false') {
      this.next();
      return this.at({ kind: 'boolean', value: w === 'true' }, t.pos);
    }
    if (!RESERVED.has(w)) {
      this.next();
      if (!call) return this.at({ kind: 'property', name: t.value }, t.pos);
      return this.at({ kind: 'function', name: t.value, args: this.argumentList() }, t.pos);
    }
    if (GEOMETRY_WORDS.has(w)) return this.at({ kind: 'geometry', geometry: this.geometry() }, t.pos);
    if (w === 'bbox') return this.bbox();
    if (!call) this.fail(`unexpected keyword '${t.value}'`);
    this.next();
    if (w === 'casei' || w === 'accenti') {
      this.expectPunct('(');
      const arg = this.check(this.arithmetic(), isCharacterExpression, `a character expression in ${w.toUpperCase()}`);
      this.expectPunct(')');
      return this.at({ kind: w, arg }, t.pos);
    }
    if (w === 'date' || w === 'timestamp') {
      this.expectPunct('(');
      const s = this.next();
      if (s.type !== 'string') this.fail(`expected a quoted ${w} but found ${describe(s)}`, s.pos);
      const value = w === 'date' ? normalizeDate(s.value) : normalizeTimestamp(s.value);
      if (value === undefined) {
        this.fail(`invalid ${w} '${s.value}' (expected ${w === 'date' ? 'YYYY-MM-DD' : 'YYYY-MM-DDTHH:MM:SS[.f]Z'})`, s.pos);
      }
      this.expectPunct(')');
      return this.at({ kind: w, value }, t.pos);
    }
    if (w === 'interval') {
      this.expectPunct('(');
      const start = this.intervalBound();
      this.expectPunct(',');
      const end = this.intervalBound();
      this.expectPunct(')');
      return this.at({ kind: 'interval', start, end }, t.pos);
    }
    const spatial = SPATIAL.get(w);
    if (spatial) {
      const [left, right] = this.operands(() => this.arithmetic(), isGeometryExpression, 'a geometry (WKT, BBOX, property or function)');
      return this.at({ kind: 'spatial', op: spatial, left, right }, t.pos);
    }
    const temporal = TEMPORAL.get(w);
    if (temporal) {
      const [left, right] = this.operands(() => this.arithmetic(), isTemporalExpression, 'a temporal expression (DATE, TIMESTAMP, INTERVAL, property or function)');
      return this.at({ kind: 'temporal', op: temporal, left, right }, t.pos);
    }
    const array = ARRAY.get(w);
    if (array) {
      const [left, right] = this.operands(
        () => (this.isPunct('(') ? this.arrayLiteral() : this.arithmetic()),
        isArrayOperand,
        'an array, property or function',
      );
      return this.at({ kind: 'arrayPredicate', op: array, left, right }, t.pos);
    }
    return this.fail(`unexpected keyword '${t.value}'`, t.pos);
  }

  private operands(read: () => Expr, ok: (e: Expr) => boolean, what: string): [Expr, Expr] {
    this.expectPunct('(');
    const left = this.check(read(), ok, what);
    this.expectPunct(',');
    const right = this.check(read(), ok, what);
    this.expectPunct(')');
    return [left, right];
  }

  private argumentList(): Expr[] {
    this.expectPunct('(');
    const args: Expr[] = [];
    if (!this.isPunct(')')) {
      args.push(this.argument());
      while (this.isPunct(',')) {
        this.next();
        args.push(this.argument());
      }
    }
    this.expectPunct(')');
    return args;
  }

  private argument(): Expr {
    return this.booleanExpression();
  }

  private intervalBound(): IntervalBound {
    const t = this.peek();
    if (t.type === 'string') {
      this.next();
      if (t.value === '..') return this.at({ kind: 'unbounded' }, t.pos);
      const ts = normalizeTimestamp(t.value);
      if (ts !== undefined) return this.at({ kind: 'timestamp', value: ts }, t.pos);
      const d = normalizeDate(t.value);
      if (d !== undefined) return this.at({ kind: 'date', value: d }, t.pos);
      return this.fail(`invalid interval bound '${t.value}' (expected a date, a timestamp or '..')`, t.pos);
    }
    const e = this.arithmetic();
    if (e.kind !== 'property' && e.kind !== 'function') {
      this.fail('expected a date, a timestamp, \'..\', a property or a function as interval bound', this.posOf(e));
    }
    return e;
  }

  // ---- WKT ----

  private geometry(allowCollection = true): Geometry {
    const t = this.next();
    const w = t.value.toLowerCase();
    if (t.type !== 'ident' || !GEOMETRY_WORDS.has(w)) this.fail(`expected a geometry but found ${describe(t)}`, t.pos);
    if (w === 'geometrycollection' && !allowCollection) this.fail('nested GEOMETRYCOLLECTION is not allowed', t.pos);
    let dims: 2 | 3 | undefined;
    if (this.isWord('z')) {
      this.next();
      dims = 3;
    }
    switch (w) {
      case 'point': {
        this.expectPunct('(');
        const p = this.point(dims);
        this.expectPunct(')');
        return { type: 'Point', coordinates: p };
      }
      case 'linestring':
        return { type: 'LineString', coordinates: this.lineString(dims) };
      case 'polygon':
        return { type: 'Polygon', coordinates: this.polygon(dims) };
      case 'multipoint':
        return { type: 'MultiPoint', coordinates: this.list(() => this.multiPointMember(dims)) };
      case 'multilinestring':
        return { type: 'MultiLineString', coordinates: this.list(() => this.lineString(dims)) };
      case 'multipolygon':
        return { type: 'MultiPolygon', coordinates: this.list(() => this.polygon(dims)) };
      default:
        return { type: 'GeometryCollection', geometries: this.list(() => this.geometry(false)) };
    }
  }

  /** `( item {, item} )` */
  private list<T>(item: () => T): T[] {
    this.expectPunct('(');
    const items = [item()];
    while (this.isPunct(',')) {
      this.next();
      items.push(item());
    }
    this.expectPunct(')');
    return items;
  }

  /** BNF says `((x y), (x y))`; the common `(x y, x y)` is accepted too. */
  private multiPointMember(dims: 2 | 3 | undefined): Position {
    if (!this.isPunct('(')) return this.point(dims);
    this.next();
    const p = this.point(dims);
    this.expectPunct(')');
    return p;
  }

  private lineString(dims: 2 | 3 | undefined): Position[] {
    const pos = this.peek().pos;
    const points = this.list(() => this.point(dims));
    if (points.length < 2) this.fail('a LINESTRING needs at least 2 points', pos);
    return points;
  }

  private polygon(dims: 2 | 3 | undefined): Position[][] {
    return this.list(() => {
      const pos = this.peek().pos;
      const ring = this.list(() => this.point(dims));
      if (ring.length < 4) this.fail('a polygon ring needs at least 4 points', pos);
      const [a, b] = [ring[0]!, ring[ring.length - 1]!];
      if (a[0] !== b[0] || a[1] !== b[1]) this.fail('a polygon ring must end where it starts', pos);
      return ring;
    });
  }

  private point(dims: 2 | 3 | undefined): Position {
    const pos = this.peek().pos;
    const coords = [this.signedNumber(), this.signedNumber()];
    if (this.peek().type === 'number' || this.isPunct('-') || this.isPunct('+')) coords.push(this.signedNumber());
    if (dims === 3 && coords.length !== 3) this.fail('expected 3 coordinates after Z', pos);
    return coords;
  }

  private signedNumber(): number {
    let sign = 1;
    if (this.isPunct('-') || this.isPunct('+')) sign = this.next().value === '-' ? -1 : 1;
    return num(sign * this.number().value).value;
  }

  private bbox(): Expr {
    const t = this.next();
    const values = this.list(() => this.signedNumber());
    if (values.length !== 4 && values.length !== 6) this.fail(`BBOX needs 4 or 6 numbers, not ${values.length}`, t.pos);
    return this.at({ kind: 'bbox', bbox: values }, t.pos);
  }
}

/**
 * Parses a CQL2-Text filter. Throws `Cql2SyntaxError` (with a character offset) when the
 * text is not a valid filter or passes a bound of `CQL2_LIMITS`. The result is a boolean-valued expression.
 */
export function parseCql2Text(src: string): Expr {
  checkLength(src);
  const parser = new TextParser(src);
  const e = parser.parse();
  if (!isBooleanValued(e)) throw new Cql2SyntaxError('expected a predicate (the filter is not a boolean expression)', firstNonSpace(src));
  checkTree(e, firstNonSpace(src));
  return e;
}

/**
 * One geometry in the WKT of CQL2-Text, outside any filter: its coordinates are not held to
 * CRS84 (a filter's are, by `checkTree`), so geometries in other coordinates can be read too.
 */
export function parseWkt(src: string): Geometry {
  checkLength(src);
  return new TextParser(src).wkt();
}

function firstNonSpace(src: string): number {
  const m = /\S/.exec(src);
  return m ? m.index : src.length;
}
