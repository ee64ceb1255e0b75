/**
 * Raw items of parquet-lake collections: validates the request against the collection's
 * columns, parses `datetime` and the CQL2 filter, and asks the lake for a page. Knows nothing
 * of HTTP or DuckDB.
 */
import { inject, injectable } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { CollectionCatalog, Collection } from '../../ports/collection-catalog.js';
import type { LakeDataset, LakePage, LakePageRequest, LakeReader } from '../../ports/lake-reader.js';
import { withLakeFaults } from '../lake-faults.js';
import { parseFilter, type RowSelection } from './row-selection.js';
import { parseCql2Text, type Expr } from '../../domain/cql2/index.js';
import { InvalidDatetimeError, parseTimeRestriction } from '../../domain/time-interval.js';
import { InvalidRequestError, NotFoundError } from '../../ports/errors.js';
import { DEFAULT_LAKE_QUERY_SECONDS, LakeTimeBudget } from './lake-time-budget.js';

/** Same charset as collection ids in config; anything else (`../x`, quotes, NUL) is refused before any lookup. */
const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export interface ItemsQuery extends RowSelection {
  bbox?: [number, number, number, number];
  /**
   * `<property>=<value>` query parameters (OGC API Features /rec/core/fc-filters): rows whose
   * property equals the value. Names that are not a queryable column are ignored, as any unknown
   * query parameter is.
   */
  propertyEquals?: Record<string, string>;
  /** Keep the geometry column unless it is excluded explicitly (GeoJSON, GeoParquet). */
  keepGeometry: boolean;
}

export interface PageQuery extends ItemsQuery {
  limit: number;
  offset: number;
}

export interface ItemsResult {
  collection: Collection;
  dataset: LakeDataset;
  /** Columns returned, in dataset order. */
  columns: string[];
  page: LakePage;
}

@injectable()
export class ItemsService {
  constructor(
    @inject(TOKENS.CollectionCatalog) private readonly catalog: CollectionCatalog,
    @inject(TOKENS.LakeReader) private readonly lake: LakeReader,
    @inject(TOKENS.ItemsMaxLimit) private readonly maxLimit = 1000,
    @inject(TOKENS.LakeTimeBudget) private readonly lakeTime = new LakeTimeBudget(DEFAULT_LAKE_QUERY_SECONDS),
  ) {}

  /** The collection, if its id is well formed and it is lake-backed. */
  collection(id: string): Collection {
    if (!COLLECTION_ID.test(id)) {
      throw new InvalidRequestError('Invalid collection id', 'Collection ids are 1-128 letters, digits, "_", "." or "-", starting with a letter or digit.');
    }
    const c = this.catalog.get(id);
    if (!c || c.backing.kind !== 'parquet-lake') {
      const lakes = this.catalog.list().filter((x) => x.backing.kind === 'parquet-lake').map((x) => x.id);
      throw new NotFoundError('Collection has no lake data', `Items are served for parquet-lake collections only: ${lakes.join(', ') || 'none configured'}.`);
    }
    return c;
  }

  /** `signal`: the work stops when it aborts (the client left); the lake work is bounded by limits.lakeQuerySeconds too. */
  async page(id: string, query: PageQuery, signal?: AbortSignal): Promise<ItemsResult> {
    return this.lakeTime.run(signal, (s) => this.pageWithin(id, query, s));
  }

  /** One row by its 0-based index in the filtered set; 404 beyond the end. */
  async item(id: string, featureId: number, query: ItemsQuery, signal?: AbortSignal): Promise<ItemsResult> {
    return this.lakeTime.run(signal, (s) => this.itemWithin(id, featureId, query, s));
  }

  /** The page (or one item) as a parquet file; `geo` writes GeoParquet. */
  async parquet(id: string, query: PageQuery, geo: boolean, single = false, signal?: AbortSignal): Promise<{ bytes: Uint8Array; result: ItemsResult }> {
    return this.lakeTime.run(signal, async (s) => {
      // Resolve first: out-of-range items are 404 and bad parameters 400 before writing a file.
      const result = single ? await this.itemWithin(id, query.offset, query, s) : await this.pageWithin(id, query, s);
      const request = await this.request(result.collection, result.dataset, query, query.offset, query.limit, s);
      const bytes = await withLakeFaults(result.collection.id, () => this.lake.pageAsParquet(result.collection, request, geo));
      return { bytes, result };
    });
  }

  private async pageWithin(id: string, query: PageQuery, signal: AbortSignal): Promise<ItemsResult> {
    if (query.limit > this.maxLimit) throw new InvalidRequestError('Invalid query parameter', `limit must be <= ${this.maxLimit}`);
    return this.run(id, query, query.offset, query.limit, signal);
  }

  private async itemWithin(id: string, featureId: number, query: ItemsQuery, signal: AbortSignal): Promise<ItemsResult> {
    const result = await this.run(id, query, featureId, 1, signal);
    if (result.page.rows.length === 0) {
      throw new NotFoundError('Feature not found', `feature_id ${featureId} is out of range: ${result.page.numberMatched} rows match, so ids run from 0 to ${result.page.numberMatched - 1}.`);
    }
    return result;
  }

  private async run(id: string, query: ItemsQuery, offset: number, limit: number, signal: AbortSignal): Promise<ItemsResult> {
    const collection = this.collection(id);
    const dataset = await withLakeFaults(collection.id, () => this.lake.describe(collection));
    const request = await this.request(collection, dataset, query, offset, limit, signal);
    const page = await withLakeFaults(collection.id, () => this.lake.page(collection, request));
    return { collection, dataset, columns: request.columns, page };
  }

  private async request(_c: Collection, dataset: LakeDataset, query: ItemsQuery, offset: number, limit: number, signal: AbortSignal): Promise<LakePageRequest> {
    const filters = [...propertyFilters(dataset, query.propertyEquals ?? {}), ...(query.filter !== undefined ? [parseFilter(query.filter, query.filterLang ?? 'cql2-text')] : [])];
    return {
      signal,
      workClass: 'items',
      offset,
      limit,
      columns: selectColumns(dataset, query),
      ...(query.bbox ? { bbox: query.bbox } : {}),
      ...(parseDatetimeParam(query.datetime) ?? {}),
      ...(filters.length ? { filter: filters.length === 1 ? filters[0]! : { kind: 'and', args: filters } } : {}),
    };
  }

  /** The lake collections with the columns a `<property>=<value>` parameter may name (for the API document). */
  async propertyParameters(): Promise<{ id: string; columns: { name: string; type: string }[] }[]> {
    const out: { id: string; columns: { name: string; type: string }[] }[] = [];
    for (const c of this.catalog.list()) {
      if (c.backing.kind !== 'parquet-lake') continue;
      try {
        const dataset = await this.lake.describe(c);
        out.push({ id: c.id, columns: equalityColumns(dataset).map((col) => ({ name: col.name, type: col.field.type })) });
      } catch {
        // A lake without readable files has no columns to document; its items answer 404 anyway.
      }
    }
    return out;
  }
}

/** `properties` keeps, `exclude-properties` drops; the geometry rides along for geometry formats unless excluded. */
export function selectColumns(dataset: LakeDataset, query: ItemsQuery): string[] {
  const valid = dataset.columns.filter((c) => c.queryable).map((c) => c.name);
  const check = (names: string[] | undefined, param: string) => {
    for (const n of names ?? []) {
      if (!valid.includes(n)) throw new InvalidRequestError('Invalid query parameter', `${param}: unknown property "${n.slice(0, 64)}". Valid properties: ${valid.join(', ')}.`);
    }
  };
  check(query.properties, 'properties');
  check(query.excludeProperties, 'exclude-properties');
  const g = dataset.geometryColumn;
  const keep = new Set(query.properties ?? valid);
  if (query.properties && g && query.keepGeometry) keep.add(g);
  for (const n of query.excludeProperties ?? []) keep.delete(n);
  const columns = valid.filter((n) => keep.has(n));
  // An empty list selects no properties (GeoJSON then carries ids and geometry only); a
  // selection that leaves nothing at all to return is a mistake, not an empty answer.
  if (columns.length === 0) {
    throw new InvalidRequestError('Invalid query parameter', `properties / exclude-properties leave no column to return; keep at least one of: ${valid.join(', ')}.`);
  }
  return columns;
}

/** `datetime` as a restriction (`{ datetime }`), or undefined for none: absent, empty or open at both ends (`../..`). */
function parseDatetimeParam(text: string | undefined) {
  try {
    const datetime = parseTimeRestriction(text);
    return datetime ? { datetime } : undefined;
  } catch (e) {
    if (e instanceof InvalidDatetimeError) throw new InvalidRequestError('Invalid query parameter', e.message);
    throw e;
  }
}

/** Columns an equality parameter can name: queryable, not the geometry, with a scalar type. */
function equalityColumns(dataset: LakeDataset) {
  return dataset.columns.filter((c) => c.queryable && c.name !== dataset.geometryColumn && ['string', 'number', 'integer', 'boolean'].includes(c.field.type));
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/i;
const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** `<property>=<value>` as CQL2 equalities, the value typed by the column (a value of the wrong type is 400). */
function propertyFilters(dataset: LakeDataset, equals: Record<string, string>): Expr[] {
  const out: Expr[] = [];
  for (const column of equalityColumns(dataset)) {
    const value = equals[column.name];
    if (value === undefined) continue;
    const bad = (expected: string) => new InvalidRequestError('Invalid query parameter', `${column.name.slice(0, 64)}: expected ${expected} (rows whose ${column.name.slice(0, 64)} equals it), got "${value.slice(0, 64)}".`);
    let literal: Expr;
    if (column.field.type === 'number' || column.field.type === 'integer') {
      if (!NUMBER.test(value) || !Number.isFinite(Number(value))) throw bad('a number');
      literal = { kind: 'number', value: Number(value) };
    } else if (column.field.type === 'boolean') {
      if (value !== 'true' && value !== 'false') throw bad('true or false');
      literal = { kind: 'boolean', value: value === 'true' };
    } else if (column.field.format === 'date-time' || column.field.format === 'date') {
      // Checked first, so the text handed to the parser is a plain date or timestamp.
      const date = column.field.format === 'date';
      if (!(date ? DATE : TIMESTAMP).test(value)) throw bad(date ? 'a date (YYYY-MM-DD)' : 'an RFC 3339 timestamp');
      literal = parseCql2Text(`${date ? 'DATE' : 'TIMESTAMP'}('${value}')`);
    } else {
      literal = { kind: 'string', value };
    }
    out.push({ kind: 'comparison', op: '=', left: { kind: 'property', name: column.name }, right: literal });
  }
  return out;
}
