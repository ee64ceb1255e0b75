import { LakeNotFoundError, LakeQueryError } from '../ports/lake-reader.js';
import { InvalidRequestError, NotFoundError } from '../ports/errors.js';

/**
 * Runs lake work of a request on `collectionId`, the lake's own faults given as the API's: a
 * collection without files is not found (it has no data yet), a query the lake refuses is an
 * invalid request. Items, zone features and lake zone data answer alike.
 */
export async function withLakeFaults<T>(collectionId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LakeNotFoundError) throw new NotFoundError('Collection has no lake data', `Collection "${collectionId}" has no data files yet: no parquet files were found in its lake folder.`);
    if (e instanceof LakeQueryError) throw new InvalidRequestError(e.message, e.hint);
    throw e;
  }
}
