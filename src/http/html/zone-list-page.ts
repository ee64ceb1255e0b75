import type { Link } from '../schemas/common.js';
import type { Links } from '../links.js';
import type { Reply } from '../route.js';
import { renderHtml } from './render.js';
import { zoneListMap } from './page-maps.js';
import { zoneSvgMap } from './zone-svg.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import type { ZoneListPage } from '../../app/zones/zones-service.js';
import type { Dggrs, Stepped } from '../../domain/dggrs/dggrs.js';
import { crumbsFor, enc, gridPath, type Scope } from '../grid-scope.js';

/** HTML zone lists describe and draw at most this many zones of a page (the ids are all listed). */
const HTML_DETAIL = 400;
const HTML_DRAW = 300;
const HTML_OUTLINE = 5000;
/** Zones described or outlined between two pauses while an HTML zone list is prepared. */
const ZONES_PER_STEP = 50;

/** `fn` over `items`, a few at a time with pauses in between. */
function* mapInSteps<T, U>(items: readonly T[], fn: (item: T) => U): Stepped<U[]> {
  const out: U[] = [];
  for (const item of items) {
    out.push(fn(item));
    if (out.length % ZONES_PER_STEP === 0) yield;
  }
  return out;
}

export async function zoneListHtml(links: Links, scope: Scope, page: ZoneListPage, linkList: Link[], area: number, query: Record<string, unknown>): Promise<Reply> {
  const grid = page.grid;
  const gpath = gridPath(scope, grid);
  const zpath = (z: string) => `${gpath}/zones/${enc(z)}`;
  const parent = typeof query['parent-zone'] === 'string' ? query['parent-zone'] : undefined;
  const detail = await runStepped(mapInSteps(page.zones.slice(0, HTML_DETAIL), (zid) => {
    const d = grid.describeZone(zid);
    return { id: zid, href: links.href(zpath(zid), { f: 'html' }), shape: d.shape, area: d.areaMetersSquare, centroid: d.centroid, dataHref: scope.collection ? links.href(`${zpath(zid)}/data`) : undefined };
  }));
  const box = page.boxes[0];
  const refLon = parent ? grid.describeZone(parent).centroid[0] : box ? (box[0] <= box[2] ? (box[0] + box[2]) / 2 : ((box[0] + box[2] + 360) / 2 + 180) % 360 - 180) : 0;
  // Up to HTML_DRAW zones are drawn refined, each linking to its page; up to HTML_OUTLINE (a world
  // list at a default level) as plain outlines only, to keep the page small.
  const shown = page.zones.slice(0, HTML_OUTLINE);
  const refined = shown.length <= HTML_DRAW;
  // The outlines (the costly part of the map) are made in steps; the map then reads them back.
  const outlines = new Map(await runStepped(mapInSteps(shown, (zid) => [zid, grid.zoneOutline(zid, refined)] as const)));
  const drawn: Dggrs = Object.create(grid, { zoneOutline: { value: (zid: string) => outlines.get(zid) ?? grid.zoneOutline(zid, refined) } });
  const map = zoneSvgMap(drawn, shown.map((zid) => ({ zoneId: zid, cls: 'z', ...(refined ? { href: links.href(zpath(zid), { f: 'html' }) } : {}) })), refLon, 720);
  return renderHtml('zones', {
    title: parent ? `Sub-zones of ${parent}` : `Zones of ${grid.id} at level ${page.level}`,
    crumbs: crumbsFor(links, scope, grid, [['Zones', '']]),
    links: linkList,
    grid,
    page,
    parent,
    parentHref: parent ? links.href(zpath(parent), { f: 'html' }) : undefined,
    area,
    detail,
    more: page.zones.slice(HTML_DETAIL).map((zid) => ({ id: zid, href: links.href(zpath(zid), { f: 'html' }) })),
    next: linkList.find((l) => l.rel === 'next' && l.type === 'text/html'),
    prev: linkList.find((l) => l.rel === 'prev' && l.type === 'text/html'),
    map,
    mapConfig: zoneListMap(links, gpath, linkList),
    mapped: shown.length,
    form: {
      action: links.href(`${gpath}/zones`),
      bbox: typeof query.bbox === 'object' && query.bbox ? (query.bbox as number[]).join(',') : '',
      level: query['zone-level'] ?? '',
      parent: parent ?? '',
    },
  });
}
