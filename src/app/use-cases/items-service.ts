/**
 * Raw items of parquet-lake collections: validates the request against the collection's
 * columns, parses `datetime` and the CQL2 filter, and asks the lake for a page. Knows nothing
 * of HTTP or DuckDB.
 */
import type { CollectionCatalog, Collection } from '../../ports/collection-catalog.js';
import { LakeNotFoundError, LakeQueryError, type LakeDataset, type LakePage, type LakePageRequest, type LakeReader } from '../../ports/lake-reader.js';
import { parseCql2Json, parseCql2Text, type Expr } from '../../domain/cql2/index.js';
import { InvalidDatetimeError, parseDatetime } from '../../domain/time-interval.js';
import { BadRequestError, NotFoundError } from '../errors.js';

/** Same charset as collection ids in config; anything else (`../x`, quotes, NUL) is refused before any lookup. */
const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export type FilterLang = 'cql2-text' | 'cql2-json';

export interface ItemsQuery {
  bbox?: [number, number, number, number];
  datetime?: string;
  properties?: string[];
  excludeProperties?: string[];
  filter?: string;
  filterLang?: FilterLang;
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

export class ItemsService {
  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly lake: LakeReader,
    private readonly maxLimit = 1000,
  ) {}

  /** The collection, if its id is well formed and it is lake-backed. */
  collection(id: string): Collection {
    if (!COLLECTION_ID.test(id)) {
      throw new BadRequestError('Invalid collection id', 'Collection ids are 1-128 letters, digits, "_", "." or "-", starting with a letter or digit.');
    }
    const c = this.catalog.get(id);
    if (!c || c.backing.kind !== 'parquet-lake') {
      const lakes = this.catalog.list().filter((x) => x.backing.kind === 'parquet-lake').map((x) => x.id);
      throw new NotFoundError('Collection has no lake data', `Items are served for parquet-lake collections only: ${lakes.join(', ') || 'none configured'}.`);
    }
    return c;
  }

  async page(id: string, query: PageQuery): Promise<ItemsResult> {
    if (query.limit > this.maxLimit) throw new BadRequestError('Invalid query parameter', `limit must be <= ${this.maxLimit}`);
    return this.run(id, query, query.offset, query.limit);
  }

  /** One row by its 0-based index in the filtered set; 404 beyond the end. */
  async item(id: string, featureId: number, query: ItemsQuery): Promise<ItemsResult> {
    const result = await this.run(id, query, featureId, 1);
    if (result.page.rows.length === 0) {
      throw new NotFoundError('Feature not found', `feature_id ${featureId} is out of range: ${result.page.numberMatched} rows match, so ids run from 0 to ${result.page.numberMatched - 1}.`);
    }
    return result;
  }

  /** The page (or one item) as a parquet file; `geo` writes GeoParquet. */
  async parquet(id: string, query: PageQuery, geo: boolean, single = false): Promise<{ bytes: Uint8Array; result: ItemsResult }> {
    // Resolve first: out-of-range items are 404 and bad parameters 400 before writing a file.
    const result = single ? await this.item(id, query.offset, query) : await this.page(id, query);
    const request = await this.request(result.collection, result.dataset, query, query.offset, query.limit);
    const bytes = await this.guard(() => this.lake.pageAsParquet(result.collection, request, geo));
    return { bytes, result };
  }

  private async run(id: string, query: ItemsQuery, offset: number, limit: number): Promise<ItemsResult> {
    const collection = this.collection(id);
    const dataset = await this.guard(() => this.lake.describe(collection));
    const request = await this.request(collection, dataset, query, offset, limit);
    const page = await this.guard(() => this.lake.page(collection, request));
    return { collection, dataset, columns: request.columns, page };
  }

  private async request(_c: Collection, dataset: LakeDataset, query: ItemsQuery, offset: number, limit: number): Promise<LakePageRequest> {
    return {
      offset,
      limit,
      columns: selectColumns(dataset, query),
      ...(query.bbox ? { bbox: query.bbox } : {}),
      ...(query.datetime !== undefined ? { datetime: parseDatetimeParam(query.datetime) } : {}),
      ...(query.filter !== undefined ? { filter: parseFilter(query.filter, query.filterLang ?? 'cql2-text') } : {}),
    };
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof LakeNotFoundError) throw new NotFoundError('Collection has no lake data', 'No parquet files were found under the collection\'s lake prefix.');
      if (e instanceof LakeQueryError) throw new BadRequestError(e.message, e.hint);
      throw e;
    }
  }
}

/** `properties` keeps, `exclude-properties` drops; the geometry rides along for geometry formats unless excluded. */
export function selectColumns(dataset: LakeDataset, query: ItemsQuery): string[] {
  const valid = dataset.columns.filter((c) => c.queryable).map((c) => c.name);
  const check = (names: string[] | undefined, param: string) => {
    for (const n of names ?? []) {
      if (!valid.includes(n)) throw new BadRequestError('Invalid query parameter', `${param}: unknown property "${n.slice(0, 64)}". Valid properties: ${valid.join(', ')}.`);
    }
  };
  check(query.properties, 'properties');
  check(query.excludeProperties, 'exclude-properties');
  const g = dataset.geometryColumn;
  const keep = new Set(query.properties ?? valid);
  if (query.properties && g && query.keepGeometry) keep.add(g);
  for (const n of query.excludeProperties ?? []) keep.delete(n);
  return valid.filter((n) => keep.has(n));
}

function parseDatetimeParam(text: string) {
  try {
    return parseDatetime(text);
  } catch (e) {
    if (e instanceof InvalidDatetimeError) throw new BadRequestError('Invalid query parameter', e.message);
    throw e;
  }
}

/** Syntax errors leave as Cql2SyntaxError, which the HTTP error mapper turns into 400 with the position. */
export function parseFilter(text: string, lang: FilterLang): Expr {
  return lang === 'cql2-text' ? parseCql2Text(text) : parseCql2Json(text);
}
