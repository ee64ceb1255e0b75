import { parseCql2Json, parseCql2Text, type Expr } from '../../domain/cql2/index.js';

/** `cql-text` is the pre-standard name of CQL2 text that older clients send (GDAL up to 3.x). */
export type FilterLang = 'cql2-text' | 'cql2-json' | 'cql-text';

/**
 * Which rows and properties a request over rows selects, as the route parsed it: the items of a
 * collection, the features of a zone, the zone data aggregated from rows.
 */
export interface RowSelection {
  datetime?: string;
  properties?: string[];
  excludeProperties?: string[];
  /** CQL2 on the rows (row-based collections: parquet lake, OGC API Features). */
  filter?: string;
  filterLang?: FilterLang;
}

/** Syntax errors leave as Cql2SyntaxError, which the HTTP error mapper turns into 400 with the position. */
export function parseFilter(text: string, lang: FilterLang): Expr {
  return lang === 'cql2-json' ? parseCql2Json(text) : parseCql2Text(text);
}
