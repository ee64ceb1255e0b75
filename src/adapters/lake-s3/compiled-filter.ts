/**
 * A lake filter (bbox, datetime and CQL2, as one CQL2 tree) compiled to a per-row test with the
 * semantics the DuckDB lake gives the same tree in SQL, so both lakes select the same rows:
 *
 * - three-valued logic; a comparison with NULL is unknown and only TRUE keeps a row;
 * - literals are typed as the DuckDB translator binds them (numbers DOUBLE, strings VARCHAR,
 *   timestamps TIMESTAMPTZ, dates DATE); integer and decimal columns compare as doubles; a DATE
 *   compares with timestamps as its midnight (UTC); timestamps compare in microseconds;
 * - doubles follow DuckDB: NaN equals NaN and sorts above every number; `/`, `%`, `^` and `div`
 *   are IEEE (x/0 is Infinity or NaN, not NULL);
 * - A_EQUALS/A_CONTAINS/A_CONTAINEDBY/A_OVERLAPS are DuckDB's list_has_all/list_has_any (sets,
 *   NULL elements ignored);
 * - spatial predicates are exact (src/domain/geometry/relate.ts) on the decoded WKB; an
 *   unreadable geometry is unknown, as a NULL one.
 *
 * Comparisons DuckDB refuses to bind (a string with a number, a timestamp with a string...) are
 * refused here too, before any row is read, as LakeQueryError. The DuckDB translator's own
 * errors (unknown property, type mismatch, unsupported construct) carry its wording.
 *
 * Besides the test, the compiled filter names the columns it reads and can tell from a row
 * group's statistics that no row there can match (`canSkip`), which prunes row groups before
 * any of their bytes are fetched.
 *
 * Why not src/domain/features/cql2-evaluate.ts: that evaluator has GeoJSON semantics (a DATE is
 * a whole day, x/0 is NULL, A_EQUALS is ordered, instants are strings parsed per row), which
 * select different rows than the DuckDB lake does for the same valid filter.
 */
import { children, isBooleanValued, properties, type Expr, type SpatialOp, type TemporalOp } from '../../domain/cql2/index.js';
import { likeMatcher, literalLikeMatcher, type LikeFolds } from '../../domain/cql2/like.js';
import { bboxToGeometry, envelope, type Envelope, type Geometry } from '../../domain/geometry/geojson.js';
import { spatialRelation } from '../../domain/geometry/relate.js';
import { decodeWkb, WkbError } from '../../domain/geometry/wkb.js';
import type { QueryableKind } from '../../domain/lake/lake-columns.js';
import { SPATIAL_RELATION } from '../../domain/cql2/spatial-relation.js';

/** The queryables: name -> kind (the DuckDB translator's column types). */
export type FilterColumns = Readonly<Record<string, { kind: QueryableKind; element?: QueryableKind; covering?: Record<'xmin' | 'ymin' | 'xmax' | 'ymax', string[]>; float?: boolean }>>;

/** The filter's error for a construct or type it cannot evaluate (mapped to LakeQueryError by the lake). */
export class FilterCompileError extends Error {
  override readonly name = 'FilterCompileError';
}

/** Row values by column name, in the filter's terms (see parquet-columns.ts evalValue). */
export interface RowBatch {
  columns: Record<string, ArrayLike<unknown>>;
}

/** Min/max of one column (or covering leaf path, dotted) in a row group, in the filter's terms. */
export interface ColumnStats {
  min?: number;
  max?: number;
}

export interface CompiledFilter {
  /** Top-level columns the test reads. */
  columns: string[];
  /** The row's answer: true keeps it. */
  test(batch: RowBatch, row: number): boolean;
  /** True when the statistics prove no row of the group matches. */
  canSkip(stats: (path: string) => ColumnStats | undefined): boolean;
  /** Exact geometry tests that were not a point against rectangles, since the last reset. */
  exactTests: number;
}

type Tri = boolean | null;
type T = 'num' | 'str' | 'bool' | 'time' | 'arr' | 'geom' | 'null';
interface Val {
  t: T;
  /** For arrays: the element type. */
  el?: T;
  f: (b: RowBatch, i: number) => unknown;
  /** A literal (no column), its value known now. */
  constant?: boolean;
}

const KIND_TYPE: Record<QueryableKind, T> = { string: 'str', number: 'num', integer: 'num', boolean: 'bool', datetime: 'time', date: 'time', geometry: 'geom', array: 'arr' };
const TYPE_NAME: Record<T, string> = { num: 'a number', str: 'a string', bool: 'a boolean', time: 'a timestamp or date', arr: 'an array', geom: 'a geometry', null: 'NULL' };

/** Microseconds of a CQL2 timestamp literal (`YYYY-MM-DDTHH:MM:SS[.f]Z`), at DuckDB's precision. */
export function timestampMicros(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  if (!m) throw new FilterCompileError(`timestamp "${text}" is not an RFC 3339 instant`);
  const ms = Date.parse(`${m[1]}${m[3]!.toUpperCase()}`);
  if (!Number.isFinite(ms)) throw new FilterCompileError(`timestamp "${text}" is not a valid instant`);
  const fraction = Math.round(Number(`0.${(m[2] ?? '0').slice(0, 7)}`) * 1e6);
  return ms * 1000 + fraction;
}

export function dateMicros(text: string): number {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(ms)) throw new FilterCompileError(`date "${text}" is not a valid date`);
  return ms * 1000;
}

/** DuckDB's double order: NaN equals NaN and is above every number. */
function compareNum(a: number, b: number): number {
  if (a === b) return 0;
  if (a < b) return -1;
  if (a > b) return 1;
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  return an && bn ? 0 : an ? 1 : -1;
}

function compareAny(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return compareNum(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
}

const OPS: Record<string, (c: number) => boolean> = { '=': (c) => c === 0, '<>': (c) => c !== 0, '<': (c) => c < 0, '>': (c) => c > 0, '<=': (c) => c <= 0, '>=': (c) => c >= 0 };

function and(values: Tri[]): Tri {
  let unknown = false;
  for (const v of values) {
    if (v === false) return false;
    if (v === null) unknown = true;
  }
  return unknown ? null : true;
}

/** CASEI and ACCENTI on strings. */
const FOLDS: LikeFolds = {
  casei: (s: string) => s.toLowerCase(),
  accenti: (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC'),
};

/** Does the expression hold a spatial predicate with a column operand? */
function columnSpatial(e: Expr): boolean {
  if (e.kind === 'spatial') {
    const lit = (x: Expr) => x.kind === 'geometry' || x.kind === 'bbox';
    if (!lit(e.left) || !lit(e.right)) return true;
  }
  return children(e).some(columnSpatial);
}

class Compiler {
  readonly used = new Set<string>();
  exactTests = 0;
  /** Decoded geometry of the current row per column: predicates on one column decode it once. */
  private readonly geomCache = new Map<string, { batch?: RowBatch; row: number; g: Geometry | null; point: boolean; env: Envelope | undefined }>();

  constructor(private readonly cols: FilterColumns) {}

  column(name: string) {
    if (!Object.hasOwn(this.cols, name)) {
      const valid = Object.keys(this.cols);
      throw new FilterCompileError(`unknown property "${name}"; valid properties are: ${valid.map((v) => `"${v}"`).join(', ') || '(none)'}`);
    }
    return this.cols[name]!;
  }

  prop(name: string): (b: RowBatch, i: number) => unknown {
    this.used.add(name);
    return (b, i) => {
      const v = b.columns[name]?.[i];
      return v === undefined ? null : v;
    };
  }

  // ---- predicates ----

  pred(e: Expr): (b: RowBatch, i: number) => Tri {
    switch (e.kind) {
      case 'and':
      case 'or': {
        // Non-spatial parts first: a row they settle never needs the geometry test (as in the
        // DuckDB lake, where SQL settles them before any row reaches the exact test).
        const parts = e.args.map((a) => ({ spatial: columnSpatial(a), f: this.pred(a) }));
        const fs = [...parts.filter((p) => !p.spatial), ...parts.filter((p) => p.spatial)].map((p) => p.f);
        const decisive = e.kind === 'or';
        return (b, i) => {
          let unknown = false;
          for (const f of fs) {
            const v = f(b, i);
            if (v === decisive) return decisive;
            if (v === null) unknown = true;
          }
          return unknown ? null : !decisive;
        };
      }
      case 'not': {
        const f = this.pred(e.arg);
        return (b, i) => {
          const v = f(b, i);
          return v === null ? null : !v;
        };
      }
      case 'comparison': {
        const [l, r] = [this.scalar(e.left), this.scalar(e.right)];
        this.comparable(l, r);
        const op = OPS[e.op]!;
        return (b, i) => {
          const x = l.f(b, i), y = r.f(b, i);
          return x === null || y === null ? null : op(compareAny(x, y));
        };
      }
      case 'like': {
        const v = this.scalar(e.value);
        if (v.t !== 'str' && v.t !== 'null') throw new FilterCompileError(`LIKE needs a string, not ${TYPE_NAME[v.t]}`);
        // The literal text is folded, the wildcards are not (as the DuckDB lake's regular expression).
        const match = literalLikeMatcher(e.pattern, FOLDS);
        if (match) {
          const test = (b: RowBatch, i: number): Tri => {
            const x = v.f(b, i);
            return x === null ? null : match(x as string);
          };
          if (!v.constant) return test;
          const decided = test({ columns: {} }, 0);
          return () => decided;
        }
        const p = this.scalar(e.pattern);
        if (p.t !== 'str' && p.t !== 'null') throw new FilterCompileError(`a LIKE pattern is a string, not ${TYPE_NAME[p.t]}`);
        return (b, i) => {
          const x = v.f(b, i), y = p.f(b, i);
          return x === null || y === null ? null : likeMatcher(y as string)(x as string);
        };
      }
      case 'between': {
        const [v, lo, hi] = [this.scalar(e.value), this.scalar(e.low), this.scalar(e.high)];
        this.comparable(v, lo, 'BETWEEN');
        this.comparable(v, hi, 'BETWEEN');
        return (b, i) => {
          const x = v.f(b, i);
          const a = lo.f(b, i), c = hi.f(b, i);
          return and([x === null || a === null ? null : compareAny(x, a) >= 0, x === null || c === null ? null : compareAny(x, c) <= 0]);
        };
      }
      case 'in': {
        const v = this.scalar(e.value);
        const list = e.list.map((x) => this.scalar(x));
        for (const x of list) this.comparable(v, x, 'IN');
        return (b, i) => {
          const x = v.f(b, i);
          if (x === null) return null;
          let unknown = false;
          for (const item of list) {
            const y = item.f(b, i);
            if (y === null) unknown = true;
            else if (compareAny(x, y) === 0) return true;
          }
          return unknown ? null : false;
        };
      }
      case 'isNull': {
        const v = this.any(e.value);
        return (b, i) => v(b, i) === null;
      }
      case 'boolean': {
        const v = e.value;
        return () => v;
      }
      case 'temporal':
        return this.temporal(e.op, this.interval(e.left), this.interval(e.right));
      case 'arrayPredicate':
        return this.arrayPredicate(e.op, this.arrayOperand(e.left), this.arrayOperand(e.right));
      case 'spatial':
        return this.spatial(e.op, e.left, e.right);
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new FilterCompileError(`a ${e.kind} cannot be used as a condition`);
    }
  }

  /** DuckDB binds comparisons only between compatible types; NULL goes with anything. */
  comparable(a: Val, b: Val, what = 'compare'): void {
    if (a.t === 'null' || b.t === 'null' || a.t === b.t) {
      if (a.t === 'arr' || a.t === 'geom') throw new FilterCompileError(`cannot ${what === 'compare' ? 'compare' : `use in ${what}`} ${TYPE_NAME[a.t]}`);
      return;
    }
    throw new FilterCompileError(`cannot compare ${TYPE_NAME[a.t]} with ${TYPE_NAME[b.t]}${what === 'compare' ? '' : ` in ${what}`}`);
  }

  /** Operand of IS NULL. */
  any(e: Expr): (b: RowBatch, i: number) => unknown {
    switch (e.kind) {
      case 'geometry':
      case 'bbox':
        return () => true;
      case 'property':
        this.column(e.name);
        return this.prop(e.name);
      case 'interval':
        throw new FilterCompileError('IS NULL on an interval is not supported');
      default:
        if (isBooleanValued(e) && e.kind !== 'boolean' && e.kind !== 'function') {
          if (columnSpatial(e) && e.kind !== 'spatial' && e.kind !== 'and' && e.kind !== 'or' && e.kind !== 'not') this.spatialOnlyInLogic();
          return this.pred(e);
        }
        return this.scalar(e).f;
    }
  }

  scalar(e: Expr): Val {
    switch (e.kind) {
      case 'property': {
        const info = this.column(e.name);
        if (info.kind === 'geometry' || info.kind === 'array') throw new FilterCompileError(`property "${e.name}" is of type ${info.kind}, not a scalar`);
        return { t: KIND_TYPE[info.kind], f: this.prop(e.name) };
      }
      case 'string':
      case 'number':
      case 'boolean': {
        const v = e.value;
        return { t: e.kind === 'string' ? 'str' : e.kind === 'number' ? 'num' : 'bool', f: () => v, constant: true };
      }
      case 'null':
        return { t: 'null', f: () => null, constant: true };
      case 'timestamp': {
        const v = timestampMicros(e.value);
        return { t: 'time', f: () => v, constant: true };
      }
      case 'date': {
        const v = dateMicros(e.value);
        return { t: 'time', f: () => v, constant: true };
      }
      case 'casei':
      case 'accenti': {
        const a = this.scalar(e.arg);
        if (a.t !== 'str' && a.t !== 'null') throw new FilterCompileError(`${e.kind === 'casei' ? 'CASEI' : 'ACCENTI'} needs a string, not ${TYPE_NAME[a.t]}`);
        const fold = FOLDS[e.kind];
        return {
          t: 'str',
          f: (b, i) => {
            const x = a.f(b, i);
            return x === null ? null : fold(x as string);
          },
          ...(a.constant ? { constant: true } : {}),
        };
      }
      case 'arithmetic': {
        const [l, r] = [this.scalar(e.left), this.scalar(e.right)];
        for (const x of [l, r]) if (x.t !== 'num' && x.t !== 'null') throw new FilterCompileError(`arithmetic needs numbers, not ${TYPE_NAME[x.t]}`);
        const op = ARITH[e.op]!;
        return {
          t: 'num',
          f: (b, i) => {
            const x = l.f(b, i), y = r.f(b, i);
            return x === null || y === null ? null : op(x as number, y as number);
          },
        };
      }
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new FilterCompileError(`a ${e.kind} is not a scalar value`);
    }
  }

  /** [start, end] of a temporal operand in microseconds; an instant is a zero-length interval. */
  interval(e: Expr): [(b: RowBatch, i: number) => number | null, (b: RowBatch, i: number) => number | null] {
    switch (e.kind) {
      case 'timestamp':
      case 'date': {
        const v = this.scalar(e).f as (b: RowBatch, i: number) => number;
        return [v, v];
      }
      case 'property': {
        const info = this.column(e.name);
        if (info.kind !== 'datetime' && info.kind !== 'date') throw new FilterCompileError(`property "${e.name}" is of type ${info.kind}, not a datetime or date`);
        const f = this.prop(e.name) as (b: RowBatch, i: number) => number | null;
        return [f, f];
      }
      case 'interval': {
        const bound = (x: Expr, open: number) => (x.kind === 'unbounded' ? () => open : this.interval(x)[0]);
        return [bound(e.start, -Infinity), bound(e.end, Infinity)];
      }
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new FilterCompileError(`a ${e.kind} is not a temporal value`);
    }
  }

  temporal(op: TemporalOp, [as, ae]: ReturnType<Compiler['interval']>, [bs, be]: ReturnType<Compiler['interval']>): (b: RowBatch, i: number) => Tri {
    const rel = TEMPORAL[op];
    return (b, i) => {
      const v = [as(b, i), ae(b, i), bs(b, i), be(b, i)] as (number | null)[];
      // Each comparison of the SQL form is unknown when one side is NULL.
      const cmp = (x: number | null, o: string, y: number | null): Tri => (x === null || y === null ? null : OPS[o]!(compareNum(x, y)));
      return rel(v[0]!, v[1]!, v[2]!, v[3]!, cmp);
    };
  }

  arrayOperand(e: Expr): Val {
    if (e.kind === 'array') {
      const kinds = new Set(e.items.map((i) => i.kind));
      if (kinds.size > 1) throw new FilterCompileError('array literals must hold values of one type');
      const items = e.items.map((x) => this.scalar(x));
      return { t: 'arr', el: items[0]?.t ?? 'null', f: (b, i) => items.map((x) => x.f(b, i)) };
    }
    if (e.kind === 'property') {
      const info = this.column(e.name);
      if (info.kind !== 'array') throw new FilterCompileError(`property "${e.name}" is of type ${info.kind}, not an array`);
      return { t: 'arr', el: info.element ? KIND_TYPE[info.element] : 'null', f: this.prop(e.name) };
    }
    if (e.kind === 'function') return this.unsupportedFunction(e.name);
    throw new FilterCompileError(`a ${e.kind} is not an array`);
  }

  arrayPredicate(op: string, a: Val, b: Val): (batch: RowBatch, i: number) => Tri {
    if (a.el !== 'null' && b.el !== 'null' && a.el !== b.el) throw new FilterCompileError(`cannot compare ${TYPE_NAME[a.el!]} elements with ${TYPE_NAME[b.el!]} elements`);
    // list_has_all(x, y): every non-NULL element of y is in x.
    const hasAll = (x: unknown[], y: unknown[]) => y.every((v) => v === null || x.some((w) => w !== null && compareAny(w, v) === 0));
    const hasAny = (x: unknown[], y: unknown[]) => y.some((v) => v !== null && x.some((w) => w !== null && compareAny(w, v) === 0));
    const test: (x: unknown[], y: unknown[]) => boolean =
      op === 'a_equals' ? (x, y) => hasAll(x, y) && hasAll(y, x) : op === 'a_contains' ? hasAll : op === 'a_containedBy' ? (x, y) => hasAll(y, x) : hasAny;
    return (batch, i) => {
      const x = a.f(batch, i), y = b.f(batch, i);
      return x === null || y === null ? null : test(x as unknown[], y as unknown[]);
    };
  }

  spatialOperand(e: Expr): { column: string } | { geometry: Geometry } {
    if (e.kind === 'geometry') return { geometry: e.geometry };
    if (e.kind === 'bbox') return { geometry: bboxToGeometry(e.bbox) };
    if (e.kind === 'property') {
      const info = this.column(e.name);
      if (info.kind !== 'geometry') throw new FilterCompileError(`property "${e.name}" is of type ${info.kind}, not a geometry`);
      return { column: e.name };
    }
    if (e.kind === 'function') return this.unsupportedFunction(e.name);
    throw new FilterCompileError(`a ${e.kind} is not a geometry`);
  }

  spatial(op: SpatialOp, left: Expr, right: Expr): (b: RowBatch, i: number) => Tri {
    const [a, c] = [this.spatialOperand(left), this.spatialOperand(right)];
    const rel = SPATIAL_RELATION[op];
    if ('geometry' in a && 'geometry' in c) {
      const v = spatialRelation(rel, a.geometry, c.geometry);
      return () => v;
    }
    // A point against rectangles is the cheap case; everything else counts towards the bound,
    // but only once envelopes meet (as the DuckDB lake's SQL prefilter settles the rest).
    const literal = 'geometry' in a ? a.geometry : 'geometry' in c ? c.geometry : undefined;
    const cheapForPoints = literal !== undefined && isRectangles(literal);
    const literalEnv = literal ? envelope(literal) : undefined;
    const get = [a, c].map((o) => ('geometry' in o ? () => ({ g: o.geometry, point: true, env: literalEnv }) : this.geometryGetter(o.column)));
    return (b, i) => {
      const x = get[0]!(b, i), y = get[1]!(b, i);
      if (x.g === null || y.g === null) return null;
      // Apart envelopes (or an empty geometry): disjoint, and in no other relation.
      if (!x.env || !y.env || !(x.env[0] <= y.env[2] && x.env[2] >= y.env[0] && x.env[1] <= y.env[3] && x.env[3] >= y.env[1])) return rel === 'disjoint';
      if (!(cheapForPoints && x.point && y.point)) this.exactTests++;
      return spatialRelation(rel, x.g, y.g);
    };
  }

  geometryGetter(column: string): (b: RowBatch, i: number) => { g: Geometry | null; point: boolean; env: Envelope | undefined } {
    const read = this.prop(column);
    let cache = this.geomCache.get(column);
    if (!cache) this.geomCache.set(column, (cache = { row: -1, g: null, point: false, env: undefined }));
    const c = cache;
    return (b, i) => {
      if (c.batch === b && c.row === i) return c;
      c.batch = b;
      c.row = i;
      const bytes = read(b, i) as Uint8Array | null;
      c.point = bytes !== null && bytes.byteLength === 21;
      try {
        c.g = bytes === null ? null : decodeWkb(bytes);
      } catch (e) {
        if (!(e instanceof WkbError)) throw e;
        c.g = null; // unreadable geometry: unknown, as a NULL one
      }
      c.env = c.g ? envelope(c.g) : undefined;
      return c;
    };
  }

  spatialOnlyInLogic(): never {
    throw new FilterCompileError('spatial predicates on properties can only be combined with AND, OR and NOT');
  }

  unsupportedFunction(name: string): never {
    throw new FilterCompileError(`function "${name}" is not supported`);
  }

  // ---- row-group pruning ----

  /** A test on statistics: true when no row of the group can make `e` true. */
  skip(e: Expr): (stats: (path: string) => ColumnStats | undefined) => boolean {
    const never = () => false;
    switch (e.kind) {
      case 'and': {
        const fs = e.args.map((a) => this.skip(a));
        return (s) => fs.some((f) => f(s));
      }
      case 'or': {
        const fs = e.args.map((a) => this.skip(a));
        return (s) => fs.every((f) => f(s));
      }
      case 'comparison': {
        const flip: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '<>': '<>' };
        const [prop, lit, op] = e.left.kind === 'property' ? [e.left, e.right, e.op] : e.right.kind === 'property' ? [e.right, e.left, flip[e.op]!] : [];
        const bound = lit && this.literalNumber(lit);
        if (!prop || bound === undefined) return never;
        return this.rangeSkip(prop.name, op!, bound);
      }
      case 'between': {
        if (e.value.kind !== 'property') return never;
        const [lo, hi] = [this.literalNumber(e.low), this.literalNumber(e.high)];
        const fs = [lo !== undefined ? this.rangeSkip(e.value.name, '>=', lo) : never, hi !== undefined ? this.rangeSkip(e.value.name, '<=', hi) : never];
        return (s) => fs.some((f) => f(s));
      }
      case 'in': {
        if (e.value.kind !== 'property') return never;
        const values = e.list.map((x) => this.literalNumber(x));
        if (values.some((v) => v === undefined)) return never;
        const fs = values.map((v) => this.rangeSkip((e.value as { name: string }).name, '=', v!));
        return (s) => fs.every((f) => f(s));
      }
      case 'spatial': {
        if (e.op === 's_disjoint') return never;
        const [a, b] = [e.left, e.right];
        const prop = a.kind === 'property' ? a : b.kind === 'property' ? b : undefined;
        const lit = a.kind === 'geometry' || a.kind === 'bbox' ? a : b.kind === 'geometry' || b.kind === 'bbox' ? b : undefined;
        const covering = prop && Object.hasOwn(this.cols, prop.name) ? this.cols[prop.name]!.covering : undefined;
        if (!covering || !lit) return never;
        const env = envelope(lit.kind === 'bbox' ? bboxToGeometry(lit.bbox) : lit.geometry);
        if (!env) return never;
        return (s) => envelopeApart(s, covering, env);
      }
      default:
        return never;
    }
  }

  literalNumber(e: Expr): number | undefined {
    if (e.kind === 'number') return e.value;
    if (e.kind === 'timestamp') return timestampMicros(e.value);
    if (e.kind === 'date') return dateMicros(e.value);
    return undefined;
  }

  /**
   * Statistics of doubles are not used for lower bounds: NaN sorts above every number in
   * DuckDB (so `x > 5` holds for it) but parquet statistics leave NaN out.
   */
  rangeSkip(name: string, op: string, bound: number): (stats: (path: string) => ColumnStats | undefined) => boolean {
    const info = Object.hasOwn(this.cols, name) ? this.cols[name] : undefined;
    if (!info || !['integer', 'number', 'datetime', 'date'].includes(info.kind) || Number.isNaN(bound)) return () => false;
    const float = info.float === true;
    return (stats) => {
      const s = stats(name);
      if (!s) return false;
      const lowOk = s.min !== undefined;
      const highOk = s.max !== undefined && !float;
      switch (op) {
        case '=':
          return (lowOk && s.min! > bound) || (highOk && s.max! < bound);
        case '<':
          return lowOk && s.min! >= bound;
        case '<=':
          return lowOk && s.min! > bound;
        case '>':
          return highOk && s.max! <= bound;
        case '>=':
          return highOk && s.max! < bound;
        default:
          return false;
      }
    };
  }
}

/** The covering's statistics show every envelope of the group apart from `env`. */
function envelopeApart(stats: (path: string) => ColumnStats | undefined, covering: Record<'xmin' | 'ymin' | 'xmax' | 'ymax', string[]>, [minx, miny, maxx, maxy]: Envelope): boolean {
  const s = (k: 'xmin' | 'ymin' | 'xmax' | 'ymax') => stats(covering[k].join('.'));
  const [xmin, ymin, xmax, ymax] = [s('xmin'), s('ymin'), s('xmax'), s('ymax')];
  return (xmax?.max !== undefined && xmax.max < minx) || (xmin?.min !== undefined && xmin.min > maxx) || (ymax?.max !== undefined && ymax.max < miny) || (ymin?.min !== undefined && ymin.min > maxy);
}

function isRectangles(g: Geometry): boolean {
  const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
  return (
    polygons.length > 0 &&
    polygons.every((p) => {
      if (p.length !== 1 || p[0]!.length !== 5) return false;
      const r = p[0]!;
      return r.slice(0, 4).every((a, i) => {
        const b = r[i + 1]!;
        return a[0] === b[0] || a[1] === b[1];
      });
    })
  );
}

const ARITH: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
  '^': (a, b) => a ** b,
  div: (a, b) => Math.trunc(a / b),
};

type Cmp = (x: number | null, op: string, y: number | null) => Tri;
/** The DuckDB translator's SQL for each temporal operator, on [start, end] pairs. */
const TEMPORAL: Record<TemporalOp, (as: number | null, ae: number | null, bs: number | null, be: number | null, c: Cmp) => Tri> = {
  t_after: (as, _ae, _bs, be, c) => c(as, '>', be),
  t_before: (_as, ae, bs, _be, c) => c(ae, '<', bs),
  t_contains: (as, ae, bs, be, c) => and([c(as, '<', bs), c(ae, '>', be)]),
  t_disjoint: (as, ae, bs, be, c) => {
    const [x, y] = [c(ae, '<', bs), c(as, '>', be)];
    return x === true || y === true ? true : x === null || y === null ? null : false;
  },
  t_during: (as, ae, bs, be, c) => and([c(as, '>', bs), c(ae, '<', be)]),
  t_equals: (as, ae, bs, be, c) => and([c(as, '=', bs), c(ae, '=', be)]),
  t_finishedBy: (as, ae, bs, be, c) => and([c(as, '<', bs), c(ae, '=', be)]),
  t_finishes: (as, ae, bs, be, c) => and([c(as, '>', bs), c(ae, '=', be)]),
  t_intersects: (as, ae, bs, be, c) => and([c(as, '<=', be), c(ae, '>=', bs)]),
  t_meets: (_as, ae, bs, _be, c) => c(ae, '=', bs),
  t_metBy: (as, _ae, _bs, be, c) => c(as, '=', be),
  t_overlappedBy: (as, ae, bs, be, c) => and([c(as, '>', bs), c(as, '<', be), c(ae, '>', be)]),
  t_overlaps: (as, ae, bs, be, c) => and([c(as, '<', bs), c(ae, '>', bs), c(ae, '<', be)]),
  t_startedBy: (as, ae, bs, be, c) => and([c(as, '=', bs), c(ae, '>', be)]),
  t_starts: (as, ae, bs, be, c) => and([c(as, '=', bs), c(ae, '<', be)]),
};

/**
 * Compiles `expr` over the queryables. Throws FilterCompileError (the lake's LakeQueryError)
 * for what the DuckDB lake refuses too, naming the first unknown property in source order.
 */
export function compileFilter(expr: Expr, cols: FilterColumns): CompiledFilter {
  const c = new Compiler(cols);
  for (const p of properties(expr)) c.column(p);
  const walk = (e: Expr): void => {
    // As the DuckDB translator: a column-bound spatial predicate may only sit under AND/OR/NOT.
    if (e.kind === 'and' || e.kind === 'or' || e.kind === 'not') return children(e).forEach(walk);
    if (e.kind !== 'spatial' && columnSpatial(e)) c.spatialOnlyInLogic();
  };
  walk(expr);
  const test = c.pred(expr);
  const canSkip = c.skip(expr);
  const compiled: CompiledFilter = {
    columns: [...c.used],
    test: (b, i) => test(b, i) === true,
    canSkip,
    get exactTests() {
      return c.exactTests;
    },
    set exactTests(n: number) {
      c.exactTests = n;
    },
  };
  return compiled;
}
