import type { Format } from '../formats.js';
import { mediaType } from '../formats.js';
import type { ZoneDataEncoder } from './zone-data-context.js';
import { dggsJsonBody } from './zone-data-dggs-json.js';
import { zoneDataGeoJson } from './zone-data-geojson.js';
import { zoneDataHtml } from './zone-data-html.js';
import { zoneDataParquet } from './zone-data-parquet.js';

/** The zone-data formats and their encoders, in one table: the route offers exactly these. */
export const ZONE_DATA_ENCODERS: Partial<Record<Format, ZoneDataEncoder>> = {
  'dggs-json': (data, ctx) => ({ contentType: mediaType('dggs-json'), body: dggsJsonBody(data, ctx) }),
  json: (data, ctx) => ({ contentType: mediaType('json'), body: dggsJsonBody(data, ctx) }),
  geojson: (data, ctx) => ({ contentType: mediaType('geojson'), body: zoneDataGeoJson(data, ctx) }),
  html: zoneDataHtml,
  parquet: (data, ctx) => zoneDataParquet(data, ctx, false),
  geoparquet: (data, ctx) => zoneDataParquet(data, ctx, true),
};

export const ZONE_DATA_FORMATS = Object.keys(ZONE_DATA_ENCODERS) as Format[];
