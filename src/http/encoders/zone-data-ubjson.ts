import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext } from './zone-data-context.js';
import { pacer } from './zone-data-chunks.js';
import { dggsJsonPieces } from './zone-data-dggs-json.js';
import { JsonToUbjson } from './ubjson.js';

/**
 * DGGS-UBJSON (OGC 21-038r1 /req/data-ubjson/content): the DGGS-JSON document of the same request,
 * transcoded to UBJSON as its text is written, with a turn of the event loop after each slice of work.
 */
export async function zoneDataUbjson(data: ZoneData, ctx: ZoneDataContext): Promise<Buffer> {
  const out = new JsonToUbjson();
  const tick = pacer();
  for (const piece of dggsJsonPieces(data, ctx)) {
    out.write(piece);
    const turn = tick();
    if (turn) await turn;
  }
  return out.end();
}
