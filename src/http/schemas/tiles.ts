import { z } from './zod.js';
import { CollectionIdParam } from './common.js';
import { DggrsIdParam } from './dggs.js';
import { formatParam, queryInteger } from './query.js';
import { CollectionZoneDataQuery } from './zone-data.js';
import { F_VALUE, offeredBy } from '../../formats/registry.js';

/** Parameters and bodies of the tile routes (OGC API - Tiles, OGC 20-057; TileSet and TileMatrixSet of OGC 17-083r4). */
export const TILESET_FORMATS = offeredBy('tileset');
export const TILE_FORMATS = offeredBy('vector-tile', 'mvt');

export const TileMatrixSetIdParam = z.string().openapi({ param: { name: 'tileMatrixSetId', in: 'path' }, description: 'Tile matrix set: WebMercatorQuad', example: 'WebMercatorQuad' });
const tileIndex = (name: string, description: string) =>
  z.string().regex(/^\d{1,9}$/, 'must be a non-negative integer').transform(Number).openapi({ param: { name, in: 'path' }, type: 'integer', description });

export const tileParams = (scoped: boolean) => ({
  ...(scoped ? { collection_id: CollectionIdParam } : {}),
  dggrs_id: DggrsIdParam,
  tileMatrixSetId: TileMatrixSetIdParam,
  tileMatrix: tileIndex('tileMatrix', 'Zoom level (tile matrix) z, 0-24'),
  tileRow: tileIndex('tileRow', 'Row y, 0 at the north, 0 to 2^z - 1'),
  tileCol: tileIndex('tileCol', 'Column x, 0 at 180° W, 0 to 2^z - 1'),
});

const zq = CollectionZoneDataQuery.shape;
/** The zone-data selection a collection's tiles carry (the same parameters as zone data). */
export const tileSelectionQuery = {
  properties: zq.properties,
  datetime: zq.datetime,
  filter: zq.filter,
  'filter-lang': zq['filter-lang'],
};

const zoneLevel = queryInteger('Level of the zones in the tile, instead of the zoom-to-level rule\'s (at most tiles.maxZoneLevelDelta finer; see docs/tiles.md)', { min: 0, max: 64 });

export const tilesetQuery = (scoped: boolean) =>
  z.object({ ...(scoped ? tileSelectionQuery : {}), 'zone-level': zoneLevel, f: formatParam(TILESET_FORMATS.map((f) => F_VALUE[f])) });
export const tileQuery = (scoped: boolean) =>
  z.object({ ...(scoped ? tileSelectionQuery : {}), 'zone-level': zoneLevel, f: formatParam(TILE_FORMATS.map((f) => F_VALUE[f]), 'Tile format (only mvt)') });

export const TileLink = z
  .object({ href: z.string(), rel: z.string(), type: z.string().nullish(), title: z.string().nullish(), templated: z.boolean().optional() })
  .openapi('TileLink');
export type TileLink = z.infer<typeof TileLink>;

const TileMatrixLimits = z
  .object({ tileMatrix: z.string(), minTileRow: z.number().int(), maxTileRow: z.number().int(), minTileCol: z.number().int(), maxTileCol: z.number().int() })
  .openapi('TileMatrixLimits');

export const TileSetResponse = z
  .object({
    title: z.string().optional(),
    description: z.string().optional(),
    dataType: z.enum(['vector', 'map', 'coverage']),
    crs: z.string(),
    tileMatrixSetURI: z.string(),
    tileMatrixSetLimits: z.array(TileMatrixLimits).optional(),
    boundingBox: z.object({ lowerLeft: z.array(z.number()), upperRight: z.array(z.number()), crs: z.string() }).optional(),
    layers: z.array(z.object({ id: z.string(), dataType: z.string(), geometryDimension: z.number().int().optional(), minTileMatrix: z.string().optional(), maxTileMatrix: z.string().optional(), propertiesSchema: z.record(z.string(), z.unknown()).optional() })).optional(),
    links: z.array(TileLink),
  })
  .openapi('TileSet', { description: 'OGC 17-083r4 TileSet metadata; with f=tilejson, TileJSON 3.0.0' });

export const TileSetsResponse = z
  .object({
    tilesets: z.array(z.object({ title: z.string().optional(), dataType: z.string(), crs: z.string(), tileMatrixSetURI: z.string(), links: z.array(TileLink) })),
    links: z.array(TileLink),
  })
  .openapi('TileSets');

export const TileMatrixSetsResponse = z
  .object({ tileMatrixSets: z.array(z.object({ id: z.string(), title: z.string(), uri: z.string(), links: z.array(TileLink) })) })
  .openapi('TileMatrixSets');

export const TileMatrixSetResponse = z
  .object({ id: z.string(), title: z.string(), uri: z.string(), crs: z.string(), orderedAxes: z.array(z.string()), tileMatrices: z.array(z.record(z.string(), z.unknown())) })
  .openapi('TileMatrixSet', { description: 'OGC 17-083r4 TileMatrixSet (JSON encoding)' });
