import type { Links } from '../links.js';
import type { Link } from '../schemas/common.js';
import type { MapConfig } from './render.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData } from '../../domain/zone-data.js';
import { zoneGeometry } from '../encoders/zone-list-geojson.js';
import { gridPath, tilesPath, type Scope } from '../grid-scope.js';
import { WEB_MERCATOR_QUAD } from '../../domain/tiles/web-mercator-quad.js';
import { F_VALUE } from '../../formats/registry.js';

/** The interactive maps of the HTML pages (drawn by assets/map.js; docs/maps.md). */

/** The choropleths' colour ramp (viridis), low to high: the map interpolates between these stops. */
export const CHOROPLETH_RAMP = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'];
/** Opacity of a zone with a value (the screenshot tests blend the ramp over the basemap with it). */
export const CHOROPLETH_OPACITY = 0.85;

const ID = '__id__';
/** A page URL with `{id}` where a feature's id goes (map.js fills it in). */
const hrefTemplate = (links: Links, pathWithId: string, query: Record<string, unknown> = {}) =>
  links.href(pathWithId.replace('{id}', ID), { ...query, f: 'html' }).replace(ID, '{id}');

const geoJsonAlternate = (list: Link[]) => list.find((l) => l.rel === 'alternate' && l.type?.startsWith('application/geo+json'))?.href;

/**
 * A grid's tiles drawn (`tileJson`: a tileset's own TileJSON, with its query; else the tileset's
 * plain one): on a collection its zones with values, coloured by a field (the fields come from the
 * schema: a lake's are its files' columns, read at run time), with a datetime picker where the data
 * has times (tiles of all times until one is given), fitted to its extent; on a bare grid its zones
 * over the world as outlines, each zoom at the level the zoom-to-level rule gives.
 */
export function tilesMap(links: Links, scope: Scope, gridId: string, tileJson?: string): MapConfig {
  const grid = gridPath(scope, { id: gridId });
  const common = { idProperty: 'zoneId', hrefTemplate: hrefTemplate(links, `${grid}/zones/{id}`) };
  const tiles = tileJson ?? links.href(`${tilesPath(scope, { id: gridId })}/${WEB_MERCATOR_QUAD.id}`, { f: F_VALUE.tilejson });
  const c = scope.collection;
  if (!c) {
    return { ...common, fit: [-180, -60, 180, 75], caption: `The zones of ${gridId} from its vector tiles: each zoom shows one level (zoom in for finer zones); hover a zone for its id, click it to open it.`, outlines: { tileJson: tiles } };
  }
  return {
    ...common,
    ...(c.extent?.spatial?.bbox?.[0] ? { fit: c.extent.spatial.bbox[0] } : {}),
    caption: `Zones of ${gridId} with a value, coloured by the field; hover a zone for its value, click it to open it.`,
    choropleth: {
      ramp: CHOROPLETH_RAMP,
      opacity: CHOROPLETH_OPACITY,
      ...(c.extent?.temporal?.interval?.length ? { datetime: '' } : {}),
      fields: [],
      schemaUrl: links.href(`${scope.prefix}/schema`, { f: 'json' }),
      tileJson: tiles,
    },
  };
}

/** Zone list: every zone of the page, from the page's GeoJSON alternate; a drawn box fills the form's bbox. */
export function zoneListMap(links: Links, gridPathOfScope: string, linkList: Link[]): MapConfig | undefined {
  const dataUrl = geoJsonAlternate(linkList);
  if (!dataUrl) return undefined;
  // Fitted to the zones drawn (they reach past the bbox asked).
  return { dataUrl, caption: 'Every zone of this page; click one to open it.', role: 'zone', idProperty: 'zoneID', hrefTemplate: hrefTemplate(links, `${gridPathOfScope}/zones/{id}`), drawBox: 'bbox' };
}

/** Zone info: the zone, its parents, children and neighbours, each linking to its page (in the page: a few dozen outlines). */
export function zoneInfoMap(grid: Dggrs, zoneId: string, related: { parents: string[]; children: string[]; neighbours: string[] }, href: (zoneId: string) => string): MapConfig {
  const feature = (id: string, role: string) => ({ type: 'Feature', id, geometry: zoneGeometry(grid, id, true), properties: { zoneID: id, role, title: `${id} (${role})`, ...(role === 'zone' ? {} : { href: href(id) }) } });
  // Drawn in this order: parents under the rest, children over the zone.
  const features = [...related.parents.map((z) => feature(z, 'parent')), ...related.neighbours.map((z) => feature(z, 'neighbour')), feature(zoneId, 'zone'), ...related.children.map((z) => feature(z, 'child'))];
  return { data: { type: 'FeatureCollection', features }, caption: 'This zone (blue), its parents (grey), neighbours (white) and children (green); click one to open it.', idProperty: 'zoneID' };
}

/** Zone data: the sub-zones coloured by a field, re-fetched as GeoJSON when the field, depth or datetime changes. */
export function zoneDataMap(data: ZoneData, selfHref: string, zoneHrefTemplate: string, datetime: string | undefined): MapConfig {
  const deepest = data.depths[data.depths.length - 1]?.depth ?? 0;
  const fields = Object.entries(data.fields).map(([name, f]) => ({ name, ...(f.title ? { title: f.title } : {}), ...(f.svc_unit ? { unit: f.svc_unit } : {}) }));
  return {
    dataUrl: selfHref,
    caption: 'Sub-zones coloured by the field (grey: no value); hover one for its value, click it to open it.',
    idProperty: 'zone_id',
    hrefTemplate: zoneHrefTemplate,
    // Deeper than the service allows (limits.maxSubZones) is refused with a message the map shows.
    choropleth: { ramp: CHOROPLETH_RAMP, opacity: CHOROPLETH_OPACITY, fields, depths: Array.from({ length: Math.max(deepest, 6) + 1 }, (_, i) => i), depth: deepest, datetime: datetime ?? '' },
  };
}

/** Items: the page's rows from its GeoJSON alternate, each linking to its item page. */
export function itemsMap(links: Links, itemsPath: string, linkList: Link[], carry: Record<string, unknown>): MapConfig | undefined {
  const dataUrl = geoJsonAlternate(linkList);
  return dataUrl ? { dataUrl, caption: 'The rows of this page; click one to open it (the geometry column is shown as WKT in the table).', hrefTemplate: hrefTemplate(links, `${itemsPath}/{id}`, carry) } : undefined;
}

/** One item: its geometry, in the page. */
export function itemMap(geometry: object | null, title: string): MapConfig | undefined {
  return geometry ? { data: { type: 'Feature', geometry, properties: { title } }, caption: 'The item\'s geometry.' } : undefined;
}
