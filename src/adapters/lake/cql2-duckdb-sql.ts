/**
 * CQL2 AST -> DuckDB SQL for the lake (parquet) adapter.
 *
 * Safety: every literal of the filter becomes a `$n` parameter (never spliced into the SQL);
 * identifiers in the SQL come only from the `columns` allow-list, double-quoted. A property
 * that is not in the allow-list is an error naming the valid ones.
 *
 * Spatial: core DuckDB 1.5 has a GEOMETRY type but only ST_GeomFromWKB, ST_AsWKB, ST_AsText,
 * ST_CRS/ST_SetCRS and ST_Intersects_Extent (envelope overlap) - no exact predicates. So a
 * spatial predicate on a column becomes a conservative envelope prefilter in SQL plus a
 * `residual` that the caller runs on each fetched row to get the exact answer (see
 * `Cql2DuckDbFilter`). Rows SQL can decide exactly need no residual: points against boxes
 * (BBOX, rectangles, the `bbox` parameter) are settled in SQL except in a thin band along the
 * box edges (point-box-sql.ts); `residual.undecided` marks the rows left to the per-row test.
 * Spatial predicates between two literals are decided here, at translation time.
 *
 * Usage:
 * ```ts
 * const f = toDuckDbSql(ast, columns);
 * const r = f.residual;
 * const extra = r ? [`${r.undecided} AS open`, ...r.columns.map((c) => `${c.sql} AS ${c.alias}`)] : [];
 * const sql = `SELECT ${['*', ...extra].join(', ')} FROM read_parquet($file) WHERE ${f.sql}`;
 * const rows = (await conn.runAndReadAll(sql, f.params)).getRowObjects();
 * const matching = r ? rows.filter((row) => !row.open || r.test(row)) : rows;
 * ```
 * (Named parameters cannot be mixed with `$n`; put any parameters of your own after
 * `f.params` and number them from `f.params.length + 1`.) The connection should run with
 * `SET TimeZone = 'UTC'` so that TIMESTAMP (without time zone) columns compare as UTC.
 */
import { children, isBooleanValued, properties, type Expr, type SpatialOp, type TemporalOp } from '../../domain/cql2/ast.js';
import { likeLiteral, likeRegex } from '../../domain/cql2/like.js';
import { bboxToGeometry, envelope, type Envelope, type Geometry } from '../../domain/geometry/geojson.js';
import { spatialRelation } from '../../domain/geometry/relate.js';
import { decodeWkb, WkbError } from '../../domain/geometry/wkb.js';
import { toWkt } from '../../domain/geometry/wkt.js';
import { SPATIAL_RELATION } from '../../domain/cql2/spatial-relation.js';
import { pointBoxSql, rectangles } from './point-box-sql.js';
import {
  Cql2TranslationError,
  Cql2UnknownPropertyError,
  type Cql2Columns,
  type Cql2ColumnInfo,
  type Cql2DuckDbFilter,
  type Cql2Residual,
} from './cql2-duckdb-types.js';

export * from './cql2-duckdb-types.js';

/** Column reference from the allow-list; `path` may address a struct field. */
function quoteIdent(path: string | readonly string[]): string {
  const parts = typeof path === 'string' ? [path] : path;
  return parts.map((p) => `"${p.replaceAll('"', '""')}"`).join('.');
}

const INFINITY = {
  start: "CAST('-infinity' AS TIMESTAMPTZ)",
  end: "CAST('infinity' AS TIMESTAMPTZ)",
};

const TEMPORAL_SQL: Record<TemporalOp, (a: [string, string], b: [string, string]) => string> = {
  t_after: ([as], [, be]) => `${as} > ${be}`,
  t_before: ([, ae], [bs]) => `${ae} < ${bs}`,
  t_contains: ([as, ae], [bs, be]) => `${as} < ${bs} AND ${ae} > ${be}`,
  t_disjoint: ([as, ae], [bs, be]) => `(${ae} < ${bs} OR ${as} > ${be})`,
  t_during: ([as, ae], [bs, be]) => `${as} > ${bs} AND ${ae} < ${be}`,
  t_equals: ([as, ae], [bs, be]) => `${as} = ${bs} AND ${ae} = ${be}`,
  t_finishedBy: ([as, ae], [bs, be]) => `${as} < ${bs} AND ${ae} = ${be}`,
  t_finishes: ([as, ae], [bs, be]) => `${as} > ${bs} AND ${ae} = ${be}`,
  t_intersects: ([as, ae], [bs, be]) => `${as} <= ${be} AND ${ae} >= ${bs}`,
  t_meets: ([, ae], [bs]) => `${ae} = ${bs}`,
  t_metBy: ([as], [, be]) => `${as} = ${be}`,
  t_overlappedBy: ([as, ae], [bs, be]) => `${as} > ${bs} AND ${as} < ${be} AND ${ae} > ${be}`,
  t_overlaps: ([as, ae], [bs, be]) => `${as} < ${bs} AND ${ae} > ${bs} AND ${ae} < ${be}`,
  t_startedBy: ([as, ae], [bs, be]) => `${as} = ${bs} AND ${ae} > ${be}`,
  t_starts: ([as, ae], [bs, be]) => `${as} = ${bs} AND ${ae} < ${be}`,
};

/** A predicate between a point and boxes, by where the point lies (never on an edge: such rows are left undecided). */
const POINT_IN_BOXES: Record<SpatialOp, (inside: string, pointFirst: boolean) => string> = {
  s_intersects: (inside) => inside,
  s_disjoint: (inside) => `(NOT ${inside})`,
  s_within: (inside, pointFirst) => (pointFirst ? inside : 'FALSE'),
  s_contains: (inside, pointFirst) => (pointFirst ? 'FALSE' : inside),
  s_equals: () => 'FALSE',
  s_touches: () => 'FALSE',
  s_overlaps: () => 'FALSE',
  s_crosses: () => 'FALSE',
};

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'datetime', 'date']);

/** What a comparison may put beside a column of each type, and what each literal is. */
const COLUMN_KIND: Partial<Record<string, string>> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', datetime: 'datetime', date: 'datetime' };
const LITERAL_KIND: Partial<Record<Expr['kind'], string>> = { string: 'string', number: 'number', boolean: 'boolean', timestamp: 'datetime', date: 'datetime', null: 'null' };
const QUOTED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/i;
const QUOTED_DATE = /^\d{4}-\d{2}-\d{2}$/;
const QUOTED_NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A spatial operand: a column (decoded per row) or a literal (known now). */
type SpatialOperand = { kind: 'column'; name: string; info: Cql2ColumnInfo } | { kind: 'literal'; geometry: Geometry };

class Translator {
  readonly params: (string | number | boolean)[] = [];
  readonly residualColumns: { alias: string; sql: string }[] = [];
  /** Per column-bound spatial predicate: SQL true for the rows its SQL answer does not settle. */
  readonly undecided: string[] = [];

  constructor(private readonly columns: Cql2Columns) {}

  bind(value: string | number | boolean, cast?: string): string {
    // The driver binds an integral number as BIGINT, which overflows beyond 2^63 (1e19): such a
    // double goes as its text, cast back to DOUBLE by the SQL around it.
    this.params.push(typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) ? String(value) : value);
    const ref = `$${this.params.length}`;
    return cast ? `CAST(${ref} AS ${cast})` : ref;
  }

  column(name: string): Cql2ColumnInfo {
    if (!Object.hasOwn(this.columns, name)) throw new Cql2UnknownPropertyError(name, Object.keys(this.columns));
    return this.columns[name]!;
  }

  columnSql(name: string): string {
    return quoteIdent(this.column(name).column ?? name);
  }

  private readonly memo = new Map<Expr, string>();

  /**
   * Exact SQL for an expression without column-bound spatial predicates. Memoised per node,
   * so a residual column repeats the WHERE's text and parameter numbers: then `sql` alone
   * references every parameter, and `params` fits a query with or without the residual
   * columns.
   */
  sql(e: Expr): string {
    let s = this.memo.get(e);
    if (s === undefined) {
      s = this.exact(e);
      this.memo.set(e, s);
    }
    return s;
  }

  private exact(e: Expr): string {
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${e.args.map((a) => this.sql(a)).join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${this.sql(e.arg)})`;
      case 'comparison': {
        const [l, r] = [this.compared(e.left, e.right), this.compared(e.right, e.left)];
        return `(${l} ${e.op} ${r})`;
      }
      case 'like': {
        // LIKE compares character strings only.
        for (const side of [e.value, e.pattern]) {
          if (side.kind === 'property' && COLUMN_KIND[this.column(side.name).type] !== 'string') {
            throw new Cql2TranslationError('type-mismatch', `property "${side.name}" is of type ${this.column(side.name).type}; LIKE compares character strings`);
          }
        }
        // DuckDB's own LIKE backtracks (its cost grows as value length ^ number of %): the pattern
        // goes as an RE2 expression, matched in linear time, folded by CASEI/ACCENTI as the
        // pattern would be (see likeRegex).
        const literal = likeLiteral(e.pattern);
        const regex = literal && likeRegex(literal.text);
        if (!literal || regex === undefined) throw new Cql2TranslationError('unsupported', 'a LIKE pattern is a string literal (optionally in CASEI/ACCENTI) that does not end in a lone "\\"');
        const pattern = literal.folds.reduce<Expr>((arg, kind) => ({ kind, arg }), { kind: 'string', value: regex });
        return `regexp_full_match(${this.scalar(e.value)}, ${this.scalar(pattern)})`;
      }
      case 'between':
        return `(${this.scalar(e.value)} BETWEEN ${this.compared(e.low, e.value)} AND ${this.compared(e.high, e.value)})`;
      case 'in':
        return `(${this.scalar(e.value)} IN (${e.list.map((x) => this.compared(x, e.value)).join(', ')}))`;
      case 'isNull':
        return `(${this.any(e.value)} IS NULL)`;
      case 'boolean':
        return this.bind(e.value, 'BOOLEAN');
      case 'temporal':
        return `(${TEMPORAL_SQL[e.op](this.interval(e.left), this.interval(e.right))})`;
      case 'arrayPredicate':
        return this.arrayPredicate(e.op, e.left, e.right);
      case 'spatial': {
        const [a, b] = [this.spatialOperand(e.left), this.spatialOperand(e.right)];
        if (a.kind === 'literal' && b.kind === 'literal') {
          return this.bind(spatialRelation(SPATIAL_RELATION[e.op], a.geometry, b.geometry), 'BOOLEAN');
        }
        return this.spatialInSql(e.op, a, b);
      }
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new Cql2TranslationError('unsupported', `a ${e.kind} cannot be used as a condition`);
    }
  }

  /** Any value expression (operand of IS NULL). */
  any(e: Expr): string {
    switch (e.kind) {
      case 'geometry':
      case 'bbox':
        return this.bind(toWkt(e.kind === 'bbox' ? bboxToGeometry(e.bbox) : e.geometry), 'GEOMETRY');
      case 'property':
        return this.columnSql(e.name);
      case 'interval':
        throw new Cql2TranslationError('unsupported', 'IS NULL on an interval is not supported');
      default:
        return isBooleanValued(e) && e.kind !== 'boolean' && e.kind !== 'function' ? this.sql(e) : this.scalar(e);
    }
  }

  /**
   * `e` as the operand of a comparison with `other`. Beside a column, a literal must be of the
   * column's kind: a quoted RFC 3339 timestamp or date reads as one next to a datetime or date
   * column (pre-standard clients such as GDAL write them so), a quoted number next to a number
   * column; any other clash is a type mismatch (a 400 for the client) rather than a database
   * error.
   */
  compared(e: Expr, other: Expr): string {
    if (other.kind !== 'property' || !LITERAL_KIND[e.kind]) return this.scalar(e);
    const type = this.column(other.name).type;
    const column = COLUMN_KIND[type];
    const literal = LITERAL_KIND[e.kind]!;
    if (!column || literal === column || e.kind === 'null') return this.scalar(e);
    if (e.kind === 'string') {
      if (column === 'datetime' && (type === 'date' ? QUOTED_DATE : QUOTED_TIMESTAMP).test(e.value)) return this.bind(e.value, type === 'date' ? 'DATE' : 'TIMESTAMPTZ');
      if (column === 'number' && QUOTED_NUMBER.test(e.value)) return this.scalar(e);
    }
    throw new Cql2TranslationError('type-mismatch', `property "${other.name}" is of type ${type}; it cannot be compared with a ${e.kind}${e.kind === 'string' && column === 'datetime' ? ` (write TIMESTAMP('YYYY-MM-DDTHH:MM:SSZ') or DATE('YYYY-MM-DD'))` : ''}`);
  }

  scalar(e: Expr): string {
    switch (e.kind) {
      case 'property': {
        const info = this.column(e.name);
        if (!SCALAR_TYPES.has(info.type)) {
          throw new Cql2TranslationError('type-mismatch', `property "${e.name}" is of type ${info.type}, not a scalar`);
        }
        return this.columnSql(e.name);
      }
      case 'string':
        return this.bind(e.value, 'VARCHAR');
      case 'number':
        return this.bind(e.value, 'DOUBLE');
      case 'boolean':
        return this.bind(e.value, 'BOOLEAN');
      case 'null':
        return 'NULL';
      case 'timestamp':
        return this.bind(e.value, 'TIMESTAMPTZ');
      case 'date':
        return this.bind(e.value, 'DATE');
      case 'casei':
        return `lower(${this.scalar(e.arg)})`;
      case 'accenti':
        return `strip_accents(${this.scalar(e.arg)})`;
      case 'arithmetic': {
        const [l, r] = [this.scalar(e.left), this.scalar(e.right)];
        switch (e.op) {
          case '^':
            return `pow(${l}, ${r})`;
          case 'div':
            // DuckDB's // divides doubles exactly; CQL2 div is integer division.
            return `trunc(${l} / ${r})`;
          default:
            return `(${l} ${e.op} ${r})`;
        }
      }
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new Cql2TranslationError('type-mismatch', `a ${e.kind} is not a scalar value`);
    }
  }

  /** [start, end] SQL of a temporal operand; an instant is a zero-length interval. */
  interval(e: Expr): [string, string] {
    switch (e.kind) {
      case 'timestamp':
      case 'date': {
        const v = this.scalar(e);
        return [v, v];
      }
      case 'property': {
        const info = this.column(e.name);
        if (info.type !== 'datetime' && info.type !== 'date') {
          throw new Cql2TranslationError('type-mismatch', `property "${e.name}" is of type ${info.type}, not a datetime or date`);
        }
        const c = this.columnSql(e.name);
        return [c, c];
      }
      case 'interval': {
        const bound = (b: Expr, which: 'start' | 'end'): string => {
          if (b.kind === 'unbounded') return INFINITY[which];
          const [s] = this.interval(b);
          return s;
        };
        return [bound(e.start, 'start'), bound(e.end, 'end')];
      }
      case 'function':
        return this.unsupportedFunction(e.name);
      default:
        throw new Cql2TranslationError('type-mismatch', `a ${e.kind} is not a temporal value`);
    }
  }

  list(items: Expr[]): string {
    const kinds = new Set(items.map((i) => i.kind));
    if (kinds.size > 1) throw new Cql2TranslationError('unsupported', 'array literals must hold values of one type');
    return `[${items.map((i) => this.scalar(i)).join(', ')}]`;
  }

  arrayOperand(e: Expr): string {
    if (e.kind === 'array') return this.list(e.items);
    if (e.kind === 'property') {
      const info = this.column(e.name);
      if (info.type !== 'array') throw new Cql2TranslationError('type-mismatch', `property "${e.name}" is of type ${info.type}, not an array`);
      return this.columnSql(e.name);
    }
    if (e.kind === 'function') return this.unsupportedFunction(e.name);
    throw new Cql2TranslationError('type-mismatch', `a ${e.kind} is not an array`);
  }

  arrayPredicate(op: string, left: Expr, right: Expr): string {
    const [a, b] = [this.arrayOperand(left), this.arrayOperand(right)];
    switch (op) {
      case 'a_equals':
        // Same elements, order and multiplicity ignored, as a set comparison.
        return `(list_has_all(${a}, ${b}) AND list_has_all(${b}, ${a}))`;
      case 'a_contains':
        return `list_has_all(${a}, ${b})`;
      case 'a_containedBy':
        return `list_has_all(${b}, ${a})`;
      default:
        return `list_has_any(${a}, ${b})`;
    }
  }

  spatialOperand(e: Expr): SpatialOperand {
    if (e.kind === 'geometry') return { kind: 'literal', geometry: e.geometry };
    if (e.kind === 'bbox') return { kind: 'literal', geometry: bboxToGeometry(e.bbox) };
    if (e.kind === 'property') {
      const info = this.column(e.name);
      if (info.type !== 'geometry') throw new Cql2TranslationError('type-mismatch', `property "${e.name}" is of type ${info.type}, not a geometry`);
      return { kind: 'column', name: e.name, info };
    }
    if (e.kind === 'function') return this.unsupportedFunction(e.name);
    throw new Cql2TranslationError('type-mismatch', `a ${e.kind} is not a geometry`);
  }

  unsupportedFunction(name: string): never {
    throw new Cql2TranslationError('unsupported', `function "${name}" is not supported`);
  }

  // ---- spatial prefilter and residual ----

  /**
   * The SQL answer of a column-bound spatial predicate, exact on the rows for which the
   * registered `undecided` part is false (NULL geometries are decided: the answer is NULL).
   */
  spatialInSql(op: SpatialOp, a: SpatialOperand, b: SpatialOperand): string {
    const column = a.kind === 'column' ? a : b.kind === 'column' ? b : undefined;
    const literal = a.kind === 'literal' ? a : b.kind === 'literal' ? b : undefined;
    const boxes = literal && rectangles(literal.geometry);
    if (!column || !boxes) {
      this.undecided.push('TRUE');
      return 'NULL';
    }
    const c = this.columnSql(column.name);
    const blob = column.info.encoding === 'geometry' ? `ST_AsWKB(${c})` : c;
    const s = pointBoxSql(blob, this.geometrySql(column.name, column.info), boxes, (wkt) => this.bind(wkt, 'GEOMETRY'));
    this.undecided.push(`(${c} IS NOT NULL AND NOT (CASE WHEN ${s.isPoint} THEN ${s.decided} ELSE FALSE END))`);
    return `(CASE WHEN ${s.isPoint} THEN ${POINT_IN_BOXES[op](s.inside, a.kind === 'column')} END)`;
  }

  geometrySql(name: string, info: Cql2ColumnInfo): string {
    const c = this.columnSql(name);
    return info.encoding === 'geometry' ? c : `ST_GeomFromWKB(${c})`;
  }

  /** SQL true for every row whose geometry envelope meets the operand's. */
  envelopeTest(a: SpatialOperand, b: SpatialOperand): string {
    if (a.kind === 'literal') [a, b] = [b, a];
    if (a.kind !== 'column') return 'TRUE';
    if (b.kind === 'literal') {
      const env = envelope(b.geometry);
      if (!env) return 'FALSE';
      if (a.info.bbox) return this.bboxColumnsTest(a.info.bbox, env);
      return `ST_Intersects_Extent(${this.geometrySql(a.name, a.info)}, ${this.bind(toWkt(b.geometry), 'GEOMETRY')})`;
    }
    return `ST_Intersects_Extent(${this.geometrySql(a.name, a.info)}, ${this.geometrySql(b.name, b.info)})`;
  }

  bboxColumnsTest(bbox: NonNullable<Cql2ColumnInfo['bbox']>, [minx, miny, maxx, maxy]: Envelope): string {
    const q = quoteIdent;
    return (
      `(${q(bbox.xmax)} >= ${this.bind(minx, 'DOUBLE')} AND ${q(bbox.xmin)} <= ${this.bind(maxx, 'DOUBLE')}` +
      ` AND ${q(bbox.ymax)} >= ${this.bind(miny, 'DOUBLE')} AND ${q(bbox.ymin)} <= ${this.bind(maxy, 'DOUBLE')})`
    );
  }

  /**
   * SQL that keeps a superset of the rows matching `e` (positive) or a subset of them
   * (negative, under an odd number of NOTs), so the whole WHERE keeps a superset.
   */
  prefilter(e: Expr, positive: boolean): string {
    if (!needsResidual(e)) return this.sql(e);
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${e.args.map((a) => this.prefilter(a, positive)).join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${this.prefilter(e.arg, !positive)})`;
      case 'spatial': {
        const [a, b] = [this.spatialOperand(e.left), this.spatialOperand(e.right)];
        const envelopesMeet = this.envelopeTest(a, b);
        if (e.op === 's_disjoint') return positive ? 'TRUE' : `(NOT ${envelopesMeet})`;
        return positive ? envelopesMeet : 'FALSE';
      }
      default:
        throw new Cql2TranslationError('unsupported', `spatial predicates on properties can only be combined with AND, OR and NOT`);
    }
  }

  /** Builds the per-row exact test; non-spatial parts are computed by DuckDB as extra columns. */
  evaluator(e: Expr, exactInSql: boolean): (row: Record<string, unknown>) => boolean | null {
    if (!needsResidual(e)) {
      if (exactInSql) return () => true;
      const alias = this.addColumn(this.sql(e));
      return (row) => toBool(row[alias]);
    }
    switch (e.kind) {
      case 'and': {
        const fs = e.args.map((a) => this.evaluator(a, exactInSql));
        return (row) => kleene(fs.map((f) => f(row)), 'and');
      }
      case 'or': {
        const fs = e.args.map((a) => this.evaluator(a, false));
        return (row) => kleene(fs.map((f) => f(row)), 'or');
      }
      case 'not': {
        const f = this.evaluator(e.arg, false);
        return (row) => {
          const v = f(row);
          return v === null ? null : !v;
        };
      }
      case 'spatial': {
        const rel = SPATIAL_RELATION[e.op];
        const get = [this.spatialOperand(e.left), this.spatialOperand(e.right)].map((o) => this.geometryGetter(o));
        return (row) => {
          const [a, b] = [get[0]!(row), get[1]!(row)];
          return a === null || b === null ? null : spatialRelation(rel, a, b);
        };
      }
      default:
        throw new Cql2TranslationError('unsupported', `spatial predicates on properties can only be combined with AND, OR and NOT`);
    }
  }

  geometryGetter(o: SpatialOperand): (row: Record<string, unknown>) => Geometry | null {
    if (o.kind === 'literal') return () => o.geometry;
    const c = this.columnSql(o.name);
    const alias = this.addColumn(o.info.encoding === 'geometry' ? `ST_AsWKB(${c})` : c);
    return (row) => {
      const bytes = toBytes(row[alias]);
      if (bytes === null) return null;
      try {
        return decodeWkb(bytes);
      } catch (e) {
        if (e instanceof WkbError) return null; // unreadable geometry: unknown, as a NULL one
        throw e;
      }
    };
  }

  addColumn(sql: string): string {
    const existing = this.residualColumns.find((c) => c.sql === sql);
    if (existing) return existing.alias;
    const alias = `__cql2_${this.residualColumns.length}`;
    this.residualColumns.push({ alias, sql });
    return alias;
  }
}

/** Does the expression hold a spatial predicate with a column operand? */
function needsResidual(e: Expr): boolean {
  if (e.kind === 'spatial') {
    const isLiteral = (x: Expr): boolean => x.kind === 'geometry' || x.kind === 'bbox';
    if (!isLiteral(e.left) || !isLiteral(e.right)) return true;
  }
  return children(e).some(needsResidual);
}

function toBool(v: unknown): boolean | null {
  return v === null || v === undefined ? null : Boolean(v);
}

function kleene(values: (boolean | null)[], op: 'and' | 'or'): boolean | null {
  const decisive = op === 'or';
  if (values.includes(decisive)) return decisive;
  return values.includes(null) ? null : !decisive;
}

/** Accepts what @duckdb/node-api returns for a BLOB (DuckDBBlobValue or Uint8Array). */
function toBytes(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'object' && 'bytes' in v && (v as { bytes: unknown }).bytes instanceof Uint8Array) {
    return (v as { bytes: Uint8Array }).bytes;
  }
  throw new Cql2TranslationError('unsupported', 'geometry column value is not a WKB blob');
}

/**
 * Translates a parsed CQL2 filter to a DuckDB WHERE expression over the given queryables.
 * Throws `Cql2UnknownPropertyError` for a property not in `columns`, and
 * `Cql2TranslationError` for what the lake cannot evaluate (functions, type mismatches).
 */
export function toDuckDbSql(ast: Expr, columns: Cql2Columns): Cql2DuckDbFilter {
  const t = new Translator(columns);
  // Check every property first, so the error names the first unknown one in source order.
  for (const p of properties(ast)) t.column(p);
  if (!needsResidual(ast)) {
    const { texts, params } = compact([t.sql(ast)], t.params, []);
    return { sql: texts[0]!, params };
  }
  // Candidates: the envelope prefilter (a superset; its plain covering comparisons let DuckDB
  // prune row groups), of which SQL keeps the rows it decides as matching and every row it
  // cannot decide, for the residual.
  const prefilter = t.prefilter(ast, true);
  const exact = t.sql(ast);
  const evaluate = t.evaluator(ast, true);
  const settles = t.undecided.some((u) => u !== 'TRUE');
  const undecided = settles ? `(${t.undecided.join(' OR ')})` : 'TRUE';
  const where = settles ? `(${prefilter}) AND (${undecided} OR ${exact})` : prefilter;
  const c = compact([where, undecided], t.params, t.residualColumns);
  const residual: Cql2Residual = { columns: c.columns, undecided: c.texts[1]!, test: (row) => evaluate(row) === true };
  return { sql: c.texts[0]!, params: c.params, residual };
}

type Column = { alias: string; sql: string };

/**
 * Drops parameters the final SQL does not use (a temporal operator reads only some interval
 * ends; a prefilter may settle on TRUE) and renumbers the rest, because DuckDB refuses
 * values for parameters a statement does not contain. The SQL is our own text with no
 * literals holding `$`, so a pattern match is exact.
 */
function compact(
  sqlTexts: string[],
  params: (string | number | boolean)[],
  columns: Column[],
): { texts: string[]; params: (string | number | boolean)[]; columns: Column[] } {
  const used = new Map<number, number>();
  const renumber = (text: string): string =>
    text.replace(/\$(\d+)/g, (_, n: string) => {
      const old = Number(n);
      if (!used.has(old)) used.set(old, used.size + 1);
      return `$${used.get(old)}`;
    });
  const texts = sqlTexts.map(renumber);
  const newColumns = columns.map((c) => ({ alias: c.alias, sql: renumber(c.sql) }));
  return { texts, params: [...used.keys()].map((old) => params[old - 1]!), columns: newColumns };
}
