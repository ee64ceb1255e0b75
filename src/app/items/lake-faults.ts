import { LakeNotFoundError, LakeQueryError } from '../../ports/lake-reader.js';
import { InvalidRequestError, NotFoundError } from '../../ports/errors.js';

/**
 * Runs lake work for an items request, the lake's own faults given as the API's: a collection
 * without files is not found, a query the lake refuses is an invalid request.
 */
export async function withLakeFaults<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LakeNotFoundError) throw new NotFoundError('Collection has no lake data', 'No parquet files were found under the collection\'s lake prefix.');
    if (e instanceof LakeQueryError) throw new InvalidRequestError(e.message, e.hint);
    throw e;
  }
}
