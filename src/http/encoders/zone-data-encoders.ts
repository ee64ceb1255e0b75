import type { Format } from '../formats.js';
import { mediaType } from '../formats.js';
import type { ZoneDataEncoder } from './zone-data-context.js';
import { collect } from './zone-data-chunks.js';
import { dggsJsonPieces } from './zone-data-dggs-json.js';
import { zoneDataGeoJsonPieces } from './zone-data-geojson.js';
import { zoneDataHtml } from './zone-data-html.js';
import { zoneDataParquet } from './zone-data-parquet.js';
import { zoneDataUbjson } from './zone-data-ubjson.js';

/** The zone-data formats and their encoders, in one table: the route offers exactly these. */
export const ZONE_DATA_ENCODERS: Partial<Record<Format, ZoneDataEncoder>> = {
  'dggs-json': async (data, ctx) => ({ contentType: mediaType('dggs-json'), body: await collect(dggsJsonPieces(data, ctx)) }),
  json: async (data, ctx) => ({ contentType: mediaType('json'), body: await collect(dggsJsonPieces(data, ctx)) }),
  'dggs-ubjson': async (data, ctx) => ({ contentType: mediaType('dggs-ubjson'), body: await zoneDataUbjson(data, ctx) }),
  ubjson: async (data, ctx) => ({ contentType: mediaType('ubjson'), body: await zoneDataUbjson(data, ctx) }),
  geojson: async (data, ctx) => ({ contentType: mediaType('geojson'), body: await collect(zoneDataGeoJsonPieces(data, ctx)) }),
  html: zoneDataHtml,
  parquet: (data, ctx) => zoneDataParquet(data, ctx, false),
  geoparquet: (data, ctx) => zoneDataParquet(data, ctx, true),
};

export const ZONE_DATA_FORMATS = Object.keys(ZONE_DATA_ENCODERS) as Format[];
