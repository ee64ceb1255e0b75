import type { ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { jsonItems, jsonNumber, pacedBytes } from '../paced-pieces.js';
import { CONF } from '../conformance-classes.js';
/**
 * DGGS-JSON (OGC 21-038r1 /req/data-json/content): `values` per field, one entry per depth
 * with its shape and the data in the grid's sub-zone order, nulls as JSON null. The contract
 * adds `links`, `defaultDepth`, the row view `data` and the zone ids per depth in `zones`.
 *
 * Written as text pieces (see paced-pieces.ts): the answer can hold hundreds of thousands
 * of values, and a JSON text costs far less memory than the object tree JSON.stringify needs.
 */
export function* dggsJsonPieces(data: ZoneData, ctx: ZoneDataContext): Generator<string> {
  const names = Object.keys(data.fields);
  const keys = names.map((n) => JSON.stringify(n));
  const head: Record<string, unknown> = {
    dggrs: `[ogc-dggrs:${data.dggrsId}]`,
    zoneId: data.zoneId,
    depths: data.depths.map((d) => d.depth),
    links: ctx.links,
    defaultDepth: ctx.grid.defaultDepth,
    ...(ctx.datetime
      ? { dimensions: [{ name: 'time', interval: [ctx.datetime.start, ctx.datetime.end], grid: { cellsCount: 1, coordinates: [ctx.datetime.start ?? ctx.datetime.end ?? '..'] } }] }
      : {}),
    schema: { type: 'object', properties: Object.fromEntries(Object.entries(data.fields).map(([k, v]) => [k, clean(v as unknown as Record<string, unknown>)])) },
  };
  yield JSON.stringify(head).slice(0, -1);

  yield ',"values":{';
  for (let f = 0; f < names.length; f++) {
    yield `${f ? ',' : ''}${keys[f]}:[`;
    for (let k = 0; k < data.depths.length; k++) {
      const d = data.depths[k]!;
      const n = d.zones.length;
      yield `${k ? ',' : ''}{"depth":${d.depth},"shape":{"count":${n},"subZones":${n}},"data":[`;
      const values = d.values[names[f]!];
      yield* jsonItems(n, (i) => jsonNumber(values?.[i]));
      yield ']}';
    }
    yield ']';
  }

  yield '},"data":{';
  let first = true;
  for (const d of data.depths) {
    const columns = names.map((n) => d.values[n]);
    for (let i = 0; i < d.zones.length; i++) {
      let row = `${first ? '' : ','}${JSON.stringify(d.zones[i])}:{"depth":${d.depth}`;
      for (let f = 0; f < names.length; f++) row += `,${keys[f]}:${jsonNumber(columns[f]?.[i])}`;
      yield `${row}}`;
      first = false;
    }
  }

  yield '},"zones":[';
  for (let k = 0; k < data.depths.length; k++) {
    const d = data.depths[k]!;
    yield `${k ? ',' : ''}{"depth":${d.depth},"zoneIds":[`;
    yield* jsonItems(d.zones.length, (i) => JSON.stringify(d.zones[i]));
    yield ']}';
  }
  yield ']}';
}

/** Drops undefined members so the schema object is plain JSON. */
function clean(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** DGGS-JSON under its OGC media type, and the same document as plain JSON. */
export const dggsJson: ZoneDataEncoding = { format: 'dggs-json', conformance: [CONF.dggsDataJson], encode: (data, ctx) => pacedBytes(dggsJsonPieces(data, ctx), ctx.signal) };
export const plainJson: ZoneDataEncoding = { ...dggsJson, format: 'json' };
