import { queryInteger } from '../schemas/query.js';

/** What every order route shares: its tag, a bearer token, 422 for an invalid request. */
export const ORDER_ROUTE = { tags: ['Orders'], secured: true, invalidStatus: 422 as const };

export const orderIdParam = queryInteger('Order identifier', { min: 0, max: 2 ** 31 - 1 }).unwrap();
export const jobIdParam = queryInteger('Job identifier', { min: 0, max: Number.MAX_SAFE_INTEGER }).unwrap();
