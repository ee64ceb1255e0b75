import type { Request } from 'restify';
import type { z } from './schemas/zod.js';
import { ItemsQuery, type ItemQuery } from './schemas/items.js';
import type { Format } from '../formats/registry.js';
import type { ItemsQuery as ServiceQuery } from '../app/items/items-service.js';

/** Query values as the links carry them. */
export type CarriedQuery = Record<string, string | number | undefined>;

/** Parameters carried into self/prev/next/alternate links, as the client wrote them. */
const CARRIED = ['bbox', 'datetime', 'properties', 'exclude-properties', 'filter', 'filter-lang'] as const;

/** Query parameters the route declares; any other is a `<property>=<value>` filter (or ignored). */
export const DECLARED = new Set(Object.keys(ItemsQuery.shape));

/** The last value of each parameter named, as the client wrote it. */
function lastValues(req: Request, names: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = (req.query ?? {}) as Record<string, unknown>;
  for (const k of names) {
    const v = raw[k];
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof last === 'string') out[k] = last;
  }
  return out;
}

const undeclared = (req: Request) => Object.keys((req.query ?? {}) as Record<string, unknown>).filter((name) => !DECLARED.has(name));

/** What the links carry: the declared selection parameters and every `<property>=<value>`. */
export function carried(req: Request): CarriedQuery {
  return lastValues(req, [...CARRIED, ...undeclared(req)]);
}

/** The items use case's query: the parsed selection, `<property>=<value>` parameters (the service keeps those naming a column), and whether the format writes geometry. */
export function itemsServiceQuery(q: z.infer<typeof ItemQuery>, format: Format, req: Request): ServiceQuery {
  return {
    propertyEquals: lastValues(req, undeclared(req)),
    ...(q.bbox ? { bbox: q.bbox } : {}),
    ...(q.datetime !== undefined ? { datetime: q.datetime } : {}),
    ...(q.properties ? { properties: q.properties } : {}),
    ...(q['exclude-properties'] ? { excludeProperties: q['exclude-properties'] } : {}),
    ...(q.filter !== undefined ? { filter: q.filter } : {}),
    ...(q['filter-lang'] ? { filterLang: q['filter-lang'] } : {}),
    keepGeometry: format !== 'json' && format !== 'parquet',
  };
}
