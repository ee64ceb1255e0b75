import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { dggsJsonPieces } from './dggs-json.js';
import { ubjsonOfPieces } from '../ubjson.js';
import { CONF } from '../conformance-classes.js';

/**
 * DGGS-UBJSON (OGC 21-038r1 /req/data-ubjson/content): the DGGS-JSON document of the same request,
 * transcoded to UBJSON as its text is written (ubjsonOfPieces).
 */
async function* zoneDataUbjson(data: ZoneData, ctx: ZoneDataContext): AsyncGenerator<Buffer> {
  yield await ubjsonOfPieces(dggsJsonPieces(data, ctx), ctx.signal);
}

/** DGGS-UBJSON under its OGC media type, and the same document under the plain UBJSON one. */
export const dggsUbjson: ZoneDataEncoding = { format: 'dggs-ubjson', conformance: [CONF.dggsDataUbjson], encode: zoneDataUbjson };
export const plainUbjson: ZoneDataEncoding = { ...dggsUbjson, format: 'ubjson' };
