import { z } from '../schemas/zod.js';
import type { Link } from '../schemas/common.js';
import { GeoJsonFeature, ZoneIdResponse } from '../schemas/dggs.js';
import { defineRoute, json, type AnyRoute, type Reply } from '../route.js';
import { KeptReplies } from '../kept-replies.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { zoneSvgMap } from '../html/zone-svg.js';
import { zoneInfoMap } from '../html/page-maps.js';
import { publicSourceHref } from '../source-files.js';
import { formatParam, queryBoolean } from '../schemas/query.js';
import { mediaType, offeredBy, type Format } from '../../formats/registry.js';
import { zoneFeature } from '../encoders/zone-list-geojson.js';
import type { Links } from '../links.js';
import type { Collection } from '../../domain/collection.js';
import type { ZoneInfo, ZoneInfoService } from '../../app/zones/zone-info.js';
import { contextLinks, crumbsFor, enc, gridPath, rel, type DggsForm, type Scope } from '../grid-scope.js';

/** Zone info: one zone described, in JSON, GeoJSON (a Feature) and as a page. */
const ZONE_FORMATS = offeredBy('zone-info');
const zoneQuery = z.object({
  'refined-geometry': queryBoolean('Densify zone edges in the geometry (default true)'),
  f: formatParam(ZONE_FORMATS),
});

/** `cache`: a grid's zone info (no collection) depends on the request alone, so its encoded answers are kept. */
export function zoneInfoRoute(form: DggsForm, service: ZoneInfoService, cache?: KeptReplies): AnyRoute {
  const route = defineRoute({
    ...form.get('/{dggrs_id}/zones/{zone_id}', 'getDGGRSZoneInfo', { bare: 'Describe one zone', scoped: 'Describe one zone, with links to the collection data' }),
    params: form.zoneParams,
    query: zoneQuery,
    formats: ZONE_FORMATS,
    responses: responses({ description: 'The zone', schema: ZoneIdResponse, formats: ['json', 'html'] }, [404, 406, 422]),
    // A collection's zone carries the statistics of its data.
    validators: form.scoped ? { source: ({ params }, versions) => versions([form.scopeOf(params).collection!.id]) } : 'request',
    handler: async ({ params, query, links, format, signal }) => {
      const scope = form.scopeOf(params);
      const refined = query['refined-geometry'] ?? true;
      const answer = async () => zoneInfoReply(await service.zoneInfo({ dggrsId: params.dggrs_id, zoneId: params.zone_id, collectionId: scope.collection?.id, refined }, signal), scope, refined, links, format);
      if (scope.collection || !cache) return answer();
      return cache.get(`${links.baseUrl}\n${format}\n${refined}\n${params.dggrs_id}\n${params.zone_id}`, answer);
    },
  });
  // The GeoJSON zone feature schema is documented alongside the JSON one.
  const ok = (route.responses as Record<string, { content: Record<string, unknown> }>)['200']!;
  ok.content[mediaType('geojson')] = { schema: GeoJsonFeature };
  return route;
}

function zoneInfoLinks(info: ZoneInfo, scope: Scope, refined: boolean, links: Links, format: Format): Link[] {
  const { grid, zone: d } = info;
  const gpath = gridPath(scope, grid);
  const zpath = (z: string) => `${gpath}/zones/${enc(z)}`;
  const list: Link[] = [
    ...links.selfAndAlternates(zpath(d.id), format, ZONE_FORMATS, refined ? {} : { 'refined-geometry': false }, `Zone ${d.id}`),
    links.link(rel.dggrs, gpath, { type: 'application/json', title: grid.title }),
    { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
    ...info.parents.map((p, i) => links.link(rel.parent, zpath(p), { type: 'application/json', title: `${i === 0 ? 'Primary parent' : 'Parent'} ${p}` })),
    ...info.children.map((c) => links.link(rel.child, zpath(c), { type: 'application/json', title: `Child ${c}` })),
    ...info.neighbours.map((n) => links.link(rel.neighbor, zpath(n), { type: 'application/json', title: `Neighbour ${n}` })),
    links.link(rel.zoneQuery, `${gpath}/zones`, { type: 'application/json', title: 'Sub-zones of this zone', query: { 'parent-zone': d.id } }),
  ];
  if (scope.collection) {
    list.push(links.link(rel.zoneData, `${zpath(d.id)}/data`, { type: 'application/json', title: `Data of ${scope.collection.title} in this zone` }));
    const src = sourceLink(links, scope.collection, d.bbox);
    if (src) list.push(src);
    list.push(...contextLinks(links, scope));
  }
  return list;
}

function zoneInfoReply(info: ZoneInfo, scope: Scope, refined: boolean, links: Links, format: Format): Reply {
  const { grid, zone: d, geometry } = info;
  const list = zoneInfoLinks(info, scope, refined, links, format);
  const body = {
    id: d.id,
    level: d.level,
    shapeType: d.shape,
    crs: grid.crs,
    centroid: d.centroid,
    bbox: d.bbox,
    geometry,
    areaMetersSquare: d.areaMetersSquare,
    ...(info.statistics ? { statistics: info.statistics } : {}),
    links: list,
  };
  if (format === 'geojson') {
    const { geometry: _g, links: l, ...props } = body;
    const feature = zoneFeature(grid, d.id, refined, { ...props, dggrs: grid.id }, l);
    return { contentType: mediaType('geojson'), body: feature, ...(info.statisticsLeftOut ? { incomplete: true } : {}) };
  }
  const reply = format === 'html' ? zoneInfoPage(info, scope, links, body) : json(body);
  return info.statisticsLeftOut ? { ...reply, incomplete: true } : reply;
}

function zoneInfoPage(info: ZoneInfo, scope: Scope, links: Links, body: { links: Link[] } & object): Reply {
  const { grid, zone: d, geometry } = info;
  const gpath = gridPath(scope, grid);
  const zpath = (z: string) => `${gpath}/zones/${enc(z)}`;
  const page = (z: string) => ({ id: z, href: links.href(zpath(z), { f: 'html' }) });
  const map = zoneSvgMap(grid, [...info.neighbours.map((n) => ({ zoneId: n, cls: 'nb', href: links.href(zpath(n), { f: 'html' }) })), { zoneId: d.id, cls: 'me' }], d.centroid[0]);
  return renderHtml('zone', {
    title: `Zone ${d.id}`,
    crumbs: crumbsFor(links, scope, grid, [['Zones', links.href(`${gpath}/zones`, { f: 'html' })], [d.id, '']]),
    links: body.links,
    zone: body,
    grid,
    edgeCount: d.edgeCount,
    vertexCount: geometry.type === 'Polygon' ? geometry.coordinates[0]!.length : geometry.coordinates.reduce((s, p) => s + p[0]!.length, 0),
    parents: info.parents.map(page),
    children: info.children.map(page),
    neighbours: info.neighbours.map(page),
    subZonesHref: links.href(`${gpath}/zones`, { 'parent-zone': d.id, f: 'html' }),
    dataHref: scope.collection ? links.href(`${zpath(d.id)}/data`) : undefined,
    source: body.links.find((l) => l.rel === 'source'),
    map,
    mapConfig: zoneInfoMap(grid, d.id, info, (z) => links.href(zpath(z), { f: 'html' })),
  });
}

/** `source` link of a collection's zone: where its values come from. */
function sourceLink(links: Links, c: Collection, bbox: number[]): Link | undefined {
  const b = c.backing;
  switch (b.kind) {
    case 'raster-url': {
      const href = publicSourceHref([c], b.url, (p) => links.href(p));
      return href ? { href, rel: 'source', type: 'image/tiff; application=geotiff; profile=cloud-optimized', title: 'Source raster (COG)' } : undefined;
    }
    case 'stac': {
      const href = publicSourceHref([c], b.catalog, (p) => links.href(p));
      return href ? { href, rel: 'source', type: 'application/json', title: 'Source STAC catalog' } : undefined;
    }
    case 'parquet-lake':
      return links.link('source', `/collections/${enc(c.id)}/items`, { type: 'application/geo+json', title: 'Source rows in the zone bbox', query: { bbox: bbox.join(',') } });
    case 'ogc-features': {
      const url = new URL(`${b.url.replace(/\/$/, '')}/collections/${enc(b.collection)}/items`);
      url.searchParams.set('bbox', bbox.join(','));
      return { href: url.toString(), rel: 'source', type: 'application/geo+json', title: 'Source features in the zone bbox' };
    }
    case 'clickhouse-pyramid':
      return links.link('source', `/collections/${enc(b.source)}/items`, { type: 'application/geo+json', title: `Rows of ${b.source} in the zone bbox (aggregated by the pyramid)`, query: { bbox: bbox.join(',') } });
  }
}

