import { keptSubZone, type ZoneData } from '../../domain/zone-data.js';
import { renderHtml } from '../html/render.js';
import { choropleth } from '../html/zone-data-svg.js';
import { zoneDataMap } from '../html/page-maps.js';
import type { Reply } from '../route.js';
import type { ZoneDataView } from './zone-data-view.js';

/** Beyond these the page stays usable: the table and map are cut, the files carry everything. */
const MAX_TABLE_ROWS = 5000;
const MAX_MAP_ZONES = 5000;

/**
 * Zone data as HTML: a table (one row per sub-zone and depth) and a map of the deepest depth
 * coloured by the first field. Zone ids link to zone info, found from the self link so the same
 * encoder serves the collection-scoped and the ad-hoc route.
 */
export function zoneDataHtml(data: ZoneData, ctx: ZoneDataView): Reply {
  const fields = Object.keys(data.fields);
  const self = ctx.links.find((l) => l.rel === 'self')?.href ?? '';
  const zoneHref = zoneInfoHref(self);
  const rows: { zone: string; href: string; depth: number; values: (number | null)[] }[] = [];
  let total = 0;
  for (const d of data.depths) {
    // The table is a vector view: sub-zones a zone-data filter excluded are left out (the map shows them empty).
    for (let i = 0; i < d.zones.length; i++) {
      if (!keptSubZone(d, i)) continue;
      total++;
      if (rows.length < MAX_TABLE_ROWS) rows.push({ zone: d.zones[i]!, href: zoneHref(d.zones[i]!), depth: d.depth, values: fields.map((f) => d.values[f]?.[i] ?? null) });
    }
  }
  const deepest = data.depths[data.depths.length - 1];
  const first = fields[0];
  let chart: ReturnType<typeof choropleth> | undefined;
  if (deepest && first !== undefined && deepest.zones.length <= MAX_MAP_ZONES) {
    const refLon = ctx.grid.describeZone(data.zoneId).centroid[0];
    chart = choropleth(ctx.grid, deepest.zones, deepest.values[first] ?? [], first, refLon, zoneHref);
  }
  return renderHtml('zone-data', {
    title: ctx.title,
    crumbs: ctx.crumbs,
    links: ctx.links,
    data,
    fields: fields.map((f) => ({ name: f, title: data.fields[f]?.title ?? f, unit: data.fields[f]?.svc_unit })),
    rows,
    total,
    deepestDepth: deepest?.depth,
    chart,
    mapConfig: zoneDataMap(data, self, zoneHref('{id}').replace(encodeURIComponent('{id}'), '{id}'), datetimeOf(ctx)),
    parentHref: zoneHref(data.zoneId),
    formats: ctx.links.filter((l) => l.rel === 'alternate'),
    sources: ctx.links.filter((l) => l.rel === 'source'),
    fmt,
  });
}

/** `.../zones/{zone}/data?...` -> a function giving `.../zones/{other}?f=html`. */
function zoneInfoHref(self: string): (zoneId: string) => string {
  const base = self.replace(/[?#].*$/, '').replace(/\/zones\/[^/]+\/data$/, '/zones/');
  return (z) => `${base}${encodeURIComponent(z)}?f=html`;
}

/** The datetime the answer was asked for, as the query gave it (for the map's datetime picker). */
function datetimeOf(ctx: ZoneDataView): string | undefined {
  const d = ctx.datetime;
  if (!d) return undefined;
  return d.start === d.end ? (d.start ?? undefined) : `${d.start ?? '..'}/${d.end ?? '..'}`;
}

function fmt(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '';
  return v.toLocaleString('en-US', { maximumSignificantDigits: 7, useGrouping: false });
}
