import { DEFAULT_PAGE, MAX_PAGE } from './schemas/orders.js';
import type { Links } from './links.js';
import type { ListQuery as ServiceListQuery } from '../app/orders/orders-service.js';
import type { JobStatus } from '../ports/datastore.js';

/** Paging of the order and job lists: the page a query asks for, and the links around it. */
interface RawListQuery {
  limit?: number;
  offset?: number;
  status?: JobStatus;
}

export function page(q: RawListQuery): ServiceListQuery {
  return { limit: Math.min(q.limit ?? DEFAULT_PAGE, MAX_PAGE), offset: q.offset ?? 0, ...(q.status ? { status: q.status } : {}) };
}

/** `self`, and `next` / `prev` when there are entries beyond the page; each carries the filter. */
export function pageLinks(links: Links, path: string, p: ServiceListQuery, returned: number, total: number) {
  const query = (offset: number) => ({ limit: p.limit, offset, ...(p.status ? { status: p.status } : {}) });
  return [
    links.link('self', path, { type: 'application/json', query: query(p.offset) }),
    ...(p.offset + returned < total ? [links.link('next', path, { type: 'application/json', query: query(p.offset + p.limit) })] : []),
    ...(p.offset > 0 ? [links.link('prev', path, { type: 'application/json', query: query(Math.max(0, p.offset - p.limit)) })] : []),
  ];
}
