import { z } from '../schemas/zod.js';
import { defineRoute, json, type AnyRoute, type Reply } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { tilesMap } from '../html/page-maps.js';
import { forward } from '../zone-data-query.js';
import type { Links } from '../links.js';
import type { RouteModule } from '../route-module.js';
import { CONF } from '../../formats/conformance-classes.js';
import { formatConformance, F_VALUE, mediaType, type Format } from '../../formats/registry.js';
import { encodeZoneTile, MVT_LAYER } from '../../formats/mvt.js';
import { NotFoundError } from '../../ports/errors.js';
import { runStepped } from '../../ports/event-loop-turns.js';
import { WEB_MERCATOR_QUAD } from '../../domain/tiles/web-mercator-quad.js';
import type { TileSelection, Tileset, TilesService } from '../../app/tiles/tiles-service.js';
import { formatParam } from '../schemas/query.js';
import { CollectionIdParam } from '../schemas/common.js';
import { DggrsIdParam } from '../schemas/dggs.js';
import {
  TILE_FORMATS,
  TILESET_FORMATS,
  TileMatrixSetResponse,
  TileMatrixSetsResponse,
  TileSetResponse,
  TileSetsResponse,
  tileParams,
  tileQuery,
  tilesetQuery,
  TileMatrixSetIdParam,
  type TileLink,
} from '../schemas/tiles.js';
import { collectionScope, crumbsFor, gridPath, rel, TILE_REL, tilesPath, type Scope } from '../grid-scope.js';

/**
 * Vector tiles of zones (OGC API - Tiles, docs/tiles.md): for each grid, bare
 * (`/dggs/{dggrs_id}/tiles...`, zone outlines) and on a collection
 * (`/collections/{collection_id}/dggs/{dggrs_id}/tiles...`, zones with values), the tilesets list,
 * the WebMercatorQuad tileset (JSON, HTML, TileJSON) and its tiles (MVT); and the tile matrix set.
 */
const TMS = WEB_MERCATOR_QUAD.id;
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

type SelectionQuery = { properties?: string[] | undefined; datetime?: string | undefined; filter?: string | undefined; 'filter-lang'?: 'cql2-text' | 'cql2-json' | undefined; 'zone-level'?: number | undefined };

export function tileRoutes(service: TilesService): RouteModule {
  const routes: AnyRoute[] = [false, true].flatMap((scoped) => [tilesetsRoute(service, scoped), tilesetRoute(service, scoped), tileRoute(service, scoped)]);
  routes.push(tileMatrixSetsRoute(), tileMatrixSetRoute());
  return {
    routes,
    conformance: [CONF.tilesCore, CONF.tilesTileset, CONF.tilesTilesetsList, CONF.tilesGeodataTilesets, ...formatConformance('vector-tile')],
  };
}

/** The scope of a request by its path parameters (the collection resolved, 404 when unknown). */
function scopeOf(service: TilesService, params: { collection_id?: unknown }): Scope {
  if (typeof params.collection_id !== 'string') return { prefix: '' };
  const collection = service.collection(params.collection_id);
  return collectionScope(collection);
}

function base(scoped: boolean): string {
  return scoped ? '/collections/{collection_id}/dggs/{dggrs_id}/tiles' : '/dggs/{dggrs_id}/tiles';
}

function common(scoped: boolean, tail: string, name: string, summary: string) {
  return {
    method: 'get' as const,
    path: `${base(scoped)}${tail}`,
    operationId: `${scoped ? '.collection' : '.dataset'}.${name}`,
    summary: scoped ? `${summary} of the collection's data on the grid` : `${summary} of the grid's zones`,
    tags: ['Tiles'],
    invalidStatus: 400 as const,
  };
}

function selectionOf(query: SelectionQuery): TileSelection {
  return {
    ...(query.properties ? { properties: query.properties } : {}),
    ...(query.datetime !== undefined ? { datetime: query.datetime } : {}),
    ...(query.filter !== undefined ? { filter: query.filter } : {}),
    ...(query['filter-lang'] ? { filterLang: query['filter-lang'] } : {}),
  };
}

/**
 * The tile URL template, absolute, with the carried query; its variables left unescaped: `{z}/{y}/{x}`
 * for TileJSON and web maps, `{tileMatrix}/{tileRow}/{tileCol}` for OGC API Tiles clients (GDAL's
 * OGCAPI driver looks for those names).
 */
function tileTemplate(links: Links, path: string, query: Record<string, string | undefined>, form: 'xyz' | 'ogc' = 'xyz'): string {
  const probe = links.href(`${path}/${TMS}/0/0/0`, query);
  const at = probe.indexOf(`/${TMS}/0/0/0`);
  const vars = form === 'xyz' ? '{z}/{y}/{x}' : '{tileMatrix}/{tileRow}/{tileCol}';
  return `${probe.slice(0, at)}/${TMS}/${vars}${probe.slice(at + `/${TMS}/0/0/0`.length)}`;
}

function checkTms(id: string): void {
  if (id !== TMS) throw new NotFoundError('Tile matrix set not found', `Tiles are offered in ${TMS} only (see /tileMatrixSets).`);
}

function title(set: Tileset): string {
  return set.collection ? `${set.collection.title} on ${set.grid.id}` : `Zones of ${set.grid.id}`;
}

function tilesetsRoute(service: TilesService, scoped: boolean): AnyRoute {
  return defineRoute({
    ...common(scoped, '', 'getTileSetsList', 'Tilesets'),
    params: z.object({ ...(scoped ? { collection_id: CollectionIdParam } : {}), dggrs_id: DggrsIdParam }),
    query: z.object({ f: formatParam(['json']) }),
    formats: ['json'],
    responses: responses({ description: 'The tilesets (one: WebMercatorQuad)', schema: TileSetsResponse }, [400, 404, 406]),
    validators: 'request',
    handler: async ({ params, links }) => {
      const scope = scopeOf(service, params);
      const set = service.tileset(params.dggrs_id, scope.collection?.id);
      const path = tilesPath(scope, set.grid);
      return json({
        tilesets: [
          {
            title: title(set),
            dataType: 'vector',
            crs: WEB_MERCATOR_QUAD.crs,
            tileMatrixSetURI: WEB_MERCATOR_QUAD.uri,
            links: [
              { ...links.link('self', `${path}/${TMS}`, { type: 'application/json', title: `${title(set)} (${TMS})` }) },
              links.link(TILE_REL.tilingScheme, `/tileMatrixSets/${TMS}`, { type: 'application/json', title: TMS }),
              links.link('alternate', `${path}/${TMS}`, { type: mediaType('tilejson'), title: 'TileJSON', query: { f: F_VALUE.tilejson } }),
            ],
          },
        ],
        links: [
          links.link('self', path, { type: 'application/json', title: `Tilesets of ${title(set)}` }),
          links.link(rel.dggrs, gridPath(scope, set.grid), { type: 'application/json', title: set.grid.title }),
          ...(scope.collection ? [links.link(TILE_REL.geodata, scope.prefix, { type: 'application/json', title: scope.collection.title })] : []),
        ],
      });
    },
  });
}

function tilesetRoute(service: TilesService, scoped: boolean): AnyRoute {
  return defineRoute({
    ...common(scoped, '/{tileMatrixSetId}', 'getTileSet', 'The WebMercatorQuad tileset'),
    params: z.object({ ...(scoped ? { collection_id: CollectionIdParam } : {}), dggrs_id: DggrsIdParam, tileMatrixSetId: TileMatrixSetIdParam }),
    query: tilesetQuery(scoped),
    formats: TILESET_FORMATS,
    responses: responses({ description: 'The tileset (OGC TileSet; TileJSON 3.0.0 with f=tilejson)', schema: TileSetResponse, formats: TILESET_FORMATS }, [400, 404, 406]),
    validators: scoped ? { source: ({ params }, versions) => versions([(params as { collection_id: string }).collection_id]) } : 'request',
    handler: async ({ params, query, links, format }) => {
      checkTms(params.tileMatrixSetId);
      const scope = scopeOf(service, params);
      const set = service.tileset(params.dggrs_id, scope.collection?.id);
      const q = query as SelectionQuery;
      const fields = scope.collection ? await service.tileFields(scope.collection.id, q.properties) : [];
      const path = tilesPath(scope, set.grid);
      const template = tileTemplate(links, path, forward(q));
      if (format === 'tilejson') return { contentType: mediaType('tilejson'), body: tileJson(set, fields, template, links, path, q) };
      const body = tileSetBody(set, scope, fields, template, links, path, q, format);
      return format === 'html' ? tilesetPage(service, set, scope, links, body, template) : json(body);
    },
  });
}

function tileSetBody(set: Tileset, scope: Scope, fields: string[], template: string, links: Links, path: string, q: SelectionQuery, format: Format) {
  const carriedQuery = forward(q);
  const [w, s, e, n] = set.bounds;
  const list: TileLink[] = [
    ...links.selfAndAlternates(`${path}/${TMS}`, format, TILESET_FORMATS, carriedQuery, title(set)),
    links.link(TILE_REL.tilingScheme, `/tileMatrixSets/${TMS}`, { type: 'application/json', title: TMS }),
    { href: tileTemplate(links, path, carriedQuery, 'ogc'), rel: 'item', type: mediaType('mvt'), title: 'Tiles (Mapbox Vector Tile)', templated: true },
    links.link(rel.dggrs, gridPath(scope, set.grid), { type: 'application/json', title: set.grid.title }),
    ...(scope.collection ? [links.link(TILE_REL.geodata, scope.prefix, { type: 'application/json', title: scope.collection.title })] : []),
  ];
  return {
    title: title(set),
    description: `Zones of ${set.grid.id} as Mapbox Vector Tiles: layer "${MVT_LAYER}", one polygon a zone with its id (zoneId)${fields.length ? ` and values (${fields.join(', ')})` : ''}; each zoom holds the zones of the level the zoom-to-level rule gives.`,
    dataType: 'vector' as const,
    crs: WEB_MERCATOR_QUAD.crs,
    tileMatrixSetURI: WEB_MERCATOR_QUAD.uri,
    tileMatrixSetLimits: set.limits.map((l) => ({ tileMatrix: String(l.zoom), minTileRow: l.minRow, maxTileRow: l.maxRow, minTileCol: l.minCol, maxTileCol: l.maxCol })),
    boundingBox: { lowerLeft: [w, s], upperRight: [e, n], crs: CRS84 },
    layers: [
      {
        id: MVT_LAYER,
        dataType: 'vector',
        geometryDimension: 2,
        minTileMatrix: String(set.minZoom),
        maxTileMatrix: String(set.maxZoom),
        propertiesSchema: { type: 'object', properties: { zoneId: { type: 'string', description: `Zone id in ${set.grid.id}` }, ...Object.fromEntries(fields.map((f) => [f, { type: 'number' }])) } },
      },
    ],
    links: list,
  };
}

/** TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0). */
function tileJson(set: Tileset, fields: string[], template: string, links: Links, path: string, q: SelectionQuery) {
  const [w, s, e, n] = set.bounds;
  const lat = Math.max(-WEB_MERCATOR_QUAD.maxLatitude, Math.min(WEB_MERCATOR_QUAD.maxLatitude, (s + n) / 2));
  const lon = w <= e ? (w + e) / 2 : ((w + e + 360) / 2 > 180 ? (w + e + 360) / 2 - 360 : (w + e + 360) / 2);
  const centreZoom = set.collection ? Math.max(0, Math.min(set.maxZoom, Math.floor(Math.log2(360 / Math.max(1e-6, w <= e ? e - w : e + 360 - w))))) : 0;
  return {
    tilejson: '3.0.0',
    name: title(set),
    description: `Zones of ${set.grid.id}${set.collection ? ` with the values of ${set.collection.title}` : ''}; layer "${MVT_LAYER}".`,
    version: '1.0.0',
    scheme: 'xyz',
    tiles: [template],
    minzoom: set.minZoom,
    maxzoom: set.maxZoom,
    bounds: [w, Math.max(s, -WEB_MERCATOR_QUAD.maxLatitude), e, Math.min(n, WEB_MERCATOR_QUAD.maxLatitude)],
    center: [lon, lat, centreZoom],
    ...(set.collection?.attribution ? { attribution: set.collection.attribution } : {}),
    vector_layers: [
      {
        id: MVT_LAYER,
        description: `One polygon a zone: zoneId${fields.length ? ` and ${fields.join(', ')} (absent where null)` : ''}`,
        fields: { zoneId: 'String', ...Object.fromEntries(fields.map((f) => [f, 'Number'])) },
        minzoom: set.minZoom,
        maxzoom: set.maxZoom,
      },
    ],
    // Where the rest is described (not a TileJSON key; clients ignore it).
    links: [links.link('describedby', `${path}/${TMS}`, { type: 'application/json', title: 'OGC TileSet', query: { ...forward(q), f: 'json' } })],
  };
}

function tilesetPage(service: TilesService, set: Tileset, scope: Scope, links: Links, body: ReturnType<typeof tileSetBody>, template: string): Reply {
  const zooms = Array.from({ length: set.maxZoom + 1 }, (_, z) => ({ z, level: service.levelFor(set.grid, z) }));
  const tilejson = body.links.find((l) => l.type === mediaType('tilejson'))?.href;
  return renderHtml('tileset', {
    title: body.title,
    // The tileset drawn, with its query (properties, datetime, zone-level) carried by its TileJSON link.
    mapConfig: tilesMap(links, scope, set.grid.id, tilejson),
    crumbs: crumbsFor(links, scope, set.grid, [[`Tiles (${TMS})`, '']]),
    links: body.links,
    tileset: body,
    template,
    tilejson,
    zooms,
    layer: MVT_LAYER,
    fields: Object.keys((body.layers[0]!.propertiesSchema.properties as Record<string, unknown>)),
  });
}

function tileRoute(service: TilesService, scoped: boolean): AnyRoute {
  return defineRoute({
    ...common(scoped, '/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}', 'getTile', 'One vector tile'),
    description:
      'A Mapbox Vector Tile: layer `zones`, one polygon a zone with `zoneId` and (on a collection) one number attribute per field, absent where null; a collection\'s tile holds only zones with a value. 204 No Content for a tile with no zone; 404 outside the matrix or the tileset\'s limits.',
    params: z.object(tileParams(scoped)),
    query: tileQuery(scoped),
    formats: TILE_FORMATS,
    defaultFormat: 'mvt',
    responses: { ...responses({ description: 'The tile', schema: z.string(), formats: TILE_FORMATS }, [400, 404, 406, 422, 503]), 204: { description: 'The tile holds no zone' } },
    validators: scoped ? { source: ({ params }, versions) => versions([(params as { collection_id: string }).collection_id]) } : 'request',
    handler: async ({ params, query, signal }) => {
      checkTms(params.tileMatrixSetId);
      const p = params as { collection_id?: string; dggrs_id: string; tileMatrix: number; tileRow: number; tileCol: number };
      const q = query as SelectionQuery;
      const { z: zoom, x, y } = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
      const tile = await service.tile({ dggrsId: p.dggrs_id, ...(p.collection_id !== undefined ? { collectionId: p.collection_id } : {}), z: zoom, x, y, ...selectionOf(q), ...(q['zone-level'] !== undefined ? { zoneLevel: q['zone-level'] } : {}) }, signal);
      const bytes = await runStepped(encodeZoneTile(tile.zones, zoom, x, y));
      // What the tile holds, for clients that check it (the level the rule gave, the depth of the values' zone data).
      const headers: Record<string, string> = { 'X-Zone-Level': String(tile.level), ...(tile.dataDepth !== undefined ? { 'X-Zone-Data-Depth': String(tile.dataDepth) } : {}) };
      if (!bytes) return { status: 204, contentType: mediaType('mvt'), body: new Uint8Array(0), headers };
      return { contentType: mediaType('mvt'), body: bytes, headers };
    },
  });
}

/** The WebMercatorQuad definition (OGC 17-083r4 annex D.1, its 2.0 JSON encoding). */
function webMercatorQuad() {
  const size = 2 * WEB_MERCATOR_QUAD.originShift;
  const origin = [-WEB_MERCATOR_QUAD.originShift, WEB_MERCATOR_QUAD.originShift];
  return {
    id: TMS,
    title: 'Google Maps Compatible for the World',
    uri: WEB_MERCATOR_QUAD.uri,
    crs: WEB_MERCATOR_QUAD.crs,
    orderedAxes: ['E', 'N'],
    wellKnownScaleSet: 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible',
    boundingBox: { lowerLeft: [-WEB_MERCATOR_QUAD.originShift, -WEB_MERCATOR_QUAD.originShift], upperRight: [WEB_MERCATOR_QUAD.originShift, WEB_MERCATOR_QUAD.originShift], crs: WEB_MERCATOR_QUAD.crs },
    tileMatrices: Array.from({ length: WEB_MERCATOR_QUAD.maxZoom + 1 }, (_, z) => {
      const cellSize = size / (WEB_MERCATOR_QUAD.tileSize * 2 ** z);
      return {
        id: String(z),
        // OGC 17-083r4: scale denominator = cell size / 0.28 mm (the standardized rendering pixel).
        scaleDenominator: cellSize / 0.00028,
        cellSize,
        cornerOfOrigin: 'topLeft',
        pointOfOrigin: origin,
        tileWidth: WEB_MERCATOR_QUAD.tileSize,
        tileHeight: WEB_MERCATOR_QUAD.tileSize,
        matrixWidth: 2 ** z,
        matrixHeight: 2 ** z,
      };
    }),
  };
}

function tileMatrixSetsRoute(): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/tileMatrixSets',
    operationId: 'getTileMatrixSetsList',
    summary: 'The tile matrix sets tiles are offered in',
    tags: ['Tiles'],
    query: z.object({ f: formatParam(['json']) }),
    formats: ['json'],
    responses: responses({ description: 'The tile matrix sets', schema: TileMatrixSetsResponse }, [406]),
    validators: 'request',
    handler: async ({ links }) =>
      json({
        tileMatrixSets: [{ id: TMS, title: 'Google Maps Compatible for the World', uri: WEB_MERCATOR_QUAD.uri, links: [links.link('self', `/tileMatrixSets/${TMS}`, { type: 'application/json', title: TMS })] }],
        links: [links.link('self', '/tileMatrixSets', { type: 'application/json', title: 'Tile matrix sets' })],
      }),
  });
}

function tileMatrixSetRoute(): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/tileMatrixSets/{tileMatrixSetId}',
    operationId: 'getTileMatrixSet',
    summary: 'One tile matrix set definition',
    tags: ['Tiles'],
    params: z.object({ tileMatrixSetId: TileMatrixSetIdParam }),
    query: z.object({ f: formatParam(['json']) }),
    formats: ['json'],
    responses: responses({ description: 'The tile matrix set', schema: TileMatrixSetResponse }, [404, 406]),
    validators: 'request',
    handler: async ({ params }) => {
      checkTms(params.tileMatrixSetId);
      return json(webMercatorQuad());
    },
  });
}
