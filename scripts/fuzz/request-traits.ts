/**
 * What a request carries that the summary counts on its own: a CQL2 filter (a non-empty `filter`
 * parameter, or a filter in a selection of a cross-collection body) and a cross-collection body
 * (a POST to a zone's data with a `collections` array). Read from the request as sent, so cases
 * of every family count.
 */
import type { FuzzRequest } from './http-client.js';

export interface Traits {
  filtered: boolean;
  crossCollection: boolean;
}

/** Bodies larger than this are not parsed (they are refused by size, and parsing would cost the run). */
const MAX_PARSED_BODY = 1 << 20;

export function traitsOf(req: FuzzRequest): Traits {
  const [path, query = ''] = req.path.split(/\?(.*)/s, 2) as [string, string?];
  let filtered = Boolean(new URLSearchParams(query).get('filter'));
  let crossCollection = false;
  if (req.method.toUpperCase() === 'POST' && /\/zones\/[^/]+\/data$/.test(path) && req.body && req.body.length <= MAX_PARSED_BODY) {
    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      body = undefined;
    }
    const selections = (body as { collections?: unknown } | undefined)?.collections;
    if (Array.isArray(selections)) {
      crossCollection = true;
      filtered ||= selections.some((s) => s !== null && typeof s === 'object' && (s as { filter?: unknown }).filter != null);
    }
  }
  return { filtered, crossCollection };
}
