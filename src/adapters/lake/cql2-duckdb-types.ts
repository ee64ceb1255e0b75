/** Types and errors of the CQL2 -> DuckDB translation (see cql2-duckdb-sql.ts). */

export type Cql2QueryableType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'geometry'
  | 'array';

/** How one queryable maps onto the parquet data. */
export interface Cql2ColumnInfo {
  type: Cql2QueryableType;
  /** Physical column (or struct path) when it differs from the queryable name. */
  column?: string | readonly string[];
  /** Geometry storage: WKB in a BLOB (default) or DuckDB's GEOMETRY type. */
  encoding?: 'wkb' | 'geometry';
  /**
   * Per-row envelope columns (e.g. GeoParquet 1.1 covering `bbox.xmin`... as
   * `['bbox', 'xmin']`). When given, the spatial prefilter compares these plain numbers,
   * which lets DuckDB prune row groups by their statistics.
   */
  bbox?: {
    xmin: string | readonly string[];
    ymin: string | readonly string[];
    xmax: string | readonly string[];
    ymax: string | readonly string[];
  };
}

/** Queryable name -> column description; the allow-list of what a filter may reference. */
export type Cql2Columns = Readonly<Record<string, Cql2ColumnInfo>>;

/**
 * Per-row exact check for what SQL could only approximate (spatial predicates on columns).
 */
export interface Cql2Residual {
  /**
   * Extra columns the query must select, as `${sql} AS ${alias}` (aliases are plain
   * `__cql2_<n>` identifiers). Their SQL may use `$n` parameters, but only ones the WHERE
   * text `sql` uses too, so the same `params` serve with or without these columns.
   */
  columns: { alias: string; sql: string }[];
  /**
   * SQL true for the rows of `sql` that only `test` can decide; on the others `sql` is exact.
   * Uses only parameters that `sql` uses.
   */
  undecided: string;
  /** True when the row (carrying the extra columns by alias) matches the filter exactly. */
  test: (row: Record<string, unknown>) => boolean;
}

export interface Cql2DuckDbFilter {
  /**
   * A boolean SQL expression for WHERE with `$1..$n` placeholders. Exact when `residual` is
   * absent; otherwise exact on the rows where `residual.undecided` is false, and a superset
   * of the matches among the others.
   */
  sql: string;
  /** Values for `$1..$n`, in order (strings, numbers, booleans). */
  params: (string | number | boolean)[];
  residual?: Cql2Residual;
}

export type Cql2TranslationErrorCode = 'unknown-property' | 'unsupported' | 'type-mismatch';

/** The filter is valid CQL2 but cannot be run against these columns. */
export class Cql2TranslationError extends Error {
  override readonly name: string = 'Cql2TranslationError';
  constructor(
    readonly code: Cql2TranslationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export class Cql2UnknownPropertyError extends Cql2TranslationError {
  override readonly name = 'Cql2UnknownPropertyError';
  constructor(
    readonly property: string,
    readonly valid: readonly string[],
  ) {
    super('unknown-property', `unknown property "${property}"; valid properties are: ${valid.map((v) => `"${v}"`).join(', ') || '(none)'}`);
  }
}
