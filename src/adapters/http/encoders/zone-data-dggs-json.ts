import type { ZoneData } from '../../../domain/zone-data.js';
import type { ZoneDataContext } from './zone-data-context.js';

/**
 * DGGS-JSON (OGC 21-038r1 /req/data-json/content): `values` per field, one entry per depth
 * with its shape and the data in the grid's sub-zone order, nulls as JSON null. The contract
 * adds `links`, `defaultDepth`, the row view `data` and the zone ids per depth in `zones`.
 */
export function dggsJsonBody(data: ZoneData, ctx: ZoneDataContext): Record<string, unknown> {
  const values: Record<string, unknown[]> = {};
  for (const name of Object.keys(data.fields)) {
    values[name] = data.depths.map((d) => ({ depth: d.depth, shape: { count: d.zones.length, subZones: d.zones.length }, data: d.values[name] ?? d.zones.map(() => null) }));
  }
  const rows: Record<string, Record<string, number | null>> = {};
  for (const d of data.depths) {
    d.zones.forEach((z, i) => {
      const row: Record<string, number | null> = { depth: d.depth };
      for (const name of Object.keys(data.fields)) row[name] = d.values[name]?.[i] ?? null;
      rows[z] = row;
    });
  }
  const properties = Object.fromEntries(Object.entries(data.fields).map(([k, v]) => [k, clean(v as unknown as Record<string, unknown>)]));
  return {
    dggrs: `[ogc-dggrs:${data.dggrsId}]`,
    zoneId: data.zoneId,
    depths: data.depths.map((d) => d.depth),
    links: ctx.links,
    defaultDepth: ctx.grid.defaultDepth,
    ...(ctx.datetime
      ? { dimensions: [{ name: 'time', interval: [ctx.datetime.start, ctx.datetime.end], grid: { cellsCount: 1, coordinates: [ctx.datetime.start ?? ctx.datetime.end ?? '..'] } }] }
      : {}),
    schema: { type: 'object', properties },
    values,
    data: rows,
    zones: data.depths.map((d) => ({ depth: d.depth, zoneIds: d.zones })),
  };
}

/** Drops undefined members so the schema object is plain JSON. */
function clean(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
